"""Properties every registered task keeps, checked on its own worlds: a new task module gets these
tests by declaring its ``TaskSpec``.

For each task, a few difficulties and seeds: the same (task, difficulty, seed) gives the same world
and byte-identical folders; the world's time limit is the spec's evaluation limit; the spawn is
clear (no entity and no tree trunk within the body's radius); every food is visible from the
spawn's eyes and reachable on foot where the spec says so; a task with a solvability certificate
keeps it; the folder stays within a size bound.
Pure Python but for the folders (exported, no Godot), which are marked slow.
"""

from __future__ import annotations

import functools
import importlib
import math
import pkgutil

import attr
import numpy as np
import pytest

import avalon.tasks
from avalon.datagen.doors import DOOR_KIND
from avalon.datagen.export import content_hash
from avalon.datagen.world import Entity, FlatGround, Terrain, World
from avalon.rules.animals import ANIMALS, PREY_KINDS
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks import TASKS, build_world, generate_world
from avalon.tasks.kit.geometry import AGENT_RADIUS_M, component_labels, triangle_index, walkable_grid
from avalon.tasks.kit.sight import EYE_HEIGHT_M, OCCLUDER_PARTS, scenery_occluders
from avalon.training.curriculum import training_time_limit_frames
from tests.tasks.helpers import terrain_hides, world_digest

DIFFICULTIES = (0.0, 0.5, 1.0)
SEEDS = (0, 1)
CASES = [(task, difficulty, seed) for task in sorted(TASKS) for difficulty in DIFFICULTIES for seed in SEEDS]
#: For the checks that cost a second or more a world (a second build, the certificate's search);
#: each task's own tests run them over many more seeds.
FIRST_SEED_CASES = [case for case in CASES if case[2] == SEEDS[0]]
#: A world folder is at most this big: a Medium island at 2 grid points per metre (move's chasm
#: worlds) is about 19 MiB; a task that needs more says why here.
MAX_FOLDER_BYTES = 32 * 2**20
#: A compositional world's island holds up to four obstacles of about 21 m each round its spawn at
#: 2 grid points per metre (a climbable strip needs them): up to a 236 m square, about 41 MiB.
MAX_COMPOSITIONAL_FOLDER_BYTES = 64 * 2**20


@functools.lru_cache(maxsize=None)
def _world(task: str, difficulty: float, seed: int) -> World:
    return build_world(task, difficulty, seed)


def _case_id(case) -> str:
    return "{}-{}-{}".format(*case)


def test_every_module_of_the_package_is_a_registered_task():
    modules = [m.name for m in pkgutil.iter_modules(avalon.tasks.__path__) if not m.ispkg]
    assert sorted(TASKS) == sorted(modules)
    for name in modules:
        assert importlib.import_module(f"avalon.tasks.{name}").TASK is TASKS[name]


@pytest.mark.parametrize("task", sorted(TASKS))
def test_the_difficulty_curves_are_one_frozen_table(task):
    module = importlib.import_module(f"avalon.tasks.{task}")
    knobs = getattr(module, "KNOBS", None)
    if knobs is None:  # a task whose worlds do not depend on difficulty (trivial)
        assert attr.evolve(_world(task, 1.0, 0), difficulty=0.0) == _world(task, 0.0, 0)
        return
    assert attr.has(type(knobs))
    field = attr.fields(type(knobs))[0].name
    with pytest.raises(attr.exceptions.FrozenInstanceError):
        setattr(knobs, field, getattr(knobs, field))


@pytest.mark.parametrize("case", FIRST_SEED_CASES, ids=_case_id)
def test_the_same_task_difficulty_and_seed_give_the_same_world(case):
    assert world_digest(build_world(*case)) == world_digest(_world(*case))


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_the_world_keeps_the_specs_time_limits(case):
    task, difficulty, _ = case
    spec = TASKS[task]
    world = _world(*case)
    assert (world.task, world.difficulty, world.seed) == case
    assert world.time_limit_frames == spec.evaluation_time_limit_frames
    training = training_time_limit_frames(task, difficulty)
    seconds = spec.training_time_limit_s.at(difficulty)
    assert training == spec.training_time_limit_frames(difficulty) == round(10 * seconds) > 0


def _horizontal_gap_m(entity: Entity, x: float, z: float) -> float:
    """Horizontal distance from (x, z) to the entity: to a box's or a tool's footprint (its bounding
    box at its scale), or to a sphere's surface."""
    dx, dz = x - entity.position[0], z - entity.position[2]
    if entity.kind == "box" or entity.kind in TOOL_SIZE_M:
        if entity.kind == "box":
            width, _, depth = entity.param("size")
        else:
            width, _, depth = (v * float(entity.param("safe_scale", 1.0)) for v in TOOL_SIZE_M[entity.kind])
        c, s = math.cos(entity.yaw_rad), math.sin(entity.yaw_rad)
        right, back = c * dx - s * dz, s * dx + c * dz  # into the box's frame (Godot's basis, transposed)
        return math.hypot(max(abs(right) - width / 2, 0.0), max(abs(back) - depth / 2, 0.0))
    if entity.kind == DOOR_KIND:  # a door: its opening, the wall's thickness deep
        c, s = math.cos(entity.yaw_rad), math.sin(entity.yaw_rad)
        right, back = c * dx - s * dz, s * dx + c * dz
        width, depth = float(entity.param("width_m")), float(entity.param("wall_thickness_m"))
        return math.hypot(max(abs(right) - width / 2, 0.0), max(abs(back) - depth / 2, 0.0))
    if entity.kind in ANIMALS:  # an animal: the circle round its box at any yaw
        return math.hypot(dx, dz) - math.hypot(ANIMALS[entity.kind].size_m[0], ANIMALS[entity.kind].size_m[2]) / 2
    return math.hypot(dx, dz) - float(entity.param("radius"))


