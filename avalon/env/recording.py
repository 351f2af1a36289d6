"""Recording episodes to a file and replaying them to identical observations.

An episode file (``.npz``, readable with ``numpy.load``) holds:

- ``meta``: a JSON string: ``format_version``, ``protocol_version``, ``action_space``,
  ``resolution``, ``renderer``, ``episode_seed``, ``frames`` (steps taken), and ``world``
  (``task``, ``difficulty``, ``seed``, ``content_hash`` and the original ``path``).
- ``actions``: float32 ``(frames, action_size)``, each step's action in the flat layout of
  ``docs/spaces.md`` (binary parts as 0 or 1).
- ``rewards``: float32 ``(frames,)``.
- ``observation_sha256``: uint8 ``(frames + 1, 32)``, the SHA-256 of every observation, the
  reset observation first (see :func:`observation_digest`).
- ``world_tar``: uint8 bytes of a gzipped tar of the world folder, so the file is self-contained.

Replay needs the same renderer and the same Godot and Mesa builds to reproduce bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tarfile
from pathlib import Path
from typing import Any

import attr
import gymnasium as gym
import numpy as np

from avalon.env import protocol
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.spaces import ActionCodec
from avalon.env.temp_folders import make_temp_folder

RECORDING_FORMAT_VERSION = 1


def observation_digest(observation: dict[str, np.ndarray]) -> bytes:
    """SHA-256 over every key and array of an observation, in sorted key order."""
    digest = hashlib.sha256()
    for key in sorted(observation):
        digest.update(key.encode())
        digest.update(np.ascontiguousarray(observation[key]).tobytes())
    return digest.digest()


def _tar_folder(folder: Path) -> np.ndarray:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                tar.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False)
    return np.frombuffer(buffer.getvalue(), np.uint8)


class RecordEpisodes(gym.Wrapper):
    """Writes every episode of an :class:`AvalonEnv` to ``directory/episode-NNNNN.npz``.

    An episode is written when it ends, or when ``reset()``/``close()`` cuts it short.
    ``self.last_path`` is the file written most recently.
    """

    def __init__(self, env: gym.Env, directory: str | os.PathLike) -> None:
        super().__init__(env)
        if not isinstance(env.unwrapped, AvalonEnv):
            raise TypeError("RecordEpisodes wraps an AvalonEnv")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.last_path: Path | None = None
        self._codec = ActionCodec(env.unwrapped.config.action_space)
        self._episode_index = 0
        self._actions: list[np.ndarray] = []
        self._rewards: list[float] = []
        self._digests: list[bytes] = []
        self._recording = False

    def reset(self, **kwargs: Any):
        self._flush()
        observation, info = self.env.reset(**kwargs)
        self._actions, self._rewards, self._digests = [], [], [observation_digest(observation)]
        self._recording = True
        return observation, info

    def step(self, action: Any):
        observation, reward, terminated, truncated, info = self.env.step(action)
        if self._recording:
            self._actions.append(self._codec.encode(action))
            self._rewards.append(reward)
            self._digests.append(observation_digest(observation))
            if terminated or truncated:
                self._flush()
        return observation, reward, terminated, truncated, info

    def close(self) -> None:
        self._flush()
        super().close()

    def _flush(self) -> None:
        if not self._recording:
            return
        self._recording = False
        env: AvalonEnv = self.env.unwrapped
        world = env.world
        meta = {
            "format_version": RECORDING_FORMAT_VERSION,
            "protocol_version": protocol.PROTOCOL_VERSION,
            "action_space": env.config.action_space,
            "resolution": env.config.resolution,
            "renderer": env.config.renderer,
            "episode_seed": env.episode_seed,
            "frames": len(self._actions),
            "world": {
                "task": world.task,
                "difficulty": world.difficulty,
                "seed": world.seed,
                "content_hash": world.content_hash,
                "path": str(world.path),
            },
        }
        path = self.directory / f"episode-{self._episode_index:05d}.npz"
        self._episode_index += 1
        actions = np.array(self._actions, np.float32).reshape(len(self._actions), self._codec.size)
        np.savez_compressed(
            path,
            meta=np.array(json.dumps(meta, sort_keys=True)),
            actions=actions,
            rewards=np.array(self._rewards, np.float32),
            observation_sha256=np.frombuffer(b"".join(self._digests), np.uint8).reshape(-1, 32),
            world_tar=_tar_folder(world.path),
        )
        self.last_path = path


@attr.s(frozen=True, auto_attribs=True)
class Recording:
    """An episode file, loaded."""

    meta: dict[str, Any]
    actions: np.ndarray
    rewards: np.ndarray
    observation_sha256: np.ndarray
    world_tar: bytes

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Recording":
        with np.load(path, allow_pickle=False) as data:
            missing = {"meta", "actions", "rewards", "observation_sha256", "world_tar"} - set(data.files)
            if missing:
                raise ValueError(f"{path} is not an episode file: it lacks {sorted(missing)}")
            meta = json.loads(str(data["meta"]))
            if meta.get("format_version") != RECORDING_FORMAT_VERSION:
                raise ValueError(f"{path} has format_version {meta.get('format_version')}, expected {RECORDING_FORMAT_VERSION}")
            return cls(meta, data["actions"], data["rewards"], data["observation_sha256"], data["world_tar"].tobytes())

    def extract_world(self, folder: Path) -> Path:
        with tarfile.open(fileobj=io.BytesIO(self.world_tar), mode="r:gz") as tar:
            tar.extractall(folder, filter="data")
        return folder


@attr.s(frozen=True, auto_attribs=True)
class ReplayResult:
    """``first_mismatch`` is the index of the first differing observation (0 = after reset), or None."""

    frames: int
    first_mismatch: int | None
    rewards_match: bool

    @property
    def identical(self) -> bool:
        return self.first_mismatch is None and self.rewards_match


def replay(path: str | os.PathLike, **config_overrides: Any) -> ReplayResult:
    """Replays an episode file in a fresh simulator and compares every observation's hash."""
    recording = Recording.load(path)
    meta = recording.meta
    config = EnvConfig(
        resolution=meta["resolution"], renderer=meta["renderer"], action_space=meta["action_space"], **config_overrides
    )
    codec = ActionCodec(meta["action_space"])
    work = make_temp_folder("replay")
    env = AvalonEnv(config)
    try:
        world_dir = recording.extract_world(work / "world")
        observation, _ = env.reset(options={"world_dir": str(world_dir), "episode_seed": meta["episode_seed"]})
        first_mismatch = None if observation_digest(observation) == recording.observation_sha256[0].tobytes() else 0
        rewards_match = True
        frames = 0
        for index, vector in enumerate(recording.actions, start=1):
            if first_mismatch is not None:
                break
            observation, reward, _, _, _ = env.step(codec.decode(vector))
            frames = index
            if observation_digest(observation) != recording.observation_sha256[index].tobytes():
                first_mismatch = index
            rewards_match = rewards_match and np.float32(reward) == recording.rewards[index - 1]
        return ReplayResult(frames, first_mismatch, bool(rewards_match))
    finally:
        env.close()
        shutil.rmtree(work, ignore_errors=True)
