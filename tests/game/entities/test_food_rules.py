"""Food rules of the paper's Table 2 and the tools of Appendix A.1, in the real simulator.

Purpose-built flat worlds; the agent stands still (zero actions) and watches. Item state is read
from the rendered frames: each rule changes how a food looks (a splattered fig turns into a red
smear, an opened coconut shows white flesh, ...; see godot/entities/food.gd and docs/items.md), so
the pixels where a food lands tell its state, and depth tells where things are.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.datagen.export import export_world
from avalon.datagen.world import Entity, FlatGround, World, tool_entity
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.rules.tools import TOOL_MASS_KG, TOOL_SIZE_M
from avalon.sim.protocol import depth_to_metres
from tests.conftest import zero_action

pytestmark = pytest.mark.godot

RESOLUTION = 192
ROW_Z = -3.5  # the foods land on a row across the view, this far in front of the spawn
HIGH_M, LOW_M = 3.0, 0.3  # drop heights (bottom of the food above the ground)
FRAMES = 70  # long enough for everything to land and settle (a 3 m drop takes ~8 frames)
# Food name → (kind, x, drop height); the rock falls on the orange.
FOODS = {
    "fig_high": ("fig", -2.4, HIGH_M),
    "fig_low": ("fig", -1.8, LOW_M),
    "coconut_high": ("coconut", -1.2, HIGH_M),
    "coconut_low": ("coconut", -0.6, LOW_M),
    "avocado_high": ("avocado", 0.0, HIGH_M),
    "avocado_low": ("avocado", 0.6, 1.0),
    "honeycomb": ("honeycomb", 1.2, 0.5),
    "orange_rock": ("orange", 1.8, 0.0),
    "orange_dropped": ("orange", 2.4, HIGH_M),
}
CARROT_X, CARROT_Z = -0.3, -2.5  # in front of the row of foods, clear of their paths
STONES_X, STONES_Z = 1.5, -6.0
PEDESTAL = (0.3, 0.4, -5.5)  # (x, size, z) of a box: a honeycomb dropped on it stays clean


def _food(name, kind, x, height, z=ROW_Z, start_asleep=None):
    radius = FOOD_RADIUS_M[kind]
    asleep = height == 0.0 if start_asleep is None else start_asleep
    return Entity(kind=kind, name=name, position=(x, radius + height, z), params={"radius": radius, "start_asleep": asleep})


def _world(entities, spawn=(0.0, 0.0, 0.0)):
    return World(task="trivial", difficulty=0.0, seed=0, ground=FlatGround(color=(0.5, 0.5, 0.5)),
                 entities=entities, spawn_position=spawn, time_limit_frames=1000)


def _pixel(point, eye=(0.0, mechanics.HEAD_DEFAULT_HEIGHT_M, 0.0)):
    """Row and column where a world point appears from the spawn pose (facing -z, level head)."""
    focal = (RESOLUTION / 2) / math.tan(math.radians(mechanics.CAMERA_FOV_DEG / 2))
    x, y, z = (p - e for p, e in zip(point, eye))
    return round(RESOLUTION / 2 - focal * y / -z), round(RESOLUTION / 2 + focal * x / -z)


def _window(rgbd, point, half=6):
    row, col = _pixel(point)
    return rgbd[row - half:row + half + 1, col - half:col + half + 1].astype(int)


def _rest_point(name):
    kind, x, _ = FOODS[name]
    return (x, FOOD_RADIUS_M[kind] * 0.6, ROW_Z)


@pytest.fixture(scope="module")
def food_frames(tmp_path_factory):
    entities = [_food(name, kind, x, height) for name, (kind, x, height) in FOODS.items()]
    orange_x = FOODS["orange_rock"][1]
    # A rock 1.7 m above the orange's top: it strikes at ~5.8 m/s, above the orange's open_speed_m_per_s.
    entities.append(tool_entity("rock", "rock", (orange_x, 2.0, ROW_Z)))
    # Awake from the start: only its being rooted keeps it from falling into (or being pushed out of) the ground.
    entities.append(_food("carrot", "carrot", CARROT_X, 0.0, z=CARROT_Z, start_asleep=False))
    x, size, z = PEDESTAL
    entities.append(Entity(kind="box", name="pedestal", position=(x, size / 2, z),
                           params={"size": (size, size, size), "color": (0.2, 0.2, 0.8)}))
    entities.append(_food("honeycomb_on_box", "honeycomb", x, size + 0.5, z=z))
    stone_height = TOOL_SIZE_M["stone"][1]
    entities.append(tool_entity("stone", "stone_bottom", (STONES_X, 0.0, STONES_Z)))
    entities.append(tool_entity("stone", "stone_top", (STONES_X, stone_height, STONES_Z)))
    world_dir = export_world(_world(entities), tmp_path_factory.mktemp("food") / "rules")
    env = AvalonEnv(EnvConfig(renderer="GLES2", world_dir=str(world_dir), resolution=RESOLUTION))
    try:
        observation, _ = env.reset(seed=0)
        frames = {0: observation["rgbd"]}
        for frame in range(1, FRAMES + 1):
            observation, *_ = env.step(zero_action())
            frames[frame] = observation["rgbd"]
    finally:
        env.close()
    return frames


def _count(window, predicate):
    r, g, b = window[..., 0], window[..., 1], window[..., 2]
    return int(np.count_nonzero(predicate(r, g, b)))


def _state(frames, name, point=None, frame=FRAMES):
    """How many pixels around where food ``name`` rests show each look (see the colours of
    godot/entities/food/*.tscn: intact and ``changed_color``)."""
    window = _window(frames[frame], point or _rest_point(name))
    looks = {
        "purple": lambda r, g, b: (b > g + 40) & (r > g + 30),  # an intact fig
        "red_smear": lambda r, g, b: (r > 150) & (r > g + 60) & (r > b + 80),  # a splattered fig
        "brown": lambda r, g, b: (r > b + 40) & (g > b + 20) & (r < 240) & (g < 190),  # a closed coconut
        "white": lambda r, g, b: np.minimum(np.minimum(r, g), b) > 200,  # coconut flesh
        "dark_green": lambda r, g, b: (g > r + 12) & (g > b + 15) & (g < 130),  # a closed avocado
        "pale_green": lambda r, g, b: (r > 150) & (g > 150) & (b < r - 50),  # avocado flesh
        "golden": lambda r, g, b: (r > 200) & (b < r - 120),  # a clean honeycomb
        "dirt": lambda r, g, b: (r < 150) & (r > b + 15) & (b > 0.3 * r),  # a dirty honeycomb
        "orange": lambda r, g, b: (r > b + 100) & (g > b + 40),  # an unopened orange
        "pith": lambda r, g, b: (b > 140) & (r > b + 20) & (g > b + 10),  # an opened orange
    }
    return {look: _count(window, predicate) for look, predicate in looks.items()}


def test_a_fig_dropped_from_high_splatters_and_one_dropped_from_low_does_not(food_frames):
    high, low = _state(food_frames, "fig_high"), _state(food_frames, "fig_low")
    assert high["red_smear"] >= 6 and high["purple"] == 0, high
    assert low["purple"] >= 10 and low["red_smear"] == 0, low
    # Before landing, the high fig was still a purple fig in the air.
    assert _state(food_frames, "fig_high", (FOODS["fig_high"][1], FOOD_RADIUS_M["fig"] + HIGH_M, ROW_Z), frame=0)["purple"] >= 10


def test_a_coconut_opens_only_when_dropped_from_high(food_frames):
    high, low = _state(food_frames, "coconut_high"), _state(food_frames, "coconut_low")
    assert high["white"] >= 6 and high["brown"] == 0, high
    assert low["brown"] >= 10 and low["white"] == 0, low


def test_an_avocado_dropped_from_a_height_opens_and_one_dropped_from_1m_does_not(food_frames):
    high, low = _state(food_frames, "avocado_high"), _state(food_frames, "avocado_low")
    assert high["pale_green"] >= 6 and high["dark_green"] == 0, high
    assert low["dark_green"] >= 10 and low["pale_green"] == 0, low


def test_a_honeycomb_gets_dirty_on_the_ground_but_not_on_a_box(food_frames):
    landed = _state(food_frames, "honeycomb")
    assert landed["dirt"] >= 10 and landed["golden"] == 0, landed
    x, size, z = PEDESTAL
    on_box = _state(food_frames, "honeycomb_on_box", (x, size + FOOD_RADIUS_M["honeycomb"] * 0.6, z))
    assert on_box["golden"] >= 6 and on_box["dirt"] == 0, on_box


def test_an_orange_opens_when_a_rock_hits_it_but_not_when_dropped(food_frames):
    assert _state(food_frames, "orange_rock", frame=0)["orange"] >= 10
    # The struck orange rolls off somewhere to the right of x = 1.5 m: look for newly appeared
    # flesh there (the hands, the only other pale things, do not move).
    horizon, right = _pixel((0.0, mechanics.HEAD_DEFAULT_HEIGHT_M, -100.0))[0], _pixel((1.5, 0.0, ROW_Z))[1]
    before, after = (food_frames[f][horizon + 2:, right:].astype(int) for f in (0, FRAMES))
    def pith(rgb):
        return (rgb[..., 2] > 140) & (rgb[..., 0] > rgb[..., 2] + 20) & (rgb[..., 1] > rgb[..., 2] + 10)

    assert np.count_nonzero(pith(after) & ~pith(before)) >= 6
    # A 3 m drop (far above the orange's open_speed_m_per_s) does not open an orange: only rocks do.
    dropped = _state(food_frames, "orange_dropped")
    assert dropped["orange"] >= 10 and dropped["pith"] == 0, dropped


def test_a_carrot_stays_in_the_ground(food_frames):
    radius = FOOD_RADIUS_M["carrot"]
    # Its leaves stand above the ground (its local ground is y = -radius), its root below it.
    point = (CARROT_X, radius * 1.2, CARROT_Z)
    row, col = _pixel(point)
    edges = []
    for frame in (1, 20, FRAMES):
        leaves = _count(_window(food_frames[frame], point, half=6), lambda r, g, b: (g > r + 30) & (g > b + 30))
        assert leaves >= 5, frame
        band = food_frames[frame][row - 12:row + 12, col - 3:col + 4]
        metres = depth_to_metres(band[..., 3])
        edges.append(int(np.flatnonzero(((metres > -CARROT_Z - 0.3) & (metres < -CARROT_Z + 0.3)).any(axis=1))[0]))
    assert edges[0] == edges[1] == edges[2], edges  # the tips of its leaves did not move
    first, last = (_window(food_frames[f], point, half=6) for f in (1, FRAMES))
    assert np.abs(first - last).max() <= 4


def _top_edge_row(rgbd, column, near_m, far_m):
    metres = depth_to_metres(rgbd[..., 3])[:, column]
    rows = np.flatnonzero((metres > near_m) & (metres < far_m))
    return int(rows[0]) if rows.size else None


def test_two_stacked_stones_stay_put(food_frames):
    stone = TOOL_SIZE_M["stone"]
    top_face = (STONES_X, stone[1] * 1.5, STONES_Z + stone[2] / 2)  # front face of the top stone
    row, col = _pixel(top_face)
    expected_top_row = _pixel((STONES_X, 2 * stone[1], STONES_Z + stone[2] / 2))[0]
    for frame in (1, 20, FRAMES):
        metres = depth_to_metres(food_frames[frame][..., 3])
        assert metres[row, col] == pytest.approx(-top_face[2], rel=0.02), frame
        # The top stone's upper edge (the nearest thing at its distance) stays where it was put.
        edge = _top_edge_row(food_frames[frame], col, 5.5, 6.5)
        assert edge is not None and abs(edge - expected_top_row) <= 1, (frame, edge, expected_top_row)
    # Once the falling foods in front have landed, 50 frames change nothing around the stones.
    first, last = (_window(food_frames[f], top_face, half=8) for f in (20, FRAMES))
    assert np.abs(first - last).max() <= 4


def _boulder_run(env, world_dir):
    """Reaches down to the top of a boulder in front and closes the right hand on it."""
    observation, _ = env.reset(seed=0, options={"world_dir": str(world_dir)})
    grasped = []
    for _ in range(2):  # 0.2 m down and 0.2 m forward: just above its top
        observation, *_ = env.step(zero_action(right_hand_position=[0, -0.5, -0.5]))
    for _ in range(3):
        observation, *_, info = env.step(zero_action(right_hand_position=[0, -0.3, 0], right_grasp=1))
        grasped.append(observation["right_hand_is_grasping"][0] > 0.5)
    return any(grasped), info


def test_a_boulder_is_too_heavy_to_lift_but_the_same_rock_made_light_is_not(tmp_path):
    assert TOOL_MASS_KG["boulder"] > mechanics.MAX_LIFT_MASS_KG
    root = tmp_path / "boulders"
    worlds = {
        mass: export_world(_world([tool_entity("boulder", "boulder", (0.3, 0.0, -1.15), **params)]), root / str(mass))
        for mass, params in (("default", {}), ("light", {"mass": mechanics.MAX_LIFT_MASS_KG / 2}))
    }
    env = AvalonEnv(EnvConfig(renderer="GLES2", world_dir=str(worlds["default"])))
    try:
        light_grasped, light_info = _boulder_run(env, worlds["light"])
        heavy_grasped, heavy_info = _boulder_run(env, worlds["default"])
    finally:
        env.close()
    assert light_grasped and "grasp" in light_info["achievements"]
    assert not heavy_grasped and "grasp" not in heavy_info["achievements"]
