"""Food hanging in a fruit tree (paper, Appendix A.3: "fruit ... found either on or under a large
fruit tree"), in the real simulator.

Small terrain worlds with one fruit tree; food hangs from its canopy at the height the eat task
uses (``HANGING_FOOD_CLEARANCE_M``: within reach from the ground). Where food is, is read from
the agent's own frames (colour + depth back to world points, ``tests/game/camera.py``).
Rules: godot/entities/food.gd; docs/items.md.
"""

from __future__ import annotations

import attr
import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.datagen.export import export_world
from avalon.datagen.scenery import FruitTreeConfig, SceneryInstance, SceneryKind
from avalon.datagen.world import Entity, hanging_food_entity, tool_entity
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M, HANGING_FOOD_CLEARANCE_M
from tests.game.camera import colour_mask, world_points
from tests.game.runs import CLIFF_FOOT_M, Run, box, rate_toward, terrain_world

pytestmark = pytest.mark.godot

GROUND_M = CLIFF_FOOT_M  # the flat terrain's height
TREE = FruitTreeConfig()
CANOPY_BOTTOM_M = GROUND_M + TREE.canopy_bottom_m  # at scale 1
RESOLUTION = 128


def is_red(r, g, b):  # an apple; also a splattered fig
    return (r > 120) & (r > g + 70) & (r > b + 70)


def is_purple(r, g, b):  # an intact fig
    return (b > g + 30) & (r > g + 25)


def is_white(r, g, b):  # coconut flesh (the hands are yellower)
    return (np.minimum(np.minimum(r, g), b) > 235) & (r - b < 15)


def _tree(x, z):
    return SceneryInstance(kind=SceneryKind.FRUIT_TREE, position=(x, GROUND_M, z), yaw_rad=0.0, scale=1.0,
                           color=TREE.color)


def _hanging(kind, name, x, z, **params):
    return hanging_food_entity(kind, name, (x, GROUND_M, z), branch_height_m=CANOPY_BOTTOM_M, **params)


def _hanging_centre_y(kind):
    return GROUND_M + HANGING_FOOD_CLEARANCE_M + FOOD_RADIUS_M[kind]


def _export(tmp_path, name, entities, trees):
    """Flat terrain GROUND_M high (spawn at x = z = 0, facing -z) with ``trees`` and ``entities``."""
    world = attr.evolve(terrain_world(False, cliff=False, scenery=tuple(trees)), entities=tuple(entities))
    return str(export_world(world, tmp_path / name))


@pytest.fixture(scope="module")
def env():
    env = AvalonEnv(EnvConfig(renderer="GLES2", resolution=RESOLUTION))
    yield env
    env.close()


def _seen(run, predicate):
    """World points of the pixels matching ``predicate`` in the latest frame."""
    return world_points(run.observation, run.info, colour_mask(run.observation["rgbd"], predicate))


def _seen_at_height(run, predicate, height):
    """Where the pixels matching ``predicate`` meet the horizontal plane at ``height`` (for
    something lying on the ground: exact to a pixel, where depth is exact to a few per cent)."""
    return world_points(run.observation, run.info, colour_mask(run.observation["rgbd"], predicate), plane_y=height)


def _near(points, centre, radius):
    """Points within ``radius`` of ``centre`` (x, y, z)."""
    return points[np.linalg.norm(points - np.asarray(centre), axis=1) <= radius]


# ---- It stays --------------------------------------------------------------------------------

