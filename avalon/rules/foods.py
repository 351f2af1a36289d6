"""The foods of the paper's Appendix A.3 (Table 2): the single source of what each food is and does.

Each food is a :class:`FoodSpec` row of :data:`FOODS`. ``avalon.dev.codegen`` writes one Godot scene
per food (``godot/entities/food/<kind>.tscn``) that sets every property of its row on the shared
script ``godot/entities/food.gd``, and the table of ``docs/items.md``; a world may still override a
property per instance (entity params: ``radius``, ``energy``, ``color``, ...).

A food's rule is data, of a few kinds that ``food.gd`` applies to its physics contacts (it
branches on these kinds, never on the food's name; ``docs/items.md`` explains impact speed):

- **splatter** (``splatter_speed_m_per_s`` > 0): an impact at least this fast makes it inedible
  for good;
- **opening** (``opening``): ``"none"``, edible as it is; ``"impact"``, inedible until an impact at
  least ``open_speed_m_per_s`` fast (from a body in group ``opened_by`` if set: a tool kind, e.g.
  only a rock opens an orange); ``"fall"``, inedible until it lands while falling (its own
  downward speed) at least ``open_speed_m_per_s`` fast (see :func:`landing_speed_m_per_s`);
- **dirty on the ground** (``dirty_on_ground``): touching the ground (the terrain or the flat
  ground) makes it inedible for good;
- **buried** (``buried_fraction`` > 0): it grows in the ground, locked in place with this fraction
  of its root below the ground, until a hand grasps it by its leaves and pulls it out.

Adding a food whose rule is of these kinds is one row here and ``make generate``.
"""

from __future__ import annotations

import math

import attr

from avalon.rules import mechanics
from avalon.rules.tools import TOOL_KINDS

Color = tuple[float, float, float]

#: How a food is drawn (``food.gd``: ``_update_look``): a low-poly sphere; a long thin capsule
#: lying along x (a banana); a flat hexagonal prism (a honeycomb); a cone pointing down, mostly in
#: the ground, with leaves above (a carrot: buried foods only).
LOOKS = ("sphere", "elongated", "hexagon", "root")
#: How a food that must be opened opens (see the module's docstring).
OPENINGS = ("none", "impact", "fall")

#: Food hanging in a fruit tree (``hanging_food_entity``) has its lowest point this far above the
#: ground below it, metres: above the agent's 2 m body, so walking under it does not touch it, and
#: within a standing agent's reach (a hand's centre reaches 2.45 m: shoulder 1.45 m + arm 1 m; it
#: grasps what lies within 0.25 m of its centre). Dropped from there, food lands at about 6.5 m/s:
#: a fig splatters, a coconut and an avocado open, a honeycomb gets dirty.
HANGING_FOOD_CLEARANCE_M = 2.1
#: The stalk a hanging food is drawn on is at least this long, metres.
MIN_HANGING_STALK_M = 0.05


def landing_speed_m_per_s(drop_height_m: float) -> float:
    """The speed a body dropped from ``drop_height_m`` is sure to land at, whatever the phase of the
    physics steps: ``sqrt(2 g h)`` less one step of gravity (``STEPS_PER_SECOND``)."""
    return math.sqrt(2.0 * mechanics.GRAVITY_M_PER_S2 * drop_height_m) - mechanics.GRAVITY_M_PER_S2 * mechanics.STEP_SECONDS


