"""Door entities: a door of ``avalon.rules.doors`` filling a doorway, placed from exactly what a
doorway is (the bottom centre of its opening, in the middle of the wall; its yaw; the opening's
width and height; the wall's thickness).
"""

from __future__ import annotations

import math

from avalon.datagen.world import Entity, Vector3
from avalon.rules import doors

#: The entity kind of every door (its scene is its mechanism's: ``export.scene_text.entity_scene``).
DOOR_KIND = "door"


def door_entity(name: str, centre: Vector3, yaw_rad: float, width_m: float, height_m: float, *, mechanism: str,
                wall_thickness_m: float = 0.2, hinge_side: str = "left", latch: str = "none",
                locks: tuple[str, ...] = ()) -> Entity:
    """A door named ``name`` in the opening whose bottom centre is ``centre`` (metres, in the middle
    of the wall's thickness), facing +z turned by ``yaw_rad`` (its front, where its locks are);
    ``hinge_side`` is the side it turns on (hinged) or slides to (sliding), seen from the front.
    Raises ``ValueError`` naming any value outside the table's ranges."""
    doors.mechanism_spec(mechanism)
    _check_range("width_m", width_m, doors.MIN_OPENING_WIDTH_M, doors.MAX_OPENING_WIDTH_M)
    _check_range("height_m", height_m, doors.MIN_OPENING_HEIGHT_M, doors.MAX_OPENING_HEIGHT_M)
    _check_range("wall_thickness_m", wall_thickness_m, doors.MIN_WALL_THICKNESS_M, doors.MAX_WALL_THICKNESS_M)
    if not math.isfinite(yaw_rad):
        raise ValueError(f"door {name!r}: yaw_rad {yaw_rad!r} must be finite")
    if hinge_side not in doors.SIDES:
        raise ValueError(f"door {name!r}: hinge_side {hinge_side!r} must be one of {doors.SIDES}")
    if latch not in doors.LATCHES:
        raise ValueError(f"door {name!r}: latch {latch!r} must be one of {doors.LATCHES}")
    locks = tuple(locks)
    reason = doors.locks_error(mechanism, locks)
    if reason is not None:
        raise ValueError(f"door {name!r}: {reason}")
    params = {"mechanism": mechanism, "width_m": float(width_m), "height_m": float(height_m),
              "wall_thickness_m": float(wall_thickness_m), "hinge_side": hinge_side, "latch": latch, "locks": locks}
    return Entity(kind=DOOR_KIND, name=name, position=centre, yaw_rad=float(yaw_rad), params=params)


def _check_range(name: str, value: float, low: float, high: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and low <= value <= high):
        raise ValueError(f"{name} {value!r} must be a number in [{low:g}, {high:g}]")
