"""``AvalonEnv``: the Gymnasium environment over one Godot simulator process."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attr
import gymnasium as gym
import numpy as np
from gymnasium.envs.registration import EnvSpec

from avalon.datagen.world_folder import WorldInfo, read_world_info
from avalon.env.config import EnvConfig, check_seed, check_time_limit_frames
from avalon.env.spaces import RGBD_KEY, ActionCodec, action_space, observation_space
from avalon.errors import SimulatorError
from avalon.rules.animals import ANIMAL_STATE_FIELD_COUNT, MAX_REPORTED_ANIMALS, STATE_ABSENT
from avalon.rules.mechanics import FRAME_PENALTY, INITIAL_ENERGY
from avalon.sim import protocol
from avalon.sim.simulator import Simulator
from avalon.sim.temp_folders import make_temp_folder
from avalon.tasks import generate_world, world_key

_OFFSETS = protocol.feature_offsets()
_OBSERVED = [(feature.name, _OFFSETS[feature.name], feature.size) for feature in protocol.OBSERVED_FEATURES]
_ACHIEVEMENTS = slice(_OFFSETS["achievements"], _OFFSETS["achievements"] + len(protocol.ACHIEVEMENTS))
_ANIMALS = slice(_OFFSETS["animals"], _OFFSETS["animals"] + MAX_REPORTED_ANIMALS * ANIMAL_STATE_FIELD_COUNT)


def _animals(features: np.ndarray) -> np.ndarray:
    """The ground-truth state of the world's animals: one row (x, y, z, state, hits) per animal, in
    the world's entity order, the first ``MAX_REPORTED_ANIMALS`` of them (float32, shape (n, 5))."""
    rows = features[_ANIMALS].reshape(MAX_REPORTED_ANIMALS, ANIMAL_STATE_FIELD_COUNT)
    return rows[rows[:, 3] != STATE_ABSENT].copy()


def _feature(features: np.ndarray, name: str) -> float:
    return float(features[_OFFSETS[name]])


_RESET_OPTIONS = ("world_dir", "episode_seed", "time_limit_frames")


