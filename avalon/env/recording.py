"""Recording episodes to a file and replaying them to identical observations.

An episode file (``.npz``, readable with ``numpy.load``; ``vr_data/README.md`` is the full
format) holds everything that determines the observations: the settings the env ran with
(renderer, resolution, action space, training or evaluation mode, C_move), the time limit and
seed the episode's RESET carried, the world folder itself (``world_tar``), every action, and
per observation the SHA-256 of the RGBD frame plus the proprioceptive vectors themselves, so that
a replay that differs can say which observation and which keys differ.

Replay needs the same renderer and the same Godot and Mesa builds to reproduce bytes.
Version 1 files (one digest per observation; no mode or time limit) still replay as they were
recorded: in training mode with the default C_move and the world's own time limit.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

import attr
import gymnasium as gym
import numpy as np

from avalon.datagen.export import content_hash
from avalon.datagen.world_folder import read_world_info
from avalon.env import protocol
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.errors import AvalonError, WorldLoadError
from avalon.env.paths import find_godot_binary
from avalon.env.spaces import RGBD_KEY, ActionCodec

RECORDING_FORMAT_VERSION = 2
SUPPORTED_FORMAT_VERSIONS = (1, 2)
#: How an episode of a file ended: by the env (terminated, truncated at its time limit) or cut
#: short by ``reset()``/``close()`` before the env ended it.
ENDINGS = ("terminated", "truncated", "cut_short")
#: Prefix of the members holding one proprioceptive key each, e.g. ``observation/energy``.
OBSERVATION_PREFIX = "observation/"
_DIGEST_BYTES = 32
#: EnvConfig fields an episode file records; replay rebuilds the env with exactly these.
_RECORDED_CONFIG = ("resolution", "renderer", "action_space", "is_training", "movement_coefficient")


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
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                tar.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False)
    return np.frombuffer(buffer.getvalue(), np.uint8)


class RecordEpisodes(gym.Wrapper):
    """Writes every episode of an :class:`AvalonEnv` to ``directory/episode-NNNNN.npz``.

    An episode is written when it ends, or when ``reset()``/``close()`` cuts it short.
    ``self.last_path`` is the file written most recently. Per step it keeps the action, the
    reward, the RGBD frame's SHA-256 and the proprioceptive vectors (about 300 bytes).
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
        self._vectors: list[np.ndarray] = []
        self._keys: list[str] = []
        self._recording = False

    def reset(self, **kwargs: Any):
        self._flush("cut_short")
        observation, info = self.env.reset(**kwargs)
        self._keys = sorted(key for key in observation if key != RGBD_KEY)
        self._actions, self._rewards = [], []
        self._digests, self._vectors = [], []
        self._keep(observation)
        self._recording = True
        return observation, info

    def step(self, action: Any):
        observation, reward, terminated, truncated, info = self.env.step(action)
        if self._recording:
            self._actions.append(self._codec.encode(action))
            self._rewards.append(reward)
            self._keep(observation)
            if terminated or truncated:
                self._flush("terminated" if terminated else "truncated")
        return observation, reward, terminated, truncated, info

    def close(self) -> None:
        self._flush("cut_short")
        super().close()

    def _keep(self, observation: dict[str, np.ndarray]) -> None:
        self._digests.append(rgbd_digest(observation[RGBD_KEY]))
        self._vectors.append(np.concatenate([observation[key] for key in self._keys]))

    def _flush(self, ending: str) -> None:
        if not self._recording:
            return
        self._recording = False
        env: AvalonEnv = self.env.unwrapped
        world = env.world
        meta = {
            "format_version": RECORDING_FORMAT_VERSION,
            "protocol_version": protocol.PROTOCOL_VERSION,
            **{name: getattr(env.config, name) for name in _RECORDED_CONFIG},
            "time_limit_frames": env.episode_time_limit_frames,
            "episode_seed": env.episode_seed,
            "frames": len(self._actions),
            "ending": ending,
            "world": {
                "task": world.task,
                "difficulty": world.difficulty,
                "seed": world.seed,
                "content_hash": world.content_hash,
                "path": str(world.path),
            },
        }
        version = godot_version(env.config.godot_binary)
        if version is not None:
            meta["godot_version"] = version
        members = {
            "meta": np.array(json.dumps(meta, sort_keys=True)),
            "actions": np.array(self._actions, np.float32).reshape(len(self._actions), self._codec.size),
            "rewards": np.array(self._rewards, np.float32),
            "rgbd_sha256": np.frombuffer(b"".join(self._digests), np.uint8).reshape(-1, _DIGEST_BYTES),
            "world_tar": _tar_folder(world.path),
        }
        vectors = np.stack(self._vectors)
        offset = 0
        for key in self._keys:
            size = self.env.observation_space[key].shape[0]
            members[OBSERVATION_PREFIX + key] = vectors[:, offset : offset + size]
            offset += size
        path = self.directory / f"episode-{self._episode_index:05d}.npz"
        self._episode_index += 1
        partial = path.with_name(path.name + ".partial")  # a crash mid-write leaves no truncated .npz
        with open(partial, "wb") as file:
            np.savez_compressed(file, **members)
        os.replace(partial, path)
        self.last_path = path


