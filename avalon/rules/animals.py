"""The 17 animals of the paper's Appendix A.5 (Tables 3 and 4): the single source of their rules.

Each species is an :class:`AnimalSpec`. ``avalon.dev.codegen`` writes one Godot scene per species
(``godot/entities/animals/<species>.tscn``) that sets every field below on the shared behaviour
script ``godot/entities/animals/animal.gd``; a world may override any behaviour field per
instance (entity params, see :func:`avalon.datagen.animal_placement.animal_entity`). The module-level
constants are copied into ``godot/generated/protocol.gd``. Every number the paper leaves open is
chosen and explained in ``docs/animals.md``.

Speeds are relative to the agent's maximum walking speed (``MAX_WALK_SPEED_M_PER_S``, 5 m/s):
"fast" animals outrun it, "slow" ones do not.
"""

from __future__ import annotations

import math

import attr

from avalon.rules import mechanics

Vector3 = tuple[float, float, float]
Color = tuple[float, float, float]

# ---- Numbers the paper leaves open (docs/animals.md) -------------------------------------------
FAST_SPEED_M_PER_S = 1.2 * mechanics.MAX_WALK_SPEED_M_PER_S  # "fast": outruns the agent (6 m/s)
SLOW_SPEED_M_PER_S = 0.5 * mechanics.MAX_WALK_SPEED_M_PER_S  # "slow": the agent walks away (2.5 m/s)
FAST_IDLE_SPEED_M_PER_S = 3.0  # fast random wandering
SLOW_IDLE_SPEED_M_PER_S = 1.0  # slow random wandering, periodic paths
AVOID_SPEED_M_PER_S = 1.5  # a static-avoidant animal backing away
SMALL_RADIUS_M = 5.0  # "within radius (small)": the agent is nearly on top of it
WIDE_RADIUS_M = 15.0  # "within radius (wide)"
DEACTIVATION_RADIUS_FACTOR = 1.5  # "outside radius" is this many activation radii away (hysteresis)
AVOID_MARGIN_M = 5.0  # static-avoidant animals back away while the agent is this much beyond the activation radius
TERRITORY_RADIUS_M = 10.0  # territory-bound animals keep within this of their home; hawks and wolves activate inside it
WANDER_RADIUS_M = 8.0  # random wandering picks targets within this of the animal's home
PATH_RADIUS_M = 5.0  # periodic fixed paths are circles of this radius around home
ANIMAL_FOV_DEG = 120.0  # "must see you": the agent within this cone of the animal's facing and in line of sight
STILL_SPEED_M_PER_S = 0.2  # "you stop moving": the agent's body moves slower than this
OUT_OF_REACH_HEIGHT_M = 1.5  # a non-climbing ground animal cannot reach an agent whose feet are this much higher
ATTACK_REACH_M = 0.5  # an attack lands when the animal is this close to the agent's body
CHASE_STOP_GAP_M = 0.45  # chasers stop this close: just within reach (nearer, they fill the agent's view)
ATTACK_INTERVAL_S = 1.0  # persistent attackers strike again after this long
HAWK_RESPITE_S = 10.0  # a temporary respite: the attacker leaves and cannot activate for this long
HIT_COOLDOWN_S = 0.5  # one swing or one bouncing rock counts as one hit
CLIMB_SPEED_FACTOR = 0.5  # climbers go up at this fraction of their active speed
DEFAULT_FLY_HEIGHT_M = 4.0  # air animals idle this high above the ground
OBSTACLE_MARGIN_M = 3.0  # on terrain, animals look static obstacles up per cell of the terrain's grid, those within this of it...
OBSTACLE_CONTACT_MARGIN_M = 0.1  # ...and move with physics queries only when this step could bring them this near one
WATER_LOOKAHEAD_S = 0.3  # ground animals do not take a step toward water they would reach within this long at its speed...
WATER_MARGIN_M = 0.02  # ...water being ground lower than this above the water level (the shore's first centimetres)
MAX_REPORTED_ANIMALS = 24  # the ground-truth `animals` feature covers this many (scene order)