def _check_options(options: Any) -> dict[str, Any]:
    """The reset options, checked, with ``None`` values dropped (they mean "not given")."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict with keys from {list(_RESET_OPTIONS)}, not {options!r}")
    unknown = sorted(str(key) for key in options if key not in _RESET_OPTIONS)
    if unknown:
        raise ValueError(f"unknown reset option(s) {unknown}; the options are {sorted(_RESET_OPTIONS)}")
    checked: dict[str, Any] = {}
    world_dir = options.get("world_dir")
    if world_dir is not None:
        if not isinstance(world_dir, (str, os.PathLike)):
            raise ValueError(f"reset option world_dir={world_dir!r} must be a path (str or os.PathLike)")
        checked["world_dir"] = os.fspath(world_dir)
    if options.get("episode_seed") is not None:
        checked["episode_seed"] = check_seed(options["episode_seed"], "reset option episode_seed")
    if options.get("time_limit_frames") is not None:
        checked["time_limit_frames"] = check_time_limit_frames(options["time_limit_frames"], "reset option time_limit_frames")
    return checked


def _gymnasium_make_time_limit() -> int | None:
    """The ``max_episode_steps`` of the ``TimeLimit`` that ``gymnasium.make`` is about to wrap
    around the env whose spec it is setting; None if no ``make`` is setting it or it adds none.

    ``make(..., max_episode_steps=N)`` gives the env no way to learn ``N``: it sets the env's
    spec with ``max_episode_steps=None``, then wraps the env in ``TimeLimit(N)``. So the spec
    setter reads ``N`` as make itself decides it, from make's frame (found by its code object),
    for the env to count down and truncate at the same step. tests/env/test_time_limit.py fails
    if a gymnasium release changes this.
    """
    make_code = gym.envs.registration.make.__code__
    frame = sys._getframe(1)
    for _ in range(4):  # the setter, then make (a subclass's setter may add a level or two)
        frame = frame.f_back
        if frame is None:
            return None
        if frame.f_code is make_code:
            steps = frame.f_locals.get("max_episode_steps")
            if steps is None:  # make falls back on the registered spec's
                steps = getattr(frame.f_locals.get("env_spec"), "max_episode_steps", None)
            return None if steps == -1 else steps  # -1: make adds no TimeLimit
    return None


def _all_food_eaten(features: np.ndarray) -> bool:
    total = _feature(features, "food_total")
    return total > 0 and _feature(features, "food_eaten") >= total


def _succeeded(features: np.ndarray, success_rule: str) -> bool:
    """Whether the episode so far succeeds by the world's rule (Appendix M; world.json's
    ``success_rule``): every food eaten, or for ``all_food_or_energy_gain`` also at least one
    eaten and more energy now than at the start."""
    if _all_food_eaten(features):
        return True
    return success_rule == "all_food_or_energy_gain" and _feature(features, "food_eaten") >= 1 and \
        _feature(features, "energy") > INITIAL_ENERGY


class AvalonEnv(gym.Env):
    """An embodied agent in a generated 3D world, simulated by Godot and rendered as RGBD.

    Configure with an :class:`EnvConfig` and/or its fields as keywords::

        env = AvalonEnv(EnvConfig(renderer="GLES2"), resolution=64)

    ``reset(seed=s)`` uses ``s`` (an int in [0, 2**64)) as the episode seed (it seeds world
    generation and the simulator); later resets without a seed draw episode seeds from
    ``self.np_random``. ``reset`` options: ``world_dir`` (load this world folder for this
    episode), ``episode_seed`` (use exactly this episode seed; replay uses it) and
    ``time_limit_frames`` (this episode's time limit; training uses shorter limits, see
    :mod:`avalon.training.curriculum`).

    Time limit: an episode is truncated after ``T`` steps, ``frames_remaining`` counting down
    from ``T``, where ``T`` is the first given of: the ``time_limit_frames`` reset option (that
    episode only); ``gymnasium.make(..., max_episode_steps=N)``'s ``N`` (make writes it into
    ``config.time_limit_frames``, so the env truncates on the same step as make's ``TimeLimit``
    wrapper); ``EnvConfig.time_limit_frames``; the world's own limit (``world.json``). A
    ``TimeLimit`` wrapper still truncates at its own count, so under ``make(...,
    max_episode_steps=N)`` a reset option above ``N`` ends the episode at ``N``.

    The reward is the change in energy minus the frame penalty (and, in training mode, the
    movement penalty) of the paper's Appendix B. Episodes end (``terminated``) when the energy
    reaches 0 or 10 frames after the last food is eaten, or are truncated at the time limit.
    ``info`` carries ``success`` (Appendix M, by the world's ``success_rule``: all food eaten, or for
    gather and survive at least one eaten and more energy than at the start), ``score`` (Appendix M), this frame's energy
    terms, the ``achievements`` unlocked so far this episode, and the task, difficulty and seed.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}

    def __init__(self, config: EnvConfig | None = None, render_mode: str | None = None, **overrides: Any) -> None:
        base = config if config is not None else EnvConfig()
        fields = EnvConfig.keywords()
        unknown = [name for name in overrides if name not in fields]
        if unknown:
            # Python's own words (libraries such as TorchRL match them), then a hint.
            raise TypeError(
                f"AvalonEnv.__init__() got an unexpected keyword argument {unknown[0]!r}. "
                f"Besides config and render_mode, the EnvConfig fields are: {', '.join(fields)}"
            )
        self.config = attr.evolve(base, **overrides)
        self._spec: EnvSpec | None = None
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.observation_space = observation_space(self.config.resolution)
        self.action_space = action_space(self.config.action_space)
        self._codec = ActionCodec(self.config.action_space)
        self._simulator: Simulator | None = None
        self._work_dir: Path | None = None
        self._generated_world: Path | None = None
        self._world: WorldInfo | None = None
        self._episode_seed: int | None = None
        self._episode_time_limit_frames: int | None = None
        self._energy = 0.0
        self._score_state = (INITIAL_ENERGY, 0.0)  # (E_f, T) of Appendix M so far
        self._food_done = False
        self._last_rgbd: np.ndarray | None = None
        self._episode_over = True
        self._episode_count = 0
        self._achievement_flags = b""  # the raw flags behind self._achievements
        self._achievements: frozenset[str] = frozenset()

    # ------------------------------------------------------------------ gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        # Every argument is checked before anything changes (the generator, the episode).
        options = _check_options(options)
        if seed is not None:
            seed = check_seed(seed)
        elif self._episode_count == 0 and self.config.seed is not None:
            seed = self.config.seed
        super().reset(seed=seed)
        time_limit_frames = options.get("time_limit_frames")
        episode_seed = options.get("episode_seed", seed)
        if episode_seed is None:
            episode_seed = int(self.np_random.integers(0, 2**63 - 1))
        world = self._prepare_world(options.get("world_dir"), int(episode_seed))
        self._episode_over = True
        if self._simulator is None or not self._simulator.is_running:
            self._start_simulator()
        movement_coefficient = self.config.movement_coefficient if self.config.is_training else 0.0
        episode_time_limit = time_limit_frames or self.config.time_limit_frames or world.time_limit_frames
        observation = self._simulator.reset(str(world.path), int(episode_seed), episode_time_limit, movement_coefficient)
        self._world, self._episode_seed = world, int(episode_seed)
        self._episode_time_limit_frames = episode_time_limit
        self._episode_count += 1
        self._energy = _feature(observation.features, "energy")
        self._score_state = (self._energy, _feature(observation.features, "frames_remaining"))
        self._food_done = False
        self._episode_over = False
        return self._observation(observation), self._info(observation)

    def step(self, action: Any):
        wire_action = self._codec.encode(action)  # validates before anything is sent
        if self._episode_over or self._simulator is None:
            raise RuntimeError("the episode has ended (or never started): call reset() first")
        try:
            observation = self._simulator.step(wire_action)
        except SimulatorError:
            self._episode_over = True
            raise
        features = observation.features
        energy = _feature(features, "energy")
        # The simulator reports a movement penalty of 0 in evaluation mode (C_move = 0).
        reward = energy - self._energy - FRAME_PENALTY - _feature(features, "energy_spent_on_movement")
        self._energy = energy
        if not self._food_done:  # Appendix M scores at the moment the last food is eaten
            self._score_state = (energy, _feature(features, "frames_remaining"))
            self._food_done = _all_food_eaten(features)
        terminated = _feature(features, "is_terminated") > 0.5
        truncated = not terminated and _feature(features, "frames_remaining") <= 0
        self._episode_over = terminated or truncated
        return self._observation(observation), float(reward), terminated, truncated, self._info(observation)

    def render(self) -> np.ndarray | None:
        """The current state as an RGB picture, uint8 ``(size, size, 3)``, rows top-down, when
        ``render_mode`` is "rgb_array" (else None; None before the first reset too).

        ``size`` is ``config.render_resolution``: the simulator draws the picture only when asked,
        from the agent's camera (same pose, field of view and world) in a viewport of its own, so
        steps cost the same and observations are the same bytes whether or not anyone renders.
        When ``render_resolution`` is None it is the observation's own RGB.
        """
        if self.render_mode != "rgb_array" or self._last_rgbd is None:
            return None
        return np.ascontiguousarray(self.render_rgbd()[..., :3])

    def render_rgbd(self) -> np.ndarray:
        """RGB and depth of the current state, uint8 ``(size, size, 4)``, the depth channel
        encoded as the observation's (:func:`avalon.sim.protocol.depth_to_metres`), at
        ``config.render_resolution`` as :meth:`render` (whatever ``render_mode`` is): for videos
        that show depth beside RGB. Valid after ``reset()``, also once the episode has ended."""
        if self._last_rgbd is None or self._simulator is None:
            raise RuntimeError("there is nothing to render: call reset() first")
        size = self.config.render_resolution
        if size is None or size == self.config.resolution:
            return self._last_rgbd.copy()
        return self._simulator.render(size).rgbd

    def close(self) -> None:
        if self._simulator is not None:
            self._simulator.close()
            self._simulator = None
        if self._work_dir is not None:
            shutil.rmtree(self._work_dir, ignore_errors=True)
            self._work_dir = None
            self._generated_world = None
        self._episode_over = True

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    # ------------------------------------------------------------------ details

    @property
    def spec(self) -> EnvSpec | None:
        """How ``gymnasium.make`` made this env (None when made directly)."""
        return self._spec

    @spec.setter
    def spec(self, spec: EnvSpec | None) -> None:
        self._spec = spec
        steps = _gymnasium_make_time_limit()
        if steps is not None:
            self.config = attr.evolve(self.config, time_limit_frames=steps)

    @property
    def simulator_pid(self) -> int | None:
        """The Godot process id while one runs (for diagnostics and tests)."""
        return None if self._simulator is None else self._simulator.pid

    @property
    def world(self) -> WorldInfo | None:
        """``world.json`` of the current episode's world folder."""
        return self._world

    @property
    def episode_seed(self) -> int | None:
        return self._episode_seed

    @property
    def episode_time_limit_frames(self) -> int | None:
        """The time limit of the current episode, frames: the one its RESET carried (a reset
        option's override, else the world's own)."""
        return self._episode_time_limit_frames

    def _start_simulator(self) -> None:
        simulator = Simulator(self.config.simulator)
        simulator.start()
        self._simulator = simulator

    def _prepare_world(self, world_dir: str | None, episode_seed: int) -> WorldInfo:
        """The world folder for this episode: given, configured, or generated from the task."""
        world_dir = world_dir or self.config.world_dir
        if world_dir is not None:
            return read_world_info(world_dir)
        if self._work_dir is None:
            self._work_dir = make_temp_folder("worlds")
        previous = self._generated_world
        # Named by what determines it, so the same episode seed gives the same folder and info.
        name = world_key(self.config.task, self.config.difficulty, episode_seed)
        path = generate_world(self.config.task, self.config.difficulty, episode_seed, self._work_dir / name)
        if previous is not None and previous != path:
            shutil.rmtree(previous, ignore_errors=True)
        self._generated_world = path
        return read_world_info(path)

    def _observation(self, observation: protocol.Observation) -> dict[str, np.ndarray]:
        features = observation.features
        result: dict[str, np.ndarray] = {RGBD_KEY: observation.rgbd}
        for name, offset, size in _OBSERVED:
            result[name] = features[offset : offset + size]
        self._last_rgbd = observation.rgbd
        return result

    def _info(self, observation: protocol.Observation) -> dict[str, Any]:
        features = observation.features
        offset = _OFFSETS["world_body_position"]
        world = self._world
        final_energy, frames_remaining = self._score_state
        flags = features[_ACHIEVEMENTS].tobytes()
        if flags != self._achievement_flags:  # they change a few times per episode: decode only then
            self._achievement_flags = flags
            self._achievements = frozenset(
                name for name, flag in zip(protocol.ACHIEVEMENTS, features[_ACHIEVEMENTS].tolist()) if flag > 0.5
            )
        return {
            "task": world.task if world else self.config.task,
            "difficulty": world.difficulty if world else self.config.difficulty,
            "seed": self._episode_seed,
            "world_dir": str(world.path) if world else None,
            "frame": observation.frame,
            "energy": _feature(features, "energy"),
            "success": _succeeded(features, world.success_rule if world else "all_food"),
            "score": max(0.0, final_energy - INITIAL_ENERGY + frames_remaining * FRAME_PENALTY),
            "food_eaten": int(_feature(features, "food_eaten")),
            "food_total": int(_feature(features, "food_total")),
            "energy_gained_from_eating": _feature(features, "energy_gained_from_eating"),
            "energy_lost_to_falls": _feature(features, "energy_lost_to_falls"),
            "energy_lost_to_attacks": _feature(features, "energy_lost_to_attacks"),
            "movement_penalty": _feature(features, "energy_spent_on_movement"),
            "frame_penalty": FRAME_PENALTY if observation.frame > 0 else 0.0,
            "achievements": self._achievements,
            "world_body_position": features[offset : offset + 3].copy(),
            "world_body_yaw": _feature(features, "world_body_yaw"),
            "animals": _animals(features),
        }
