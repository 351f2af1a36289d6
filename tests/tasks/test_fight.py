"""The fight task: determinism, the knobs against difficulty as measured on the generated worlds
(species a tool can knock out, how many, how near the food; the sticks and rocks by the spawn,
resting on the ground apart), the certificate, forcing, bad input."""

from __future__ import annotations

import functools
import math

import attr
import numpy as np
import pytest

from avalon.rules.animals import animal_spec
from avalon.rules.tools import TOOL_KINDS, TOOL_SIZE_M
from avalon.tasks import build_world, fight, with_retries
from avalon.tasks.kit.predators import DESTRUCTIBLE_PREDATORS, SPAWN_GAP_M
from tests.tasks.helpers import surface_height, world_digest
from tests.tasks.predator_checks import activation_radius_m, animal_rests_on_its_ground, check_guard_piece, horizontal

SEEDS = range(6)
GOLDEN_DIGESTS = {(0.5, 3): "5cd14e5cce47f9347a80c255b20f1b7f984aea88086534b2de4b6c9e62a334da"}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int):
    return with_retries(lambda rng: fight.build_layout(rng, difficulty, None), "fight", difficulty, seed)


def _tools(world):
    return [e for e in world.entities if e.kind in TOOL_KINDS]


def test_same_seed_same_world_and_different_seeds_differ():
    first = build_world("fight", 0.4, 2)
    assert world_digest(build_world("fight", 0.4, 2)) == world_digest(first)
    assert world_digest(build_world("fight", 0.4, 3)) != world_digest(first)


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN_DIGESTS))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digest (and say so in the commit).
    assert world_digest(build_world("fight", difficulty, seed)) == GOLDEN_DIGESTS[(difficulty, seed)]


def test_the_layout_names_the_worlds_tools_and_predators():
    for seed in range(3):
        lay = _layout(0.5, seed)
        assert world_digest(attr.evolve(lay.world, seed=seed)) == world_digest(build_world("fight", 0.5, seed))
        assert lay.tools == tuple(_tools(lay.world))
        assert [(s.x, s.z) for s in lay.predator_sites] == [(a.position[0], a.position[2]) for a in lay.world.animals]


def _rising(values) -> bool:
    return all(b >= a - 1e-12 for a, b in zip(values, values[1:]))


def test_the_knobs_are_monotone_in_difficulty_and_leave_out_the_indestructible():
    ds = np.linspace(0.0, 1.0, 41)
    guard = fight.KNOBS.guard
    assert _rising([1 + math.floor(guard.species_per_unit * d) for d in ds])
    assert _rising([1 + math.floor(guard.predators_per_unit * d) for d in ds])
    for band in (guard.food_distance_m, guard.food_bearing_deg):
        assert _rising([band.at(d)[0] for d in ds]) and _rising([band.at(d)[1] for d in ds])
    assert _rising([-guard.guard_distance_m.at(d)[0] for d in ds]) and _rising([-guard.guard_distance_m.at(d)[1] for d in ds])
    assert _rising([fight.KNOBS.training_time_limit_s.at(d) for d in ds])
    assert 1 + math.floor(guard.species_per_unit * 1.0) == len(DESTRUCTIBLE_PREDATORS)
    assert "hippo" not in DESTRUCTIBLE_PREDATORS and "bear" not in DESTRUCTIBLE_PREDATORS
    assert all(animal_spec(kind).hits_to_ko > 0 for kind in DESTRUCTIBLE_PREDATORS)


@pytest.mark.parametrize("difficulty", [0.0, 0.5, 1.0])
def test_the_worlds_hold_the_knobs_predators_and_tools(difficulty):
    guard = fight.KNOBS.guard
    kinds = DESTRUCTIBLE_PREDATORS[:1 + math.floor(guard.species_per_unit * difficulty)]
    for seed in SEEDS:
        world = _layout(difficulty, seed).world
        assert [food.kind for food in world.food] == ["apple"]
        animals = world.animals
        count = 1 + math.floor(guard.predators_per_unit * difficulty)
        assert len(animals) == count and all(a.kind in kinds for a in animals)
        food, spawn = world.food[0].position, world.spawn_position
        low, high = guard.food_distance_m.at(difficulty)
        assert low - 1e-6 <= horizontal(food, spawn) <= high + 1e-6
        low, high = guard.guard_distance_m.at(difficulty)
        for animal in animals:
            assert low - 1e-6 <= horizontal(animal.position, food) <= high + 1e-6
            assert horizontal(animal.position, spawn) >= activation_radius_m(animal) + SPAWN_GAP_M - 1e-6
            assert animal_rests_on_its_ground(world, animal)
        tools = _tools(world)
        assert sorted(t.kind for t in tools) == sorted(["stick", "rock", "rock"] * count)
        low, high = fight.KNOBS.tool_distance_m.at(difficulty)
        for tool in tools:
            assert low - 1e-6 <= horizontal(tool.position, spawn) <= high + 1e-6
            bearing = math.atan2(tool.position[2] - spawn[2], tool.position[0] - spawn[0])
            facing = math.atan2(math.sin(world.spawn_yaw_rad), math.cos(world.spawn_yaw_rad))
            # facing_direction(yaw) = (-sin yaw, -cos yaw): the bearing of the facing is -pi/2 - yaw.
            off = (bearing - (-math.pi / 2 - facing) + math.pi) % (2 * math.pi) - math.pi
            assert abs(math.degrees(off)) <= fight.KNOBS.tool_bearing_deg + 1e-6
            # Resting on the ground: its centre half its height above the surface.
            assert tool.position[1] - TOOL_SIZE_M[tool.kind][1] / 2 == pytest.approx(
                surface_height(world.ground.heightmap, tool.position[0], tool.position[2]), abs=1e-4)
        for i, a in enumerate(tools):
            for b in tools[i + 1:]:
                assert horizontal(a.position, b.position) >= fight.TOOL_GAP_M - 1e-6