# Ground-truth state codes in the `animals` feature.
STATE_IDLE = 0
STATE_AVOIDING = 1  # a static-avoidant animal backing away
STATE_ACTIVE = 2  # chasing (predators) or fleeing (prey)
STATE_RESPITE = 3  # after a temporary-respite attack
STATE_KNOCKED_OUT = 4  # KO'd (or a bee after its sting): now a body on the ground
STATE_EATEN = 5
STATE_ABSENT = -1  # no animal in this slot
# Fields per animal in the `animals` feature.
ANIMAL_STATE_FIELDS = ("x", "y", "z", "state", "hits")
ANIMAL_STATE_FIELD_COUNT = len(ANIMAL_STATE_FIELDS)

DOMAINS = ("ground", "air")
ACTIVATIONS = ("within_radius", "within_territory", "must_see_you", "you_dont_see_it")
DEACTIVATIONS = ("outside_radius", "outside_territory", "outside_domain", "you_see_it", "you_stop_moving",
                 "cant_see_you", "ko")
IDLE_BEHAVIOURS = ("fast_random", "slow_random", "periodic_fixed", "static_avoidant", "territory_fast_random",
                   "territory_slow_random", "territory_periodic_fixed")
RESPITES = ("persistent", "temporary", "permanent", "none")
PART_SHAPES = ("box", "wedge")  # wedge: a box whose top tapers to a ridge along z (ears, beaks, tails)


@attr.s(frozen=True, auto_attribs=True)
class Part:
    """One low-poly piece of an animal's mesh: ``centre`` and ``size`` in metres relative to the
    animal's origin (the centre of its bounding box; it faces -z)."""

    shape: str
    centre: Vector3
    size: Vector3
    color: Color


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class AnimalSpec:
    """One row of Table 3 or 4, with the numbers the paper leaves open.

    ``activation`` conditions must all hold to activate; any ``deactivation`` condition ends
    activity. ``hits_to_ko`` 0 means indestructible. ``attack_damage`` is energy per attack.
    """

    species: str
    is_predator: bool
    domain: str
    can_climb: bool = False
    no_inside: bool = False  # too big for doors: never steps into a building's footprint (docs/animals.md)
    activation: tuple[str, ...]
    activation_radius_m: float
    deactivation: tuple[str, ...]
    idle: str
    active_speed_m_per_s: float
    attack_damage: float = 0.0
    respite: str = "none"
    respite_s: float = 0.0
    hits_to_ko: int
    size_m: Vector3  # bounding box (x width, y height, z length)
    mass_kg: float
    color: Color
    fly_height_m: float = 0.0
    parts: tuple[Part, ...] = ()

    def __attrs_post_init__(self) -> None:
        check_behaviour(self.species, domain=self.domain, activation=self.activation, deactivation=self.deactivation,
                        idle=self.idle, respite=self.respite, activation_radius_m=self.activation_radius_m,
                        active_speed_m_per_s=self.active_speed_m_per_s, attack_damage=self.attack_damage,
                        respite_s=self.respite_s, hits_to_ko=self.hits_to_ko, fly_height_m=self.fly_height_m)

    @property
    def idle_speed_m_per_s(self) -> float:
        if self.idle.endswith("fast_random"):
            return FAST_IDLE_SPEED_M_PER_S
        return AVOID_SPEED_M_PER_S if self.idle == "static_avoidant" else SLOW_IDLE_SPEED_M_PER_S

    @property
    def territory_radius_m(self) -> float:
        bound = self.idle.startswith("territory_") or "within_territory" in self.activation
        return TERRITORY_RADIUS_M if bound else 0.0

    @property
    def deactivation_radius_m(self) -> float:
        return self.activation_radius_m * DEACTIVATION_RADIUS_FACTOR

    def behaviour(self) -> dict[str, object]:
        """The properties of ``animal.gd`` this species sets (names as in the script)."""
        return {
            "species": self.species,
            "is_predator": self.is_predator,
            "domain": self.domain,
            "can_climb": self.can_climb,
            "no_inside": self.no_inside,
            "activation": self.activation,
            "activation_radius_m": self.activation_radius_m,
            "deactivation_radius_m": self.deactivation_radius_m,
            "deactivation": self.deactivation,
            "idle": self.idle,
            "territory_radius_m": self.territory_radius_m,
            "idle_speed_m_per_s": self.idle_speed_m_per_s,
            "active_speed_m_per_s": self.active_speed_m_per_s,
            "attack_damage": self.attack_damage,
            "respite": self.respite,
            "respite_s": self.respite_s,
            "hits_to_ko": self.hits_to_ko,
            "fly_height_m": self.fly_height_m,
            "size": self.size_m,
            "mass_kg": self.mass_kg,
        }