def _check_color(kind: str, name: str, value: Color) -> None:
    if len(value) != 3 or not all(isinstance(c, (int, float)) and 0.0 <= c <= 1.0 for c in value):
        raise ValueError(f"{kind}: {name} {value!r} must be three numbers in [0, 1] (red, green, blue)")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class FoodSpec:
    """One food: a row of the paper's Table 2 with every number and look the game uses.

    Sizes in metres, masses in kilograms, speeds in metres per second, colours RGB in [0, 1].
    """

    kind: str
    #: The paper's description (Table 2).
    description: str
    #: Radius of the sphere that bounds it; its centre rests this high above the ground.
    radius_m: float
    mass_kg: float
    #: Energy gained by eating it (Appendix B: 1, a banana 0.5).
    energy: float
    color: Color
    #: Its colour once splattered, opened or dirty (the same as ``color`` for foods that never change).
    changed_color: Color
    look: str = "sphere"
    #: Colour of its stem, its leaves (buried foods), its stalk when hanging and its pit.
    stem_color: Color
    #: Length of the stem on its top in radii (0: none).
    stem_length_radii: float = 0.0
    #: Where it stands on the ladder of foods from easy (0, the apple) to hard: tasks that choose
    #: foods by difficulty (eat) offer them in this order. Distinct for every food.
    difficulty_rank: int
    #: How many come together (inclusive range; cherries: "always multiple"), and the radius of the
    #: circle a cluster of them lies on, metres (0 for foods that come one at a time).
    count_range: tuple[int, int] = (1, 1)
    cluster_radius_m: float = 0.0
    #: Rules (see the module's docstring). 0: it never splatters.
    splatter_speed_m_per_s: float = 0.0
    opening: str = "none"
    open_speed_m_per_s: float = 0.0
    #: For an ``"impact"`` opening: only a body in this group (a tool kind) opens it; "": any body.
    opened_by: str = ""
    #: Opened, it shows a pit (an avocado).
    pit_when_opened: bool = False
    dirty_on_ground: bool = False
    #: Fraction of its root below the ground while it grows (0: it does not grow in the ground).
    buried_fraction: float = 0.0

    def __attrs_post_init__(self) -> None:
        kind = self.kind
        for name in ("radius_m", "mass_kg"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"{kind}: {name} {value!r} must be a finite number > 0")
        for name in ("energy", "stem_length_radii", "cluster_radius_m", "splatter_speed_m_per_s", "open_speed_m_per_s"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{kind}: {name} {value!r} must be a finite number >= 0")
        for name in ("color", "changed_color", "stem_color"):
            _check_color(kind, name, getattr(self, name))
        if self.look not in LOOKS:
            raise ValueError(f"{kind}: look {self.look!r} is not one of {LOOKS}")
        if self.opening not in OPENINGS:
            raise ValueError(f"{kind}: opening {self.opening!r} is not one of {OPENINGS}")
        if (self.opening == "none") != (self.open_speed_m_per_s == 0):
            raise ValueError(f"{kind}: open_speed_m_per_s {self.open_speed_m_per_s!r} must be > 0 exactly when it must be "
                             f"opened (opening {self.opening!r})")
        if self.opened_by and (self.opening != "impact" or self.opened_by not in TOOL_KINDS):
            raise ValueError(f"{kind}: opened_by {self.opened_by!r} must be a tool kind of {TOOL_KINDS}, with opening 'impact'")
        if self.pit_when_opened and self.opening == "none":
            raise ValueError(f"{kind}: pit_when_opened needs an opening, not {self.opening!r}")
        if not 0.0 <= self.buried_fraction < 1.0:
            raise ValueError(f"{kind}: buried_fraction {self.buried_fraction!r} must be in [0, 1)")
        if (self.look == "root") != self.grows_in_ground:
            raise ValueError(f"{kind}: the look 'root' goes with buried_fraction > 0 and only with it "
                             f"(look {self.look!r}, buried_fraction {self.buried_fraction!r})")
        low, high = self.count_range
        if not (isinstance(low, int) and isinstance(high, int) and 1 <= low <= high):
            raise ValueError(f"{kind}: count_range {self.count_range!r} must be (low, high) with 1 <= low <= high")
        if (high > 1) != (self.cluster_radius_m > 0):
            raise ValueError(f"{kind}: cluster_radius_m {self.cluster_radius_m!r} must be > 0 exactly when several come "
                             f"together (count_range {self.count_range!r})")
        if not (isinstance(self.difficulty_rank, int) and self.difficulty_rank >= 0):
            raise ValueError(f"{kind}: difficulty_rank {self.difficulty_rank!r} must be an integer >= 0")

    @property
    def grows_in_ground(self) -> bool:
        return self.buried_fraction > 0.0

    @property
    def must_be_opened(self) -> bool:
        return self.opening != "none"

    def properties(self) -> dict[str, object]:
        """The properties its scene sets (names as in ``food.gd``; ``mass`` is the RigidBody's)."""
        return {
            "kind": self.kind,
            "radius": self.radius_m,
            "color": self.color,
            "changed_color": self.changed_color,
            "energy": self.energy,
            "look": self.look,
            "stem_color": self.stem_color,
            "stem_length": self.stem_length_radii,
            "splatter_speed_m_per_s": self.splatter_speed_m_per_s,
            "opening": self.opening,
            "open_speed_m_per_s": self.open_speed_m_per_s,
            "opened_by": self.opened_by,
            "pit_when_opened": self.pit_when_opened,
            "dirty_on_ground": self.dirty_on_ground,
            "buried_fraction": self.buried_fraction,
        }

    def rule(self) -> str:
        """Its rule in words (for the docs), from its data."""
        rules = []
        if self.splatter_speed_m_per_s > 0:
            rules.append(f"splatters (inedible for good) on an impact >= {self.splatter_speed_m_per_s:.3g} m/s")
        if self.opening == "impact":
            by = f"a {self.opened_by} striking it" if self.opened_by else "any impact"
            rules.append(f"inedible until opened by {by} at >= {self.open_speed_m_per_s:.3g} m/s")
        elif self.opening == "fall":
            rules.append(f"inedible until it lands falling at >= {self.open_speed_m_per_s:.3g} m/s")
        if self.dirty_on_ground:
            rules.append("dirty (inedible for good) once it touches the ground")
        if self.grows_in_ground:
            rules.append(f"grows in the ground ({self.buried_fraction:g} of its root buried) until pulled out by its leaves")
        if self.count_range != (1, 1):
            rules.append(f"comes {self.count_range[0]} to {self.count_range[1]} together")
        return "; ".join(rules) or "none"


#: Every food of Table 2, in the order of the ``eat_<kind>`` achievements (``avalon.sim.protocol``).
FOODS: dict[str, FoodSpec] = {food.kind: food for food in (
    FoodSpec(kind="apple", description="Canonical fruit.", radius_m=0.15, mass_kg=0.3, energy=1.0,
             color=(0.85, 0.1, 0.1), changed_color=(0.85, 0.1, 0.1), stem_color=(0.35, 0.25, 0.1), stem_length_radii=0.3,
             difficulty_rank=0),
    FoodSpec(kind="banana", description="Provides less energy.", radius_m=0.17, mass_kg=0.25, energy=0.5,
             color=(0.95, 0.85, 0.2), changed_color=(0.95, 0.85, 0.2), look="elongated", stem_color=(0.35, 0.25, 0.1),
             difficulty_rank=3),
    FoodSpec(kind="cherry", description="Dark apple with long stem, always multiple.", radius_m=0.09, mass_kg=0.1,
             energy=1.0, color=(0.35, 0.02, 0.06), changed_color=(0.35, 0.02, 0.06), stem_color=(0.2, 0.45, 0.1),
             stem_length_radii=1.6, difficulty_rank=1, count_range=(2, 4), cluster_radius_m=0.18),
    FoodSpec(kind="mulberry", description="Smaller than other fruit.", radius_m=0.08, mass_kg=0.08, energy=1.0,
             color=(0.3, 0.08, 0.3), changed_color=(0.3, 0.08, 0.3), stem_color=(0.2, 0.45, 0.1), stem_length_radii=0.2,
             difficulty_rank=2),
    FoodSpec(kind="fig", description="Inedible (splattered) if it experiences too much force.", radius_m=0.13,
             mass_kg=0.2, energy=1.0, color=(0.4, 0.15, 0.45), changed_color=(0.85, 0.3, 0.2), stem_color=(0.3, 0.4, 0.15),
             stem_length_radii=0.3, difficulty_rank=4,
             splatter_speed_m_per_s=4.5),  # a drop from ~1 m
    FoodSpec(kind="orange", description="Must be opened by hitting with a rock.", radius_m=0.15, mass_kg=0.35,
             energy=1.0, color=(0.98, 0.55, 0.05), changed_color=(1.0, 0.9, 0.7), stem_color=(0.3, 0.4, 0.15),
             stem_length_radii=0.2, difficulty_rank=8,
             opening="impact", open_speed_m_per_s=3.0, opened_by="rock"),  # = HIT_MIN_SPEED_M_PER_S
    FoodSpec(kind="avocado", description="Must be opened by dropping from a height.", radius_m=0.14, mass_kg=0.3,
             energy=1.0, color=(0.2, 0.3, 0.1), changed_color=(0.8, 0.85, 0.35), stem_color=(0.3, 0.25, 0.1),
             stem_length_radii=0.2, difficulty_rank=9,
             opening="fall", open_speed_m_per_s=landing_speed_m_per_s(2.0), pit_when_opened=True),  # ~5.3 m/s
    FoodSpec(kind="coconut", description="Must be opened by making it experience a force.", radius_m=0.2, mass_kg=1.2,
             energy=1.0, color=(0.45, 0.3, 0.15), changed_color=(0.95, 0.95, 0.9), stem_color=(0.3, 0.25, 0.1),
             difficulty_rank=7,
             opening="impact", open_speed_m_per_s=5.0),  # a drop from ~1.25 m
    FoodSpec(kind="honeycomb", description="Inedible (dirty) if it contacts the ground.", radius_m=0.16, mass_kg=0.4,
             energy=1.0, color=(0.95, 0.7, 0.15), changed_color=(0.3, 0.2, 0.12), look="hexagon",
             stem_color=(0.3, 0.25, 0.1), difficulty_rank=5,
             dirty_on_ground=True),
    FoodSpec(kind="carrot", description="Must be pulled from the ground by its leaves.", radius_m=0.2, mass_kg=0.2,
             energy=1.0, color=(0.95, 0.45, 0.08), changed_color=(0.95, 0.45, 0.08), look="root",
             stem_color=(0.2, 0.6, 0.15), difficulty_rank=6,
             buried_fraction=0.75),
)}
FOOD_KINDS: tuple[str, ...] = tuple(FOODS)
#: Each food's radius (``FoodSpec.radius_m``), for callers that need only that.
FOOD_RADIUS_M: dict[str, float] = {kind: food.radius_m for kind, food in FOODS.items()}
#: The food kinds from easy to hard (``FoodSpec.difficulty_rank``).
FOODS_EASY_TO_HARD: tuple[str, ...] = tuple(sorted(FOODS, key=lambda kind: FOODS[kind].difficulty_rank))

if len({food.difficulty_rank for food in FOODS.values()}) != len(FOODS):
    raise ValueError(f"two foods share a difficulty_rank: {[(k, f.difficulty_rank) for k, f in FOODS.items()]}")


def food_spec(kind: str) -> FoodSpec:
    """The row of ``kind``; a clear error for an unknown name."""
    try:
        return FOODS[kind]
    except KeyError:
        raise ValueError(f"unknown food kind {kind!r}; known: {FOOD_KINDS}") from None
