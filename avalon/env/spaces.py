"""Observation and action spaces, derived from the protocol (the single source of truth).

Observation: a ``Dict`` with ``"rgbd"`` (uint8, rows top-down; channels R, G, B and depth, see
``protocol.DEPTH_*`` and :func:`avalon.sim.protocol.depth_to_metres`) and the 23 proprioceptive
variables of the paper's Appendix C as float32 vectors of size 3 or 1.

Action: a ``Dict`` whose continuous parts are ``Box(-1, 1)`` rates (1 = the maximum rate of
``avalon.rules.mechanics`` for one step) and whose binary parts are ``Discrete(2)``.
:class:`avalon.env.wrappers.FlattenAction` turns either space into one ``Box``.

``python -m avalon.dev.codegen`` writes the index-by-index tables of ``docs/spaces.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from avalon.rules.mechanics import (
    HAND_MAX_ANGLE_RAD,
    HEAD_MAX_HEIGHT_M,
    HEAD_MAX_PITCH_RAD,
    HEAD_MAX_ROLL_RAD,
    HEAD_MIN_HEIGHT_M,
    MAX_HEAD_TURN_SPEED_RAD_PER_S,
    STEP_SECONDS,
)
from avalon.sim.protocol import ACTION_SPACES, MAX_TIME_LIMIT_FRAMES, OBSERVED_FEATURES, ActionField, Feature

RGBD_KEY = "rgbd"

# Finite observation bounds where the game keeps them (the limits of avalon.rules.mechanics); the
# other features are unbounded: positions change without limit in a fall, while a climbing hold
# keeps a hand at its anchor as the body moves (so it can lie beyond arm's reach for the step
# before the hold slips), and energy grows with what is eaten. Values computed in Godot's float32
# (Euler angles of products of bases) may pass a clamped limit by rounding: _SLACK covers that.
_SLACK = 1e-3  # radians or metres
_TURN = MAX_HEAD_TURN_SPEED_RAD_PER_S * STEP_SECONDS  # the most any turn changes in one step
_PI = math.pi  # wrapped differences and atan2 stay within it (float32(pi) rounds up)
_HAND_PITCH = min(HAND_MAX_ANGLE_RAD, math.pi / 2)  # asin's range bounds it too


def _symmetric(*limits: float) -> tuple[tuple[float, ...], tuple[float, ...]]:
    return tuple(-limit for limit in limits), limits


_FEATURE_BOUNDS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    # The body only turns about the vertical, at most one step's turn at a time.
    "body_delta_rotation": _symmetric(_SLACK, _TURN + _SLACK, _SLACK),
    # The head's world angles are (pitch, body yaw, roll): each changes by at most one step's turn.
    "head_delta_rotation": _symmetric(_TURN + _SLACK, _TURN + _SLACK, _TURN + _SLACK),
    # A hand at its +-90 degree pitch limit is at Euler angles' gimbal lock: its yaw and roll may jump.
    "left_hand_delta_rotation": _symmetric(_PI, _PI, _PI),
    "right_hand_delta_rotation": _symmetric(_PI, _PI, _PI),
    # The head sits on the body's vertical axis at a clamped height, pitched and rolled within limits.
    "head_relative_position": ((-_SLACK, HEAD_MIN_HEIGHT_M - _SLACK, -_SLACK), (_SLACK, HEAD_MAX_HEIGHT_M + _SLACK, _SLACK)),
    "head_relative_rotation": _symmetric(HEAD_MAX_PITCH_RAD + _SLACK, _SLACK, HEAD_MAX_ROLL_RAD + _SLACK),
    "left_hand_relative_rotation": _symmetric(_HAND_PITCH + _SLACK, _PI, _PI),
    "right_hand_relative_rotation": _symmetric(_HAND_PITCH + _SLACK, _PI, _PI),
    "energy_spent_on_movement": ((0.0,), (math.inf,)),
    "energy_lost_to_attacks": ((0.0,), (math.inf,)),
    "energy_gained_from_eating": ((0.0,), (math.inf,)),
    "energy": ((0.0,), (math.inf,)),
    "frames_remaining": ((0.0,), (float(MAX_TIME_LIMIT_FRAMES),)),
}


def feature_bounds(feature: Feature) -> tuple[np.ndarray, np.ndarray]:
    """The (low, high) float64 bounds of an observed feature's values (see the comment above)."""
    if feature.unit == "bool":
        low, high = (0.0,) * feature.size, (1.0,) * feature.size
    else:
        low, high = _FEATURE_BOUNDS.get(feature.name, ((-math.inf,) * feature.size, (math.inf,) * feature.size))
    return np.array(low, np.float64), np.array(high, np.float64)


