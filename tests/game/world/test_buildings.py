"""Buildings in the real simulator: the agent walks in through the entrance, is stopped by an
inner wall and by a window (which it sees through), walks up a ramp to the second story; a
building on a levelled island loads; an altered buildings.bin is refused, naming the problem."""

from __future__ import annotations

import math
import re
import struct

import attr
import numpy as np
import pytest

from avalon import AvalonEnv
from avalon.datagen.buildings import BuildingConfig, LinkKind, TileKind, generate_building
from avalon.datagen.export import export_world, marshal
from avalon.datagen.world import FlatGround, World
from avalon.errors import WorldLoadError
from avalon.rules import mechanics
from avalon.sim.protocol import depth_to_metres
from tests.datagen import tampering
from tests.datagen.tampering import decode, edit_scene, replace, reseal
from tests.game.runs import Run
from tests.game.world import test_untrusted_worlds as untrusted

pytestmark = pytest.mark.godot

# A module's simulator, and what it answers RESET with when the Python checks are bypassed.
simulator = untrusted.simulator
_load = untrusted._load

CONFIG = BuildingConfig(width_tiles=14, length_tiles=12, story_count=2, footprint="rectangle", entrance_side="south")
SEED = 3
ORIGIN = (-7.0, 0.0, -20.0)
BUILDINGS_FILE = "buildings.bin"
CLOSED = (TileKind.WALL, TileKind.OUTER_WALL, TileKind.WINDOW)  # wall tiles one cannot walk through


@pytest.fixture(scope="module")
def building():
    building = generate_building(CONFIG, SEED, origin=ORIGIN)
    assert building.links[0].kind is LinkKind.RAMP
    return building


def _yaw_towards(dx: float, dz: float) -> float:
    return math.atan2(-dx, -dz)


def _world(building, spawn, yaw):
    return World(task="buildings", difficulty=0.0, seed=0, ground=FlatGround(size_m=100.0), entities=(),
                 spawn_position=spawn, spawn_yaw_rad=yaw, time_limit_frames=1000, buildings=(building,))


@pytest.fixture(scope="module")
def env():
    env = AvalonEnv(renderer="GLES2", resolution=64)
    yield env
    env.close()


def _walk_forward(run, steps, speed=1.0):
    for _ in range(steps):
        run.step(head_position=[0.0, 0.0, -speed])
    return run.body.copy()


def _tile_of(building, position):
    return building.tile_at(float(position[0]), float(position[2]))


def test_the_agent_walks_in_through_the_entrance(env, building, tmp_path):
    entrance = building.entrance
    # 3 m outside, facing in (the doorway's yaw points out).
    x, _, z = entrance.position
    out = (-math.sin(entrance.yaw_rad), -math.cos(entrance.yaw_rad))
    spawn = (x + 3.0 * out[0], 0.0, z + 3.0 * out[1])
    folder = export_world(_world(building, spawn, _yaw_towards(-out[0], -out[1])), tmp_path / "entrance")
    run = Run(env, str(folder))
    assert _tile_of(building, run.body) is None  # outside the grid
    body = _walk_forward(run, 12)
    tile = _tile_of(building, body)
    assert tile is not None and building.stories[0].kinds[tile] == TileKind.ROOM, (body, tile)
    assert building.room_ids(0)[tile] == entrance.rooms[0]
    assert body[1] == pytest.approx(building.floor_top_m(0), abs=0.05)


def _facing(building, kind):
    """A room tile of story 0 with a tile of ``kind`` straight ahead (two tiles on, the tile
    between also room, the target's neighbours along its wall closed), and that direction."""
    kinds = building.stories[0].kinds
    rows, cols = kinds.shape
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                r1, c1, r2, c2 = r + dr, c + dc, r + 2 * dr, c + 2 * dc
                if not (0 <= r2 < rows and 0 <= c2 < cols):
                    continue
                side = (r2 + dc, c2 + dr), (r2 - dc, c2 - dr)  # the target's neighbours along its wall
                if (kinds[r, c] == TileKind.ROOM and kinds[r1, c1] == TileKind.ROOM and kinds[r2, c2] == kind
                        and all(0 <= a < rows and 0 <= b < cols and kinds[a, b] in CLOSED for a, b in side)):
                    return (r, c), (dr, dc)
    raise AssertionError(f"no room tile faces a {kind!r} in this building")


