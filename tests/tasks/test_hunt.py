"""The hunt task: determinism, the knobs against difficulty as measured on the generated worlds
(fewer tools, rocks or sticks, the prey farther on a larger island), the certificate of many
worlds, forcing the prey's species, and bad input."""

from __future__ import annotations

import functools
import math

import attr
import numpy as np
import pytest

from avalon.rules.animals import ANIMALS, PREY_KINDS
from avalon.tasks import TASKS, build_world, hunt, with_retries
from avalon.tasks.kit.forcing import Forcing
from avalon.tasks.kit.geometry import component_labels, triangle_index, walkable_grid
from avalon.tasks.kit.prey import PREY_LADDER, PREY_TOOLS, TOOL_NUDGES_M, prey_of, tools_of
from tests.tasks.helpers import world_digest

#: 30 worlds for the properties.
PROPERTY_CASES = [(d, seed) for d in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) for seed in range(5)]

GOLDEN = {(0.0, 0): "4cadbbce60afac38dc18a16606550e0e30b4b6c09ec3252546fa215064bcf200",
          (0.7, 2): "4e1b1a8bfd44e8279d25fa64d2ecdd20a317473da61a76f4ab248a47d87f4ef2"}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int):
    return with_retries(lambda rng: hunt.build_layout(rng, difficulty, None), "hunt", difficulty, seed)


def _rising(values) -> bool:
    return all(b >= a - 1e-12 for a, b in zip(values, values[1:]))


def _spawn_distance_m(world, entity) -> float:
    return math.hypot(entity.position[0] - world.spawn_position[0], entity.position[2] - world.spawn_position[2])


def test_same_seed_same_world_and_different_seeds_differ():
    first = build_world("hunt", 0.4, 2)
    assert world_digest(build_world("hunt", 0.4, 2)) == world_digest(first)
    assert world_digest(build_world("hunt", 0.4, 3)) != world_digest(first)
    assert world_digest(build_world("hunt", 0.41, 2)) != world_digest(first)


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digest (and say so in the commit).
    assert world_digest(build_world("hunt", difficulty, seed)) == GOLDEN[(difficulty, seed)]


def test_the_knobs_are_monotone_in_difficulty():
    ds = np.linspace(0.0, 1.0, 41)
    knobs = hunt.KNOBS
    for band in (knobs.prey_distance_m, knobs.tool_distance_m):
        assert _rising([band.at(d)[0] for d in ds]) and _rising([band.at(d)[1] for d in ds])
    for ramp in (knobs.prey_bearing_deg, knobs.wander_speed_fraction, knobs.tool_bearing_deg, knobs.world_size_m,
                 knobs.training_time_limit_s):
        assert _rising([ramp.at(d) for d in ds])
    assert _rising([len(hunt.KNOBS.species_at(d)) for d in ds])
    assert _rising([-hunt.KNOBS.tools_at(d) for d in ds])  # fewer tools
    assert _rising([hunt.KNOBS.world_side_m_at(d) for d in ds])
    assert (hunt.KNOBS.tools_at(0.0), hunt.KNOBS.tools_at(1.0)) == (4, 1)
    assert (hunt.KNOBS.world_side_m_at(0.0), hunt.KNOBS.world_side_m_at(1.0)) == (64.0, 256.0)
    assert hunt.KNOBS.species_at(0.0) == ("frog",) and set(hunt.KNOBS.species_at(1.0)) == set(PREY_KINDS)


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES)
def test_the_generated_worlds_follow_the_knobs(difficulty, seed):
    lay = _layout(difficulty, seed)
    world = lay.world
    (prey,) = lay.prey
    assert world.food == () and world.food_count == 1
    low, high = hunt.KNOBS.prey_distance_m.at(difficulty)
    assert low - 1e-9 <= _spawn_distance_m(world, prey) <= high + 1e-9
    assert prey.kind in hunt.KNOBS.species_at(difficulty)
    fraction = hunt.KNOBS.wander_speed_fraction.at(difficulty)
    assert prey.param("idle_speed_m_per_s") == pytest.approx(ANIMALS[prey.kind].idle_speed_m_per_s * fraction)
    assert len(lay.tools) == hunt.KNOBS.tools_at(difficulty) and {t.kind for t in lay.tools} <= set(PREY_TOOLS)
    low, high = hunt.KNOBS.tool_distance_m.at(difficulty)
    assert all(low - 1e-9 <= _spawn_distance_m(world, tool) <= high + TOOL_NUDGES_M[-1] + 1e-9 for tool in lay.tools)
    assert world.ground.heightmap.size_m == hunt.KNOBS.world_side_m_at(difficulty)
    assert lay.plan.prey_in_sight == (difficulty < 0.5)


def test_both_tools_occur_and_the_prey_runs_farther_with_difficulty():
    kinds = {tool.kind for d in (0.0, 0.2, 0.4) for s in range(5) for tool in _layout(d, s).tools}
    assert kinds == {"rock", "stick"}

    def mean_distance(d):
        return np.mean([_spawn_distance_m(_layout(d, s).world, _layout(d, s).prey[0]) for s in range(5)])

    assert mean_distance(0.0) < mean_distance(0.6) < mean_distance(1.0)


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES)
def test_every_world_is_certified_and_everything_is_reached_on_foot(difficulty, seed):
    world = _layout(difficulty, seed).world
    cert = TASKS["hunt"].certificate(world)
    assert cert.ok, cert.reason
    heightmap = world.ground.heightmap
    labels = component_labels(walkable_grid(heightmap))
    start = labels[triangle_index(heightmap, world.spawn_position[0], world.spawn_position[2])]
    assert start >= 0
    for entity in tools_of(world) + prey_of(world):
        assert labels[triangle_index(heightmap, entity.position[0], entity.position[2])] == start, entity.name
    assert math.dist(cert.route.steps[-1].target[::2], prey_of(world)[0].position[::2]) < 1e-9


def test_the_certificate_fails_with_a_tool_missing():
    world = _layout(0.0, 0).world
    fewer = attr.evolve(world, entities=tuple(e for e in world.entities if e is not tools_of(world)[0]))
    cert = hunt.certificate(fewer)
    assert not cert.ok and cert.reason == f"there are 3 tools: expected {hunt.KNOBS.tools_at(0.0)}" and cert.route is None
    none = attr.evolve(world, entities=tuple(e for e in world.entities if e.kind not in PREY_TOOLS))
    assert "no tool" in hunt.certificate(none).reason


def test_hunt_declares_every_prey_species_as_forcible():
    assert TASKS["hunt"].forcing == (Forcing("prey_kind", PREY_LADDER),)


@pytest.mark.parametrize("difficulty", [0.0, 1.0])
def test_a_forced_world_holds_the_forced_species_whatever_the_difficulty(difficulty):
    for kind in PREY_KINDS:
        world = build_world("hunt", difficulty, 5, forced={"prey_kind": kind})
        assert [prey.kind for prey in prey_of(world)] == [kind]
        assert hunt.certificate(world).ok


def test_an_unknown_forced_species_is_refused_listing_the_species():
    with pytest.raises(ValueError, match="forced prey_kind='bear' is not one of frog, turtle, mouse, rabbit"):
        build_world("hunt", 0.5, 0, forced={"prey_kind": "bear"})


def test_bad_input_is_refused_by_name():
    with pytest.raises(TypeError, match="OutdoorTaskConfig"):
        hunt.build_layout(np.random.default_rng(0), 0.5, {"world_size": "small"})
    with pytest.raises(ValueError, match="difficulty"):
        build_world("hunt", -0.1, 0)
