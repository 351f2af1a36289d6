"""``EnvConfig``: everything that configures an :class:`avalon.env.avalon_env.AvalonEnv`."""

from __future__ import annotations

import math

import attr

from avalon.env.mechanics import MOVEMENT_COEFFICIENT
from avalon.env.protocol import ACTION_SPACES
from avalon.env.simulator import SimulatorSettings
from avalon.tasks import check_difficulty, check_task

RENDERERS = ("GLES3", "GLES2")
MIN_RESOLUTION, MAX_RESOLUTION = 16, 1024


def _choice(choices):
    def check(_instance, attribute, value):
        if value not in choices:
            raise ValueError(f"{attribute.name}={value!r} is not one of {', '.join(map(repr, choices))}")

    return check


def _resolution(_instance, attribute, value):
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_RESOLUTION <= value <= MAX_RESOLUTION:
        raise ValueError(f"{attribute.name}={value!r} must be an int from {MIN_RESOLUTION} to {MAX_RESOLUTION} (pixels)")


def _difficulty(_instance, _attribute, value):
    check_difficulty(value)


def _task(_instance, _attribute, value):
    check_task(value)


def _positive(_instance, attribute, value):
    if not value > 0:
        raise ValueError(f"{attribute.name}={value!r} must be positive (seconds)")


def _non_negative(_instance, attribute, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{attribute.name}={value!r} must be a finite number >= 0")


def _optional_seed(_instance, attribute, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63):
        raise ValueError(f"{attribute.name}={value!r} must be None or an int in [0, 2**63)")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class EnvConfig:
    """Configuration of one environment. Every field has a default; override with keywords.

    World source: ``world_dir`` (a world folder, used for every episode) takes precedence over
    ``task`` (a world is generated for every episode from the task, ``difficulty`` and the
    episode seed). See ``avalon.tasks.TASKS`` for the task names.
    """

    #: Side of the square RGBD observation, pixels.
    resolution: int = attr.ib(default=96, validator=_resolution)
    #: Godot renderer: "GLES3" (default) or "GLES2" (faster on CPU rendering).
    renderer: str = attr.ib(default="GLES3", validator=_choice(RENDERERS))
    #: "vr" (21 values: head, hands, grasps, jump) or "mouse_keyboard" (9 values); see avalon.env.spaces.
    action_space: str = attr.ib(default="vr", validator=_choice(tuple(ACTION_SPACES)))
    #: A world folder to load for every episode (overrides ``task``).
    world_dir: str | None = None
    #: Task whose generator builds each episode's world when ``world_dir`` is None.
    task: str = attr.ib(default="trivial", validator=_task)
    #: Task difficulty in [0, 1].
    difficulty: float = attr.ib(default=0.0, validator=_difficulty)
    #: Seed of the first reset when ``reset()`` is called without one (None: from OS entropy).
    seed: int | None = attr.ib(default=None, validator=_optional_seed)
    #: Training mode applies the movement penalty; evaluation mode sets C_move = 0 (Appendix B).
    is_training: bool = True
    #: C_move of Appendix B, the movement penalty's coefficient in training mode (Table 5: 1e-8).
    movement_coefficient: float = attr.ib(default=MOVEMENT_COEFFICIENT, validator=_non_negative)
    #: Godot binary to run (from Debian's godot3-runner).
    godot_binary: str = "godot3-runner"
    #: Deadlines on the simulator, seconds: start-up (handshake), reset (world load), step.
    startup_timeout_s: float = attr.ib(default=60.0, validator=_positive)
    reset_timeout_s: float = attr.ib(default=120.0, validator=_positive)
    step_timeout_s: float = attr.ib(default=30.0, validator=_positive)
    #: Keep Godot logs in this folder (default: a temporary folder removed at close()).
    log_dir: str | None = None
    #: Mesa llvmpipe rasteriser threads per simulator (CPU rendering only). 0 rasterises on
    #: Godot's own thread, the fastest at observation sizes and when several simulators share
    #: the cores; None leaves Mesa's default (one per core).
    llvmpipe_threads: int | None = 0

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
