"""Checks shared by the predator tasks' tests (avoid, fight), computed independently of the kit's
placement and route code where they can be."""

from __future__ import annotations

import math

import attr
import numpy as np

from avalon.datagen.world import World
from avalon.rules.animals import ANIMALS
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import (
    FoodPlacement,
    OutdoorTaskConfig,
    assemble_outdoor_world,
    build_island,
    make_biomes,
    split_streams,
)
from avalon.tasks.kit.certificate import certify
from avalon.tasks.kit.geometry import yaw_towards
from avalon.tasks.kit.obstacle import Constraint, Draft
from avalon.tasks.kit.predators import SPAWN_GAP_M
from avalon.tasks.kit.route import Route
from tests.tasks.helpers import surface_height


def activation_radius_m(animal) -> float:
    value = animal.param("activation_radius_m", None)
    return ANIMALS[animal.kind].activation_radius_m if value is None else float(value)


def horizontal(a, b) -> float:
    return math.hypot(a[0] - b[0], a[2] - b[2])


def route_points(route: Route, step_m: float = 0.1) -> np.ndarray:
    """(x, z) every ``step_m`` along the route's straight walks, its start and ends included."""
    points = [route.start] + [step.target for step in route.steps]
    out = [np.array([[route.start[0], route.start[2]]])]
    for a, b in zip(points, points[1:]):
        n = max(2, int(math.ceil(horizontal(a, b) / step_m)) + 1)
        t = np.linspace(0.0, 1.0, n)[:, None]
        out.append(np.array([a[0], a[2]]) * (1 - t) + np.array([b[0], b[2]]) * t)
    return np.concatenate(out)


def nearest_approach_m(world: World, route: Route) -> float:
    """The least (horizontal distance from a route point to a predator's home, less its activation radius)."""
    points = route_points(route)
    gaps = [float(np.min(np.hypot(points[:, 0] - a.position[0], points[:, 1] - a.position[2]))) - activation_radius_m(a)
            for a in world.animals]
    return min(gaps)


def animal_rests_on_its_ground(world: World, animal) -> bool:
    """A ground animal's box bottom is the highest terrain under its footprint (within 1 cm), an
    air animal's its flying height above that."""
    spec = ANIMALS[animal.kind]
    x, y, z = animal.position
    reach = max(spec.size_m[0], spec.size_m[2]) / 2.0
    angles = np.linspace(0.0, 2.0 * math.pi, 8, endpoint=False)
    heights = [surface_height(world.ground.heightmap, x, z)] + [
        surface_height(world.ground.heightmap, x + reach * math.cos(a), z + reach * math.sin(a)) for a in angles]
    bottom = y - spec.size_m[1] / 2.0 - (spec.fly_height_m if spec.domain == "air" else 0.0)
    return abs(bottom - max(heights)) < 0.01


# --- the predator piece in a band elsewhere ----------------------------------------------------------

#: The band of the piece tests: 12-30 m round a point near the middle of a Medium island, which is
#: not the food (the path ends 5 m from it).
BAND_CENTRE = (3.0, -2.0)
BAND_M = (12.0, 30.0)


def distance_to_segments_m(point, path) -> float:
    """Horizontal distance from ``point`` (x, z) to the polyline ``path``, metres (computed here)."""
    best = math.inf
    for (ax, az), (bx, bz) in zip(path, path[1:]):
        dx, dz = bx - ax, bz - az
        t = min(1.0, max(0.0, ((point[0] - ax) * dx + (point[1] - az) * dz) / (dx * dx + dz * dz)))
        best = min(best, math.hypot(point[0] - ax - t * dx, point[1] - az - t * dz))
    return best


def band_path(angle_rad: float, inverted: bool) -> tuple[tuple[float, float], ...]:
    """A path across the band coming in at ``angle_rad`` (seen from the centre): from 36 m out to a
    goal 5 m from the centre (not on it), or with ``inverted`` the other way, from that start out."""
    cx, cz = BAND_CENTRE
    outside = (cx + 36.0 * math.cos(angle_rad), cz + 36.0 * math.sin(angle_rad))
    inside = (cx + 5.0 * math.cos(angle_rad + 0.6), cz + 5.0 * math.sin(angle_rad + 0.6))
    return (inside, outside) if inverted else (outside, inside)


