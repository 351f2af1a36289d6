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


def _number(default: float, low: float, high: float):
    return attr.ib(default=default, validator=between(low, high))


def _integer(default: int, low: int, high: int):
    return attr.ib(default=default, validator=int_between(low, high))


def _colour(default: tuple[float, float, float]):
    return attr.ib(default=default, converter=float_triple, validator=rgb())


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class BuildingAppearance:
    """Sizes and colours of a building; ``ranges()`` lists each attribute's unit and range."""

    #: Clear height of a story, floor to ceiling, metres [2.5, 5].
    story_clear_height_m: float = _number(3.0, 2.5, 5.0)
    #: Thickness of the slab between two stories (and of the roof), metres [0.2, 1].
    floor_thickness_m: float = _number(0.5, 0.2, 1.0)
    #: Depth of the ground floor's foundation below the site, metres [0.2, 3].
    foundation_depth_m: float = _number(1.0, 0.2, 3.0)
    #: Thickness of every wall (centred in its one-tile row of the grid), metres [0.2, 1].
    wall_thickness_m: float = _number(0.4, 0.2, 1.0)
    #: Smallest side of a room's floor, tiles [3, 10].
    min_room_side_tiles: int = _integer(3, 3, 10)
    #: Width of a doorway, a hallway through a wall and a ramp, tiles [1, 3].
    hallway_width_tiles: int = _integer(2, 1, 3)
    #: Height of a doorway's opening, metres [2.2, 4.5] (at most the story's clear height).
    doorway_height_m: float = _number(2.5, 2.2, 4.5)
    #: Steepest a ramp between stories may be, degrees [20, 45] (the agent stands on up to 45).
    max_ramp_slope_deg: float = _number(35.0, 20.0, 45.0)
    #: Width of a window, tiles [1, 4].
    window_width_tiles: int = _integer(2, 1, 4)
    #: Height of a window's opening, metres [0.5, 3].
    window_height_m: float = _number(1.5, 0.5, 3.0)
    #: Height of a window's sill above the floor, metres [0.3, 2].
    window_sill_height_m: float = _number(0.9, 0.3, 2.0)
    #: Wall between two neighbouring windows of a run, tiles [1, 10] (a run holds as many as fit, centred).
    window_gap_tiles: int = _integer(2, 1, 10)
    #: Height of the rail round the roof's edge, metres [0, 2] (0: none).
    roof_rail_height_m: float = _number(0.75, 0.0, 2.0)
    #: Colour of the outside faces of outer walls, RGB in [0, 1].
    exterior_wall_color: tuple[float, float, float] = _colour((0.78, 0.72, 0.62))
    #: Colour of walls inside, RGB in [0, 1].
    interior_wall_color: tuple[float, float, float] = _colour((0.86, 0.84, 0.78))
    #: Colour of floors, RGB in [0, 1].
    floor_color: tuple[float, float, float] = _colour((0.55, 0.42, 0.30))
    #: Colour of ceilings (a slab's underside), RGB in [0, 1].
    ceiling_color: tuple[float, float, float] = _colour((0.92, 0.92, 0.90))
    #: Colour of the roof's top, RGB in [0, 1].
    roof_color: tuple[float, float, float] = _colour((0.50, 0.22, 0.18))
    #: Colour of the roof rail, window sills and lintels seen from outside, RGB in [0, 1].
    trim_color: tuple[float, float, float] = _colour((0.35, 0.30, 0.26))
    #: Colour of ramps and ladders, RGB in [0, 1].
    ramp_color: tuple[float, float, float] = _colour((0.62, 0.50, 0.36))

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


def appearance_ranges() -> list[tuple[str, str, str, str]]:
    """(attribute, default, range, meaning) of every appearance attribute, from the docstrings
    above (the table in docs/worldgen.md)."""
    import inspect
    import re

    source = inspect.getsource(BuildingAppearance)
    rows = []
    for comment, name in re.findall(r"#: (.+)\n    (\w+):", source):
        default = getattr(BuildingAppearance(), name)
        meaning, unit_and_range = re.match(r"(.*), ((?:metres|tiles|degrees|RGB).*?)\.?\Z", comment).groups()
        rows.append((name, repr(default), unit_and_range, meaning))
    return rows