#: Per-instance overridable behaviour properties and their Python types.
OVERRIDABLE: dict[str, type] = {
    "can_climb": bool,
    "no_inside": bool,
    "activation": tuple,
    "activation_radius_m": float,
    "deactivation_radius_m": float,
    "deactivation": tuple,
    "idle": str,
    "territory_radius_m": float,
    "idle_speed_m_per_s": float,
    "active_speed_m_per_s": float,
    "attack_damage": float,
    "respite": str,
    "respite_s": float,
    "hits_to_ko": int,
    "fly_height_m": float,
}


def check_behaviour(species: str, **values: object) -> None:
    """Raises ValueError naming the first bad behaviour value (unknown names, negative numbers)."""
    choices = {"domain": DOMAINS, "idle": IDLE_BEHAVIOURS, "respite": RESPITES}
    for key, value in values.items():
        if key in choices and value not in choices[key]:
            raise ValueError(f"{species}: {key} {value!r} is not one of {choices[key]}")
        if key in ("activation", "deactivation"):
            allowed = ACTIVATIONS if key == "activation" else DEACTIVATIONS
            if isinstance(value, str) or not all(v in allowed for v in value):
                raise ValueError(f"{species}: {key} {value!r} must be a tuple of names from {allowed}")
        if key.endswith(("_m", "_s", "_m_per_s", "damage")) or key == "hits_to_ko":
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{species}: {key} {value!r} must be a finite number >= 0")


# ---- Body plans: a few boxes and wedges per animal, recognisable by shape, size and colour ----

def _shade(color: Color, factor: float) -> Color:
    return tuple(min(1.0, max(0.0, c * factor)) for c in color)  # type: ignore[return-value]


def _quadruped(size: Vector3, color: Color, accent: Color, leg_fraction: float = 0.45, head_fraction: float = 0.3,
               ears: bool = True, tail: float = 0.3, neck: float = 0.0) -> tuple[Part, ...]:
    w, h, length = size
    leg_h = h * leg_fraction
    body_h = (h - leg_h) * (0.75 if neck else 0.85)
    body_y = -h / 2 + leg_h + body_h / 2
    head = head_fraction * length
    body_l = length - head * 0.8 - tail * length * 0.3
    parts = [Part("box", (0.0, body_y, head * 0.3), (w, body_h, body_l), color)]
    head_y = body_y + body_h * 0.35 + neck * h
    if neck:
        parts.append(Part("box", (0.0, (body_y + head_y) / 2, -body_l / 2 + head * 0.4), (w * 0.4, head_y - body_y, head * 0.5), color))
    parts.append(Part("box", (0.0, head_y, -length / 2 + head / 2), (w * 0.7, body_h * 0.6, head), _shade(color, 1.1)))
    parts.append(Part("box", (0.0, head_y - body_h * 0.1, -length / 2 + 0.02 * length), (w * 0.35, body_h * 0.3, head * 0.3), accent))
    for sx in (-1, 1):
        for sz in (-1, 1):
            parts.append(Part("box", (sx * w * 0.32, -h / 2 + leg_h / 2, head * 0.3 + sz * body_l * 0.38),
                              (w * 0.22, leg_h, w * 0.22), _shade(color, 0.8)))
        if ears:
            parts.append(Part("wedge", (sx * w * 0.22, head_y + body_h * 0.4, -length / 2 + head * 0.6),
                              (w * 0.18, body_h * 0.35, head * 0.2), _shade(color, 0.7)))
    if tail:
        parts.append(Part("wedge", (0.0, body_y + body_h * 0.2, length / 2 - tail * length * 0.25),
                          (w * 0.2, body_h * 0.3, tail * length * 0.5), _shade(color, 0.9)))
    return tuple(parts)