def test_hanging_fruit_stays_in_the_tree_over_many_steps_while_a_loose_one_falls(env, tmp_path):
    hanging_at = (0.3, _hanging_centre_y("apple"), -3.0)
    loose_at = (-1.2, _hanging_centre_y("apple"), -3.0)
    loose = Entity(kind="apple", name="loose", position=loose_at, params={"radius": FOOD_RADIUS_M["apple"], "start_asleep": False})
    world_dir = _export(tmp_path, "stays", [_hanging("apple", "hanging", hanging_at[0], hanging_at[2]), loose],
                        [_tree(0.0, -4.5)])
    run = Run(env, world_dir)
    assert len(_near(_seen(run, is_red), hanging_at, 0.3)) >= 10 and len(_near(_seen(run, is_red), loose_at, 0.3)) >= 10
    for step in range(100):
        run.step()
        if step % 20 == 19:
            red = _seen(run, is_red)
            assert len(_near(red, hanging_at, 0.25)) >= 10, f"step {step}: the hanging apple is gone"
            assert len(_near(red, loose_at, 1.0)) == 0, f"step {step}: the loose apple is still up there"
    red = _seen(run, is_red)
    assert np.count_nonzero(red[:, 1] < GROUND_M + 2 * FOOD_RADIUS_M["apple"] + 0.05) >= 5  # the loose one lies (or rolls) on the ground
    # Walking under it does not touch it (its lowest point is above the 2 m body) ...
    for _ in range(12):
        run.step(head_position=[0, 0, -0.5])
    assert run.body[2] == pytest.approx(hanging_at[2], abs=0.05)
    for _ in range(2):
        run.step(head_position=[0, 0, 0.5])
    # ... and nor does an empty hand pressed up into it at full speed (the right hand is under it).
    touched = False
    for _ in range(6):
        run.step(right_hand_position=[0, 1, 0])
        touched = touched or run.observation["right_hand_is_colliding"][0] > 0.5
    assert touched
    for _ in range(6):
        run.step(right_hand_position=[0, -1, 0])
    for _ in range(10):
        run.step(head_position=[0, 0, 0.5])
    assert run.body == pytest.approx((0.0, GROUND_M, 0.0), abs=0.05)
    for _ in range(3):
        run.step()
    centre = np.array(hanging_at)
    red = _near(_seen(run, is_red), centre, 0.25)
    assert len(red) >= 10 and np.linalg.norm(red.mean(axis=0) - centre) < 0.1
    assert "eat" not in run.info["achievements"] and run.info["food_eaten"] == 0


# ---- Picked from the ground ------------------------------------------------------------------

def _pick_world(tmp_path, kind="apple"):
    """A fruit hanging above the right hand's reach from the spawn, its tree 1.5 m behind it."""
    return _export(tmp_path, f"pick-{kind}", [_hanging(kind, "fruit", 0.3, -0.5)], [_tree(0.3, -2.0)])


@pytest.mark.parametrize("kind", ["apple", "coconut", "mulberry"])
def test_a_hanging_fruit_is_grasped_from_the_ground_held_and_eaten(env, tmp_path, kind):
    # Coconut: the highest (largest) hanging fruit, and it stays closed: held, never eaten; mulberry: the smallest.
    run = Run(env, _pick_world(tmp_path, kind))
    below = np.array([0.3, _hanging_centre_y(kind) - GROUND_M - FOOD_RADIUS_M[kind] - mechanics.HAND_RADIUS_M, -0.5])
    for _ in range(12):
        before = run.hand(1)
        run.step(right_hand_position=rate_toward(before, below), right_grasp=int(np.linalg.norm(before - below) < 0.05))
        if run.grasping(1):
            break
    assert run.grasping(1), f"the hand under the {kind} (at {run.hand(1)}) did not take it"
    assert run.body[1] == pytest.approx(GROUND_M, abs=0.05)  # from the ground: no jump, no climb
    assert {"grasp"} <= run.info["achievements"] and "climb_2m" not in run.info["achievements"]
    for _ in range(3):  # it comes down with the hand: held like any food
        run.step(right_hand_position=[0, -1, 0], right_grasp=1)
    assert run.grasping(1) and run.hand(1)[1] < below[1] - 0.5
    for _ in range(15):
        run.step(right_hand_position=rate_toward(run.hand(1), (0.0, mechanics.HEAD_DEFAULT_HEIGHT_M, 0.0)), right_grasp=1)
        if run.info["food_eaten"]:
            break
    if kind == "coconut":  # closed: it must be opened first (by a fall from the tree, for example)
        assert run.info["food_eaten"] == 0 and run.grasping(1)
    else:
        assert run.info["food_eaten"] == 1 and run.info["success"] and f"eat_{kind}" in run.info["achievements"]


