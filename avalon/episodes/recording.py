"""Recording episodes to episode files and replaying them to identical observations.

:class:`RecordEpisodes` writes every episode of an env to a file (the format:
:mod:`avalon.episodes.episode_file`, documented in ``vr_data/README.md``); :func:`replay` rebuilds the
env exactly as recorded, replays the actions and says what differed, if anything. Replay needs
the same renderer and the same Godot and Mesa builds to reproduce bytes. Version 1 files (one
digest per observation; no mode or time limit) still replay as they were recorded: in training
mode with the default C_move and the world's own time limit.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import attr
import gymnasium as gym
import numpy as np

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.spaces import RGBD_KEY, ActionCodec
from avalon.episodes.episode_file import (
    DIGEST_BYTES,
    OBSERVATION_PREFIX,
    RECORDED_CONFIG,
    RECORDING_FORMAT_VERSION,
    EpisodeFileError,
    Recording,
    godot_version,
    observation_digest,
    rgbd_digest,
    write_episode_file,
)
from avalon.sim import protocol
from avalon.sim.temp_folders import make_temp_folder

__all__ = [
    "OBSERVATION_PREFIX",
    "RECORDING_FORMAT_VERSION",
    "EpisodeFileError",
    "RecordEpisodes",
    "Recording",
    "ReplayResult",
    "Replayer",
    "observation_digest",
    "replay",
    "rgbd_digest",
]


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
        self._sizes: list[tuple[str, int]] = []  # (key, values) in the order of self._vectors' rows
        self._recording = False

    def reset(self, **kwargs: Any):
        self._flush("cut_short")
        observation, info = self.env.reset(**kwargs)
        self._keys = sorted(key for key in observation if key != RGBD_KEY)
        self._sizes = [(key, observation[key].size) for key in self._keys]
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
            **{name: getattr(env.config, name) for name in RECORDED_CONFIG},
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
        vectors = np.stack(self._vectors)
        observations, offset = {}, 0
        for key, size in self._sizes:
            observations[key] = vectors[:, offset : offset + size]
            offset += size
        path = self.directory / f"episode-{self._episode_index:05d}.npz"
        self._episode_index += 1
        write_episode_file(
            path,
            meta,
            actions=np.array(self._actions, np.float32).reshape(len(self._actions), self._codec.size),
            rewards=np.array(self._rewards, np.float32),
            rgbd_sha256=np.frombuffer(b"".join(self._digests), np.uint8).reshape(-1, DIGEST_BYTES),
            observations=observations,
            world_dir=world.path,
        )
        self.last_path = path


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ReplayResult:
    """What a replay found. Observation indices count from 0 (the reset observation); observation
    ``i`` follows step ``i``.

    ``first_mismatch``: the first observation that differs (None: all match); the replay stops
    there. ``differing_keys``: its keys that differ; ``differences``: what differs, one line per
    key (version 1 files only know that the whole observation differs: no keys, one line).
    ``first_reward_mismatch``: the first step whose reward differs, described in
    ``reward_difference``. ``ending_difference``: the replayed episode ended otherwise than the
    recorded one (sooner, later, or differently). ``notes``: settings that differ from the
    recording's (a chosen renderer, another Godot or protocol version).
    """

    frames: int
    recorded_frames: int
    first_mismatch: int | None = None
    differing_keys: tuple[str, ...] = ()
    differences: tuple[str, ...] = ()
    first_reward_mismatch: int | None = None
    reward_difference: str | None = None
    ending_difference: str | None = None
    notes: tuple[str, ...] = ()
    #: The replayed episode's score (Appendix M) and success at its last replayed step.
    score: float | None = None
    success: bool | None = None

    @property
    def rewards_match(self) -> bool:
        return self.first_reward_mismatch is None

    @property
    def identical(self) -> bool:
        return self.first_mismatch is None and self.rewards_match and self.ending_difference is None

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


def _compare(recording: Recording, index: int, observation: dict[str, np.ndarray]) -> dict[str, str]:
    """What differs between recorded observation ``index`` and ``observation``: key -> a line
    saying how (version 1: one line under the key ""); empty if nothing."""
    if recording.format_version == 1:
        if observation_digest(observation) == recording.observation_sha256[index].tobytes():
            return {}
        return {"": "the observation's SHA-256 differs (a version-1 file keeps no more to say which key)"}
    differences = {}
    if rgbd_digest(observation[RGBD_KEY]) != recording.rgbd_sha256[index].tobytes():
        differences[RGBD_KEY] = f"{RGBD_KEY}: the frame differs (its SHA-256; the file keeps no pixels)"
    for key in sorted(set(recording.observations) | set(observation) - {RGBD_KEY}):
        if key not in observation:
            differences[key] = f"{key}: recorded, but this simulator does not observe it"
        elif key not in recording.observations:
            differences[key] = f"{key}: observed, but not in the recording"
        else:
            recorded, replayed = recording.observations[key][index], np.asarray(observation[key], np.float32)
            if recorded.tobytes() == replayed.tobytes():
                continue
            if recorded.shape != replayed.shape:
                differences[key] = f"{key}: recorded {recorded.size} values, replayed {replayed.size}"
            else:
                gap = float(np.max(np.abs(recorded.astype(np.float64) - replayed)))
                differences[key] = f"{key}: recorded {_values(recorded)}, replayed {_values(replayed)} (max |difference| {gap:.3g})"
    return differences


def _setting_notes(recording: Recording, config: EnvConfig) -> tuple[str, ...]:
    meta, notes = recording.meta, []
    for name in RECORDED_CONFIG:
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
    with Replayer() as replayer:
        return replayer.replay(path, **config_overrides)


class Replayer:
    """Replays episode files one after another, keeping one simulator per recorded configuration
    (renderer, resolution, action space, mode) for the next file that needs it. Close it (or use it
    as a context manager) to stop the simulators."""

    def __init__(self) -> None:
        self._envs: dict[EnvConfig, AvalonEnv] = {}

    def replay(self, path: str | os.PathLike, **config_overrides: Any) -> ReplayResult:
        """As :func:`replay`, in this replayer's simulators."""
        recording = Recording.load(path)
        meta = recording.meta
        if config_overrides.get("action_space", meta["action_space"]) != meta["action_space"]:
            asked = config_overrides["action_space"]
            raise ValueError(f"action_space={asked!r}: the recorded actions are {meta['action_space']!r} actions")
        config = recording.env_config(**config_overrides)
        notes = _setting_notes(recording, config)
        codec = ActionCodec(meta["action_space"])
        work = make_temp_folder("replay")
        try:
            world_dir = recording.extract_world(work / "world")
            env = self._envs.get(config)
            if env is None:
                env = self._envs[config] = AvalonEnv(config)
            try:
                return _replay_in(env, recording, codec, world_dir, notes)
            except Exception:
                self._envs.pop(config).close()  # a failed simulator is not reused
                raise
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def close(self) -> None:
        while self._envs:
            self._envs.popitem()[1].close()

    def __enter__(self) -> "Replayer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _replay_in(
    env: AvalonEnv, recording: Recording, codec: ActionCodec, world_dir: Path, notes: tuple[str, ...]
) -> ReplayResult:
    """Steps ``env`` through the recorded episode until the first differing observation."""
    observation, info = env.reset(options=recording.reset_options(world_dir))
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
        observation, reward, terminated, truncated, info = env.step(codec.decode(vector))
        frames, ending = index, _ending(terminated, truncated)
        differences = _compare(recording, index, observation)
        if differences:
            first_mismatch = index
        recorded_reward = recording.rewards[index - 1]
        if first_reward_mismatch is None and np.float32(reward).tobytes() != recorded_reward.tobytes():
            first_reward_mismatch = index
            reward_difference = f"the reward of step {index} is {np.float32(reward):.9g}, recorded {recorded_reward:.9g}"
    recorded_ending = recording.meta.get("ending")  # version 1 files do not say
    if ending_difference is None and first_mismatch is None and frames == recording.frames:
        if recorded_ending in ("terminated", "truncated") and ending != recorded_ending:
            ending_difference = f"the recorded episode {recorded_ending} after {frames} steps, the replayed one {ending or 'did not end'}"
        elif recorded_ending == "cut_short" and ending is not None:
            ending_difference = f"the replayed episode {ending} after {frames} steps; the recording was cut short there, not ended"
    mismatch = first_mismatch is not None
    return ReplayResult(
        frames=frames,
        recorded_frames=recording.frames,
        first_mismatch=first_mismatch,
        differing_keys=tuple(key for key in differences if key) if mismatch else (),
        differences=tuple(differences.values()) if mismatch else (),
        first_reward_mismatch=first_reward_mismatch,
        reward_difference=reward_difference,
        ending_difference=ending_difference,
        notes=notes,
        score=float(info["score"]),
        success=bool(info["success"]),
    )