def piece_and_world(obstacle, difficulty: float, angle_rad: float, inverted: bool, task: str, seeds=range(30)):
    """(natural island, constraint, the built piece, the world assembled across it) of the first
    seed whose Medium island takes the piece in the band and the world: a piece may refuse an
    island (water where a guard would stand), and the assembly a spawn or an apple on steep ground.
    The world: the draft's biomes and scenery, the spawn at the crossing's start facing along the
    path, an apple at its end, the piece's items."""
    config = OutdoorTaskConfig()
    reasons = []
    for seed in seeds:
        streams = split_streams(np.random.default_rng(seed))
        natural = build_island(streams.terrain, "medium", 1.0)
        constraint = Constraint(centre=BAND_CENTRE, inner_radius_m=BAND_M[0], outer_radius_m=BAND_M[1],
                                path=band_path(angle_rad, inverted), heights_inverted=inverted)
        try:
            piece = obstacle(Draft.of_island(natural), streams, difficulty, constraint).build(Draft.of_island(natural))
            draft = piece.draft
            biome_map = make_biomes(streams.biomes, draft.heightmap, config, draft.climbable, draft.unclimbable)
            start, end = piece.crossing.start, piece.crossing.end
            outdoor = assemble_outdoor_world(
                streams, config, biome_map, task=task, difficulty=difficulty, spawn=start,
                spawn_yaw_rad=yaw_towards(start, end), foods=[FoodPlacement(kind="apple", x=end[0], z=end[1])],
                tree_site=None, keep_clear=draft.keep_clear, food_in_sight=False, clear_sight_lines=False,
                food_on_foot=False)
        except ImpossibleWorldError as error:
            reasons.append(str(error))
            continue
        world = attr.evolve(outdoor.world, entities=outdoor.world.entities + piece.items(biome_map.heightmap))
        return natural, constraint, piece, world
    raise AssertionError(f"no island of seeds {list(seeds)} takes the piece and the world: {reasons}")


def check_guard_piece(obstacle, difficulty: float, angle_rad: float, inverted: bool, task: str) -> tuple[World, object]:
    """Builds ``obstacle`` in the band and checks what every predator piece promises: the terrain
    untouched, the crossing along the path, every guard in the band no farther from the path than
    from the centre and clear of the path's start, and a world assembled across it certified with
    the crossing's requirement. Returns that world and the piece."""

    natural, constraint, piece, world = piece_and_world(obstacle, difficulty, angle_rad, inverted, task)
    assert np.array_equal(piece.draft.heightmap.heights, natural.heights), "predators change no terrain"
    assert not piece.draft.climbable.any() and not piece.draft.unclimbable.any()
    assert (piece.crossing.start, piece.crossing.end) == (constraint.path[0], constraint.path[-1])
    guards = [animal for animal in world.animals]
    assert guards, "the piece places guards"
    for animal in guards:
        xz = (animal.position[0], animal.position[2])
        from_centre = math.dist(xz, BAND_CENTRE)
        assert BAND_M[0] - 1e-6 <= from_centre <= BAND_M[1] + 1e-6
        assert distance_to_segments_m(xz, constraint.path) <= from_centre + 1e-6
        assert math.dist(xz, constraint.path[0]) >= activation_radius_m(animal) + SPAWN_GAP_M - 1e-6
        assert animal_rests_on_its_ground(world, animal)
    need = piece.crossing.requirement
    certificate = certify(world, world.food[0], need.skills, need.allowed, max_fall_m=need.max_fall_m,
                          keep_out=need.keep_out)
    assert certificate.solvable, certificate.reason
    assert certificate.route.start == world.spawn_position and certificate.route.skills() <= need.allowed
    return world, piece
