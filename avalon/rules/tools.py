"""The tools and movable items of the paper's Appendix A.1/E.5, as data."""

from __future__ import annotations

from avalon.rules import mechanics

Vector3 = tuple[float, float, float]

#: The tools and movable items of Appendix A.1/E.5 (``godot/entities/tools``): their bounding box
#: at ``safe_scale`` 1 (x, y, z metres; sticks and logs lie along z; the centre rests half the
#: height above the ground) and default mass. An entity's params may override ``safe_scale``
#: (uniform scale of shape and mesh), ``base_color`` and ``mass``.
TOOL_SIZE_M: dict[str, Vector3] = {
    "rock": (0.2, 0.14, 0.18),  # fist-sized, thrown; a hard enough hit opens an orange
    "stick": (0.05, 0.05, 1.0),  # melee
    "stone": (0.4, 0.3, 0.4),  # box-ish, stackable
    "boulder": (1.2, 0.9, 1.1),  # too heavy to lift: pushed
    "log": (0.3, 0.3, 3.0),  # carried to bridge gaps
}
TOOL_MASS_KG: dict[str, float] = {
    "rock": mechanics.ROCK_MASS_KG,
    "stick": mechanics.STICK_MASS_KG,
    "stone": mechanics.STONE_MASS_KG,
    "boulder": mechanics.BOULDER_MASS_KG,
    "log": mechanics.LOG_MASS_KG,
}
TOOL_KINDS = tuple(TOOL_SIZE_M)
