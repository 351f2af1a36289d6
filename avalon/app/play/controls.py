"""A person's keys and mouse as ``vr`` actions: the controls of ``avalon play``.

The controls follow what people know from the original's mouse-and-keyboard mode, MiniWorld and
Habitat (the table :data:`CONTROLS`, shown by the help overlay). They write actions of the ``vr``
space, so a person's episode is an ordinary episode that replays and scores like an agent's; the
mapping (``docs/human.md``) is:

- W/S walk forward and back, A/D step left and right (``head_position`` x and z at full rate);
- the mouse turns the body (yaw) and tilts the head (pitch): :attr:`ControlSettings.mouse_radians_per_pixel`
  per pixel of motion, at most one step's turn per step (more is dropped, as a turning head
  would lag);
- Tab held crouches (the head goes down at full rate), released stands up again;
- a mouse button held grasps with that hand (left button, left hand): the hand reaches toward the
  point under the crosshair (the observation's depth at the centre of the frame, at most a step
  beyond arm's reach) and closes; while it holds something it is brought back to carrying height
  in front of the body; released, it opens and returns to rest. The wheel moves the reaching or
  carrying hand farther along the line of sight (up) or nearer (down), in
  :attr:`ControlSettings.reach_step_m` steps;
- E held brings every holding hand to the mouth (food there is eaten);
- T throws: every holding hand swings forward and up at full speed and opens, in one step;
- Space jumps.

R (restart), Esc (quit), C (release the mouse) and F1 (help) belong to the session.
"""

from __future__ import annotations

import math

import attr
import numpy as np
from scipy.spatial.transform import Rotation

from avalon.env.spaces import RGBD_KEY
from avalon.rules import mechanics as m
from avalon.sim.protocol import depth_to_metres

#: (keys, what they do): the help overlay's table.
CONTROLS = (
    ("W A S D", "walk forward, step left, walk back, step right"),
    ("mouse", "look around"),
    ("left / right button", "hold: grasp with that hand at the crosshair"),
    ("mouse wheel", "the grasping hand farther / nearer"),
    ("Space", "jump (from where the feet stand)"),
    ("Tab", "hold: crouch"),
    ("E", "hold: bring held food to the mouth (eat)"),
    ("T", "throw what the hands hold"),
    ("R", "restart this world (counted)"),
    ("C", "release the mouse (click to capture)"),
    ("F1", "show or hide this help"),
    ("Esc", "quit (kept, marked unfinished)"),
)

_STEP = m.STEP_SECONDS
_HAND_STEP_M = m.MAX_HAND_SPEED_M_PER_S * _STEP
_TURN_STEP_RAD = m.MAX_HEAD_TURN_SPEED_RAD_PER_S * _STEP
#: Where a holding hand carries its item: in front of the chest (body frame, per hand).
CARRY_M = (np.array([-0.25, 1.2, -0.55]), np.array([0.25, 1.2, -0.55]))
#: The throw's swing: forward and up at full speed (as the mouse-and-keyboard space's throw).
THROW_DIRECTION = np.array([0.0, 0.5, -1.0]) / math.hypot(0.5, 1.0)


@attr.s(frozen=True, auto_attribs=True)
class ControlSettings:
    #: How far the view turns per pixel of mouse motion, radians.
    mouse_radians_per_pixel: float = 0.004
    #: How far one notch of the wheel moves a grasping hand along the line of sight, metres.
    reach_step_m: float = 0.1
    #: The wheel's offset stays within this, metres either way.
    reach_offset_limit_m: float = 0.6


@attr.s(auto_attribs=True)
class ControlState:
    """What the person is doing between two steps: keys and buttons held, and what happened since
    the last step (mouse motion, wheel notches, presses of jump and throw)."""

    keys: set[str] = attr.Factory(set)  # held: "w", "a", "s", "d", "tab", "e"
    buttons: list[bool] = attr.Factory(lambda: [False, False])  # held: left, right
    mouse_dx: float = 0.0
    mouse_dy: float = 0.0
    wheel: int = 0
    jump: bool = False
    throw: bool = False
    reach_offset_m: float = 0.0

    def end_step(self) -> None:
        """Forgets what belonged to the step just taken (motion, presses); held keys stay held."""
        self.mouse_dx = self.mouse_dy = 0.0
        self.wheel = 0
        self.jump = self.throw = False


