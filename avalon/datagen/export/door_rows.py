"""The check of a door's node in a ``world.tscn`` (its "row"): a door scene instanced with exactly
the properties :func:`avalon.datagen.doors.door_entity` gives it, each within the door table's
ranges (``avalon.rules.doors``), and locks its mechanism can hold. ``scene_check`` has already
checked each value's form (finite numbers, quoted strings) before this sees them.
"""

from __future__ import annotations

import re

from avalon.datagen.export.scene_text import DOOR_SCENES
from avalon.rules import doors

#: Door scene → its mechanism.
DOOR_SCENE_MECHANISMS: dict[str, str] = {scene: mechanism for mechanism, scene in DOOR_SCENES.items()}
#: Number properties of a door node and their ranges (metres).
DOOR_NUMBER_RANGES: dict[str, tuple[float, float]] = {
    "width_m": (doors.MIN_OPENING_WIDTH_M, doors.MAX_OPENING_WIDTH_M),
    "height_m": (doors.MIN_OPENING_HEIGHT_M, doors.MAX_OPENING_HEIGHT_M),
    "wall_thickness_m": (doors.MIN_WALL_THICKNESS_M, doors.MAX_WALL_THICKNESS_M),
}
#: String properties of a door node and the values each may take.
DOOR_CHOICES: dict[str, tuple[str, ...]] = {"hinge_side": doors.SIDES, "latch": doors.LATCHES}
LOCKS_PROPERTY = "locks"
DOOR_PROPERTIES = frozenset({"transform", LOCKS_PROPERTY, *DOOR_NUMBER_RANGES, *DOOR_CHOICES})

_STRING = re.compile(r'"((?:[^"\\]|\\[\\"])*)"')


def door_row_error(scene: str, values: dict[str, str]) -> str | None:
    """Why a node instancing the door ``scene`` with property texts ``values`` is not one the
    exporter writes, or None when it is."""
    mechanism = DOOR_SCENE_MECHANISMS[scene]
    unknown = sorted(set(values) - DOOR_PROPERTIES)
    if unknown:
        return f"a door has no propert(ies) {unknown}; expected only {sorted(DOOR_PROPERTIES)}"
    missing = sorted(DOOR_PROPERTIES - {"transform"} - set(values))
    if missing:
        return f"a door lacks {missing}"
    for key, (low, high) in DOOR_NUMBER_RANGES.items():
        try:
            number = float(values[key])
        except ValueError:
            return f"{key} = {values[key]}: expected a number in [{low:g}, {high:g}]"
        if not low <= number <= high:
            return f"{key} = {values[key]}: expected a number in [{low:g}, {high:g}]"
    for key, choices in DOOR_CHOICES.items():
        match = _STRING.fullmatch(values[key])
        if match is None or match.group(1) not in choices:
            return f"{key} = {values[key]}: expected one of {choices}"
    text = values[LOCKS_PROPERTY]
    inner = re.fullmatch(r"PoolStringArray\( (.*) \)", text)
    if inner is None:
        return f"{LOCKS_PROPERTY} = {text}: expected a PoolStringArray of lock kinds"
    locks = tuple(match.group(1) for match in _STRING.finditer(inner.group(1)))
    reason = doors.locks_error(mechanism, locks)
    return None if reason is None else f"{LOCKS_PROPERTY} = {text}: {reason}"