@pytest.mark.parametrize("kind", [TileKind.WALL, TileKind.WINDOW])
def test_an_inner_wall_and_a_window_stop_the_agent_and_the_window_is_seen_through(env, building, tmp_path, kind):
    (r, c), (dr, dc) = _facing(building, kind)
    spawn = building.tile_centre(0, r, c)
    folder = export_world(_world(building, spawn, _yaw_towards(dc, dr)), tmp_path / kind.name.lower())
    run = Run(env, str(folder))
    wall_face = np.array(building.tile_centre(0, r + 2 * dr, c + 2 * dc)) - np.array([dc, 0.0, dr]) * (
        building.appearance.wall_thickness_m / 2.0)
    distance = float(np.dot(wall_face - run.body, [dc, 0.0, dr]))
    depth = depth_to_metres(run.observation["rgbd"][:, :, 3])
    centre = float(depth[depth.shape[0] // 2, depth.shape[1] // 2])
    if kind is TileKind.WINDOW:
        assert centre > distance + 3.0, (centre, distance)  # the ground outside, through the window
    else:
        assert centre == pytest.approx(distance, abs=0.3)
    body = _walk_forward(run, 15)
    reached = float(np.dot(body - np.array(spawn), [dc, 0.0, dr]))
    assert reached <= distance - mechanics.BODY_RADIUS_M + 0.05, (reached, distance)
    assert reached >= distance - mechanics.BODY_RADIUS_M - 0.1  # it did walk up to it
    assert _tile_of(building, body) is not None


def test_the_agent_walks_up_the_ramp_to_the_second_story(env, building, tmp_path):
    link = building.links[0]
    dr, dc = link.direction
    spawn = building.tile_centre(0, *link.bottom)
    # Centred across the ramp (the bottom tile is one of its landing's tiles).
    across = np.array([dr != 0, 0, dc != 0], float)
    centre = np.array(building.tile_centre(0, link.rect.row, link.rect.col)) + (
        np.array([link.rect.cols - 1, 0, link.rect.rows - 1]) / 2.0)
    spawn = tuple(np.array(spawn) * (1 - across) + centre * across)
    folder = export_world(_world(building, spawn, _yaw_towards(dc, dr)), tmp_path / "ramp")
    run = Run(env, str(folder))
    body = _walk_forward(run, 30, speed=0.5)
    assert body[1] == pytest.approx(building.floor_top_m(1), abs=0.05), body
    tile = _tile_of(building, body)
    assert building.room_ids(1)[tile] == link.room and building.stories[1].kinds[tile] == TileKind.ROOM
    assert max(info["energy_lost_to_falls"] for info in run.infos) == 0.0


def test_a_building_levelled_onto_an_island_holds_the_agent_on_its_floor(env, tmp_path):
    from avalon.datagen.buildings import add_building, free_floor_positions, site_height
    from avalon.tasks import build_world, task_for
    from avalon.tasks.kit.assembly import OutdoorTaskConfig

    island = build_world(task_for("first"), 0.5, 1, OutdoorTaskConfig(world_size="small"))
    config = BuildingConfig(width_tiles=10, length_tiles=10, story_count=1, max_rooms=2)
    for x, z in [(0.0, 0.0), (-8.0, 0.0), (8.0, 0.0), (0.0, -8.0), (0.0, 8.0)]:
        y = site_height(island.ground, x, z, 10, 10)
        if y > island.ground.heightmap.water_height_m + 0.5:
            break
    world = add_building(island, generate_building(config, 0, origin=(x - 5.0, y, z - 5.0)))
    building = world.buildings[0]
    spawn = free_floor_positions(building, 0, building.entrance.rooms[0])[0]
    folder = export_world(attr.evolve(world, spawn_position=spawn, time_limit_frames=1000), tmp_path / "island")
    run = Run(env, str(folder))
    for _ in range(10):
        run.step()
    assert run.body[1] == pytest.approx(building.floor_top_m(0), abs=0.05)
    assert _tile_of(building, run.body) is not None


@pytest.mark.parametrize("climbable", [True, False])
def test_the_outside_walls_are_climbed_only_where_the_config_says(env, tmp_path, climbable):
    from tests.game.agent.test_capabilities import _hand_over_hand

    config = BuildingConfig(width_tiles=10, length_tiles=10, story_count=2, footprint="rectangle", entrance_side="north",
                            windows=False, climbable_exterior=climbable)
    building = generate_building(config, 0, origin=(-5.0, 0.0, -10.0))
    face_z = building.origin[2] + 10 - (1.0 - building.appearance.wall_thickness_m) / 2.0
    folder = export_world(_world(building, (0.0, 0.0, face_z + 0.75), 0.0), tmp_path / f"climb-{climbable}")
    run = Run(env, str(folder))
    if climbable:
        _hand_over_hand(run, 60)
    else:  # the hand pressed against the wall and closed never holds it
        for _ in range(30):
            run.step(head_position=[0, 1, 0], right_hand_position=[0, 0, -1], right_grasp=1)
            assert not run.grasping(1)
    rise = max(info["world_body_position"][1] for info in run.infos)
    assert (rise > 2.0) == climbable, rise


# ---------------------------------------------------------------------- altered buildings.bin


@pytest.fixture(scope="module")
def building_world(building, tmp_path_factory):
    return export_world(_world(building, (0.0, 0.0, 0.0), 0.0), tmp_path_factory.mktemp("bw") / "world")


def _edit(edit):
    def tamper(folder):
        data = (folder / BUILDINGS_FILE).read_bytes()
        value, end = decode(data, 4)
        assert end == len(data)
        edit(value)
        marshal.store_var(folder / BUILDINGS_FILE, value)
        reseal(folder)
    return tamper


def _truncate(folder):
    data = (folder / BUILDINGS_FILE).read_bytes()
    (folder / BUILDINGS_FILE).write_bytes(data[: len(data) // 2])
    reseal(folder)


def _an_object(folder):
    payload = struct.pack("<II", 17, 0)
    (folder / BUILDINGS_FILE).write_bytes(struct.pack("<I", len(payload)) + payload)
    reseal(folder)


def _first(value):
    return value["buildings"][0]


@pytest.mark.parametrize(
    "tamper, reason",
    [
        (_truncate, "truncated or altered"),
        (_an_object, "its encoding is malformed at byte 4"),
        (_edit(lambda v: v.update(format_version=7)), "format_version 7, this simulator reads 1"),
        (_edit(lambda v: v.update(buildings=[])), "buildings is not an array of 1 to 256 buildings"),
        (_edit(lambda v: _first(v)["mesh"]["indices"].values.__setitem__(0, 10**9)), "building 0's mesh: its indices reach outside"),
        (_edit(lambda v: _first(v)["mesh"]["vertices"].values.__setitem__((2, 1), np.nan)),
         r"building 0's mesh: a vertex is not finite \(item 2: nan\)"),
        (_edit(lambda v: _first(v)["solid"]["centres"].values.__setitem__((1, 0), 3e7)),
         r"building 0's solid colliders: a centre is out of range \(item 1: 3e\+07\)"),
        (_edit(lambda v: _first(v)["solid"]["extents"].values.__setitem__((0, 2), 0.0)),
         r"building 0's solid colliders: a half extent is out of range \(item 0: 0(\.0)?\)"),
        (_edit(lambda v: _first(v)["solid"]["rotations"].values.__setitem__((0, 0), np.inf)),
         r"building 0's solid colliders: a rotation is not finite"),
        (_edit(lambda v: _first(v)["solid"].pop("extents")), "building 0's solid colliders: centres, extents or rotations"),
        (lambda folder: edit_scene(folder, replace('data_file = "buildings.bin"', 'data_file = "../terrain.bin"'), seal=False),
         "the buildings' data_file \"../terrain.bin\" is not the plain name"),
    ],
)
def test_an_altered_buildings_file_is_refused_naming_the_problem(simulator, building_world, tmp_path, tamper, reason):
    folder = tampering.copy_world(building_world, tmp_path / "w")
    tamper(folder)
    answer = _load(simulator, folder)
    assert re.search(reason, answer), answer
    assert _load(simulator, building_world) == "loaded"


def test_the_buildings_files_bounds_are_the_scene_checks_and_hold_what_the_exporter_writes():
    from avalon.datagen.buildings import BuildingAppearance
    from avalon.datagen.export import scene_ranges
    from avalon.datagen.export.building_data import BUILDINGS_FORMAT_VERSION, buildings_data
    from avalon.datagen.world import Lighting
    from avalon.sim.paths import godot_project_dir

    text = (godot_project_dir() / "world" / "buildings_file.gd").read_text()
    constants = {name: float(value) for name, value in re.findall(r"^const ([A-Z_]+) = ([0-9.e+-]+)", text, re.M)}
    assert constants["MAX_COORDINATE_M"] == scene_ranges.MAX_COORDINATE_M
    assert constants["FORMAT_VERSION"] == BUILDINGS_FORMAT_VERSION
    for thickness in (0.2, 0.9995, 1.0):
        config = attr.evolve(CONFIG, appearance=BuildingAppearance(wall_thickness_m=thickness))
        data = buildings_data([generate_building(config, SEED)], Lighting())
        for name in ("solid", "climbable"):
            boxes = data["buildings"][0][name]
            assert (boxes["extents"].values >= constants["MIN_EXTENT_M"]).all()
            assert (np.abs(boxes["rotations"].values) <= constants["MAX_ANGLE_RAD"]).all()


def test_the_python_checks_refuse_an_altered_buildings_file_before_godot_sees_it(building_world, tmp_path):
    from avalon.datagen.world_folder import read_world_info

    folder = tampering.copy_world(building_world, tmp_path / "w")
    data = bytearray((folder / BUILDINGS_FILE).read_bytes())
    data[100] ^= 0xFF
    (folder / BUILDINGS_FILE).write_bytes(bytes(data))
    with pytest.raises(WorldLoadError, match="files_hash"):
        read_world_info(folder)
    wrong_name = tampering.copy_world(building_world, tmp_path / "n")
    edit_scene(wrong_name, replace('data_file = "buildings.bin"', 'data_file = "terrain.bin"'))
    with pytest.raises(WorldLoadError, match=r"one of \['buildings.bin'\]"):
        read_world_info(wrong_name)