def test_mouse_and_keyboard_picks_a_hanging_apple_and_eats_it(tmp_path):
    # Its own simulator, closed at the end: while a second Godot window is open on the shared Xvfb
    # display, the module's `env` renders no new frames (its 8x8 window lies fully under the new
    # one, and Godot 3.2 on X11 does not draw a fully obscured window); it resumes when this closes.
    apple = _hanging("apple", "fruit", 0.0, -0.7)
    world_dir = _export(tmp_path, "pick-mk", [apple], [_tree(0.0, -2.2)])
    eye = GROUND_M + mechanics.HEAD_DEFAULT_HEIGHT_M
    pitch = float(np.arctan2(apple.position[1] - eye, 0.7))  # look up straight at it
    turn = mechanics.MAX_HEAD_TURN_SPEED_RAD_PER_S * mechanics.STEP_SECONDS
    mk_env = AvalonEnv(EnvConfig(renderer="GLES2", resolution=RESOLUTION, action_space="mouse_keyboard"))
    try:
        run = Run(mk_env, world_dir)
        for _ in range(3):
            run.step(head_pitch=[pitch / (3 * turn)])
        run.grasp_and_eat_with_mouse_and_keyboard(grasp_steps=8, eat_steps=10)
        assert run.body[1] == pytest.approx(GROUND_M, abs=0.05)
    finally:
        mk_env.close()


# ---- Knocked down ----------------------------------------------------------------------------

def _knock_world(tmp_path, kind):
    """A rock on a table in front of the spawn; a fruit hanging where the rock will be once the
    agent has taken it, backed off 1 m and stepped 2 m right (x = 2.3, z = 0.1); its tree 1.5 m
    to the right of it."""
    rock = tool_entity("rock", "rock", (0.3, GROUND_M + 1.05, -1.0))
    table = box("table", (0.3, GROUND_M + 0.525, -1.2), (0.5, 1.05, 0.5), color=(0.2, 0.3, 0.8))
    return _export(tmp_path, f"knock-{kind}", [rock, table, _hanging(kind, "fruit", 2.3, 0.1)], [_tree(3.8, 0.1)])


def _take_the_rock_under_the_fruit(run):
    run.step(right_hand_position=[0, 0, -0.5], right_grasp=1)
    assert run.grasping(1)
    for _ in range(2):  # back off the table
        run.step(head_position=[0, 0, 1], right_grasp=1)
    for _ in range(4):  # step right, under the fruit, the hand back at rest
        run.step(head_position=[1, 0, 0], right_grasp=1, right_hand_position=rate_toward(run.hand(1), mechanics.RIGHT_HAND_REST_M))
    for _ in range(3):
        run.step(right_grasp=1, right_hand_position=rate_toward(run.hand(1), mechanics.RIGHT_HAND_REST_M))
    assert run.body == pytest.approx((2.0, GROUND_M, 1.0), abs=0.05)


