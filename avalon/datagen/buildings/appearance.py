"""How a building looks and how roomy it is: the appearance config (the paper's
``BuildingAestheticsConfig``, Appendix E.4), every attribute with its unit and valid range.

A value outside its range is a ``ValueError`` naming the attribute, the value and the range
(``BuildingAppearance.window_width_tiles=9: expected an integer in [1, 4]``).
"""

from __future__ import annotations

import attr

from avalon.errors import between, float_triple, int_between, rgb

#: Side of one tile of a building's grid, metres: rooms, walls, doorways and ramps are whole tiles.
TILE_SIZE_M = 1.0


#: Every appearance attribute, one a line: name | default | lowest, highest | unit | meaning. The
#: unit decides the type: "tiles" an integer, "RGB" three numbers in [0, 1], any other a number.
#: (One table for the class below and the docs' table of docs/worldgen.md.)
APPEARANCE_TABLE = """
story_clear_height_m | 3.0              | 2.5, 5   | metres  | clear height of a story, floor to ceiling
floor_thickness_m    | 0.5              | 0.2, 1   | metres  | thickness of the slab between two stories (and of the roof)
foundation_depth_m   | 1.0              | 0.2, 3   | metres  | depth of the ground floor's foundation below the site
wall_thickness_m     | 0.4              | 0.2, 1   | metres  | thickness of every wall (centred in its one-tile row of the grid)
min_room_side_tiles  | 3                | 3, 10    | tiles   | smallest side of a room's floor
hallway_width_tiles  | 2                | 1, 3     | tiles   | width of a doorway (a hallway through a wall), the entrance and a ramp
doorway_height_m     | 2.5              | 2.2, 4.5 | metres  | height of a doorway's opening (at most the story's clear height)
max_ramp_slope_deg   | 35.0             | 20, 45   | degrees | steepest a ramp between stories may be (the agent stands on up to 45)
window_width_tiles   | 2                | 1, 4     | tiles   | width of a window
window_height_m      | 1.5              | 0.5, 3   | metres  | height of a window's opening (sill + height at most the clear height)
window_sill_height_m | 0.9              | 0.3, 2   | metres  | height of a window's sill above the floor
window_gap_tiles     | 2                | 1, 10    | tiles   | wall between two neighbouring windows of a run (as many as fit, centred)
roof_rail_height_m   | 0.75             | 0, 2     | metres  | height of the rail round the roof's edge (0: none)
exterior_wall_color  | 0.78, 0.72, 0.62 | 0, 1     | RGB     | outside faces of outer walls
interior_wall_color  | 0.86, 0.84, 0.78 | 0, 1     | RGB     | walls inside
floor_color          | 0.55, 0.42, 0.30 | 0, 1     | RGB     | floors
ceiling_color        | 0.92, 0.92, 0.90 | 0, 1     | RGB     | ceilings (a slab's underside)
roof_color           | 0.50, 0.22, 0.18 | 0, 1     | RGB     | the roof's top
trim_color           | 0.35, 0.30, 0.26 | 0, 1     | RGB     | the roof rail, window sills and lintels, the entrance's lintel
ramp_color           | 0.62, 0.50, 0.36 | 0, 1     | RGB     | ramps and ladders
"""


@attr.s(frozen=True, auto_attribs=True)
class AppearanceAttribute:
    """One row of APPEARANCE_TABLE."""

    name: str
    default: object
    low: float
    high: float
    unit: str
    meaning: str

    def field(self):
        """The attrs field: its default, converter and range check."""
        if self.unit == "RGB":
            return attr.ib(default=self.default, converter=float_triple, validator=rgb())
        if self.unit == "tiles":
            return attr.ib(default=self.default, validator=int_between(int(self.low), int(self.high)))
        return attr.ib(default=self.default, validator=between(self.low, self.high))


def _attributes() -> tuple[AppearanceAttribute, ...]:
    rows = []
    for line in APPEARANCE_TABLE.strip().splitlines():
        name, default, bounds, unit, meaning = (cell.strip() for cell in line.split("|"))
        values = tuple(float(v) for v in default.split(","))
        value = values if unit == "RGB" else int(values[0]) if unit == "tiles" else values[0]
        low, high = (float(v) for v in bounds.split(","))
        rows.append(AppearanceAttribute(name, value, low, high, unit, meaning))
    return tuple(rows)


APPEARANCE_ATTRIBUTES = _attributes()


class _Appearance:
    """What BuildingAppearance adds to its fields: the checks across fields, derived sizes."""

    def __attrs_post_init__(self) -> None:
        if self.doorway_height_m > self.story_clear_height_m:
            raise ValueError(
                f"BuildingAppearance.doorway_height_m={self.doorway_height_m!r}: expected at most "
                f"story_clear_height_m={self.story_clear_height_m!r}"
            )
        if self.window_sill_height_m + self.window_height_m > self.story_clear_height_m:
            raise ValueError(
                f"BuildingAppearance.window_sill_height_m + window_height_m = "
                f"{self.window_sill_height_m + self.window_height_m!r}: expected at most story_clear_height_m="
                f"{self.story_clear_height_m!r}"
            )

    @property
    def story_height_m(self) -> float:
        """Floor top to floor top of consecutive stories, metres."""
        return self.story_clear_height_m + self.floor_thickness_m


#: Sizes and colours of a building, one field per row of APPEARANCE_TABLE (keywords only, frozen).
BuildingAppearance = attr.make_class(
    "BuildingAppearance", {row.name: row.field() for row in APPEARANCE_ATTRIBUTES}, bases=(_Appearance,),
    frozen=True, kw_only=True,
)
BuildingAppearance.__module__ = __name__
BuildingAppearance.__doc__ = "Sizes and colours of a building: the fields of APPEARANCE_TABLE, each with its unit and range."


def appearance_ranges() -> list[tuple[str, str, str, str]]:
    """(attribute, default, unit and range, meaning) of every appearance attribute (the table in
    docs/worldgen.md)."""
    rows = []
    for row in APPEARANCE_ATTRIBUTES:
        default = ", ".join(f"{v:g}" for v in row.default) if row.unit == "RGB" else f"{row.default:g}"
        bounds = "[0, 1] each" if row.unit == "RGB" else f"[{row.low:g}, {row.high:g}]"
        rows.append((row.name, default, f"{row.unit} {bounds}", row.meaning))
    return rows
