"""The throw task: determinism, the knobs against difficulty as measured on the generated worlds,
the certificate of many worlds (the rocks and the prey there, reached on foot), forcing the prey's
species, and bad input."""

from __future__ import annotations

import functools
import math

import attr
import numpy as np
import pytest

from avalon.rules.animals import ANIMALS, PREY_KINDS
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks import TASKS, build_world, throw, with_retries
from avalon.tasks.kit.forcing import Forcing
from avalon.tasks.kit.geometry import component_labels, ground_height, triangle_index, triangle_slopes_deg, walkable_grid
from avalon.tasks.kit.prey import MAX_PREY_FLY_HEIGHT_M, PREY_LADDER, TOOL_MAX_SLOPE_DEG, TOOL_NUDGES_M, prey_of, tools_of
from tests.tasks.helpers import world_digest

#: 30 worlds for the properties.
PROPERTY_CASES = [(d, seed) for d in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) for seed in range(5)]

GOLDEN = {(0.0, 0): "701b07243b20aabd9c11188bb588be75e69b4630fad23a871d0ca889581aa7b2",
          (0.5, 3): "25a756bbcaaec93d6013513311d047044638dec951abec2efe405808f0dde2f0"}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int):
    """The layout ``build_world`` makes for (difficulty, seed) (the registry's retries included)."""
    return with_retries(lambda rng: throw.build_layout(rng, difficulty, None), "throw", difficulty, seed)


def _rising(values) -> bool:
    return all(b >= a - 1e-12 for a, b in zip(values, values[1:]))


def _spawn_distance_m(world, entity) -> float:
    return math.hypot(entity.position[0] - world.spawn_position[0], entity.position[2] - world.spawn_position[2])


# --- determinism -------------------------------------------------------------------------------


def test_same_seed_same_world_and_different_seeds_differ():
    first = build_world("throw", 0.4, 2)
    assert world_digest(build_world("throw", 0.4, 2)) == world_digest(first)
    assert world_digest(build_world("throw", 0.4, 3)) != world_digest(first)
    assert world_digest(build_world("throw", 0.41, 2)) != world_digest(first)


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digest (and say so in the commit).
    assert world_digest(build_world("throw", difficulty, seed)) == GOLDEN[(difficulty, seed)]


def test_the_world_is_made_by_the_layout_builder_and_holds_rocks_and_one_prey_and_no_fruit():
    for seed in range(3):
        lay = _layout(0.5, seed)
        world = lay.world
        assert world_digest(attr.evolve(world, seed=seed)) == world_digest(build_world("throw", 0.5, seed))
        assert world.food == () and world.food_count == 1
        assert prey_of(world) == lay.prey and tools_of(world) == lay.tools
        assert [tool.kind for tool in lay.tools] == ["rock"] * throw.KNOBS.tools_at(0.5)
        assert lay.tool_sites == tuple((t.position[0], t.position[2]) for t in lay.tools)
        assert lay.prey_sites == tuple((p.position[0], p.position[2]) for p in lay.prey)


# --- the knobs ---------------------------------------------------------------------------------


def test_the_knobs_are_monotone_in_difficulty():
    ds = np.linspace(0.0, 1.0, 41)
    knobs = throw.KNOBS
    for band in (knobs.prey_distance_m, knobs.tool_distance_m):
        assert _rising([band.at(d)[0] for d in ds]) and _rising([band.at(d)[1] for d in ds])
    for ramp in (knobs.prey_bearing_deg, knobs.wander_speed_fraction, knobs.tool_bearing_deg, knobs.world_size_m,
                 knobs.training_time_limit_s):
        assert _rising([ramp.at(d) for d in ds])
    assert _rising([len(throw.KNOBS.species_at(d)) for d in ds])
    assert _rising([-throw.KNOBS.tools_at(d) for d in ds])  # fewer rocks
    assert throw.KNOBS.species_at(0.0) == ("frog",) and set(throw.KNOBS.species_at(1.0)) == set(PREY_KINDS)
    assert (throw.KNOBS.tools_at(0.0), throw.KNOBS.tools_at(1.0)) == (3, 1)


def test_the_ladder_puts_ground_prey_first_and_flyers_last():
    domains = [ANIMALS[kind].domain for kind in PREY_LADDER]
    assert domains == sorted(domains, key=lambda d: d == "air") and domains[-1] == "air" and domains[0] == "ground"
    assert PREY_LADDER[0] == "frog"