def _rate_toward(hand: np.ndarray, target: np.ndarray) -> np.ndarray:
    rate = (target - hand) / _HAND_STEP_M
    length = float(np.linalg.norm(rate))
    return rate / length if length > 1.0 else rate


def look_point(observation: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The point under the crosshair and the line of sight, in the body frame: the depth at the
    frame's centre along the camera's axis, at most arm's reach plus a step."""
    head = observation["head_relative_position"].astype(np.float64)
    pitch, _, roll = observation["head_relative_rotation"].astype(np.float64)
    forward = Rotation.from_euler("YXZ", [0.0, pitch, roll]).apply([0.0, 0.0, -1.0])
    rgbd = observation[RGBD_KEY]
    size = rgbd.shape[0]
    centre = rgbd[size // 2 - 1 : size // 2 + 1, size // 2 - 1 : size // 2 + 1, 3]
    distance = min(float(depth_to_metres(centre).min()), m.ARM_REACH_M + 1.0)
    return head + forward * distance, forward


def vr_action(state: ControlState, observation: dict[str, np.ndarray], settings: ControlSettings = ControlSettings()) -> dict:
    """The ``vr`` action for the next step from the person's ``state`` and the latest observation."""
    keys = state.keys
    walk_x = float(("d" in keys) - ("a" in keys))
    walk_z = float(("s" in keys) - ("w" in keys))
    height = float(observation["head_relative_position"][1])
    target_height = m.HEAD_MIN_HEIGHT_M if "tab" in keys else m.HEAD_DEFAULT_HEIGHT_M
    height_rate = float(np.clip((target_height - height) / (m.MAX_HEAD_VERTICAL_SPEED_M_PER_S * _STEP), -1.0, 1.0))
    yaw_rate = float(np.clip(-state.mouse_dx * settings.mouse_radians_per_pixel / _TURN_STEP_RAD, -1.0, 1.0))
    pitch_rate = float(np.clip(-state.mouse_dy * settings.mouse_radians_per_pixel / _TURN_STEP_RAD, -1.0, 1.0))
    limit = settings.reach_offset_limit_m
    state.reach_offset_m = float(np.clip(state.reach_offset_m + state.wheel * settings.reach_step_m, -limit, limit))
    target, forward = look_point(observation)
    action = {
        "head_position": np.array([walk_x, height_rate, walk_z], np.float32),
        "head_rotation": np.array([pitch_rate, yaw_rate, 0.0], np.float32),
        "jump": int(state.jump),
    }
    for i, side in enumerate(("left", "right")):
        hand = observation[f"{side}_hand_relative_position"].astype(np.float64)
        holding = bool(observation[f"{side}_hand_is_grasping"][0] > 0.5)
        grasp = state.buttons[i]
        if holding and state.throw:
            rate, grasp = THROW_DIRECTION, False
        elif holding and grasp and "e" in keys:
            rate = _rate_toward(hand, np.array([0.0, height, 0.0]))
        elif holding and grasp:
            rate = _rate_toward(hand, CARRY_M[i] + forward * state.reach_offset_m)
        elif grasp:
            rate = _rate_toward(hand, target + forward * state.reach_offset_m)
        else:
            rate = _rate_toward(hand, np.array(m.LEFT_HAND_REST_M if i == 0 else m.RIGHT_HAND_REST_M))
        action[f"{side}_hand_position"] = np.asarray(rate, np.float32)
        action[f"{side}_hand_rotation"] = np.zeros(3, np.float32)
        action[f"{side}_grasp"] = int(grasp)
    return action