def _feature_space(feature: Feature) -> spaces.Box:
    low, high = feature_bounds(feature)
    return spaces.Box(low.astype(np.float32), high.astype(np.float32), (feature.size,), np.float32)


def observation_space(resolution: int) -> spaces.Dict:
    """The observation space for square frames of ``resolution`` pixels."""
    parts: dict[str, spaces.Space] = {RGBD_KEY: spaces.Box(0, 255, (resolution, resolution, 4), np.uint8)}
    for feature in OBSERVED_FEATURES:
        parts[feature.name] = _feature_space(feature)
    return spaces.Dict(parts)


def _field_space(field: ActionField) -> spaces.Space:
    if field.kind == "binary":
        return spaces.Discrete(2)
    return spaces.Box(field.low, field.high, (field.size,), np.float32)


def action_space(name: str) -> spaces.Dict:
    """The action space named ``name`` ("vr" or "mouse_keyboard")."""
    if name not in ACTION_SPACES:
        raise ValueError(f"action space {name!r} is not one of {', '.join(map(repr, ACTION_SPACES))}")
    return spaces.Dict({field.name: _field_space(field) for field in ACTION_SPACES[name]})


# Binaries the fast path takes as they are (the type test comes first: it also keeps arrays,
# whose comparison with 0 is an array, out of the value test).
_SCALAR_TYPES = (int, bool, np.int64, np.int32, np.bool_)
_REAL_KINDS = frozenset("iuf")  # numpy dtype kinds of real numbers: signed, unsigned, floating
_BINARY_KINDS = frozenset("biuf")  # and bool, for the binary parts


class ActionCodec:
    """Checks a ``Dict`` action and packs it into the float32 vector the simulator reads.

    A continuous part takes ``size`` real numbers (an array or sequence of int or float dtype)
    within its range; a binary part one real number (int, bool or float; a scalar or shape
    ``(1,)``) that is exactly 0 or 1. Anything else (strings, complex or object values, other
    shapes, NaN, values out of range, 0.5 for a binary) is a ``ValueError`` naming the part.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields = ACTION_SPACES[name]
        self.size = sum(field.size for field in self.fields)
        self._names = [field.name for field in self.fields]
        self._name_set = set(self._names)
        self._slices = []
        low, high, offset = [], [], 0
        for field in self.fields:
            self._slices.append((field, slice(offset, offset + field.size)))
            low += [field.low] * field.size
            high += [field.high] * field.size
            offset += field.size
        self._low32, self._high32 = np.array(low, np.float32), np.array(high, np.float32)
        self._plan = [(field.name, field.size, field.kind == "binary") for field in self.fields]

    def encode(self, action: Any) -> np.ndarray:
        """Returns the wire vector; raises ``ValueError`` naming the field for any bad part.

        Fast path (every step of training goes through it): float32 arrays of the right shape for
        the continuous parts and int or bool 0/1 scalars for the binary ones, gathered as Python
        floats and range-checked at once. Anything else takes the checked path, which accepts
        other real dtypes and sequences, and finds and names the culprit.
        """
        if type(action) is dict and len(action) == len(self._names):
            values: list = []
            try:
                for name, size, binary in self._plan:
                    value = action[name]
                    if binary:
                        if type(value) in _SCALAR_TYPES and (value == 0 or value == 1):
                            values.append(value)
                            continue
                    elif type(value) is np.ndarray and value.dtype == np.float32 and value.shape == (size,):
                        values.extend(value.tolist())
                        continue
                    break
                else:
                    vector = np.array(values, np.float32)
                    if ((vector >= self._low32) & (vector <= self._high32)).all():  # NaN fails too
                        return vector
            except KeyError:
                pass
        return self._encode_checked(action)

    def _encode_checked(self, action: Any) -> np.ndarray:
        if not isinstance(action, Mapping):
            raise ValueError(
                f"a {self.name!r} action is a dict with keys {self._names}, not {type(action).__name__}; "
                "wrap the env in avalon.env.wrappers.FlattenAction to pass flat arrays"
            )
        if action.keys() != self._name_set:
            missing = [name for name in self._names if name not in action]
            unknown = [key for key in action if key not in self._name_set]
            raise ValueError(f"action keys are wrong: missing {missing}, unknown {unknown}; expected {self._names}")
        vector = np.empty(self.size, np.float64)
        for field, part in self._slices:
            vector[part] = self._checked_part(field, action[field.name])
        return vector.astype(np.float32)

    @staticmethod
    def _checked_part(field: ActionField, value: Any) -> np.ndarray:
        """One part's values as float64, or a ``ValueError`` naming the part and what is wrong."""
        name = field.name
        try:
            array = np.asarray(value)
        except (TypeError, ValueError):  # e.g. ragged sequences
            array = None
        if field.kind == "binary":
            if array is None or array.dtype.kind not in _BINARY_KINDS or array.shape not in ((), (1,)):
                raise ValueError(f"action[{name!r}] must be 0 or 1 (one int, bool or float), got {value!r}")
            values = array.astype(np.float64).reshape(1)
            if not (values[0] == 0 or values[0] == 1):
                raise ValueError(f"action[{name!r}] must be 0 or 1, got {value!r}")
            return values
        if array is None or array.dtype.kind not in _REAL_KINDS:
            kind = "" if array is None else f" of dtype {array.dtype}"
            raise ValueError(f"action[{name!r}] must be {field.size} real number(s) (int or float), got {value!r}{kind}")
        if array.shape != (field.size,):
            raise ValueError(f"action[{name!r}] has shape {array.shape}, expected ({field.size},)")
        values = array.astype(np.float64)
        if not np.all(np.isfinite(values)):
            raise ValueError(f"action[{name!r}] holds a non-finite value: {values.tolist()}")
        if not (np.all(values >= field.low) and np.all(values <= field.high)):
            raise ValueError(
                f"action[{name!r}]={values.tolist()} is outside [{field.low}, {field.high}]; "
                "clip it (for example with gymnasium.wrappers.ClipAction)"
            )
        return values

    def decode(self, vector: np.ndarray) -> dict[str, Any]:
        """The inverse of :meth:`encode` (binary parts come back as ints)."""
        vector = np.asarray(vector, np.float32)
        if vector.shape != (self.size,):
            raise ValueError(f"a {self.name!r} action vector has shape ({self.size},), not {vector.shape}")
        action = {}
        for field, part in self._slices:
            action[field.name] = int(vector[part][0] >= 0.5) if field.kind == "binary" else vector[part].copy()
        return action