def test_difficulty_zero_is_a_still_frog_ahead_and_the_rocks_a_step_ahead():
    for seed in range(5):
        lay = _layout(0.0, seed)
        world = lay.world
        (prey,) = lay.prey
        assert prey.kind == "frog" and prey.param("idle_speed_m_per_s") == 0.0
        assert 3.5 <= _spawn_distance_m(world, prey) <= 4.5 + 1e-9
        facing = (-math.sin(world.spawn_yaw_rad), -math.cos(world.spawn_yaw_rad))
        ahead = ((prey.position[0] - world.spawn_position[0]) * facing[0]
                 + (prey.position[2] - world.spawn_position[2]) * facing[1])
        assert ahead == pytest.approx(_spawn_distance_m(world, prey), abs=1e-6)  # straight ahead
        assert len(lay.tools) == 3
        for rock in lay.tools:
            assert 0.9 <= _spawn_distance_m(world, rock) <= 1.2 + TOOL_NUDGES_M[-1] + 1e-9
        gaps = [math.dist(a.position, b.position) for i, a in enumerate(lay.tools) for b in lay.tools[i + 1:]]
        assert min(gaps) >= 0.4  # the rocks lie apart


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES)
def test_the_generated_worlds_follow_the_knobs(difficulty, seed):
    lay = _layout(difficulty, seed)
    world = lay.world
    (prey,) = lay.prey
    low, high = throw.KNOBS.prey_distance_m.at(difficulty)
    assert low - 1e-9 <= _spawn_distance_m(world, prey) <= high + 1e-9
    assert prey.kind in throw.KNOBS.species_at(difficulty)
    spec = ANIMALS[prey.kind]
    fraction = throw.KNOBS.wander_speed_fraction.at(difficulty)
    assert prey.param("idle_speed_m_per_s") == pytest.approx(spec.idle_speed_m_per_s * fraction)
    assert len(lay.tools) == throw.KNOBS.tools_at(difficulty)
    low, high = throw.KNOBS.tool_distance_m.at(difficulty)
    # On an arc at the drawn distance, a rock on too steep ground moved out a little.
    assert all(low - 1e-9 <= _spawn_distance_m(world, rock) <= high + TOOL_NUDGES_M[-1] + 1e-9 for rock in lay.tools)
    assert world.ground.heightmap.size_m == throw.KNOBS.world_side_m_at(difficulty)
    # Rocks lie on level ground (a lump rolls off a slope), resting on it: the highest ground
    # under their footprint, within the footprint's rise.
    slopes = triangle_slopes_deg(world.ground.heightmap)
    for rock in lay.tools:
        x, y, z = rock.position
        assert slopes[triangle_index(world.ground.heightmap, x, z)] <= TOOL_MAX_SLOPE_DEG["rock"]
        assert 0.0 <= y - TOOL_SIZE_M["rock"][1] / 2 - float(ground_height(world.ground.heightmap, x, z)) <= 0.05
    if spec.domain == "air":
        assert prey.param("fly_height_m") <= MAX_PREY_FLY_HEIGHT_M


def test_prey_run_farther_and_the_world_grows_with_difficulty():
    def mean_distance(d):
        return np.mean([_spawn_distance_m(_layout(d, s).world, _layout(d, s).prey[0]) for s in range(5)])

    assert mean_distance(0.0) < mean_distance(0.6) < mean_distance(1.0)
    sizes = [_layout(d, 0).world.ground.heightmap.size_m for d in (0.0, 0.6, 1.0)]
    assert sizes == [64.0, 96.0, 128.0]


# --- the certificate ---------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES)
def test_every_world_is_certified_and_everything_is_reached_on_foot(difficulty, seed):
    world = _layout(difficulty, seed).world
    cert = TASKS["throw"].certificate(world)
    assert cert.ok, cert.reason
    # Independently: every rock and the prey stand on the spawn's walkable component.
    heightmap = world.ground.heightmap
    labels = component_labels(walkable_grid(heightmap))
    start = labels[triangle_index(heightmap, world.spawn_position[0], world.spawn_position[2])]
    assert start >= 0
    for entity in tools_of(world) + prey_of(world):
        assert labels[triangle_index(heightmap, entity.position[0], entity.position[2])] == start, entity.name
    # The route walks to the nearest rock, then to the prey.
    rock, prey = (step.target for step in cert.route.steps)
    nearest = min(tools_of(world), key=lambda t: _spawn_distance_m(world, t))
    assert math.dist(rock[::2], nearest.position[::2]) < 1e-9
    assert math.dist(prey[::2], prey_of(world)[0].position[::2]) < 1e-9
    assert {step.skill for step in cert.route.steps} == {"walk"}


