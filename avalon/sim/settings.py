"""``SimulatorSettings``: how to launch a Godot simulator and what it draws.

Declared once here, each field with its unit and check; :class:`avalon.env.config.EnvConfig`
holds one of these and reads its fields through (``config.renderer``), so the env's users write
the same keywords.
"""

from __future__ import annotations

import attr

from avalon.errors import choice_field, int_field, non_empty_str_field, number_field, optional_path_field
from avalon.sim.protocol import ACTION_SPACES

RENDERERS = ("GLES3", "GLES2")
MIN_RESOLUTION, MAX_RESOLUTION = 16, 1024


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class SimulatorSettings:
    """How to launch a simulator. Every field has a default and is checked when the settings are
    made: a bad value is a ``ValueError`` naming the field, the value and what is expected. Numpy
    scalars are stored as Python numbers, ``os.PathLike`` paths as ``str``."""

    #: Side of the square RGBD observation, pixels.
    resolution: int = int_field(96, low=MIN_RESOLUTION, high=MAX_RESOLUTION, unit="pixels")
    #: Side of the square RGB(D) picture ``AvalonEnv.render()`` asks the simulator for, pixels,
    #: for videos (None: the observation's). Drawn only when asked, from the agent's camera; the
    #: observation is unchanged.
    render_resolution: int | None = int_field(None, low=MIN_RESOLUTION, high=MAX_RESOLUTION, optional=True, unit="pixels")
    #: Godot renderer: "GLES3" (default) or "GLES2" (faster on CPU rendering).
    renderer: str = choice_field("GLES3", choices=RENDERERS)
    #: "vr" (21 values: head, hands, grasps, jump) or "mouse_keyboard" (9 values); see avalon.env.spaces.
    action_space: str = choice_field("vr", choices=tuple(ACTION_SPACES))
    #: Godot binary to run (from Debian's godot3-runner).
    godot_binary: str = non_empty_str_field("godot3-runner")
    #: Deadlines on the simulator, seconds: start-up (handshake), reset (world load), step.
    startup_timeout_s: float = number_field(60.0, above=0, unit="seconds")
    reset_timeout_s: float = number_field(120.0, above=0, unit="seconds")
    step_timeout_s: float = number_field(30.0, above=0, unit="seconds")
    #: Keep Godot logs in this folder (default: a temporary folder removed at close()).
    log_dir: str | None = optional_path_field(None)
    #: Mesa llvmpipe rasteriser threads per simulator (CPU rendering only), an int >= 0. 0
    #: rasterises on Godot's own thread, the fastest at observation sizes and when several
    #: simulators share the cores; None leaves Mesa's default (one per core).
    llvmpipe_threads: int | None = int_field(0, low=0, optional=True, unit="threads")
