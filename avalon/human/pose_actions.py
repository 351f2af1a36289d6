"""Pose tracks to ``vr`` actions, and episodes to pose tracks.

:func:`pose_track_actions` turns a :class:`~avalon.human.pose_tracks.PoseTrack` into one ``vr``
action per simulator step (``docs/spaces.md``), so that a person's recording from any headset or
motion-capture rig becomes an ordinary episode. The track is sampled at the step boundaries
(``STEP_SECONDS`` apart: positions interpolated linearly, rotations by slerp), and each step's
action drives the agent from where it is toward the track's pose at the end of the step, at most at
the agent's maximum rates (:mod:`avalon.rules.mechanics`), with the simulator's own clamps (head
pitch and roll, head height, arm's reach, hand angles). Because each step aims at the track rather
than at the previous step's aim, a movement faster than the agent can follow is clamped and caught
up, not lost. The mapping, part by part:

- body yaw: the head's yaw, plus the right stick's x as a smooth turn (right turns right);
- head pitch and roll: the head's, relative to its yaw; head height (crouching): the head's height
  above the floor;
- walking: the head's horizontal movement, plus the left stick (forward walks forward);
- hands: each hand's position and rotation relative to the body under the head (the body stands
  on the floor directly below the head and faces the head's yaw);
- grasp: the hand's grip at 0.5 or more; jump: either controller's primary button (A or X)
  pressed at any sample during the step. Triggers and the secondary buttons are kept in the
  track but have no part in the ``vr`` space.

:func:`pose_track_from_episode` does the reverse for a recorded episode (either action space):
the poses the agent's own observations report, the grasp and jump inputs of its actions. What the
simulator did (a hand stopped by a wall, a body held by a hold while climbing) is in the poses, so
an imported track drives the agent along the same poses; it is how the importer is tested.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

from avalon.env.spaces import ActionCodec
from avalon.human.pose_tracks import PoseTrack
from avalon.rules import mechanics as m
from avalon.sim.protocol import ACTION_SPACES

_DT = m.STEP_SECONDS
#: Slack when matching sample times to step boundaries (times in files are rounded decimals).
_TIME_SLACK_S = 1e-6


def _offsets(space: str) -> dict[str, slice]:
    offsets, start = {}, 0
    for field in ACTION_SPACES[space]:
        offsets[field.name] = slice(start, start + field.size)
        start += field.size
    return offsets


def _yaw_rotation(yaw: float) -> Rotation:
    return Rotation.from_euler("y", yaw)


def _pitch_yaw_roll(rotation: Rotation) -> np.ndarray:
    """Godot's ``Basis.get_euler()`` (YXZ order) as (pitch, yaw, roll)."""
    yaw, pitch, roll = rotation.as_euler("YXZ")
    return np.array([pitch, yaw, roll])


def _from_pitch_yaw_roll(angles: np.ndarray) -> Rotation:
    """Godot's ``Basis(Vector3(pitch, yaw, roll))``."""
    return Rotation.from_euler("YXZ", [angles[1], angles[0], angles[2]])


def _wrap(angle: float) -> float:
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


def step_boundaries(times_s: np.ndarray) -> np.ndarray:
    """The step boundaries a track covers: its start, then every ``STEP_SECONDS`` up to its end."""
    steps = int(math.floor((times_s[-1] - times_s[0]) / _DT + _TIME_SLACK_S))
    return times_s[0] + _DT * np.arange(steps + 1)