# ---------------------------------------------------------------------- loading and checking

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
        recorded = {name: self.meta[name] for name in _RECORDED_CONFIG if name in self.meta}
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
            _check_array(path, "observation_sha256", self.observation_sha256, np.uint8, (frames + 1, _DIGEST_BYTES))
        else:
            _check_array(path, "rgbd_sha256", self.rgbd_sha256, np.uint8, (frames + 1, _DIGEST_BYTES))
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
        whose files do not match its ``world.json`` content hash, or one that is not the recorded world.
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
        info = read_world_info(folder)
        actual = content_hash(folder)
        if actual != info.content_hash:
            raise WorldLoadError(
                f"the world inside {source} is corrupt: its files hash to {actual}, its world.json says {info.content_hash}"
            )
        recorded = self.meta["world"]["content_hash"]
        if actual != recorded:
            raise WorldLoadError(f"the world inside {source} hashes to {actual}, not to the recorded {recorded}")
        return folder


# ---------------------------------------------------------------------- replay


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ReplayResult:
    """What a replay found. Observation indices count from 0 (the reset observation); observation
    ``i`` follows step ``i``.

    ``first_mismatch``: the first observation that differs (None: all match); the replay stops
    there. ``differences``: what differs in it, one line per key (version 1 files only know that
    the whole observation differs). ``first_reward_mismatch``: the first step whose reward
    differs, described in ``reward_difference``. ``ending_difference``: the replayed episode
    ended otherwise than the recorded one (sooner, later, or differently). ``notes``: settings
    that differ from the recording's (a chosen renderer, another Godot or protocol version).
    """

    frames: int
    recorded_frames: int
    first_mismatch: int | None = None
    differences: tuple[str, ...] = ()
    first_reward_mismatch: int | None = None
    reward_difference: str | None = None
    ending_difference: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def rewards_match(self) -> bool:
        return self.first_reward_mismatch is None

    @property
    def identical(self) -> bool:
        return self.first_mismatch is None and self.rewards_match and self.ending_difference is None

    @property
    def differing_keys(self) -> tuple[str, ...]:
        """Observation keys that differ in ``first_mismatch`` (empty for version 1 files)."""
        return tuple(line.split(":", 1)[0] for line in self.differences if not line.startswith("("))

    def describe(self) -> str:
        """A few lines for people: identical, or what differed where; then the notes."""
        lines = []
        if self.identical:
            lines.append(f"identical: {self.frames} steps replayed to the same observation bytes and rewards")
        else:
            if self.first_mismatch is not None:
                lines.append(
                    f"DIFFERENT: observation {self.first_mismatch} of {self.recorded_frames} differs "
                    f"(0 = after reset); the replay stopped there"
                )
                lines += [f"  {line}" for line in self.differences]
            if self.reward_difference is not None:
                lines.append(f"DIFFERENT: {self.reward_difference}")
            if self.ending_difference is not None:
                lines.append(f"DIFFERENT: {self.ending_difference}")
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)


def _values(array: np.ndarray) -> str:
    text = ", ".join(f"{value:.9g}" for value in array.tolist())
    return text if array.size == 1 else f"[{text}]"


def _compare(recording: Recording, index: int, observation: dict[str, np.ndarray]) -> tuple[str, ...]:
    """What differs between recorded observation ``index`` and ``observation``; empty if nothing."""
    if recording.format_version == 1:
        if observation_digest(observation) == recording.observation_sha256[index].tobytes():
            return ()
        return ("(the observation's SHA-256 differs; a version-1 file keeps no more to say which key)",)
    differences = []
    if rgbd_digest(observation[RGBD_KEY]) != recording.rgbd_sha256[index].tobytes():
        differences.append(f"{RGBD_KEY}: the frame differs (its SHA-256; the file keeps no pixels)")
    for key in sorted(set(recording.observations) | set(observation) - {RGBD_KEY}):
        if key not in observation:
            differences.append(f"{key}: recorded, but this simulator does not observe it")
            continue
        if key not in recording.observations:
            differences.append(f"{key}: observed, but not in the recording")
            continue
        recorded, replayed = recording.observations[key][index], np.asarray(observation[key], np.float32)
        if recorded.tobytes() != replayed.tobytes():
            if recorded.shape == replayed.shape:
                gap = float(np.max(np.abs(recorded.astype(np.float64) - replayed)))
                differences.append(f"{key}: recorded {_values(recorded)}, replayed {_values(replayed)} (max |difference| {gap:.3g})")
            else:
                differences.append(f"{key}: recorded {recorded.size} values, replayed {replayed.size}")
    return tuple(differences)


