"""``EnvConfig``: everything that configures an :class:`avalon.env.avalon_env.AvalonEnv`.

Every field is checked when the config is made: a bad value is a ``ValueError`` naming the field,
the value and what is expected. Numpy scalars are accepted where Python numbers are, and stored
as Python numbers; paths may be ``os.PathLike`` and are stored as ``str``.
"""

from __future__ import annotations

import math
import os
from typing import Any

import attr
import numpy as np

from avalon.rules.mechanics import MOVEMENT_COEFFICIENT
from avalon.sim.protocol import ACTION_SPACES, MAX_TIME_LIMIT_FRAMES, SEED_LIMIT
from avalon.sim.simulator import SimulatorSettings
from avalon.tasks import check_difficulty, check_task

RENDERERS = ("GLES3", "GLES2")
MIN_RESOLUTION, MAX_RESOLUTION = 16, 1024


def _is_int(value: Any) -> bool:
    """A Python or numpy integer, not a bool (``True`` is an ``int`` to Python)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value: Any) -> bool:
    return _is_int(value) or isinstance(value, (float, np.floating))


def check_seed(value: Any, name: str = "seed") -> int:
    """``value`` as a Python int if it is an integer in [0, 2**64) (what RESET's u64 carries),
    else ``ValueError`` naming ``name``, the value and the range."""
    if not _is_int(value) or not 0 <= value < SEED_LIMIT:
        raise ValueError(f"{name}={value!r} must be an int in [0, 2**64)")
    return int(value)


def check_time_limit_frames(value: Any, name: str = "time_limit_frames") -> int:
    """``value`` as a Python int if it is an integer from 1 to ``MAX_TIME_LIMIT_FRAMES`` (RESET's u32)."""
    if not _is_int(value) or not 1 <= value <= MAX_TIME_LIMIT_FRAMES:
        raise ValueError(f"{name}={value!r} must be an int from 1 to {MAX_TIME_LIMIT_FRAMES} (frames)")
    return int(value)


def _choice(choices):
    def check(_instance, attribute, value):
        if not isinstance(value, str) or value not in choices:
            raise ValueError(f"{attribute.name}={value!r} is not one of {', '.join(map(repr, choices))}")

    return check


def _resolution(_instance, attribute, value):
    if not _is_int(value) or not MIN_RESOLUTION <= value <= MAX_RESOLUTION:
        raise ValueError(f"{attribute.name}={value!r} must be an int from {MIN_RESOLUTION} to {MAX_RESOLUTION} (pixels)")


def _optional_resolution(_instance, attribute, value):
    if value is not None and (not _is_int(value) or not MIN_RESOLUTION <= value <= MAX_RESOLUTION):
        raise ValueError(
            f"{attribute.name}={value!r} must be None or an int from {MIN_RESOLUTION} to {MAX_RESOLUTION} (pixels)"
        )


def _difficulty(_instance, _attribute, value):
    check_difficulty(value)


def _task(_instance, attribute, value):
    if not isinstance(value, str):
        raise ValueError(f"{attribute.name}={value!r} must be a task name (str)")
    check_task(value)


def _bool(_instance, attribute, value):
    if not isinstance(value, bool):
        raise ValueError(f"{attribute.name}={value!r} must be a bool")


def _non_empty_str(_instance, attribute, value):
    if not isinstance(value, str) or not value:
        raise ValueError(f"{attribute.name}={value!r} must be a non-empty str")


def _positive_seconds(_instance, attribute, value):
    if not _is_real(value) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{attribute.name}={value!r} must be a finite number > 0 (seconds)")


def _non_negative(_instance, attribute, value):
    if not _is_real(value) or not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{attribute.name}={value!r} must be a finite number >= 0")


def _seed(_instance, attribute, value):
    if value is not None and (not _is_int(value) or not 0 <= value < SEED_LIMIT):
        raise ValueError(f"{attribute.name}={value!r} must be None or an int in [0, 2**64)")


def _time_limit(_instance, attribute, value):
    if value is not None and (not _is_int(value) or not 1 <= value <= MAX_TIME_LIMIT_FRAMES):
        raise ValueError(f"{attribute.name}={value!r} must be None or an int from 1 to {MAX_TIME_LIMIT_FRAMES} (frames)")


def _threads(_instance, attribute, value):
    if value is not None and (not _is_int(value) or value < 0):
        raise ValueError(f"{attribute.name}={value!r} must be None or an int >= 0 (threads)")


def _path(_instance, attribute, value):
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{attribute.name}={value!r} must be None or a path (str or os.PathLike)")


def _int_or_same(value: Any) -> Any:
    """Numpy integers become Python ints (bools and everything else are left for the validator)."""
    return int(value) if _is_int(value) else value


def _float_or_same(value: Any) -> Any:
    return float(value) if isinstance(value, (np.floating, np.integer)) and not isinstance(value, np.bool_) else value


def _path_or_same(value: Any) -> Any:
    return os.fspath(value) if isinstance(value, os.PathLike) and isinstance(os.fspath(value), str) else value


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class EnvConfig:
    """Configuration of one environment. Every field has a default; override with keywords.

    World source: ``world_dir`` (a world folder, used for every episode) takes precedence over
    ``task`` (a world is generated for every episode from the task, ``difficulty`` and the
    episode seed). See ``avalon.tasks.TASKS`` for the task names.

    Time limit, frames, for an episode, first of: the ``time_limit_frames`` reset option (that
    episode only); ``gymnasium.make``'s ``max_episode_steps`` (written into this field when the
    env is made); this field; the world's own (``world.json``).
    """

    #: Side of the square RGBD observation, pixels.
    resolution: int = attr.ib(default=96, converter=_int_or_same, validator=_resolution)
    #: Side of the square RGB(D) picture ``render()`` returns, pixels, for videos (None: the
    #: observation's). Drawn only when asked, from the agent's camera; the observation is unchanged.
    render_resolution: int | None = attr.ib(default=None, converter=_int_or_same, validator=_optional_resolution)
    #: Godot renderer: "GLES3" (default) or "GLES2" (faster on CPU rendering).
    renderer: str = attr.ib(default="GLES3", validator=_choice(RENDERERS))
    #: "vr" (21 values: head, hands, grasps, jump) or "mouse_keyboard" (9 values); see avalon.env.spaces.
    action_space: str = attr.ib(default="vr", validator=_choice(tuple(ACTION_SPACES)))
    #: A world folder to load for every episode (overrides ``task``).
    world_dir: str | None = attr.ib(default=None, converter=_path_or_same, validator=_path)
    #: Task whose generator builds each episode's world when ``world_dir`` is None.
    task: str = attr.ib(default="trivial", validator=_task)
    #: Task difficulty in [0, 1].
    difficulty: float = attr.ib(default=0.0, converter=_float_or_same, validator=_difficulty)
    #: Seed of the first reset when ``reset()`` is called without one (None: from OS entropy),
    #: an int in [0, 2**64).
    seed: int | None = attr.ib(default=None, converter=_int_or_same, validator=_seed)
    #: Every episode's time limit, frames (steps), from 1 to 2**32 - 1; None: each world's own
    #: limit from its ``world.json``. See the class doc for what overrides it.
    time_limit_frames: int | None = attr.ib(default=None, converter=_int_or_same, validator=_time_limit)
    #: Training mode applies the movement penalty; evaluation mode sets C_move = 0 (Appendix B).
    is_training: bool = attr.ib(default=True, validator=_bool)
    #: C_move of Appendix B, the movement penalty's coefficient in training mode (Table 5: 1e-8).
    movement_coefficient: float = attr.ib(default=MOVEMENT_COEFFICIENT, converter=_float_or_same, validator=_non_negative)
    #: Godot binary to run (from Debian's godot3-runner).
    godot_binary: str = attr.ib(default="godot3-runner", validator=_non_empty_str)
    #: Deadlines on the simulator, seconds: start-up (handshake), reset (world load), step.
    startup_timeout_s: float = attr.ib(default=60.0, converter=_float_or_same, validator=_positive_seconds)
    reset_timeout_s: float = attr.ib(default=120.0, converter=_float_or_same, validator=_positive_seconds)
    step_timeout_s: float = attr.ib(default=30.0, converter=_float_or_same, validator=_positive_seconds)
    #: Keep Godot logs in this folder (default: a temporary folder removed at close()).
    log_dir: str | None = attr.ib(default=None, converter=_path_or_same, validator=_path)
    #: Mesa llvmpipe rasteriser threads per simulator (CPU rendering only), an int >= 0. 0
    #: rasterises on Godot's own thread, the fastest at observation sizes and when several
    #: simulators share the cores; None leaves Mesa's default (one per core).
    llvmpipe_threads: int | None = attr.ib(default=0, converter=_int_or_same, validator=_threads)

    def simulator_settings(self) -> SimulatorSettings:
        return SimulatorSettings(
            resolution=self.resolution,
            renderer=self.renderer,
            action_space=self.action_space,
            godot_binary=self.godot_binary,
            startup_timeout_s=self.startup_timeout_s,
            reset_timeout_s=self.reset_timeout_s,
            step_timeout_s=self.step_timeout_s,
            log_dir=self.log_dir,
            llvmpipe_threads=self.llvmpipe_threads,
        )
