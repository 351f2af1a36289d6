"""A door in a doorway of static boxes on flat ground, and an agent driven by scripted hand and body
motions in the world frame (the body never turns: yaw 0, facing -z, so the body frame is the world
frame moved to the body). The doorway's opening is 1.4 m wide and 2.5 m high in a 0.3 m wall whose
front face is at z = -1.85; the agent spawns at the origin, in front of it. Where the door's parts
are comes from the door table (``avalon/rules/doors.py``), as ``door.gd`` places them."""

from __future__ import annotations

import math

import numpy as np

from avalon import AvalonEnv, EnvConfig
from avalon.datagen.doors import door_entity
from avalon.rules import doors, mechanics
from tests.game.runs import box, flat_world
from tests.game.world_cache import world_cache

WIDTH_M, HEIGHT_M, WALL_M, DOOR_Z = 1.4, 2.5, 0.3, -2.0
WALL_FRONT_Z = DOOR_Z + WALL_M / 2
#: Beyond this the body has gone through the doorway.
THROUGH_Z = DOOR_Z - 1.0
#: Pushed against a closed door the body stays in front of this.
IN_FRONT_Z = WALL_FRONT_Z + 0.1
WALK_STEP_M = mechanics.MAX_WALK_SPEED_M_PER_S * mechanics.STEP_SECONDS
HAND_STEP_M = mechanics.MAX_HAND_SPEED_M_PER_S * mechanics.STEP_SECONDS


def doorway_world(mechanism: str, latch: str = "none", locks: tuple[str, ...] = (), hinge_side: str = "left",
                  post: tuple[float, float] | None = None):
    """The doorway (two wall pieces and a lintel, static boxes) with the door in it, and a post
    (a static box 0.3 m square) standing at ``post`` (x, z) if given."""
    half = WIDTH_M / 2
    walls = [box("wall_left", (-half - 1.65, 1.75, DOOR_Z), (3.3, 3.5, WALL_M)),
             box("wall_right", (half + 1.65, 1.75, DOOR_Z), (3.3, 3.5, WALL_M)),
             box("lintel", (0.0, HEIGHT_M + 0.5, DOOR_Z), (WIDTH_M, 1.0, WALL_M))]
    door = door_entity("door", (0.0, 0.0, DOOR_Z), 0.0, WIDTH_M, HEIGHT_M, mechanism=mechanism, wall_thickness_m=WALL_M,
                       hinge_side=hinge_side, latch=latch, locks=locks)
    if post is not None:
        walls.append(box("post", (post[0], 1.0, post[1]), (0.3, 2.0, 0.3)))
    return flat_world(walls + [door], time_limit=2000)


def vr_env():
    """A module's simulator (a fixture's body): VR actions, small frames."""
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space="vr", resolution=32))
    yield env
    env.close()


def doorway_worlds(tmp_path_factory):
    """A module's doorway worlds (a fixture's body): ``world(name, mechanism, **door)``."""
    return world_cache(tmp_path_factory.mktemp("doorways"), doorway_world)


# ---------------------------------------------------------------------- where the parts are (hinge on the left)

LEAF_M = WIDTH_M - doors.HINGE_GAP_M - doors.LATCH_GAP_M
HINGE_X = -(WIDTH_M / 2 - doors.HINGE_GAP_M)
FRONT_FACE_Z = DOOR_Z + doors.DOOR_THICKNESS_M / 2  # a closed hinged leaf's front face
LATCH_EDGE_X = HINGE_X + LEAF_M


def hinged_handle(angle_rad: float = 0.0) -> np.ndarray:
    """The front handle of a hinged leaf (hinge on the left) opened ``angle_rad`` toward the front (pulled)."""
    radius = LEAF_M - doors.HANDLE_INSET_M
    out = (doors.DOOR_THICKNESS_M + doors.HANDLE_SIZE_M[2]) / 2
    return np.array([HINGE_X + radius * math.cos(angle_rad) - out * math.sin(angle_rad), doors.HANDLE_HEIGHT_M,
                     DOOR_Z + radius * math.sin(angle_rad) + out * math.cos(angle_rad)])


SLIDING_FRONT_Z = DOOR_Z + WALL_M / 2 + doors.SLIDING_WALL_GAP_M + doors.DOOR_THICKNESS_M  # a sliding leaf's front face


def sliding_handle(offset_m: float = 0.0) -> np.ndarray:
    """The front handle of a sliding leaf (sliding to the left) slid ``offset_m``."""
    x = (WIDTH_M / 2 + doors.SLIDING_OVERLAP_M) - doors.HANDLE_INSET_M - offset_m
    return np.array([x, doors.HANDLE_HEIGHT_M, SLIDING_FRONT_Z + doors.HANDLE_SIZE_M[2] / 2])


