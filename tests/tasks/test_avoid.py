"""The avoid task: determinism, the knobs against difficulty as measured on the generated worlds
(species, how many, how near the food, the food's distance), the certificate over many worlds (a
walking route outside every predator's activation radius up to ``safe_route_max_difficulty``,
checked independently along the route; on foot beyond), no tools, forcing, bad input."""

from __future__ import annotations

import functools
import math

import attr
import numpy as np
import pytest

from avalon.datagen.world import tool_entity
from avalon.rules.animals import PREDATOR_KINDS
from avalon.tasks import avoid, build_world, with_retries
from avalon.tasks.kit.certificate import certify
from avalon.tasks.kit.predators import SPAWN_GAP_M, certify_avoiding, keep_out_discs
from tests.tasks.helpers import world_digest
from tests.tasks.predator_checks import (
    activation_radius_m,
    animal_rests_on_its_ground,
    check_guard_piece,
    horizontal,
    nearest_approach_m,
)

SEEDS = range(6)
GOLDEN_DIGESTS = {(0.5, 3): "8a541e34ba9124647b8debbf21c369279e9ed817bff1a8d97c19d0c2b47a542c"}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int):
    return with_retries(lambda rng: avoid.build_layout(rng, difficulty, None), "avoid", difficulty, seed)


def test_same_seed_same_world_and_different_seeds_differ():
    first = build_world("avoid", 0.4, 2)
    assert world_digest(build_world("avoid", 0.4, 2)) == world_digest(first)
    assert world_digest(build_world("avoid", 0.4, 3)) != world_digest(first)
    assert world_digest(build_world("avoid", 0.41, 2)) != world_digest(first)


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN_DIGESTS))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digest (and say so in the commit).
    assert world_digest(build_world("avoid", difficulty, seed)) == GOLDEN_DIGESTS[(difficulty, seed)]


def test_the_world_is_made_by_the_layout_builder():
    for seed in range(3):
        world = _layout(0.5, seed).world
        assert world_digest(attr.evolve(world, seed=seed)) == world_digest(build_world("avoid", 0.5, seed))


# --- the knobs ---------------------------------------------------------------------------------


def _rising(values) -> bool:
    return all(b >= a - 1e-12 for a, b in zip(values, values[1:]))


def test_the_knobs_are_monotone_in_difficulty():
    ds = np.linspace(0.0, 1.0, 41)
    guard = avoid.KNOBS.guard
    assert _rising([1 + math.floor(guard.species_per_unit * d) for d in ds])
    assert _rising([1 + math.floor(guard.predators_per_unit * d) for d in ds])
    for band in (guard.food_distance_m, guard.food_bearing_deg):
        assert _rising([band.at(d)[0] for d in ds]) and _rising([band.at(d)[1] for d in ds])
    # Nearer the food is harder: the guard distance falls.
    assert _rising([-guard.guard_distance_m.at(d)[0] for d in ds]) and _rising([-guard.guard_distance_m.at(d)[1] for d in ds])
    assert _rising([avoid.KNOBS.training_time_limit_s.at(d) for d in ds])
    # Only bees at d = 0, every predator at d = 1; at d = 0 the bee stands beyond its radius of the food.
    assert 1 + math.floor(guard.species_per_unit * 1.0) == len(PREDATOR_KINDS)
    assert guard.guard_distance_m.at(0.0)[0] > activation_radius_m(_layout(0.0, 0).world.animals[0]) + 1.0


@pytest.mark.parametrize("difficulty", [0.0, 0.5, 1.0])
def test_the_worlds_hold_the_knobs_predators_food_and_no_tools(difficulty):
    guard = avoid.KNOBS.guard
    kinds = PREDATOR_KINDS[:1 + math.floor(guard.species_per_unit * difficulty)]
    for seed in SEEDS:
        world = _layout(difficulty, seed).world
        assert [food.kind for food in world.food] == ["apple"]
        assert sorted(e.kind for e in world.entities if e not in world.animals) == ["apple"], "no tools"
        animals = world.animals
        assert len(animals) == 1 + math.floor(guard.predators_per_unit * difficulty)
        assert all(a.kind in kinds for a in animals)
        food, spawn = world.food[0].position, world.spawn_position
        low, high = guard.food_distance_m.at(difficulty)
        assert low - 1e-6 <= horizontal(food, spawn) <= high + 1e-6
        low, high = guard.guard_distance_m.at(difficulty)
        for animal in animals:
            assert low - 1e-6 <= horizontal(animal.position, food) <= high + 1e-6
            # None is active at frame 0.
            assert horizontal(animal.position, spawn) >= activation_radius_m(animal) + SPAWN_GAP_M - 1e-6
            assert animal_rests_on_its_ground(world, animal)


def test_more_and_harder_predators_with_difficulty():
    means = {}
    for d in (0.0, 0.5, 1.0):
        worlds = [_layout(d, seed).world for seed in SEEDS]
        means[d] = (np.mean([len(w.animals) for w in worlds]),
                    np.mean([PREDATOR_KINDS.index(a.kind) for w in worlds for a in w.animals]))
    assert means[0.0][0] < means[0.5][0] < means[1.0][0]
    assert means[0.0][1] == 0.0 < means[0.5][1] < means[1.0][1]