def markdown_tables() -> str:
    """Index-by-index tables of both action spaces and of the observation (docs/spaces.md)."""
    lines = ["<!-- GENERATED by `python -m avalon.dev.codegen` from avalon/sim/protocol.py; a test fails when it is stale. -->", ""]
    for name, fields in ACTION_SPACES.items():
        lines += [f"### Action space `{name}` ({sum(f.size for f in fields)} values when flattened)", ""]
        lines += ["| flat index | key | kind | range | meaning |", "|---|---|---|---|---|"]
        index = 0
        for field in fields:
            for component in range(field.size):
                label = field.name if field.size == 1 else f"{field.name}[{component}]"
                kind = "Discrete(2)" if field.kind == "binary" else "Box float32"
                meaning = f"{field.components[component]} ({field.doc})" if field.components else field.doc
                lines.append(f"| {index} | `{label}` | {kind} | [{_fmt(field.low)}, {_fmt(field.high)}] | {meaning} |")
                index += 1
        lines.append("")
    lines += ["### Observation", "", "| key | shape | unit | bounds (low, high) | meaning |", "|---|---|---|---|---|"]
    lines.append(f"| `{RGBD_KEY}` | (res, res, 4) uint8 | 0–255 | [0, 255] | RGB and encoded depth, rows top-down |")
    for feature in OBSERVED_FEATURES:
        lines.append(
            f"| `{feature.name}` | ({feature.size},) float32 | {feature.unit} | {_bounds_text(feature)} | {feature.doc} |"
        )
    lines += ["", "Bounds hold every value the simulator reports (with 0.001 of slack for float32 rounding where",
              "a limit is clamped); ±inf where the game sets none (a fall, a climbing hold, eating)."]
    return "\n".join(lines) + "\n"


def _bounds_text(feature: Feature) -> str:
    low, high = feature_bounds(feature)
    if np.all(low == low[0]) and np.all(high == high[0]):
        return f"[{_fmt(low[0])}, {_fmt(high[0])}]"
    return "; ".join(f"[{_fmt(a)}, {_fmt(b)}]" for a, b in zip(low, high))


def _fmt(value: float) -> str:
    if not math.isfinite(value):
        return "-inf" if value < 0 else "inf"
    return str(int(value)) if value == int(value) else f"{value:.4g}"