@pytest.mark.parametrize("kind", ["apple", "fig"])
def test_a_rock_thrown_up_at_a_hanging_fruit_knocks_it_down_under_the_tree(env, tmp_path, kind):
    fruit = np.array([2.3, _hanging_centre_y(kind), 0.1])
    run = Run(env, _knock_world(tmp_path, kind))
    intact = is_red if kind == "apple" else is_purple
    _take_the_rock_under_the_fruit(run)
    assert len(_near(_seen(run, intact), fruit, 0.25)) >= 10, "the fruit is not hanging where it was put"
    run.step(jump=1, right_hand_position=[0, 1, 0])  # jump, swing up and let go: the rock flies up
    assert not run.grasping(1) and {"jump", "throw"} <= run.info["achievements"]
    for _ in range(25):  # it falls and settles
        run.step()
    for _ in range(3):  # look down at the ground under it
        run.step(head_rotation=[-0.55, 0, 0])
    ground = np.array([fruit[0], GROUND_M + FOOD_RADIUS_M[kind], fruit[2]])
    red, purple = _seen(run, is_red), _seen(run, is_purple)
    landed = _near(red, ground, 0.8)  # an apple, or a splattered fig
    assert len(landed) >= 10, f"no {kind} on the ground under where it hung"
    assert np.hypot(*(landed.mean(axis=0) - ground)[[0, 2]]) < 0.6  # under the tree: its canopy reaches 3 m
    assert landed[:, 1].max() < GROUND_M + 2 * FOOD_RADIUS_M[kind] + 0.1
    if kind == "fig":  # it fell 2.1 m: it landed at ~6.5 m/s, over the fig's splatter_speed_m_per_s: a red smear, no purple fig
        assert len(_near(purple, ground, 1.0)) == 0
    for _ in range(3):  # look up again: nothing hangs there any more
        run.step(head_rotation=[0.55, 0, 0])
    assert len(_near(_seen(run, is_red), fruit, 0.5)) == 0 and len(_near(_seen(run, is_purple), fruit, 0.5)) == 0


def test_a_coconut_knocked_out_of_its_tree_opens_in_the_fall_and_is_then_eaten(env, tmp_path):
    # Hanging, it is closed (and cannot be eaten: see the picking test); its 2.1 m fall opens it
    # (its row's open_speed_m_per_s), and the agent picks it up from the ground and eats it.
    run = Run(env, _knock_world(tmp_path, "coconut"))
    _take_the_rock_under_the_fruit(run)
    run.step(jump=1, right_hand_position=[0, 1, 0])
    for _ in range(25):
        run.step()
    assert "open_food" in run.info["achievements"]
    for _ in range(3):  # look down for it: the opened coconut shows white flesh
        run.step(head_rotation=[-0.55, 0, 0])
    radius = FOOD_RADIUS_M["coconut"]
    flesh = _seen_at_height(run, is_white, GROUND_M + 0.5 * radius).mean(axis=0)
    assert np.hypot(*(flesh - np.array([2.3, 0.0, 0.1]))[[0, 2]]) < 1.0, "it did not land under where it hung"
    yaw = float(run.info["world_body_yaw"])
    assert abs(yaw) < 1e-6
    on_ground = np.array([flesh[0] - run.body[0], 2 * radius + mechanics.HAND_RADIUS_M, flesh[2] - run.body[2]])
    for _ in range(8):  # crouch: the shoulders sink, so the hand reaches the ground
        run.step(head_position=[0, -1, 0])
    for _ in range(15):
        before = run.hand(1)
        run.step(head_position=[0, -1, 0], right_hand_position=rate_toward(before, on_ground),
                 right_grasp=int(np.linalg.norm(before - on_ground) < 0.05))
        if run.grasping(1):
            break
    assert run.grasping(1)
    for _ in range(15):
        head = run.observation["head_relative_position"]
        run.step(head_position=[0, -1, 0], right_hand_position=rate_toward(run.hand(1), head), right_grasp=1)
        if run.info["food_eaten"]:
            break
    assert run.info["food_eaten"] == 1 and {"open_food", "eat_coconut"} <= run.info["achievements"]