def _bird(size: Vector3, color: Color, accent: Color, beak: Color) -> tuple[Part, ...]:
    w, h, length = size
    return (
        Part("box", (0.0, 0.0, 0.0), (w * 0.25, h * 0.7, length * 0.6), color),
        Part("box", (0.0, h * 0.15, -length * 0.35), (w * 0.2, h * 0.55, length * 0.25), accent),
        Part("wedge", (0.0, h * 0.1, -length * 0.5 + length * 0.05), (w * 0.08, h * 0.2, length * 0.12), beak),
        Part("box", (-w * 0.3, h * 0.15, 0.0), (w * 0.4, h * 0.1, length * 0.4), _shade(color, 0.85)),
        Part("box", (w * 0.3, h * 0.15, 0.0), (w * 0.4, h * 0.1, length * 0.4), _shade(color, 0.85)),
        Part("wedge", (0.0, 0.0, length * 0.38), (w * 0.2, h * 0.1, length * 0.25), _shade(color, 0.7)),
    )


def _bee(size: Vector3) -> tuple[Part, ...]:
    w, h, length = size
    yellow, black, wing = (0.95, 0.8, 0.1), (0.08, 0.08, 0.05), (0.9, 0.95, 1.0)
    parts = [Part("box", (0.0, -h * 0.1, length * 0.05), (w * 0.7, h * 0.7, length * 0.8), yellow)]
    for z in (-0.05, 0.2):
        parts.append(Part("box", (0.0, -h * 0.1, length * z), (w * 0.74, h * 0.74, length * 0.1), black))
    parts.append(Part("box", (0.0, -h * 0.05, -length * 0.4), (w * 0.5, h * 0.5, length * 0.2), black))
    parts.append(Part("box", (0.0, h * 0.35, 0.0), (w, h * 0.05, length * 0.35), wing))
    return tuple(parts)


def _snake(size: Vector3, color: Color, accent: Color) -> tuple[Part, ...]:
    w, h, length = size
    segments = 6
    parts = []
    for k in range(segments):
        z = -length / 2 + (k + 0.5) * length / segments
        x = (w / 2 - w * 0.2) * math.sin(k * 1.3)
        width = w * (0.45 if k else 0.6) * (1.0 - 0.08 * k)
        parts.append(Part("box", (x, -h / 2 + h * 0.25, z), (width, h * 0.5, length / segments * 1.05), color if k % 2 else accent))
    parts.append(Part("box", (0.0, -h / 2 + h * 0.45, -length / 2 + length * 0.04), (w * 0.5, h * 0.3, length * 0.08), _shade(accent, 0.6)))
    return tuple(parts)


