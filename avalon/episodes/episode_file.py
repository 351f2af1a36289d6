"""The episode file format (``.npz``): writing, loading and checking; ``vr_data/README.md`` documents it.

An episode file keeps everything that determines the observations: the settings the env ran with
(renderer, resolution, action space, training or evaluation mode, C_move), the time limit and
seed the episode's RESET carried, the world folder itself (``world_tar``), every action and
reward, and per observation the SHA-256 of the RGBD frame plus the proprioceptive vectors. Files
come from other people: :meth:`Recording.load` checks every member before use and
:meth:`Recording.extract_world` unpacks the world as plain files and checks its content hash.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import subprocess
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

import attr
import numpy as np

from avalon.datagen.world_folder import read_world_info
from avalon.env.config import EnvConfig
from avalon.env.spaces import ActionCodec
from avalon.errors import AvalonError, WorldLoadError
from avalon.sim.paths import find_godot_binary

RECORDING_FORMAT_VERSION = 2
SUPPORTED_FORMAT_VERSIONS = (1, 2)
#: How an episode of a file ended: by the env (terminated, truncated at its time limit) or cut
#: short by ``reset()``/``close()`` before the env ended it.
ENDINGS = ("terminated", "truncated", "cut_short")
#: Prefix of the members holding one proprioceptive key each, e.g. ``observation/energy``.
OBSERVATION_PREFIX = "observation/"
DIGEST_BYTES = 32
#: EnvConfig fields an episode file records; replay rebuilds the env with exactly these.
RECORDED_CONFIG = ("resolution", "renderer", "action_space", "is_training", "movement_coefficient")


class EpisodeFileError(AvalonError, ValueError):
    """A file is missing, unreadable, truncated or not an episode file; the message says which and why."""


def observation_digest(observation: dict[str, np.ndarray]) -> bytes:
    """SHA-256 over every key and array of an observation, in sorted key order (version 1 files)."""
    digest = hashlib.sha256()
    for key in sorted(observation):
        digest.update(key.encode())
        digest.update(np.ascontiguousarray(observation[key]).tobytes())
    return digest.digest()


def rgbd_digest(rgbd: np.ndarray) -> bytes:
    """SHA-256 of an RGBD frame's bytes (rows top-down, channels interleaved), as version 2 files keep it."""
    return hashlib.sha256(np.ascontiguousarray(rgbd)).digest()