@pytest.mark.parametrize("rate, knocked", [(1.0, True), (0.5, False)])
def test_a_rock_swung_into_a_hanging_fruit_knocks_it_down_only_above_the_documented_speed(env, tmp_path, rate, knocked):
    # Held in the hand and raised into the fruit at 2 m/s (over HANGING_FOOD_KNOCK_SPEED_M_PER_S) or 1 m/s (under).
    assert (rate * mechanics.MAX_HAND_SPEED_M_PER_S >= mechanics.HANGING_FOOD_KNOCK_SPEED_M_PER_S) == knocked
    fruit = np.array([2.3, _hanging_centre_y("apple"), 0.1])
    run = Run(env, _knock_world(tmp_path, "apple"))
    _take_the_rock_under_the_fruit(run)
    for _ in range(int(8 / rate)):  # up until the rock is stopped by the fruit (or knocks it off)
        run.step(right_hand_position=[0, rate, 0], right_grasp=1)
    assert run.grasping(1)
    for _ in range(15):
        run.step(right_hand_position=rate_toward(run.hand(1), mechanics.RIGHT_HAND_REST_M), right_grasp=1)
    hanging = len(_near(_seen(run, is_red), fruit, 0.25)) >= 10
    assert hanging != knocked


# ---- In a generated eat world ----------------------------------------------------------------

def test_the_eat_tasks_hanging_fruit_is_seen_in_its_tree_picked_from_the_ground_and_eaten(env, tmp_path):
    from avalon.tasks import build_world
    from avalon.tasks.kit.geometry import wrap_angle, yaw_towards

    world = build_world("eat", 0.5, 0)
    (apple,) = world.food
    assert apple.kind == "apple" and apple.param("hanging")
    run = Run(env, str(export_world(world, tmp_path / "eat")))
    fruit = np.array(apple.position)
    turn = mechanics.MAX_HEAD_TURN_SPEED_RAD_PER_S * mechanics.STEP_SECONDS
    for _ in range(20):  # face it
        error = wrap_angle(yaw_towards(tuple(run.body[[0, 2]]), tuple(fruit[[0, 2]])) - float(run.info["world_body_yaw"]))
        if abs(error) < 1e-3:
            break
        run.step(head_rotation=[0, float(np.clip(error / turn, -1, 1)), 0])
    for _ in range(10):
        run.step()
    assert len(_near(_seen(run, is_red), fruit, 0.25)) >= 5, "the apple does not hang where the generator put it"

    def fruit_in_body_frame():
        yaw = float(run.info["world_body_yaw"])
        c, s = np.cos(yaw), np.sin(yaw)
        d = fruit - run.body
        return np.array([c * d[0] - s * d[2], d[1], s * d[0] + c * d[2]])

    for _ in range(40):  # walk until it hangs above the right hand's rest pose
        error = fruit_in_body_frame()[[0, 2]] - np.array([mechanics.RIGHT_HAND_REST_M[0], -0.5])
        if np.linalg.norm(error) < 0.03:
            break
        rate = error / (mechanics.MAX_WALK_SPEED_M_PER_S * mechanics.STEP_SECONDS)
        rate = rate / max(1.0, float(np.linalg.norm(rate)))
        run.step(head_position=[rate[0], 0, rate[1]])
    for _ in range(3):
        run.step()
    below = fruit_in_body_frame() - np.array([0.0, FOOD_RADIUS_M["apple"] + mechanics.HAND_RADIUS_M, 0.0])
    for _ in range(12):
        before = run.hand(1)
        run.step(right_hand_position=rate_toward(before, below), right_grasp=int(np.linalg.norm(before - below) < 0.05))
        if run.grasping(1):
            break
    assert run.grasping(1), f"the hand (at {run.hand(1)}) did not take the apple (at {below} + its radius)"
    assert "jump" not in run.info["achievements"] and "climb_2m" not in run.info["achievements"]
    for _ in range(15):
        run.step(right_hand_position=rate_toward(run.hand(1), (0.0, mechanics.HEAD_DEFAULT_HEIGHT_M, 0.0)), right_grasp=1)
        if run.info["food_eaten"]:
            break
    assert run.info["food_eaten"] == 1 and run.info["success"] and "eat_apple" in run.info["achievements"]