def _reptile(size: Vector3, color: Color, accent: Color, shell: Color | None = None) -> tuple[Part, ...]:
    w, h, length = size
    leg_h = h * 0.35
    body_h = h - leg_h - (h * 0.3 if shell else 0.0)
    body_y = -h / 2 + leg_h + body_h / 2
    parts = [
        Part("box", (0.0, body_y, 0.0), (w * 0.6, body_h, length * (0.45 if shell else 0.45)), color),
        Part("box", (0.0, body_y, -length * 0.35), (w * 0.4, body_h * 0.8, length * 0.25), _shade(color, 1.1)),
        Part("wedge", (0.0, body_y, length * 0.35), (w * 0.3, body_h * 0.6, length * 0.3), _shade(color, 0.9)),
    ]
    for sx in (-1, 1):
        for sz in (-1, 1):
            parts.append(Part("box", (sx * w * 0.4, -h / 2 + leg_h / 2 + 0.005, sz * length * 0.15), (w * 0.2, leg_h, w * 0.2), accent))
    if shell:
        parts.append(Part("box", (0.0, h / 2 - h * 0.25, 0.0), (w, h * 0.5, length * 0.6), shell))
    return tuple(parts)


def _frog(size: Vector3, color: Color, accent: Color) -> tuple[Part, ...]:
    w, h, length = size
    return (
        Part("wedge", (0.0, -h * 0.05, length * 0.05), (w * 0.8, h * 0.7, length * 0.8), color),
        Part("box", (-w * 0.3, h * 0.3, -length * 0.3), (w * 0.25, h * 0.3, length * 0.2), accent),
        Part("box", (w * 0.3, h * 0.3, -length * 0.3), (w * 0.25, h * 0.3, length * 0.2), accent),
        Part("box", (-w * 0.4, -h * 0.3, length * 0.3), (w * 0.2, h * 0.4, length * 0.4), _shade(color, 0.8)),
        Part("box", (w * 0.4, -h * 0.3, length * 0.3), (w * 0.2, h * 0.4, length * 0.4), _shade(color, 0.8)),
    )


def _spec(species: str, is_predator: bool, domain: str, activation: tuple[str, ...], radius: float,
          deactivation: tuple[str, ...], idle: str, speed: float, hits: int, size: Vector3, mass: float,
          color: Color, parts: tuple[Part, ...], **rest: object) -> AnimalSpec:
    if domain == "air":
        rest.setdefault("fly_height_m", DEFAULT_FLY_HEIGHT_M)
    return AnimalSpec(species=species, is_predator=is_predator, domain=domain, activation=activation,
                      activation_radius_m=radius, deactivation=deactivation, idle=idle, active_speed_m_per_s=speed,
                      hits_to_ko=hits, size_m=size, mass_kg=mass, color=color, parts=parts, **rest)  # type: ignore[arg-type]


_FAST, _SLOW = FAST_SPEED_M_PER_S, SLOW_SPEED_M_PER_S  # short names for the tables below