def _latch_edge_and_front(mechanism: str) -> tuple[float, float]:
    """The closed leaf's latch edge (x) and front face (z): hinged on the left, or sliding to the left."""
    if mechanism == "sliding":
        return WIDTH_M / 2 + doors.SLIDING_OVERLAP_M, SLIDING_FRONT_Z
    return LATCH_EDGE_X, FRONT_FACE_Z


def bolt_centre(slid_m: float = 0.0, mechanism: str = "hinged_push") -> np.ndarray:
    bolt = doors.LOCKS["bolt"]
    edge, front = _latch_edge_and_front(mechanism)
    x = edge + (bolt.unlocked_from - bolt.size_m[0] / 2) - slid_m
    return np.array([x, bolt.height_m, front + bolt.size_m[2] / 2])


def bar_point(lift_rad: float = 0.0, along_m: float = 0.3, mechanism: str = "hinged_push") -> np.ndarray:
    """A point ``along_m`` from the bar's pivot along it, lifted ``lift_rad``."""
    bar = doors.LOCKS["bar"]
    edge, front = _latch_edge_and_front(mechanism)
    pivot_x = edge - (bar.size_m[0] - doors.BAR_REACH_M)
    return np.array([pivot_x + along_m * math.cos(lift_rad), bar.height_m + along_m * math.sin(lift_rad),
                     front + bar.size_m[2] / 2])


def button_centre() -> np.ndarray:
    button = doors.LOCKS["button"]
    return np.array([WIDTH_M / 2 + doors.BUTTON_SIDE_OFFSET_M, button.height_m, WALL_FRONT_Z + button.size_m[2] / 2])


def mirrored(point, hinge_side: str = "left") -> np.ndarray:
    """``point`` (placed above for a door hinged on, or sliding to, the left) for a door on
    ``hinge_side``: the door is the mirror image."""
    return np.asarray(point, dtype=float) * (side_sign(hinge_side), 1.0, 1.0)


def side_sign(hinge_side: str) -> float:
    return 1.0 if hinge_side == "left" else -1.0


# ---------------------------------------------------------------------- the agent's motions

RIGHT = 1


def _rate(delta, step_m) -> list[float]:
    rate = np.asarray(delta, dtype=float) / step_m
    norm = np.linalg.norm(rate)
    return list(rate / norm if norm > 1 else rate)


def body_xz(run) -> np.ndarray:
    return np.array([run.body[0], run.body[2]])


def drive(run, body_target=None, hand_target=None, grasp=False, steps=1):
    """``steps`` steps walking toward ``body_target`` (x, z) and moving the right hand toward
    ``hand_target`` (a world point), the hand closed when ``grasp``."""
    for _ in range(steps):
        walk = [0.0, 0.0, 0.0]
        body = np.asarray(run.body, dtype=float)
        if body_target is not None:
            delta = np.array([body_target[0] - body[0], 0.0, body_target[1] - body[2]])
            walk = _rate(delta, WALK_STEP_M)
            body = body + np.array(walk) * WALK_STEP_M  # where the body goes first; the hand follows it
        hand = [0.0, 0.0, 0.0]
        if hand_target is not None:
            hand = _rate(np.asarray(hand_target) - body - run.hand(RIGHT), HAND_STEP_M)
        run.step(head_position=walk, right_hand_position=hand, right_grasp=int(grasp))


def grasp_at(run, point, steps=12) -> bool:
    """Reaches the right hand to ``point`` with the hand closed; True once it holds something."""
    for _ in range(steps):
        drive(run, hand_target=point, grasp=True)
        if run.grasping(RIGHT):
            return True
    return False


def release(run, steps=2):
    drive(run, steps=steps)


def walk_forward(run, steps) -> float:
    """Walks straight ahead (-z) with open hands at rest; returns the body's z."""
    for _ in range(steps):
        run.step(head_position=[0.0, 0.0, -1.0])
    return float(run.body[2])


def walk_to(run, x, z, steps=20):
    for _ in range(steps):
        drive(run, body_target=(x, z))
        if np.linalg.norm(body_xz(run) - (x, z)) < 0.05:
            return


def drag_aside(run, steps=11):
    """Drags a sliding leaf (its handle grasped with the right hand) to the left, walking along."""
    start = run.body[0]
    for k in range(1, steps + 1):
        offset = min(1.5, 0.15 * k)
        drive(run, body_target=(start - offset, run.body[2]), hand_target=sliding_handle(offset), grasp=True)


def push_through(run, steps=14):
    """Walks ahead holding the handle (grasped with the right hand), the hand reaching out ahead of
    the body: the door swings open in front of it."""
    ahead = np.array([0.3, 1.1, -0.9])  # body frame
    for _ in range(steps):
        hand = _rate(ahead - run.hand(RIGHT), HAND_STEP_M)
        run.step(head_position=[0.0, 0.0, -1.0], right_hand_position=hand, right_grasp=1)
