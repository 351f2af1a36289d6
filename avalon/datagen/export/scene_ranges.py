"""The ranges of the numbers a ``world.tscn`` may hold: what the simulator can hold, and a margin
beyond anything the exporter writes.

Godot keeps vectors and transforms in float32: a number beyond its range (3.4e38) becomes
infinite, and a spawn point there hangs Godot at reset while a food's radius or a tool's scale
there crashes it (signal 11), as a degenerate transform can. So every number of a scene is checked
by :func:`range_error`, by what it is (docs/security.md has the table):

- a ``Transform``: its basis a rotation (what the exporter writes: a yaw and a pitch), its origin
  a coordinate;
- coordinates and lengths (metres): every component of a ``Vector2`` or ``Vector3`` (positions,
  sizes, extents, velocities) and every number whose name says it is a length;
- colours (``Color``, ``PoolColorArray``): components in [0, 1];
- scales, and the integers with a range of their own (seeds, enumerations, mesh sides);
- any other number (masses, speeds, energies, counts): within :data:`MAX_MAGNITUDE`.

The terrain data file's numbers are checked in Godot against the same bounds
(``godot/world/terrain_file.gd``; a test keeps its constants equal to these).
"""

from __future__ import annotations

#: Coordinates and lengths, metres. float32 still resolves 6 cm there; generated worlds span at
#: most 4,096 m, and the exporter's "no water" level for flat ground is -1,000,000 m.
MAX_COORDINATE_M = 1_000_000.0
#: Any other number: its square and its product with a coordinate stay finite in float32
#: (1e18 and 1e15, against 3.4e38).
MAX_MAGNITUDE = 1e9
#: Scales (a tool's ``safe_scale``; a tree's scale in the terrain data): from a thousandth to a
#: thousandfold (the exporter writes 0.8 to about 3.3; a zero scale is a degenerate shape).
MIN_SCALE = 0.001
MAX_SCALE = 1000.0
#: A transform's basis must be a rotation to this tolerance (rows of unit length, orthogonal; the
#: exporter writes six decimals).
ROTATION_TOLERANCE = 1e-3
#: Numbers that are lengths though their names do not end in ``_m``.
LENGTH_NAMES = frozenset({"radius", "size", "extents", "fog_depth_begin", "fog_depth_end"})
#: Properties that are scales.
SCALE_NAMES = frozenset({"safe_scale"})
#: Integer properties with a range of their own: (lowest, highest).
INTEGER_RANGES: dict[str, tuple[int, int]] = {
    "rng_seed": (0, 2**31 - 1),  # an animal's random generator (scene_text.animal_seed)
    "mesh_sides": (3, 64),  # a tool's prism: its mesh is built with this many sides
    "background_mode": (0, 5),  # Godot's Environment.BGMode
    "cast_shadow": (0, 3),  # Godot's GeometryInstance.ShadowCastingSetting
}
#: Ways to place a node other than its ``transform``, which the exporter never writes: refused,
#: so that a node's placement is always a checked rotation and origin.
PLACEMENT_ALIASES = frozenset({"translation", "rotation", "rotation_degrees", "scale", "global_transform"})


def _is_length(key: str) -> bool:
    return key.endswith("_m") or key in LENGTH_NAMES


def _number(value: float) -> str:
    """A number as people read it: whole numbers below ten million in full, others as %g."""
    return str(int(value)) if value == int(value) and abs(value) < 1e7 else f"{value:g}"


def range_error(key: str, kind: str, numbers: list[float]) -> str | None:
    """Why the value of property ``key`` (of ``kind``, as scene_check names kinds, holding the
    finite ``numbers``) is outside what the simulator can hold, or None when it is within."""
    if kind == "Transform":
        return _transform_error(numbers)
    if kind in ("Color", "PoolColorArray"):
        for index, number in enumerate(numbers):
            if not 0.0 <= number <= 1.0:
                return f"colour component {index} is {_number(number)}, expected a number in [0, 1]"
        return None
    if kind in ("Vector2", "Vector3"):
        for index, number in enumerate(numbers):
            if abs(number) > MAX_COORDINATE_M:
                return (f"component {index} is {_number(number)}, expected a coordinate or length within "
                        f"±{_number(MAX_COORDINATE_M)} m")
        return None
    if kind != "number":
        return None
    number, = numbers
    if key in INTEGER_RANGES:
        low, high = INTEGER_RANGES[key]
        if number != int(number) or not low <= number <= high:
            return f"{_number(number)}, expected an integer from {low} to {high}"
    elif key in SCALE_NAMES:
        if not MIN_SCALE <= number <= MAX_SCALE:
            return f"{_number(number)}, expected a scale from {_number(MIN_SCALE)} to {_number(MAX_SCALE)}"
    elif _is_length(key):
        if abs(number) > MAX_COORDINATE_M:
            return f"{_number(number)}, expected a length or coordinate within ±{_number(MAX_COORDINATE_M)} m"
    elif abs(number) > MAX_MAGNITUDE:
        return f"{_number(number)}, expected a number within ±{_number(MAX_MAGNITUDE)}"
    return None


def _transform_error(numbers: list[float]) -> str | None:
    """A transform's 12 numbers: its basis row by row, then its origin."""
    rows = [numbers[0:3], numbers[3:6], numbers[6:9]]
    for i, row in enumerate(rows):
        for j, other in enumerate(rows):
            dot = sum(a * b for a, b in zip(row, other))
            if abs(dot - (1.0 if i == j else 0.0)) > ROTATION_TOLERANCE:
                basis = ", ".join(_number(n) for n in numbers[:9])
                return (f"its basis ({basis}) is not a rotation (rows of unit length, orthogonal): "
                        f"the exporter writes rotations only, and a degenerate basis crashes Godot")
    for axis, number in zip("xyz", numbers[9:12]):
        if abs(number) > MAX_COORDINATE_M:
            return f"its origin's {axis} is {_number(number)}, expected a coordinate within ±{_number(MAX_COORDINATE_M)} m"
    return None