class _Resampled:
    """The track at step boundaries (poses) and per step (inputs)."""

    def __init__(self, track: PoseTrack) -> None:
        times = track.times_s
        boundaries = np.clip(step_boundaries(times), times[0], times[-1])
        self.steps = len(boundaries) - 1

        def lerp(values: np.ndarray) -> np.ndarray:
            return np.stack([np.interp(boundaries, times, values[:, k]) for k in range(values.shape[1])], axis=1)

        def slerp(quaternions: np.ndarray) -> Rotation:
            return Slerp(times, Rotation.from_quat(quaternions))(boundaries)

        self.head_position = lerp(track.head_position)
        self.head_rotation = slerp(track.head_rotation)
        self.hand_position = [lerp(track.hand_position[h]) for h in range(2)]
        self.hand_rotation = [slerp(track.hand_rotation[h]) for h in range(2)]
        ends = boundaries[1:]
        self.grip = [np.interp(ends, times, track.grip[h]) for h in range(2)]
        self.stick = [lerp(track.stick[h])[1:] for h in range(2)]
        # Which step each sample's button state belongs to: the one whose interval (start, end] holds it.
        step_of_sample = np.searchsorted(ends, times - _TIME_SLACK_S, side="left")
        pressed = track.primary.any(axis=0)
        self.jump = np.zeros(self.steps, bool)
        inside = (step_of_sample < self.steps) & (times > boundaries[0] + _TIME_SLACK_S)
        self.jump[step_of_sample[inside & pressed]] = True


class _AgentModel:
    """What the simulator does with a ``vr`` action when nothing is in the way (``player.gd``)."""

    def __init__(self) -> None:
        self.yaw = 0.0  # tracking-space yaw of the body (without the stick's turns)
        self.pitch = self.roll = 0.0
        self.head_height = m.HEAD_DEFAULT_HEIGHT_M
        self.position = None  # tracking-space horizontal position of the body, set at the first step
        self.hands = [np.array(m.LEFT_HAND_REST_M), np.array(m.RIGHT_HAND_REST_M)]
        self.hand_angles = [np.zeros(3), np.zeros(3)]

    def reach_clamped(self, hand: int, local: np.ndarray) -> np.ndarray:
        shoulder_height = m.SHOULDER_HEIGHT_M - (m.HEAD_DEFAULT_HEIGHT_M - self.head_height)
        shoulder = np.array([m.SHOULDER_HALF_WIDTH_M * (-1.0 if hand == 0 else 1.0), shoulder_height, 0.0])
        reach = local - shoulder
        length = float(np.linalg.norm(reach))
        return shoulder + reach / length * m.ARM_REACH_M if length > m.ARM_REACH_M else local


def _rate(error: np.ndarray | float, per_step: float) -> np.ndarray:
    return np.clip(np.asarray(error, dtype=np.float64) / per_step, -1.0, 1.0)