@functools.lru_cache(maxsize=8)
def godot_version(binary: str = "godot3-runner") -> str | None:
    """``godot --version`` of the binary the simulator runs (e.g. ``3.2.3.stable.custom_build``),
    or None when it cannot be found or asked; asked once per binary and process."""
    try:
        done = subprocess.run(
            [find_godot_binary(binary), "--version"], stdin=subprocess.DEVNULL, capture_output=True, timeout=30
        )
    except (AvalonError, OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.decode("utf-8", "replace").split()
    return lines[0] if lines else None


def _tar_folder(folder: Path) -> np.ndarray:
    """A gzipped tar of the files of a (flat) world folder."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.iterdir()):
            if path.is_file():
                tar.add(path, arcname=path.name, recursive=False)
    return np.frombuffer(buffer.getvalue(), np.uint8)


def write_episode_file(
    path: Path,
    meta: dict[str, Any],
    actions: np.ndarray,
    rewards: np.ndarray,
    rgbd_sha256: np.ndarray,
    observations: dict[str, np.ndarray],
    world_dir: Path,
) -> None:
    """Writes a version 2 episode file; a crash mid-write leaves no truncated file at ``path``."""
    members = {
        "meta": np.array(json.dumps(meta, sort_keys=True)),
        "actions": actions,
        "rewards": rewards,
        "rgbd_sha256": rgbd_sha256,
        "world_tar": _tar_folder(world_dir),
        **{OBSERVATION_PREFIX + key: values for key, values in observations.items()},
    }
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as file:
        np.savez_compressed(file, **members)
    os.replace(partial, path)


_META_TYPES = {
    "format_version": int,
    "protocol_version": int,
    "action_space": str,
    "resolution": int,
    "renderer": str,
    "episode_seed": int,
    "frames": int,
    "world": dict,
}
_META_TYPES_V2 = {
    **_META_TYPES,
    "is_training": bool,
    "movement_coefficient": (int, float),
    "time_limit_frames": int,
    "ending": str,
}
_WORLD_META_TYPES = {"task": str, "difficulty": (int, float), "seed": int, "content_hash": str, "path": str}
_MEMBERS = {"meta", "actions", "rewards", "world_tar"}
_MEMBERS_BY_VERSION = {1: _MEMBERS | {"observation_sha256"}, 2: _MEMBERS | {"rgbd_sha256"}}


def _type_ok(value: Any, expected: type | tuple[type, ...]) -> bool:
    if expected is bool:
        return isinstance(value, bool)
    return isinstance(value, expected) and not isinstance(value, bool)


def _check_fields(path: Path, where: str, mapping: dict, types: dict) -> None:
    for key, expected in types.items():
        if key not in mapping:
            raise EpisodeFileError(f"{path}: {where} lacks {key!r}")
        if not _type_ok(mapping[key], expected):
            names = " or ".join(t.__name__ for t in (expected if isinstance(expected, tuple) else (expected,)))
            raise EpisodeFileError(f"{path}: {where}[{key!r}] is {mapping[key]!r}, expected {names}")


def _check_array(path: Path, name: str, array: np.ndarray, dtype: type, shape: tuple) -> None:
    if array.dtype != dtype or array.shape != shape:
        raise EpisodeFileError(
            f"{path}: {name} is {array.dtype} {array.shape}, expected {np.dtype(dtype)} {shape}"
        )


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Recording:
    """An episode file, loaded and checked (:meth:`load`).

    ``rgbd_sha256`` and ``observations`` (proprioceptive key -> float32 ``(frames + 1, size)``)
    are set for version 2 files; ``observation_sha256`` (one digest of each whole observation)
    for version 1 files.
    """

    meta: dict[str, Any]
    actions: np.ndarray
    rewards: np.ndarray
    world_tar: bytes
    rgbd_sha256: np.ndarray | None = None
    observations: dict[str, np.ndarray] = attr.Factory(dict)
    observation_sha256: np.ndarray | None = None
    path: Path | None = None

    @property
    def format_version(self) -> int:
        return self.meta["format_version"]

    @property
    def frames(self) -> int:
        """Steps in the episode (observations: one more)."""
        return self.meta["frames"]

    def env_config(self, **overrides: Any) -> EnvConfig:
        """The ``EnvConfig`` the episode was recorded with (version 1: training mode, default C_move)."""
        recorded = {name: self.meta[name] for name in RECORDED_CONFIG if name in self.meta}
        return EnvConfig(**{**recorded, **overrides})

    def reset_options(self, world_dir: str | os.PathLike) -> dict[str, Any]:
        """The ``reset()`` options that start the recorded episode in ``world_dir``."""
        options: dict[str, Any] = {"world_dir": str(world_dir), "episode_seed": self.meta["episode_seed"]}
        if "time_limit_frames" in self.meta:  # version 1 files ran with the world's own limit
            options["time_limit_frames"] = self.meta["time_limit_frames"]
        return options

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Recording":
        """Reads and checks an episode file; raises :class:`EpisodeFileError` saying what is wrong."""
        path = Path(path)
        try:
            data = np.load(path, allow_pickle=False)
            if not isinstance(data, np.lib.npyio.NpzFile):
                raise EpisodeFileError(f"{path} is not an episode file: it holds one array, not a .npz archive")
            with data:
                return cls._from_members(path, data)
        except EpisodeFileError:
            raise
        except FileNotFoundError:
            raise EpisodeFileError(f"episode file {path} does not exist") from None
        except IsADirectoryError:
            raise EpisodeFileError(f"episode file {path} is a folder") from None
        except (zipfile.BadZipFile, zlib.error, EOFError) as error:
            raise EpisodeFileError(f"{path} is truncated or corrupt: {error}") from None
        except OSError as error:
            raise EpisodeFileError(f"{path} could not be read: {error}") from None
        except ValueError as error:  # numpy: not a .npy/.npz, pickled data, a short or bad member
            raise EpisodeFileError(f"{path} is not an episode file, or is truncated: {error}") from None

    @classmethod
    def _from_members(cls, path: Path, data: Any) -> "Recording":
        if "meta" not in data.files:
            raise EpisodeFileError(f"{path} is not an episode file: it has no 'meta' member (it has {sorted(data.files)})")
        meta_array = data["meta"]
        if meta_array.shape != () or meta_array.dtype.kind != "U":
            raise EpisodeFileError(f"{path}: meta is {meta_array.dtype} {meta_array.shape}, expected a 0-d string")
        try:
            meta = json.loads(str(meta_array))
        except json.JSONDecodeError as error:
            raise EpisodeFileError(f"{path}: meta is not valid JSON: {error}") from None
        if not isinstance(meta, dict):
            raise EpisodeFileError(f"{path}: meta must be a JSON object, not {type(meta).__name__}")
        version = meta.get("format_version")
        if version not in SUPPORTED_FORMAT_VERSIONS or isinstance(version, bool):
            raise EpisodeFileError(
                f"{path} has format_version {version!r}; this version reads {', '.join(map(str, SUPPORTED_FORMAT_VERSIONS))}"
            )
        missing = _MEMBERS_BY_VERSION[version] - set(data.files)
        if missing:
            raise EpisodeFileError(f"{path} is not a version-{version} episode file: it lacks {sorted(missing)}")
        _check_fields(path, "meta", meta, _META_TYPES_V2 if version == 2 else _META_TYPES)
        _check_fields(path, "meta['world']", meta["world"], _WORLD_META_TYPES)
        frames = meta["frames"]
        if frames < 0:
            raise EpisodeFileError(f"{path}: meta['frames'] is {frames}, expected >= 0")
        if not 0 <= meta["episode_seed"] < 2**63:
            raise EpisodeFileError(f"{path}: meta['episode_seed'] is {meta['episode_seed']}, expected an int in [0, 2**63)")
        if version == 2:
            if meta["ending"] not in ENDINGS:
                raise EpisodeFileError(f"{path}: meta['ending'] is {meta['ending']!r}, expected one of {ENDINGS}")
            if not 0 < meta["time_limit_frames"] <= 10**7:
                raise EpisodeFileError(f"{path}: meta['time_limit_frames'] is {meta['time_limit_frames']}, expected 1 to 10**7")
        recording = cls(
            meta=meta,
            actions=data["actions"],
            rewards=data["rewards"],
            world_tar=data["world_tar"].tobytes(),
            rgbd_sha256=data["rgbd_sha256"] if version == 2 else None,
            observations={
                name[len(OBSERVATION_PREFIX):]: data[name] for name in data.files if name.startswith(OBSERVATION_PREFIX)
            },
            observation_sha256=data["observation_sha256"] if version == 1 else None,
            path=path,
        )
        recording._check_arrays(data["world_tar"])
        return recording

    def _check_arrays(self, world_tar: np.ndarray) -> None:
        path, frames = self.path, self.frames
        try:
            config = self.env_config()
        except ValueError as error:
            raise EpisodeFileError(f"{path}: meta holds a setting the env refuses: {error}") from None
        codec = ActionCodec(config.action_space)
        _check_array(path, "actions", self.actions, np.float32, (frames, codec.size))
        _check_array(path, "rewards", self.rewards, np.float32, (frames,))
        _check_array(path, "world_tar", world_tar, np.uint8, (world_tar.size,))
        if self.format_version == 1:
            _check_array(path, "observation_sha256", self.observation_sha256, np.uint8, (frames + 1, DIGEST_BYTES))
        else:
            _check_array(path, "rgbd_sha256", self.rgbd_sha256, np.uint8, (frames + 1, DIGEST_BYTES))
        for key, values in self.observations.items():
            if values.dtype != np.float32 or values.ndim != 2 or values.shape[0] != frames + 1:
                raise EpisodeFileError(
                    f"{path}: {OBSERVATION_PREFIX}{key} is {values.dtype} {values.shape}, expected float32 ({frames + 1}, size)"
                )
        for index, vector in enumerate(self.actions):
            try:
                same = np.array_equal(codec.encode(codec.decode(vector)), vector)
            except ValueError as error:
                raise EpisodeFileError(f"{path}: the action of step {index + 1} is refused: {error}") from None
            if not same:
                raise EpisodeFileError(
                    f"{path}: the action of step {index + 1} holds a binary part that is neither 0 nor 1: {vector.tolist()}"
                )

    def extract_world(self, folder: Path) -> Path:
        """Unpacks the world folder into ``folder`` and checks it is the world that was recorded.

        Raises :class:`WorldLoadError` for anything but plain files, a corrupt archive, a folder
        that :func:`~avalon.datagen.world_folder.read_world_info` refuses (its files, values,
        content hash or scene), or one that is not the recorded world.
        """
        source = self.path or "the episode file"
        try:
            with tarfile.open(fileobj=io.BytesIO(self.world_tar), mode="r:gz") as tar:
                members = tar.getmembers()
                for member in members:
                    if not member.isfile() or "/" in member.name or member.name in ("", ".", ".."):
                        raise WorldLoadError(
                            f"the world inside {source} is refused: {member.name!r} is not a plain file of a world folder"
                        )
                folder.mkdir(parents=True, exist_ok=True)
                tar.extractall(folder, members=members, filter="data")
        except (tarfile.TarError, EOFError, OSError, zlib.error) as error:
            raise WorldLoadError(f"the world inside {source} is corrupt: {error}") from None
        try:
            info = read_world_info(folder)  # files, world.json, content hash and world.tscn
        except WorldLoadError as error:
            raise WorldLoadError(f"the world inside {source} is refused: {error}") from None
        recorded = self.meta["world"]["content_hash"]
        if info.content_hash != recorded:
            raise WorldLoadError(f"the world inside {source} hashes to {info.content_hash}, not to the recorded {recorded}")
        return folder