#: Table 3, predators from easiest to hardest.
PREDATORS: tuple[AnimalSpec, ...] = (
    _spec("bee", True, "air", ("within_radius",), SMALL_RADIUS_M,
          ("outside_radius", "ko"), "territory_fast_random", _FAST, 1,
          (0.15, 0.15, 0.25), 0.1, (0.95, 0.8, 0.1), _bee((0.15, 0.15, 0.25)),
          attack_damage=0.25, respite="permanent", fly_height_m=1.5),
    _spec("snake", True, "ground", ("within_radius",), SMALL_RADIUS_M,
          ("ko",), "static_avoidant", _FAST, 1,
          (0.3, 0.12, 1.6), 5.0, (0.25, 0.5, 0.15), _snake((0.3, 0.12, 1.6), (0.25, 0.5, 0.15), (0.55, 0.6, 0.1)),
          attack_damage=5.0, respite="persistent"),
    _spec("hawk", True, "air", ("within_radius", "within_territory"), WIDE_RADIUS_M,
          ("outside_radius", "outside_territory", "ko"), "territory_periodic_fixed", _FAST, 1,
          (1.0, 0.25, 0.5), 1.2, (0.5, 0.35, 0.2), _bird((1.0, 0.25, 0.5), (0.5, 0.35, 0.2), (0.85, 0.8, 0.7), (0.9, 0.7, 0.1)),
          attack_damage=0.25, respite="temporary", respite_s=HAWK_RESPITE_S, fly_height_m=6.0),
    _spec("hippo", True, "ground", ("within_radius",), WIDE_RADIUS_M,
          ("outside_radius", "outside_domain"), "static_avoidant", _FAST, 0,
          (1.4, 1.5, 3.2), 1500.0, (0.5, 0.42, 0.5),
          _quadruped((1.4, 1.5, 3.2), (0.5, 0.42, 0.5), (0.75, 0.55, 0.6), leg_fraction=0.25, head_fraction=0.3, tail=0.1),
          attack_damage=0.5, respite="persistent", no_inside=True),
    _spec("alligator", True, "ground", ("within_radius",), WIDE_RADIUS_M,
          ("outside_radius", "outside_domain", "ko"), "slow_random", _SLOW, 1,
          (0.8, 0.45, 3.0), 300.0, (0.3, 0.38, 0.18),
          _reptile((0.8, 0.45, 3.0), (0.3, 0.38, 0.18), (0.22, 0.28, 0.12)),
          attack_damage=0.5, respite="persistent"),
    _spec("eagle", True, "air", ("within_radius", "you_dont_see_it"), WIDE_RADIUS_M,
          ("you_see_it", "ko"), "fast_random", _FAST, 1,
          (2.0, 0.3, 0.8), 5.0, (0.3, 0.2, 0.1), _bird((2.0, 0.3, 0.8), (0.3, 0.2, 0.1), (0.95, 0.95, 0.95), (0.95, 0.75, 0.1)),
          attack_damage=0.5, respite="persistent", fly_height_m=8.0),
    _spec("wolf", True, "ground", ("within_radius", "within_territory"), WIDE_RADIUS_M,
          ("outside_radius", "outside_domain", "ko"), "territory_slow_random", _FAST, 2,
          (0.4, 0.8, 1.3), 40.0, (0.5, 0.5, 0.53),
          _quadruped((0.4, 0.8, 1.3), (0.5, 0.5, 0.53), (0.15, 0.15, 0.15), tail=0.35),
          attack_damage=0.5, respite="persistent"),
    _spec("jaguar", True, "ground", ("within_radius", "must_see_you"), WIDE_RADIUS_M,
          ("outside_radius", "you_stop_moving", "ko"), "periodic_fixed", _FAST, 2,
          (0.45, 0.75, 1.7), 90.0, (0.85, 0.6, 0.2),
          _quadruped((0.45, 0.75, 1.7), (0.85, 0.6, 0.2), (0.2, 0.12, 0.05), leg_fraction=0.4, tail=0.4),
          attack_damage=0.5, respite="persistent", can_climb=True),
    _spec("bear", True, "ground", ("within_radius",), WIDE_RADIUS_M,
          ("outside_radius", "outside_domain"), "slow_random", _FAST, 0,
          (0.9, 1.3, 1.9), 300.0, (0.3, 0.2, 0.12),
          _quadruped((0.9, 1.3, 1.9), (0.3, 0.2, 0.12), (0.55, 0.4, 0.3), leg_fraction=0.35, tail=0.05),
          attack_damage=0.5, respite="persistent", can_climb=True, no_inside=True),
)