# --- the certificate ---------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", [0.0, 0.1, 0.25])
def test_easy_worlds_have_a_route_outside_every_predators_reach(difficulty):
    for seed in range(12):
        world = build_world("avoid", difficulty, seed)
        certificate = avoid.TASK.certificate(world)
        assert certificate.ok, certificate.reason
        route = certificate.route
        assert route.start == world.spawn_position and route.skills() <= {"walk"}
        assert horizontal(route.steps[-1].target, world.food[0].position) < 1.5
        # Checked along the straight walks themselves, every 0.1 m: at least 0.5 m outside every radius.
        assert nearest_approach_m(world, route) > 0.5, (difficulty, seed)


@pytest.mark.parametrize("difficulty", [0.5, 1.0])
def test_harder_worlds_keep_a_route_on_foot(difficulty):
    for seed in range(8):
        world = build_world("avoid", difficulty, seed)
        certificate = avoid.TASK.certificate(world)
        assert certificate.ok and certificate.route.skills() <= {"walk"}, certificate.reason
        assert certify(world, world.food[0], frozenset(), frozenset({"walk"})).solvable


def test_the_certificate_refuses_a_world_with_a_tool_or_without_a_predator():
    world = _layout(0.0, 0).world
    spawn = world.spawn_position
    with_rock = attr.evolve(world, entities=world.entities + (tool_entity("rock", "rock", (spawn[0] + 1.0, spawn[1], spawn[2])),))
    assert not avoid.certificate(with_rock).ok and "tools" in avoid.certificate(with_rock).reason
    bare = attr.evolve(world, entities=world.food)
    assert not avoid.certificate(bare).ok and "no predator" in avoid.certificate(bare).reason


def test_a_predator_on_the_food_leaves_no_safe_route():
    world = _layout(0.0, 1).world
    food = world.food[0].position
    moved = attr.evolve(world.animals[0], position=(food[0] + 1.0, world.animals[0].position[1], food[2]))
    crowded = attr.evolve(world, entities=world.food + (moved,))
    assert certify_avoiding(world, world.food[0]).solvable
    assert not certify_avoiding(crowded, crowded.food[0]).solvable
    assert not avoid.certificate(crowded).ok  # at d = 0 the safe route is required


def test_keep_out_discs_are_checked():
    world = _layout(0.0, 0).world
    for bad in ([(0.0, 0.0, -1.0)], [(float("nan"), 0.0, 1.0)]):
        with pytest.raises(ValueError, match="keep_out"):
            certify(world, world.food[0], frozenset(), frozenset({"walk"}), keep_out=bad)


# --- forcing -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", PREDATOR_KINDS)
def test_every_predator_can_be_forced(kind):
    world = build_world("avoid", 1.0, 0, forced={"predator_kind": kind})
    assert world.animals[0].kind == kind
    assert avoid.certificate(world).ok


def test_forcing_keeps_the_other_draws_and_an_unknown_kind_lists_the_kinds():
    plain = build_world("avoid", 0.0, 5)
    forced = build_world("avoid", 0.0, 5, forced={"predator_kind": "bee"})
    assert world_digest(forced) == world_digest(plain)  # the drawn kind at d = 0 is a bee anyway
    with pytest.raises(ValueError, match="predator_kind='lion' is not one of bee, snake"):
        build_world("avoid", 0.5, 0, forced={"predator_kind": "lion"})
    with pytest.raises(ValueError, match="predator_kind"):
        avoid.build_layout(np.random.default_rng(0), 0.5, None, forced={"predator_kind": "rabbit"})


def test_a_predator_too_wide_to_walk_round_cannot_be_forced_where_a_safe_route_is_required():
    with pytest.raises(ValueError, match=r"forced predator_kind='wolf' \(activation radius 15 m\).*force it above difficulty "
                                         r"0.25, or force one of bee, snake"):
        build_world("avoid", 0.0, 0, forced={"predator_kind": "wolf"})
    assert "wolf" in {entity.kind for entity in build_world("avoid", 0.3, 0, forced={"predator_kind": "wolf"}).entities}
    assert "snake" in {entity.kind for entity in build_world("avoid", 0.0, 0, forced={"predator_kind": "snake"}).entities}


# --- the obstacle piece ---------------------------------------------------------------------------


@pytest.mark.parametrize("inverted", [False, True])
@pytest.mark.parametrize("angle_deg", [0, 90, 200, 300])
def test_the_piece_guards_a_band_round_another_point_from_any_side_both_ways(angle_deg, inverted):
    # At d = 0 the crossing's requirement keeps every route out of the bees' reach.
    world, piece = check_guard_piece(avoid.obstacle, 0.0, math.radians(angle_deg), inverted, "avoid")
    assert [a.kind for a in world.animals] == ["bee"] and piece.crossing.requirement.keep_out
    route = certify(world, world.food[0], frozenset(), frozenset({"walk"}), keep_out=piece.crossing.requirement.keep_out).route
    assert nearest_approach_m(world, route) > 0.5
    # At d = 1: four predators of the whole ladder, a route on foot.
    world, piece = check_guard_piece(avoid.obstacle, 1.0, math.radians(angle_deg), inverted, "avoid")
    assert len(world.animals) == 4 and not piece.crossing.requirement.keep_out


def test_the_task_is_its_piece_placed_round_the_food():
    for seed in range(3):
        lay = _layout(0.2, seed)
        crossing = lay.obstacle.crossing
        spawn, food = lay.world.spawn_position, lay.food.position
        assert crossing.start == (spawn[0], spawn[2]) and crossing.end == (food[0], food[2])
        assert crossing.requirement.keep_out == tuple(keep_out_discs(lay.world))
        assert lay.predator_sites == lay.obstacle.detail.predator_sites