def test_the_certificate_fails_without_the_rocks_or_the_prey_or_off_the_spawns_ground():
    world = _layout(0.0, 0).world
    no_rock = attr.evolve(world, entities=tuple(e for e in world.entities if e.kind != "rock"))
    cert = throw.certificate(no_rock)
    assert not cert.ok and "no tool" in cert.reason and cert.route is None
    one_rock_short = attr.evolve(world, entities=world.entities[1:])
    assert "expected ['rock', 'rock', 'rock']" in throw.certificate(one_rock_short).reason
    no_prey = attr.evolve(world, entities=tuple(e for e in world.entities if e.kind not in PREY_KINDS))
    assert "no prey" in throw.certificate(no_prey).reason
    # The prey moved into the sea: not reached on foot.
    heightmap = world.ground.heightmap
    corner = -heightmap.half_size_m + 0.5
    prey = prey_of(world)[0]
    at_sea = attr.evolve(world, entities=tuple(attr.evolve(e, position=(corner, 0.0, corner)) if e is prey else e
                                               for e in world.entities))
    cert = throw.certificate(at_sea)
    assert not cert.ok and f"{prey.name} is not reached on foot" in cert.reason


# --- forcing -----------------------------------------------------------------------------------


def test_throw_declares_every_prey_species_as_forcible():
    assert TASKS["throw"].forcing == (Forcing("prey_kind", PREY_LADDER),)


@pytest.mark.parametrize("difficulty", [0.0, 1.0])
def test_a_forced_world_holds_the_forced_species_whatever_the_difficulty(difficulty):
    for kind in PREY_KINDS:
        world = build_world("throw", difficulty, 7, forced={"prey_kind": kind})
        assert [prey.kind for prey in prey_of(world)] == [kind]
        assert throw.certificate(world).ok


def test_forcing_the_drawn_species_changes_nothing():
    world = build_world("throw", 1.0, 4)
    kind = prey_of(world)[0].kind
    assert world_digest(build_world("throw", 1.0, 4, forced={"prey_kind": kind})) == world_digest(world)


def test_an_unknown_forced_species_or_option_is_refused_listing_what_is_accepted():
    with pytest.raises(ValueError, match="forced prey_kind='wolf' is not one of frog, turtle, mouse"):
        build_world("throw", 0.5, 0, forced={"prey_kind": "wolf"})
    with pytest.raises(ValueError, match="cannot force 'food_kind': the options it can force are: prey_kind"):
        build_world("throw", 0.5, 0, forced={"food_kind": "apple"})
    with pytest.raises(ValueError, match="prey_kind"):
        throw.build_layout(np.random.default_rng(0), 0.5, None, forced={"prey_kind": "unicorn"})


def test_bad_input_is_refused_by_name():
    with pytest.raises(TypeError, match="OutdoorTaskConfig"):
        throw.build_layout(np.random.default_rng(0), 0.5, {"world_size": "small"})
    with pytest.raises(ValueError, match="difficulty"):
        build_world("throw", 1.5, 0)
    with pytest.raises(ValueError, match="no terrain"):
        from avalon.datagen.world import FlatGround
        throw.certificate(attr.evolve(_layout(0.0, 0).world, ground=FlatGround()))


@pytest.mark.parametrize("task", ["throw", "hunt"])
@pytest.mark.parametrize("kind", ["pigeon", "crow"])
def test_flyers_fly_within_a_thrown_rocks_reach_and_the_routes_end_below_them(task, kind):
    world = build_world(task, 1.0, 3, forced={"prey_kind": kind})
    (prey,) = prey_of(world)
    assert prey.param("fly_height_m") == MAX_PREY_FLY_HEIGHT_M < ANIMALS[kind].fly_height_m + 1e-9
    end = TASKS[task].certificate(world).route.steps[-1].target
    assert math.dist(end, prey.position) < 3.0  # the rule every task's route keeps (test_every_task)
