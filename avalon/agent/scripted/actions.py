"""Mouse-and-keyboard actions as the scripted agent writes them.

The scripted agent uses the ``mouse_keyboard`` action space (``docs/spaces.md``): walking forward
or back, turning the whole agent, pitching the head, closing a hand where the camera looks,
pulling on a climbing hold with ``move_forward``, eating and jumping. :func:`action` fills in every
part it is not given with "do nothing".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from avalon.rules import mechanics
from avalon.sim.protocol import ACTION_SPACES

#: The action space the scripted agent acts in.
ACTION_SPACE = "mouse_keyboard"
#: The most the head (pitch) or the body (yaw) turns in one step at a rate of 1, radians.
TURN_PER_STEP_RAD = mechanics.MAX_HEAD_TURN_SPEED_RAD_PER_S * mechanics.STEP_SECONDS
#: How far the body walks in one step at ``move_forward`` = 1, metres.
WALK_PER_STEP_M = mechanics.MAX_WALK_SPEED_M_PER_S * mechanics.STEP_SECONDS

_FIELDS = {field.name: field for field in ACTION_SPACES[ACTION_SPACE]}

#: One action of the ``mouse_keyboard`` space (the dict ``AvalonEnv.step`` takes).
Action = dict[str, Any]


def action(**parts: float) -> Action:
    """A ``mouse_keyboard`` action: the given parts (a number each, e.g. ``move_forward=1.0``,
    ``right_grasp=1``), every other part 0."""
    unknown = sorted(set(parts) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown mouse_keyboard action part(s) {unknown}; expected some of {sorted(_FIELDS)}")
    result: Action = {}
    for name, field in _FIELDS.items():
        value = parts.get(name, 0)
        if field.kind == "binary":
            result[name] = int(value)
        else:
            result[name] = np.full(field.size, value, np.float32)
    return result


def turn_rate(angle_rad: float) -> float:
    """The turn rate in [-1, 1] that covers ``angle_rad`` in one step, or as much of it as one
    step can."""
    return float(np.clip(angle_rad / TURN_PER_STEP_RAD, -1.0, 1.0))


def steps_to_turn(angle_rad: float) -> int:
    """Steps a turn through ``angle_rad`` takes at full rate."""
    return int(math.ceil(abs(angle_rad) / TURN_PER_STEP_RAD - 1e-9))