def _trunk_radius_m(plant) -> float:
    return max(radius for radius, base, _ in OCCLUDER_PARTS[plant.kind] if base == 0.0) * plant.scale


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_the_spawn_is_clear(case):
    world = _world(*case)
    x, _, z = world.spawn_position
    for entity in world.entities:
        assert _horizontal_gap_m(entity, x, z) > AGENT_RADIUS_M, f"{entity.name} stands on the spawn"
    for plant in world.scenery:
        if plant.kind.is_tree:
            distance = math.hypot(plant.position[0] - x, plant.position[2] - z)
            assert distance > AGENT_RADIUS_M + _trunk_radius_m(plant), f"a {plant.kind.value} trunk stands on the spawn"


def _box_blocks(box: Entity, eye, target) -> bool:
    """Whether the segment from ``eye`` to ``target`` passes through the (turned) box: a slab test in
    the box's frame."""
    size = np.asarray(box.param("size"), dtype=np.float64) / 2.0
    c, s = math.cos(box.yaw_rad), math.sin(box.yaw_rad)

    def local(point):
        dx, dy, dz = (float(point[i]) - float(box.position[i]) for i in range(3))
        return np.array([c * dx - s * dz, dy, s * dx + c * dz])

    start, direction = local(eye), local(target) - local(eye)
    low, high = 0.0, 1.0
    for axis in range(3):
        if abs(direction[axis]) < 1e-12:
            if abs(start[axis]) > size[axis]:
                return False
            continue
        a = (-size[axis] - start[axis]) / direction[axis]
        b = (size[axis] - start[axis]) / direction[axis]
        low, high = max(low, min(a, b)), min(high, max(a, b))
    return low < high


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_the_food_is_visible_from_the_spawn_where_the_spec_says_so(case):
    if not TASKS[case[0]].food_visible_from_spawn:
        pytest.skip(f"{case[0]} does not promise that the food is in sight")
    world = _world(*case)
    x, y, z = world.spawn_position
    eye = (x, y + EYE_HEIGHT_M, z)
    occluders = scenery_occluders(world.scenery)
    boxes = [entity for entity in world.entities if entity.kind == "box"]
    assert world.food, "every task's world holds food"
    for food in world.food:
        if isinstance(world.ground, Terrain):
            assert not terrain_hides(world.ground.heightmap, eye, food.position), f"the terrain hides {food.name}"
        assert not occluders.blocking(eye, food.position).any(), f"a plant hides {food.name}"
        assert not any(_box_blocks(box, eye, food.position) for box in boxes), f"a box hides {food.name}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_the_food_is_reachable_on_foot_where_the_spec_says_so(case):
    if not TASKS[case[0]].food_reachable_on_foot:
        pytest.skip(f"{case[0]} proves its food reachable its own way")
    world = _world(*case)
    x, _, z = world.spawn_position
    assert world.food, "every task's world holds food"
    if isinstance(world.ground, FlatGround):
        half = world.ground.size_m / 2
        for point in (world.spawn_position, *(food.position for food in world.food)):
            assert abs(point[0]) < half and abs(point[2]) < half, "off the flat ground"
        return
    heightmap = world.ground.heightmap
    labels = component_labels(walkable_grid(heightmap))
    start = labels[triangle_index(heightmap, x, z)]
    assert start >= 0, "the spawn is on walkable ground"
    for food in world.food:
        goal = labels[triangle_index(heightmap, food.position[0], food.position[2])]
        assert goal == start, f"{food.name} is out of reach"


@pytest.mark.parametrize("case", FIRST_SEED_CASES, ids=_case_id)
def test_a_certified_tasks_worlds_keep_their_certificate_and_its_route_ends_beside_the_food(case):
    spec = TASKS[case[0]]
    if spec.certificate is None:
        pytest.skip(f"{case[0]} has no solvability certificate (its food is reached on foot)")
    world = _world(*case)
    certificate = spec.certificate(world)
    assert certificate.ok, certificate.reason
    route = certificate.route
    assert route.start == world.spawn_position
    if certificate.required:  # explore requires none: its obstacle is what the spawn cannot see
        assert route.skills() & certificate.required, "the route uses a required skill"
    end = route.steps[-1].target
    # Prey count as food (eaten once knocked out): a prey task's route ends where one starts.
    foods = world.food + tuple(animal for animal in world.animals if animal.kind in PREY_KINDS)
    assert min(math.dist(end, food.position) for food in foods) < 3.0, "the route ends beside a food"


@pytest.mark.slow
@pytest.mark.parametrize("task", sorted(TASKS))
def test_world_folders_are_byte_identical_and_within_the_size_bound(task, tmp_path):
    for difficulty in (0.0, 1.0):
        first = generate_world(task, difficulty, 3, tmp_path / f"{difficulty}-a")
        second = generate_world(task, difficulty, 3, tmp_path / f"{difficulty}-b")
        assert content_hash(first) == content_hash(second)
        files = sorted(path.relative_to(first) for path in first.rglob("*") if path.is_file())
        assert files == sorted(path.relative_to(second) for path in second.rglob("*") if path.is_file())
        assert all((first / name).read_bytes() == (second / name).read_bytes() for name in files)
        size = sum((first / name).stat().st_size for name in files)
        bound = MAX_COMPOSITIONAL_FOLDER_BYTES if TASKS[task].group == "compositional" else MAX_FOLDER_BYTES
        assert 0 < size <= bound, f"{task} at {difficulty}: {size} bytes"
