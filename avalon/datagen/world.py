"""The immutable description of one world, independent of Godot.

Generators build a :class:`World`; :mod:`avalon.datagen.export` turns it into a world folder.
Coordinates are Godot's: metres, y up, the agent faces -z at yaw 0; yaw is about +y, radians.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Union

import attr

from avalon.rules.foods import FOOD_KINDS, HANGING_FOOD_CLEARANCE_M, MIN_HANGING_STALK_M, food_spec
from avalon.rules.tools import tool_spec

if TYPE_CHECKING:
    from avalon.datagen.biomes import BiomeMap
    from avalon.datagen.buildings import Building
    from avalon.datagen.obstacles import RingOutline
    from avalon.datagen.scenery import SceneryInstance
    from avalon.datagen.terrain import HeightMap

Vector3 = tuple[float, float, float]
Color = tuple[float, float, float]

GENERATOR_VERSION = "0.1.0"
#: How an episode in a world succeeds (paper, Appendix M), by the name world.json gives the rule.
SUCCESS_RULES = {
    "all_food": "every food eaten",
    "all_food_or_energy_gain": "every food eaten, or at least one eaten and more energy at the end than at the start",
}


def _vector3(value) -> Vector3:
    x, y, z = (float(v) for v in value)
    return (x, y, z)


def _color(value) -> Color:
    rgb = tuple(float(v) for v in value)
    if len(rgb) != 3 or not all(0.0 <= c <= 1.0 for c in rgb):
        raise ValueError(f"colour {value!r} must be three floats in [0, 1]")
    return rgb  # type: ignore[return-value]


def _frozen_params(value: Mapping[str, object]) -> tuple[tuple[str, object], ...]:
    return tuple(sorted(dict(value).items()))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Entity:
    """Something placed in the world: ``kind`` names its Godot scene (see ``export.ENTITY_SCENES``).

    ``position`` is the centre of the entity in metres; ``params`` are kind-specific properties
    (for example ``size`` in metres and ``color`` for a box), stored as sorted pairs.
    """

    kind: str
    name: str
    position: Vector3 = attr.ib(converter=_vector3)
    yaw_rad: float = 0.0
    params: tuple[tuple[str, object], ...] = attr.ib(default=(), converter=_frozen_params)

    def param(self, key: str, default: object = None) -> object:
        return dict(self.params).get(key, default)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class FlatGround:
    """A flat square of ground whose top surface is at y = 0."""

    size_m: float = 100.0
    color: Color = attr.ib(default=(0.35, 0.55, 0.25), converter=_color)


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class Terrain:
    """A generated island: its biome map (which holds the final, eroded height map) and the
    outlines of any obstacle rings cut into it (for previews)."""

    biome_map: "BiomeMap"
    ring_outlines: tuple["RingOutline", ...] = attr.ib(default=(), converter=tuple)

    @property
    def heightmap(self) -> "HeightMap":
        return self.biome_map.heightmap

    @property
    def size_m(self) -> float:
        return self.heightmap.size_m


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Lighting:
    """Sun, ambient light, sky colours and fog. Angles in degrees; fog distances in metres."""

    sun_pitch_deg: float = -50.0
    sun_yaw_deg: float = 30.0
    sun_energy: float = 1.0
    sun_color: Color = attr.ib(default=(1.0, 0.97, 0.9), converter=_color)
    ambient_color: Color = attr.ib(default=(0.55, 0.6, 0.7), converter=_color)
    ambient_energy: float = 0.6
    sky_zenith_color: Color = attr.ib(default=(0.30, 0.50, 0.85), converter=_color)
    sky_horizon_color: Color = attr.ib(default=(0.75, 0.85, 0.95), converter=_color)
    fog_enabled: bool = False
    fog_color: Color = attr.ib(default=(0.75, 0.85, 0.95), converter=_color)
    fog_depth_begin_m: float = 40.0
    fog_depth_end_m: float = 300.0
    #: Linear tonemap exposure: scales every light (Godot's own tonemapper needs HDR rendering,
    #: which costs speed, so exposure is applied where light is computed, at export).
    exposure: float = 1.0


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class World:
    """Everything the simulator needs to run one episode."""

    task: str
    difficulty: float = attr.ib(converter=float)
    seed: int
    ground: Union[FlatGround, Terrain]
    entities: tuple[Entity, ...] = attr.ib(converter=tuple)
    scenery: tuple["SceneryInstance", ...] = attr.ib(default=(), converter=tuple)
    spawn_position: Vector3 = attr.ib(converter=_vector3)
    spawn_yaw_rad: float = 0.0
    time_limit_frames: int = attr.ib()
    lighting: Lighting = attr.ib(factory=Lighting)
    #: Buildings standing on the ground (``avalon.datagen.buildings``; their sites levelled first).
    buildings: tuple["Building", ...] = attr.ib(default=(), converter=tuple)
    #: How an episode succeeds (paper, Appendix M): one of :data:`SUCCESS_RULES`.
    success_rule: str = attr.ib(default="all_food")

    @difficulty.validator
    def _check_difficulty(self, _attribute, value):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"difficulty {value!r} must be in [0, 1]")

    @success_rule.validator
    def _check_success_rule(self, _attribute, value):
        if value not in SUCCESS_RULES:
            raise ValueError(f"success_rule {value!r}: expected one of {sorted(SUCCESS_RULES)}")

    @time_limit_frames.validator
    def _check_time_limit(self, _attribute, value):
        if value <= 0:
            raise ValueError(f"time_limit_frames {value!r} must be positive")

    def entity(self, name: str) -> Entity:
        for entity in self.entities:
            if entity.name == name:
                return entity
        raise KeyError(f"world has no entity named {name!r}")

    @property
    def food(self) -> tuple[Entity, ...]:
        return tuple(entity for entity in self.entities if entity.kind in FOOD_KINDS)

    @property
    def animals(self) -> tuple[Entity, ...]:
        """The animals (entities whose kind is a species of ``avalon.rules.animals``), in scene order."""
        from avalon.rules.animals import ANIMAL_KINDS

        return tuple(entity for entity in self.entities if entity.kind in ANIMAL_KINDS)

    @property
    def food_count(self) -> int:
        """Pieces of food, counting each prey animal (a knocked-out prey is eaten like food)."""
        from avalon.rules.animals import PREY_KINDS

        return len(self.food) + sum(1 for animal in self.animals if animal.kind in PREY_KINDS)

    def add_animal(self, animal: Entity) -> "World":
        """A copy of this world with ``animal`` (see ``avalon.datagen.animal_placement.animal_entity``) added."""
        from avalon.rules.animals import animal_spec

        animal_spec(animal.kind)
        if any(entity.name == animal.name for entity in self.entities):
            raise ValueError(f"the world already has an entity named {animal.name!r}")
        return attr.evolve(self, entities=self.entities + (animal,))


def tool_entity(kind: str, name: str, ground_position: Vector3, yaw_rad: float = 0.0, safe_scale: float = 1.0,
                **params: object) -> Entity:
    """A tool of ``kind`` resting on the ground at ``ground_position`` (its centre half its scaled
    height above it); ``params`` may add ``base_color`` or ``mass``."""
    size = tool_spec(kind).size_m
    if safe_scale <= 0.0:
        raise ValueError(f"safe_scale {safe_scale!r} must be positive")
    x, y, z = _vector3(ground_position)
    height = size[1] * safe_scale
    all_params = dict(params)
    if safe_scale != 1.0:
        all_params["safe_scale"] = float(safe_scale)
    return Entity(kind=kind, name=name, position=(x, y + height / 2.0, z), yaw_rad=yaw_rad, params=all_params)


def hanging_food_entity(kind: str, name: str, ground_position: Vector3, branch_height_m: float, yaw_rad: float = 0.0,
                        **params: object) -> Entity:
    """Food of ``kind`` hanging in a tree above ``ground_position`` (x, ground height, z): its lowest
    point ``HANGING_FOOD_CLEARANCE_M`` above the ground, on a stalk that reaches up to
    ``branch_height_m`` (the world height it hangs from, e.g. the bottom of a fruit tree's canopy).

    It stays there (``godot/entities/food.gd``: ``hanging``) until a hand grasps it or something
    strikes it at ``mechanics.HANGING_FOOD_KNOCK_SPEED_M_PER_S`` or more; then it falls.
    ``params`` may add any other food property (e.g. ``energy``).
    """
    food = food_spec(kind)
    if food.grows_in_ground:
        raise ValueError(f"a {kind} grows in the ground and cannot hang in a tree; expected another food kind")
    radius = food.radius_m
    x, ground_y, z = _vector3(ground_position)
    centre_y = ground_y + HANGING_FOOD_CLEARANCE_M + radius
    stalk = float(branch_height_m) - (centre_y + radius)
    if not stalk >= MIN_HANGING_STALK_M:
        raise ValueError(
            f"branch_height_m={branch_height_m!r} is too low for {kind} hanging over ground at {ground_y:.3f} m: "
            f"expected at least {centre_y + radius + MIN_HANGING_STALK_M:.3f} m (top of the food plus "
            f"{MIN_HANGING_STALK_M} m of stalk)"
        )
    all_params = {"radius": radius, **params, "hanging": True, "stalk_length_m": round(stalk, 6)}
    return Entity(kind=kind, name=name, position=(x, centre_y, z), yaw_rad=yaw_rad, params=all_params)