#: Table 4, prey from easiest to hardest (prey never attack; active prey flee).
PREY: tuple[AnimalSpec, ...] = (
    _spec("frog", False, "ground", (), SMALL_RADIUS_M,
          ("ko",), "slow_random", 0.0, 1,
          (0.16, 0.1, 0.18), 0.2, (0.3, 0.7, 0.2), _frog((0.16, 0.1, 0.18), (0.3, 0.7, 0.2), (0.9, 0.9, 0.3))),
    _spec("turtle", False, "ground", ("within_radius",), SMALL_RADIUS_M,
          ("outside_radius", "ko"), "periodic_fixed", _SLOW, 1,
          (0.4, 0.22, 0.5), 3.0, (0.3, 0.42, 0.2),
          _reptile((0.4, 0.22, 0.5), (0.55, 0.6, 0.35), (0.45, 0.5, 0.3), shell=(0.3, 0.42, 0.2))),
    _spec("mouse", False, "ground", ("within_radius", "must_see_you"), SMALL_RADIUS_M,
          ("outside_radius", "cant_see_you", "ko"), "fast_random", _FAST, 1,
          (0.1, 0.08, 0.2), 0.05, (0.6, 0.55, 0.5),
          _quadruped((0.1, 0.08, 0.2), (0.6, 0.55, 0.5), (0.95, 0.7, 0.7), leg_fraction=0.2, tail=0.5),
          can_climb=True),
    _spec("rabbit", False, "ground", ("within_radius",), WIDE_RADIUS_M,
          ("outside_radius", "ko"), "fast_random", _FAST, 1,
          (0.25, 0.45, 0.45), 2.0, (0.75, 0.65, 0.5),
          _quadruped((0.25, 0.45, 0.45), (0.75, 0.65, 0.5), (0.95, 0.95, 0.95), leg_fraction=0.25, head_fraction=0.35, tail=0.1)
          + (Part("box", (-0.04, 0.17, -0.12), (0.04, 0.2, 0.05), (0.85, 0.75, 0.6)),
             Part("box", (0.04, 0.17, -0.12), (0.04, 0.2, 0.05), (0.85, 0.75, 0.6)))),
    _spec("pigeon", False, "air", ("within_radius",), SMALL_RADIUS_M,
          ("outside_radius", "ko"), "territory_fast_random", _FAST, 1,
          (0.5, 0.25, 0.35), 0.4, (0.55, 0.58, 0.65),
          _bird((0.5, 0.25, 0.35), (0.55, 0.58, 0.65), (0.35, 0.5, 0.45), (0.9, 0.5, 0.5)), fly_height_m=3.0),
    _spec("squirrel", False, "ground", ("within_radius",), SMALL_RADIUS_M,
          ("outside_radius", "ko"), "fast_random", _FAST, 1,
          (0.15, 0.3, 0.45), 0.5, (0.7, 0.35, 0.15),
          _quadruped((0.15, 0.3, 0.45), (0.7, 0.35, 0.15), (0.95, 0.85, 0.7), leg_fraction=0.25, tail=0.45)
          + (Part("box", (0.0, 0.05, 0.2), (0.1, 0.25, 0.08), (0.75, 0.4, 0.2)),),
          can_climb=True),
    _spec("crow", False, "air", ("within_radius",), WIDE_RADIUS_M,
          ("outside_radius", "ko"), "slow_random", _FAST, 1,
          (0.7, 0.25, 0.45), 0.5, (0.1, 0.1, 0.12),
          _bird((0.7, 0.25, 0.45), (0.1, 0.1, 0.12), (0.05, 0.05, 0.07), (0.2, 0.2, 0.2)), fly_height_m=5.0),
    _spec("deer", False, "ground", ("within_radius",), WIDE_RADIUS_M,
          ("outside_radius", "ko"), "static_avoidant", _FAST, 2,
          (0.5, 1.6, 1.6), 40.0, (0.7, 0.5, 0.3),
          _quadruped((0.5, 1.6, 1.6), (0.7, 0.5, 0.3), (0.95, 0.9, 0.85), leg_fraction=0.5, head_fraction=0.22, tail=0.08, neck=0.15)),
)

ANIMALS: dict[str, AnimalSpec] = {spec.species: spec for spec in PREDATORS + PREY}
ANIMAL_KINDS: tuple[str, ...] = tuple(ANIMALS)
PREDATOR_KINDS: tuple[str, ...] = tuple(spec.species for spec in PREDATORS)
PREY_KINDS: tuple[str, ...] = tuple(spec.species for spec in PREY)


def animal_spec(species: str) -> AnimalSpec:
    """The spec of ``species``; a clear error for an unknown name."""
    try:
        return ANIMALS[species]
    except KeyError:
        raise ValueError(f"unknown animal species {species!r}; known: {ANIMAL_KINDS}") from None