@pytest.mark.parametrize("difficulty", [0.0, 0.5, 1.0])
def test_the_certificate_holds_with_a_route_on_foot(difficulty):
    for seed in range(8):
        world = build_world("fight", difficulty, seed)
        certificate = fight.TASK.certificate(world)
        assert certificate.ok, certificate.reason
        assert certificate.route.skills() <= {"walk"}
        assert horizontal(certificate.route.steps[-1].target, world.food[0].position) < 1.5


def test_the_certificate_refuses_missing_tools_and_indestructible_predators():
    world = _layout(0.5, 0).world
    fewer = attr.evolve(world, entities=tuple(e for e in world.entities if e.kind != "stick"))
    assert not fight.certificate(fewer).ok and "tools" in fight.certificate(fewer).reason
    bear = attr.evolve(world.animals[0], kind="bear")
    with_bear = attr.evolve(world, entities=tuple(bear if e is world.animals[0] else e for e in world.entities))
    assert not fight.certificate(with_bear).ok and "indestructible" in fight.certificate(with_bear).reason


@pytest.mark.parametrize("kind", DESTRUCTIBLE_PREDATORS)
def test_every_predator_it_holds_can_be_forced(kind):
    world = build_world("fight", 1.0, 1, forced={"predator_kind": kind})
    assert world.animals[0].kind == kind and fight.certificate(world).ok


def test_an_indestructible_or_unknown_forced_kind_is_refused_with_the_kinds():
    for kind in ("bear", "hippo", "lion"):
        with pytest.raises(ValueError, match=f"predator_kind='{kind}' is not one of bee, snake, hawk, alligator"):
            build_world("fight", 0.5, 0, forced={"predator_kind": kind})


# --- the obstacle piece ---------------------------------------------------------------------------


@pytest.mark.parametrize("inverted", [False, True])
@pytest.mark.parametrize("angle_deg", [0, 90, 200, 300])
def test_the_piece_guards_a_band_round_another_point_from_any_side_both_ways(angle_deg, inverted):
    # (At d = 1 most islands refuse the piece in this band: three wide-radius guards seldom all keep
    # their 15 m and 2 m from the path's start, 6 m outside the band or 5 m from its centre.)
    for difficulty in (0.0, 0.5):
        world, piece = check_guard_piece(fight.obstacle, difficulty, math.radians(angle_deg), inverted, "fight")
        count = len(world.animals)
        assert count == 1 + math.floor(fight.KNOBS.guard.predators_per_unit * difficulty)
        assert all(a.kind in DESTRUCTIBLE_PREDATORS for a in world.animals)
        assert not piece.crossing.requirement.keep_out and fight.certificate(world).ok
        # The tools lie ahead of the path's start, facing along its first leg.
        (sx, sz), (ax, az) = piece.crossing.start, piece.crossing.end
        heading = math.atan2(az - sz, ax - sx)
        tools = _tools(world)
        assert sorted(t.kind for t in tools) == sorted(["stick", "rock", "rock"] * count)
        low, high = fight.KNOBS.tool_distance_m.at(difficulty)
        for tool in tools:
            assert low - 1e-6 <= math.hypot(tool.position[0] - sx, tool.position[2] - sz) <= high + 1e-6
            off = (math.atan2(tool.position[2] - sz, tool.position[0] - sx) - heading + math.pi) % (2 * math.pi) - math.pi
            assert abs(math.degrees(off)) <= fight.KNOBS.tool_bearing_deg + 1e-6
        assert {(x, z) for x, z, _ in piece.draft.keep_clear} == {(t.position[0], t.position[2]) for t in tools}


def test_the_task_is_its_piece_placed_round_the_food():
    lay = _layout(0.5, 0)
    spawn, food = lay.world.spawn_position, lay.food.position
    assert (lay.obstacle.crossing.start, lay.obstacle.crossing.end) == ((spawn[0], spawn[2]), (food[0], food[2]))
    assert not lay.obstacle.crossing.requirement.keep_out
    assert lay.tools == tuple(e for e in lay.obstacle.items(lay.outdoor.heightmap) if e.kind in TOOL_KINDS)