def _setting_notes(recording: Recording, config: EnvConfig) -> tuple[str, ...]:
    meta, notes = recording.meta, []
    for name in _RECORDED_CONFIG:
        recorded = meta.get(name, getattr(EnvConfig(), name))
        if getattr(config, name) != recorded:
            notes.append(f"{name}: replayed with {getattr(config, name)!r}, recorded with {recorded!r}")
    if meta["protocol_version"] != protocol.PROTOCOL_VERSION:
        notes.append(f"protocol version {protocol.PROTOCOL_VERSION} replays a recording of version {meta['protocol_version']}")
    recorded_godot, godot = meta.get("godot_version"), godot_version(config.godot_binary)
    if recorded_godot is not None and godot is not None and recorded_godot != godot:
        notes.append(f"Godot {godot} replays a recording made with Godot {recorded_godot}")
    return tuple(notes)


def _ending(terminated: bool, truncated: bool) -> str | None:
    return "terminated" if terminated else "truncated" if truncated else None


def replay(path: str | os.PathLike, **config_overrides: Any) -> ReplayResult:
    """Replays an episode file in a fresh simulator and compares every observation and reward.

    The env is rebuilt exactly as recorded (:meth:`Recording.env_config`); ``config_overrides``
    change ``EnvConfig`` fields (e.g. ``renderer="GLES3"``), and the result's ``notes`` name any
    recorded setting they change. Raises :class:`EpisodeFileError` for a bad file,
    :class:`WorldLoadError` for a world inside it that is refused, and ``SimulatorError`` when
    the simulator fails.
    """
    recording = Recording.load(path)
    meta = recording.meta
    if config_overrides.get("action_space", meta["action_space"]) != meta["action_space"]:
        raise ValueError(f"action_space={config_overrides['action_space']!r}: the recorded actions are {meta['action_space']!r} actions")
    config = recording.env_config(**config_overrides)
    notes = _setting_notes(recording, config)
    codec = ActionCodec(meta["action_space"])
    work = Path(tempfile.mkdtemp(prefix="avalon-replay-"))
    env = AvalonEnv(config)
    try:
        world_dir = recording.extract_world(work / "world")
        observation, _ = env.reset(options=recording.reset_options(world_dir))
        differences = _compare(recording, 0, observation)
        first_mismatch = 0 if differences else None
        first_reward_mismatch = reward_difference = ending_difference = None
        frames, ending = 0, None
        for index, vector in enumerate(recording.actions, start=1):
            if first_mismatch is not None:
                break
            if ending is not None:
                ending_difference = f"the replayed episode {ending} after {frames} steps; the recording has {recording.frames}"
                break
            observation, reward, terminated, truncated, _ = env.step(codec.decode(vector))
            frames, ending = index, _ending(terminated, truncated)
            differences = _compare(recording, index, observation)
            if differences:
                first_mismatch = index
            if first_reward_mismatch is None and np.float32(reward).tobytes() != recording.rewards[index - 1].tobytes():
                first_reward_mismatch = index
                reward_difference = (
                    f"the reward of step {index} is {np.float32(reward):.9g}, recorded {recording.rewards[index - 1]:.9g}"
                )
        recorded_ending = meta.get("ending")
        if ending_difference is None and first_mismatch is None and frames == recording.frames:
            if recorded_ending in ("terminated", "truncated") and ending != recorded_ending:
                ending_difference = f"the recorded episode {recorded_ending} after {frames} steps, the replayed one {ending or 'did not end'}"
            elif recorded_ending == "cut_short" and ending is not None:
                ending_difference = f"the replayed episode {ending} after {frames} steps; the recording was cut short there, not ended"
        return ReplayResult(
            frames=frames,
            recorded_frames=recording.frames,
            first_mismatch=first_mismatch,
            differences=differences if first_mismatch is not None else (),
            first_reward_mismatch=first_reward_mismatch,
            reward_difference=reward_difference,
            ending_difference=ending_difference,
            notes=notes,
        )
    finally:
        env.close()
        shutil.rmtree(work, ignore_errors=True)
