"""The carry task: a world of one of the tasks whose spec names a carry variant, its items away
from their place of use, farther with difficulty. Its base tasks read from the specs in the
variants' draw order; the draw from the world's rng and forcing the base task; the certificate
from the world alone (the base task's and carry's own guarantees); carry imports no task module;
bad input. The variants' worlds are checked in tests/tasks/kit/test_carrying.py."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import attr
import numpy as np
import pytest

import avalon.tasks
from avalon.tasks import TASKS, build_world, carry, with_retries
from avalon.tasks.kit import carried_log, carried_stones, carried_tools
from avalon.tasks.kit.forcing import Forcing
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.predators import predators
from tests.tasks.helpers import world_digest

GOLDEN = {
    (0.5, 0, "bridge"): "667f3e87e3b1b3aaa5916be604834be0bb03d2203e82227e4aac124c98adbed2",
    (0.5, 0, "stack"): "9e4ba4ef1042e5377ecd51bdb8f24eec646e92f42a3d07409384b6167923293d",
    (0.5, 0, "throw"): "0c699de1d50f8a1eed1d3b4fbf26361d09b8ae95167bfd683da25b115cdcfbb3",
    (0.5, 0, "fight"): "27b0d0fb71e7de87c3077923c019d09ad7d683e50a4c9afe603b5cc8822ca7ae",
}
PACKAGE = Path(avalon.tasks.__file__).parent


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int, base_task: str) -> carry.CarryLayout:
    """The layout ``build_world("carry", difficulty, seed, forced={"base_task": base_task})`` makes."""
    return with_retries(lambda rng: carry.build_layout(rng, difficulty, None, forced={"base_task": base_task}), "carry",
                        difficulty, seed)


def _world(difficulty: float, seed: int, base_task: str):
    return attr.evolve(_layout(difficulty, seed, base_task).world, task="carry", difficulty=difficulty, seed=seed)


def _items(layout: carry.CarryLayout):
    names = {use.name for use in layout.uses}
    return [entity for entity in layout.world.entities if entity.name in names]


def test_golden_worlds_do_not_change_by_accident():
    # If a change to generation is intended, update the digests (and say so in the commit).
    for (difficulty, seed, base_task), digest in GOLDEN.items():
        world = build_world("carry", difficulty, seed, forced={"base_task": base_task})
        assert world_digest(world) == digest, base_task


def test_the_knobs_are_one_way_in_difficulty_and_the_base_task_stays_easy():
    grid = np.linspace(0.0, 1.0, 21)
    low = [carry.KNOBS.carry_distance_m.at(d)[0] for d in grid]
    high = [carry.KNOBS.carry_distance_m.at(d)[1] for d in grid]
    limit = [carry.KNOBS.training_time_limit_s.at(d) for d in grid]
    assert np.all(np.diff(low) > 0) and np.all(np.diff(high) > 0) and np.all(np.diff(limit) > 0)
    assert all(lo <= hi for lo, hi in zip(low, high))
    assert {carry.KNOBS.base_difficulty.at(d) for d in grid} == {0.0}
    assert TASKS["carry"].evaluation_time_limit_frames == 6000  # ten minutes (paper, G.3)
    assert TASKS["carry"].training_time_limit_s == carry.KNOBS.training_time_limit_s


def test_the_base_tasks_are_read_from_the_specs_in_the_variants_draw_order_and_forcible():
    bases = carry.base_tasks()
    # The draw order the worlds depend on (CarryVariant.draw_position), not the names' order.
    assert [base.name for base in bases] == ["bridge", "stack", "throw", "fight"]
    assert [base.variant for base in bases] == [carried_log.VARIANT, carried_stones.VARIANT, carried_tools.PREY_VARIANT,
                                                carried_tools.GUARD_VARIANT]
    assert all(base.spec is TASKS[base.name] for base in bases)
    assert carry.base_task_names() == ("bridge", "fight", "stack", "throw")
    assert TASKS["carry"].forcing == (Forcing("base_task", ("bridge", "fight", "stack", "throw")),)
    assert carry.base_task_named("stack").spec.generate is TASKS["stack"].generate


def test_the_draw_positions_must_run_from_zero_each_once():
    specs = {name: TASKS[name] for name in ("bridge", "stack", "throw", "fight", "eat")}
    assert [base.name for base in carry.order_base_tasks(specs)] == ["bridge", "stack", "throw", "fight"]
    clash = dict(specs, stack=attr.evolve(TASKS["stack"], carry_variant="avalon.tasks.kit.carried_log:VARIANT"))
    with pytest.raises(ValueError, match=r"draw positions \(bridge 0, stack 0, throw 2, fight 3\): expected 0 to 3, each once"):
        carry.order_base_tasks(clash)
    wrong = dict(specs, eat=attr.evolve(TASKS["eat"], carry_variant="avalon.tasks.kit.carrying:ItemUse"))
    with pytest.raises(ValueError, match=r"TaskSpec\(name='eat'\).carry_variant=.* names a type: expected a CarryVariant"):
        carry.order_base_tasks(wrong)


def _base_task_of(world) -> str:
    """Which base task a carry world is, from its items alone."""
    kinds = {entity.kind for entity in world.entities}
    for base, item in (("bridge", "log"), ("stack", "stone"), ("fight", "stick"), ("throw", "rock")):
        if item in kinds:
            return base
    raise AssertionError(f"a carry world with none of the items: {sorted(kinds)}")


def test_the_base_task_is_drawn_from_the_worlds_rng_and_forcing_the_drawn_one_changes_nothing():
    seen = {}
    for seed in range(16):
        if len(seen) == len(carry.base_tasks()):
            break
        world = build_world("carry", 1.0, seed)
        seen.setdefault(_base_task_of(world), (seed, world))
    assert set(seen) == set(carry.base_task_names())
    for base, (seed, world) in seen.items():
        assert world_digest(build_world("carry", 1.0, seed, forced={"base_task": base})) == world_digest(world)


@pytest.mark.parametrize("base_task", ["bridge", "fight", "stack", "throw"])
def test_forcing_the_base_task_gives_its_world(base_task):
    world = build_world("carry", 0.5, 0, forced={"base_task": base_task})
    assert _base_task_of(world) == base_task
    assert carry.layout_of(world).base_task.name == base_task


def test_a_fight_tool_within_a_predators_reach_fails_the_certificate():
    layout = _layout(0.0, 0, "fight")
    world = layout.world
    (guard,) = predators(world)
    tool = _items(layout)[0]
    # Beside the predator's home, on its ground: the walk there enters its reach.
    x, z = guard.position[0] + 1.0, guard.position[2]
    near = attr.evolve(tool, position=(x, float(ground_height(world.ground.heightmap, x, z)), z))
    moved = attr.evolve(world, entities=tuple(near if e.name == tool.name else e for e in world.entities))
    assert carry.check_carry(world, layout.base_task, layout.base, layout.uses, 0.0).ok
    certificate = carry.check_carry(moved, layout.base_task, layout.base, layout.uses, 0.0)
    assert not certificate.ok and "out of the predators' reach" in certificate.reason


@pytest.mark.parametrize("base_task", ["bridge", "fight", "stack", "throw"])
def test_the_certificate_from_the_world_alone_holds_and_fails_when_an_item_is_brought_close(base_task):
    world = _world(0.5, 0, base_task)
    assert carry.certificate(world).ok
    layout = _layout(0.5, 0, base_task)
    use = layout.uses[0]
    # The item where it is used (as the base task at d = 0 has it): carry's guarantee fails.
    closer = attr.evolve(world, entities=tuple(use.place if e.name == use.name else e for e in world.entities))
    low = carry.KNOBS.carry_distance_m.at(0.5)[0]
    certificate = carry.check_carry(closer, layout.base_task, layout.base, layout.uses, low)
    assert not certificate.ok and "from where it is used" in certificate.reason
    # Without the item at all: both the base task's half and carry's fail.
    without = attr.evolve(world, entities=tuple(e for e in world.entities if e.name != use.name))
    certificate = carry.check_carry(without, layout.base_task, layout.base, layout.uses, 0.0)
    assert not certificate.ok and f"no {use.place.kind} named {use.name}" in certificate.reason


def _task_modules_imported(source: str) -> list[str]:
    """The task modules (names in ``TASKS``) a module's ``source`` imports, anywhere in it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "avalon.tasks":
            found += [alias.name for alias in node.names if alias.name in TASKS]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("avalon.tasks."):
            found += [part for part in node.module.split(".")[2:3] if part in TASKS]
        elif isinstance(node, ast.Import):
            found += [alias.name.split(".")[2] for alias in node.names
                      if alias.name.startswith("avalon.tasks.") and alias.name.split(".")[2] in TASKS]
    return found


def test_carry_and_the_kit_import_no_task_module():
    paths = [PACKAGE / "carry.py", *sorted((PACKAGE / "kit").rglob("*.py"))]
    found = {str(path.relative_to(PACKAGE)): _task_modules_imported(path.read_text()) for path in paths}
    assert {path: tasks for path, tasks in found.items() if tasks} == {}
    # The check sees the three ways of importing one (and not the registry's own names).
    source = "from avalon.tasks import bridge, with_retries\nimport avalon.tasks.stack\nfrom avalon.tasks.throw import KNOBS\n"
    assert _task_modules_imported(source) == ["bridge", "stack", "throw"]


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match=r"forced base_task='hunt' is not one of bridge, fight, stack, throw"):
        build_world("carry", 0.5, 0, forced={"base_task": "hunt"})
    with pytest.raises(ValueError, match="base_task='avoid'.*one of bridge, fight, stack, throw"):
        carry.base_task_named("avoid")
    with pytest.raises(ValueError, match="world.task"):
        carry.layout_of(build_world("bridge", 0.0, 0))
    with pytest.raises(TypeError, match="OutdoorTaskConfig"):
        carry.build_layout(np.random.default_rng(0), 0.5, {"world_size": "small"})
