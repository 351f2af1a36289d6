"""The four compositional tasks (navigate, find, gather, survive): golden digests, their specs'
facts (group, Table 1 row, time limits, set version), their worlds' obstacles in sequence round
the spawn, what each promises of its foods, and what difficulty changes."""

from __future__ import annotations

import functools
import math
import statistics

import attr
import numpy as np
import pytest

from avalon.datagen.world import Terrain
from avalon.rules.animals import PREY_KINDS, animal_spec
from avalon.tasks import TASKS, build_world, with_retries
from avalon.tasks.kit import composition
from avalon.tasks.kit.sight import EYE_HEIGHT_M
from tests.tasks.helpers import terrain_hides, world_digest

COMPOSITIONAL = ("navigate", "find", "survive", "gather")

#: If a change to generation is intended, update the digests (and say so in the commit).
GOLDEN = {
    ("navigate", 0.0, 0): "b532a50a91761b74e2f28b2cecbd077d9680cc2da549f173d7618a07fd581bdd",
    ("navigate", 0.5, 1): "b35c79f714228030c906fc6bad62008bb0dbf3564b560da73035778a20722084",
    ("navigate", 1.0, 2): "8d96fdd30a2917abfbdb23f760d8ec33cbb447fd372fe03071d5d9956e51bc1b",
    ("find", 0.0, 0): "c7efd238bcd940b66ff7b7b686b17b920426e2e48b25f405f152bcf224816ed1",
    ("find", 0.5, 1): "3a29da966f4f622c9add1dc2c26b58fd56922977f072866599bb015486e2e9a9",
    ("find", 1.0, 2): "ed3ed95e53a62723369f359ac642cb8bb4008006db42c0990f254764c21439c9",
    ("gather", 0.0, 0): "2b9b82c8677da69d4cb7c86d545d7d80c527e6cea464bb82e3517280139b5e0b",
    ("gather", 0.5, 1): "2dbd6524134f40a5c1468cce0a559e749ef5c30a318fda08bf4b5a96524a8449",
    ("gather", 1.0, 2): "022bd7fcb93dd44a02e90e63cf1d85b64feb11bd4bfd5139f8c4e14697dda536",
    ("survive", 0.0, 0): "83d97baca90655281855cf7a1fc8939b4be32097354ecc73f896ab22fdac2058",
    ("survive", 0.5, 1): "d8e7f79604b7553938384165f5ab26a5b264dc2424b1b3f4538cdc3b7b84188f",
    ("survive", 1.0, 2): "0511d2363e5b0762c0e97b7d86557b9034ace0664cbce97ff201af5d6cc6fd57",
}


@functools.lru_cache(maxsize=None)
def _layout(task: str, difficulty: float, seed: int) -> composition.ComposedLayout:
    """The task's layout, built as ``build_world`` builds its world."""
    module = __import__(f"avalon.tasks.{task}", fromlist=["build_layout"])
    return with_retries(lambda rng: module.build_layout(rng, difficulty), task, difficulty, seed)


@pytest.mark.parametrize("case", sorted(GOLDEN), ids=lambda case: "{}-{}-{}".format(*case))
def test_golden_digests(case):
    assert world_digest(build_world(*case)) == GOLDEN[case]


def test_the_specs_say_what_the_paper_does():
    rows = {name: TASKS[name].table_row for name in COMPOSITIONAL}
    assert rows == {"navigate": 17, "find": 18, "survive": 19, "gather": 20}
    minutes = {name: TASKS[name].evaluation_time_limit_frames / 600 for name in COMPOSITIONAL}
    assert minutes == {"navigate": 15, "find": 15, "survive": 10, "gather": 10}  # Appendix G.3
    for name in COMPOSITIONAL:
        spec = TASKS[name]
        assert spec.group == "compositional" and spec.in_sets_from_version > 3 and spec.certificate is not None
        assert spec.succeeds_on_energy_gain == (name in ("gather", "survive"))  # Appendix M
    assert {name for name, spec in TASKS.items() if spec.group == "compositional"} == set(COMPOSITIONAL)


def test_the_pieces_are_read_from_the_specs():
    kinds = composition.piece_kinds()
    expected = [spec.name for spec in sorted(TASKS.values(), key=lambda s: (s.table_row or 0, s.name))
                if spec.obstacle is not None and not spec.obstacle_needs_solved_items]
    assert [kind.task for kind in kinds] == expected and len(expected) >= 5
    assert all(kind.obstacle is TASKS[kind.task].obstacle for kind in kinds)
    seen = [kind.task for kind in composition.piece_kinds(lambda spec: spec.food_visible_from_spawn)]
    assert seen and all(TASKS[name].food_visible_from_spawn for name in seen) and set(seen) < set(expected)


@pytest.mark.parametrize("case", [("navigate", 1.0, 0), ("find", 1.0, 0), ("find", 0.5, 3), ("gather", 1.0, 1)],
                         ids=lambda case: "{}-{}-{}".format(*case))
def test_the_obstacles_stand_in_sequence_round_the_spawn_each_crossed_in_its_band(case):
    layout = _layout(*case)
    made = layout.composition
    spec = TASKS[case[0]].knobs.composition
    low, high = spec.obstacle_count_range
    assert low <= len(made.pieces) <= high
    outer = composition.SPAWN_CLEAR_M
    for placed in made.pieces:  # from the spawn out, band after band
        band = placed.constraint
        assert band.heights_inverted and band.centre == made.spawn and band.inner_radius_m == pytest.approx(outer)
        outer = band.outer_radius_m
        assert placed.kind in {kind.task for kind in composition.piece_kinds()}
        need = placed.crossing.requirement
        if need.skills:
            for point in (placed.crossing.start, placed.crossing.end):
                distance = math.dist(point, made.spawn)
                assert band.inner_radius_m - 3.0 <= distance <= band.outer_radius_m + 3.0
    assert math.dist(made.spawn, made.goal) == pytest.approx(outer + composition.GOAL_CLEAR_M)
    required = frozenset().union(*(placed.crossing.requirement.skills for placed in made.pieces))
    assert layout.certificate.ok and layout.certificate.required == required
    assert not required or layout.certificate.route.skills() & required
    names = [entity.name for entity in layout.world.entities]
    assert len(names) == len(set(names))