def pose_track_actions(track: PoseTrack) -> np.ndarray:
    """One flat ``vr`` action per step of ``track`` (float32, ``(steps, 21)``; see the module doc)."""
    samples = _Resampled(track)
    agent = _AgentModel()
    turn_step = m.MAX_HEAD_TURN_SPEED_RAD_PER_S * _DT
    hand_turn_step = m.MAX_HAND_TURN_SPEED_RAD_PER_S * _DT
    actions = []
    for k in range(samples.steps):
        head = _pitch_yaw_roll(samples.head_rotation[k + 1])
        target_yaw = head[1]
        if agent.position is None:  # the body starts under the head, facing its yaw
            start = _pitch_yaw_roll(samples.head_rotation[0])
            agent.yaw, agent.position = start[1], samples.head_position[0][[0, 2]].copy()
        stick_turn = -samples.stick[1][k][0]
        yaw_rate = float(np.clip(_wrap(target_yaw - agent.yaw) / turn_step + stick_turn, -1.0, 1.0))
        agent.yaw = _wrap(agent.yaw + (yaw_rate - stick_turn) * turn_step)
        # Pitch and roll relative to the yaw, within the head's limits.
        relative = _pitch_yaw_roll(_yaw_rotation(target_yaw).inv() * samples.head_rotation[k + 1])
        pitch_target = float(np.clip(relative[0], -m.HEAD_MAX_PITCH_RAD, m.HEAD_MAX_PITCH_RAD))
        roll_target = float(np.clip(relative[2], -m.HEAD_MAX_ROLL_RAD, m.HEAD_MAX_ROLL_RAD))
        pitch_rate = float(_rate(pitch_target - agent.pitch, turn_step))
        roll_rate = float(_rate(roll_target - agent.roll, turn_step))
        agent.pitch = float(np.clip(agent.pitch + pitch_rate * turn_step, -m.HEAD_MAX_PITCH_RAD, m.HEAD_MAX_PITCH_RAD))
        agent.roll = float(np.clip(agent.roll + roll_rate * turn_step, -m.HEAD_MAX_ROLL_RAD, m.HEAD_MAX_ROLL_RAD))
        height_step = m.MAX_HEAD_VERTICAL_SPEED_M_PER_S * _DT
        height_target = float(np.clip(samples.head_position[k + 1][1], m.HEAD_MIN_HEIGHT_M, m.HEAD_MAX_HEIGHT_M))
        height_rate = float(_rate(height_target - agent.head_height, height_step))
        agent.head_height = float(np.clip(agent.head_height + height_rate * height_step, m.HEAD_MIN_HEIGHT_M, m.HEAD_MAX_HEIGHT_M))
        # Walking: the head's horizontal movement in the body frame, plus the left stick.
        walk_step = m.MAX_WALK_SPEED_M_PER_S * _DT
        body_frame = _yaw_rotation(agent.yaw).inv()
        moved = samples.head_position[k + 1][[0, 2]] - agent.position
        local = body_frame.apply([moved[0], 0.0, moved[1]])
        stick = samples.stick[0][k]
        stick_walk = np.array([stick[0], -stick[1]])
        walk = np.clip(np.array([local[0], local[2]]) / walk_step + stick_walk, -1.0, 1.0)
        realised = walk / max(1.0, float(np.linalg.norm(walk)))
        world = _yaw_rotation(agent.yaw).apply([realised[0] - stick_walk[0], 0.0, realised[1] - stick_walk[1]]) * walk_step
        agent.position = agent.position + world[[0, 2]]
        # Hands relative to the body under the head (the track's own body: where the person is).
        body_origin = np.array([samples.head_position[k + 1][0], 0.0, samples.head_position[k + 1][2]])
        hand_rates, hand_turns = [], []
        for h in range(2):
            target = _yaw_rotation(target_yaw).inv().apply(samples.hand_position[h][k + 1] - body_origin)
            rate = _rate(target - agent.hands[h], m.MAX_HAND_SPEED_M_PER_S * _DT)
            agent.hands[h] = agent.reach_clamped(h, agent.hands[h] + rate * m.MAX_HAND_SPEED_M_PER_S * _DT)
            angles = _pitch_yaw_roll(_yaw_rotation(target_yaw).inv() * samples.hand_rotation[h][k + 1])
            angles = np.clip(angles, -m.HAND_MAX_ANGLE_RAD, m.HAND_MAX_ANGLE_RAD)
            turn = _rate(angles - agent.hand_angles[h], hand_turn_step)
            agent.hand_angles[h] = np.clip(agent.hand_angles[h] + turn * hand_turn_step, -m.HAND_MAX_ANGLE_RAD, m.HAND_MAX_ANGLE_RAD)
            hand_rates.append(rate)
            hand_turns.append(turn)
        actions.append(
            {
                "head_position": np.array([walk[0], height_rate, walk[1]], np.float32),
                "head_rotation": np.array([pitch_rate, yaw_rate, roll_rate], np.float32),
                "left_hand_position": hand_rates[0].astype(np.float32),
                "left_hand_rotation": hand_turns[0].astype(np.float32),
                "right_hand_position": hand_rates[1].astype(np.float32),
                "right_hand_rotation": hand_turns[1].astype(np.float32),
                "left_grasp": int(samples.grip[0][k] >= 0.5),
                "right_grasp": int(samples.grip[1][k] >= 0.5),
                "jump": int(samples.jump[k]),
            }
        )
    codec = ActionCodec("vr")
    return np.stack([codec.encode(action) for action in actions]) if actions else np.zeros((0, codec.size), np.float32)


