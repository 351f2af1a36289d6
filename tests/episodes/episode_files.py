"""Helpers of the episode-file tests: record a real episode, read its members, change them, save."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from avalon import AvalonEnv
from avalon.episodes.recording import RecordEpisodes


def record_random_episode(directory: Path, world_dir: Path, steps: int, seed: int, **config) -> Path:
    """The file of a real episode of ``steps`` random actions in ``world_dir`` (GLES2 unless
    ``config`` says otherwise), cut short by ``close()``."""
    env = RecordEpisodes(AvalonEnv(**{"renderer": "GLES2", **config}, world_dir=str(world_dir)), directory)
    env.action_space.seed(seed)
    try:
        env.reset(seed=seed)
        for _ in range(steps):
            env.step(env.action_space.sample())
    finally:
        env.close()
    return env.last_path


def members(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {key: data[key] for key in data.files}


def save(path: Path, parts: dict[str, np.ndarray]) -> Path:
    np.savez_compressed(path, **parts)
    return path


def world_files(parts: dict[str, np.ndarray]) -> dict[str, bytes]:
    """The files of the world folder inside an episode file's members, by name."""
    with tarfile.open(fileobj=io.BytesIO(parts["world_tar"].tobytes()), mode="r:gz") as tar:
        return {member.name: tar.extractfile(member).read() for member in tar.getmembers()}


def world_tar(files: dict[str, bytes]) -> np.ndarray:
    """A ``world_tar`` member holding ``files`` (names as given, even ones no exporter writes)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return np.frombuffer(buffer.getvalue(), np.uint8)


def repack_world(episode: Path, target: Path, tamper: Callable[[Path], None]) -> Path:
    """A copy of an episode file whose world holds the recorded world folder after
    ``tamper(folder)``; every other member is unchanged."""
    parts = members(episode)
    folder = target.parent / (target.stem + "-world")
    folder.mkdir()
    for name, data in world_files(parts).items():
        (folder / name).write_bytes(data)
    tamper(folder)
    parts["world_tar"] = world_tar({path.name: path.read_bytes() for path in sorted(folder.iterdir())})
    return save(target, parts)