def test_more_obstacles_make_larger_worlds():
    sizes = {}
    for seed in range(4):
        for difficulty in (0.0, 1.0):
            layout = _layout("navigate", difficulty, seed)
            sizes.setdefault(len(layout.composition.pieces), []).append(layout.world.ground.heightmap.size_m)
    counts = sorted(sizes)
    assert len(counts) >= 2
    assert statistics.mean(sizes[counts[0]]) < statistics.mean(sizes[counts[-1]])


def test_the_certificate_fails_when_a_crossing_can_be_walked_past():
    layout = _layout("find", 0.5, 3)
    skilled = [placed for placed in layout.composition.pieces if placed.crossing.requirement.skills]
    assert skilled
    # The same crossings on the island as it was before any piece: walked past.
    biome_map = layout.world.ground.biome_map
    natural = layout.composition.pieces[0].obstacle.draft.natural
    unshaped = attr.evolve(layout.world, ground=Terrain(biome_map=attr.evolve(
        biome_map, heightmap=attr.evolve(biome_map.heightmap, heights=natural.heights))))
    found = composition.certify_composition(unshaped, unshaped.food[0], skilled)
    assert found.solvable and found.bypassed and not found.ok and "without" in found.reason


def test_navigate_sees_its_food_over_the_terrain_and_find_promises_nothing_of_it():
    seen = []
    for seed in range(4):
        for task in ("navigate", "find"):
            world = _layout(task, 1.0, seed).world
            x, y, z = world.spawn_position
            hidden = terrain_hides(world.ground.heightmap, (x, y + EYE_HEIGHT_M, z), world.food[0].position)
            if task == "navigate":
                assert not hidden
            seen.append((task, hidden))
    assert ("find", True) in seen  # a pit or rings round the spawn hide find's food at d = 1


def test_gather_has_several_foods_apart():
    for seed in range(3):
        world = _layout("gather", 0.5, seed).world
        foods = [np.asarray(f.position)[[0, 2]] for f in world.food]
        assert len(foods) >= 2
        spacing = TASKS["gather"].knobs.extra_food_spacing_m.at(0.5)
        for index, a in enumerate(foods[1:], start=1):
            assert all(np.hypot(*(a - b)) >= spacing - 1e-6 for j, b in enumerate(foods) if j != index)


def _survive_counts(difficulty: float, seeds) -> dict:
    counts = {"fruit": [], "predators": [], "prey": [], "tools": [], "ladder": set(), "area": []}
    for seed in seeds:
        world = _layout("survive", difficulty, seed).world
        predators = [a for a in world.animals if animal_spec(a.kind).is_predator]
        counts["fruit"].append(len(world.food))
        counts["predators"].append(len(predators))
        counts["prey"].append(sum(a.kind in PREY_KINDS for a in world.animals))
        counts["tools"].append(sum(e.name.startswith("tool_") for e in world.entities))
        counts["ladder"] |= {a.kind for a in predators}
        counts["area"].append(world.ground.heightmap.size_m ** 2)
    return counts


def test_survive_has_more_and_harder_predators_and_less_food_with_difficulty():
    easy, hard = _survive_counts(0.0, range(3)), _survive_counts(1.0, range(3))
    per_m2 = lambda counts, key: sum(counts[key]) / sum(counts["area"])  # noqa: E731
    assert per_m2(hard, "predators") > 5 * per_m2(easy, "predators")
    assert per_m2(hard, "fruit") < per_m2(easy, "fruit") and per_m2(hard, "prey") < per_m2(easy, "prey")
    assert len(hard["ladder"]) > len(easy["ladder"]) and min(hard["tools"]) >= 1
    kinds = {food.kind for seed in range(3) for food in _layout("survive", 0.5, seed).world.food}
    assert len(kinds) >= 3  # every fruit that may lie on the ground, not only apples


@pytest.mark.godot
@pytest.mark.slow
@pytest.mark.parametrize("case", [("navigate", 0.0, 0), ("navigate", 0.5, 1), ("find", 0.0, 1), ("find", 0.5, 0),
                                  ("gather", 0.5, 0)], ids=lambda case: "{}-{}-{}".format(*case))
def test_the_reference_agent_follows_the_route_through_every_crossing_to_success(case):
    """The spec's reference agent (the route follower) on the certificate's route, in the real
    simulator: navigate and find at d <= 0.5, and gather, whose first apple eaten with energy
    gained is a success (Appendix M)."""
    from avalon.agent.scripted.actions import ACTION_SPACE
    from avalon.agent.scripted.episode import run_episode
    from avalon.agent.scripted.policy import follower_for
    from avalon.agent.scripted.task_routes import task_route
    from avalon.env.avalon_env import AvalonEnv
    from avalon.env.config import EnvConfig

    task, difficulty, seed = case
    world, route = task_route(task, difficulty, seed)
    env = AvalonEnv(EnvConfig(task=task, difficulty=difficulty, seed=seed, action_space=ACTION_SPACE, is_training=False))
    try:
        assert run_episode(env, follower_for(world, route), seed=seed).success
    finally:
        env.close()