def pose_track_from_episode(observations: Mapping[str, np.ndarray], actions: np.ndarray, action_space: str) -> PoseTrack:
    """The pose track of an episode: ``observations`` maps each proprioceptive key to its
    ``(frames + 1, size)`` values (the reset observation first, as in an episode file) and
    ``actions`` holds the ``(frames, size)`` flat actions of ``action_space``.

    Tracking space: the body's start on the floor at the origin, facing -z. The person walks as the
    agent was told to walk (its actions' walking, at the maximum speed the action asks for), not as
    its body moved: a slope, a wall or a hold changes how far a walk takes the body in the world,
    and it changes it the same way when the imported track is played. Turning, the head's pitch,
    roll and height and the hands are the poses the observations report. Inputs of step ``k``
    (grips, the jump button) are those of sample ``k + 1``; a ``mouse_keyboard`` throw opens the hand.
    """
    if action_space not in ACTION_SPACES:
        raise ValueError(f"action_space {action_space!r} is not one of {sorted(ACTION_SPACES)}")
    offsets = _offsets(action_space)
    frames = actions.shape[0]
    for key, values in observations.items():
        if values.shape[0] != frames + 1:
            raise ValueError(f"observations[{key!r}] has {values.shape[0]} rows; {frames + 1} expected for {frames} actions "
                             "(the reset observation, then one per action)")
    walks = _commanded_walks(actions, action_space, offsets)
    yaw, position = 0.0, np.zeros(3)
    head_p, head_q, hand_p, hand_q = [], [], [[], []], [[], []]
    for i in range(frames + 1):
        if i > 0:
            yaw = _wrap(yaw + float(observations["body_delta_rotation"][i][1]))
            position = position + _yaw_rotation(yaw).apply(walks[i - 1])
        body = _yaw_rotation(yaw)
        head_p.append(position + body.apply(observations["head_relative_position"][i].astype(np.float64)))
        head_q.append((body * _from_pitch_yaw_roll(observations["head_relative_rotation"][i])).as_quat())
        for h, name in enumerate(("left_hand", "right_hand")):
            hand_p[h].append(position + body.apply(observations[f"{name}_relative_position"][i].astype(np.float64)))
            hand_q[h].append((body * _from_pitch_yaw_roll(observations[f"{name}_relative_rotation"][i])).as_quat())
    grip = np.zeros((2, frames + 1))
    primary = np.zeros((2, frames + 1), bool)
    for h, side in enumerate(("left", "right")):
        held = actions[:, offsets[f"{side}_grasp"]][:, 0] >= 0.5
        if f"{side}_throw" in offsets:
            held &= actions[:, offsets[f"{side}_throw"]][:, 0] < 0.5
        grip[h, 1:] = held
    primary[1, 1:] = actions[:, offsets["jump"]][:, 0] >= 0.5
    samples = frames + 1
    return PoseTrack(
        times_s=np.arange(samples) * _DT,
        head_position=np.array(head_p),
        head_rotation=np.array(head_q),
        hand_position=np.array(hand_p),
        hand_rotation=np.array(hand_q),
        grip=grip,
        trigger=np.zeros((2, samples)),
        stick=np.zeros((2, samples, 2)),
        primary=primary,
        secondary=np.zeros((2, samples), bool),
    )


def _commanded_walks(actions: np.ndarray, action_space: str, offsets: dict[str, slice]) -> np.ndarray:
    """Each step's walk in the body frame as the action asks for it, metres: ``(frames, 3)``."""
    if action_space == "vr":
        head = actions[:, offsets["head_position"]].astype(np.float64)
        walk = np.stack([head[:, 0], np.zeros(len(head)), head[:, 2]], axis=1)
        walk /= np.maximum(1.0, np.linalg.norm(walk, axis=1))[:, None]
    else:
        forward = actions[:, offsets["move_forward"]][:, 0].astype(np.float64)
        walk = np.stack([np.zeros_like(forward), np.zeros_like(forward), -forward], axis=1)
    return walk * m.MAX_WALK_SPEED_M_PER_S * _DT
