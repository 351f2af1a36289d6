"""Pose tracks: the file format's checks and the conversion to ``vr`` actions (no simulator).

The round trip through the real simulator is in ``test_pose_import_replays.py``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from avalon.human.pose_actions import pose_track_actions, pose_track_from_episode
from avalon.human.pose_tracks import (
    FORMAT_NAME,
    MAX_TRACKED_HAND_SPEED_M_PER_S,
    PoseTrack,
    PoseTrackError,
    load_pose_track,
    write_pose_track,
)
from avalon.rules import mechanics as m
from avalon.sim.protocol import ACTION_SPACES

IDENTITY = [0.0, 0.0, 0.0, 1.0]
_OFFSETS, _START = {}, 0
for _field in ACTION_SPACES["vr"]:
    _OFFSETS[_field.name] = slice(_START, _START + _field.size)
    _START += _field.size


def part(actions: np.ndarray, name: str) -> np.ndarray:
    return actions[:, _OFFSETS[name]]


def _hand(x: float, grip: float = 0.0, stick=(0.0, 0.0), primary: bool = False) -> dict:
    return {"position": [x, 1.2, -0.6], "rotation": IDENTITY, "grip": grip, "trigger": 0.0,
            "stick": list(stick), "primary": primary, "secondary": False}


def sample(t: float, z: float = 0.0, yaw: float = 0.0, height: float = 1.7, **right) -> dict:
    head_rotation = Rotation.from_euler("y", yaw).as_quat().tolist()
    left = _hand(-0.3)
    left["position"][2] += z
    hand = _hand(0.3, **right)
    hand["position"][2] += z
    return {"t": t, "head": {"position": [0.0, height, z], "rotation": head_rotation}, "left": left, "right": hand}


def write(tmp_path, samples, header=None, name="track.jsonl"):
    header = header or {"format": FORMAT_NAME, "version": 1}
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(line) for line in [header, *samples]) + "\n")
    return path


def still(n: int, hz: float = 10.0) -> list[dict]:
    return [sample(i / hz) for i in range(n)]


# ---- the file format ----------------------------------------------------------------------------


def test_a_written_track_loads_back_unchanged(tmp_path):
    samples = [sample(i / 10, z=-0.3 * i, yaw=0.1 * i, grip=float(i % 2), stick=(0.5, -0.25), primary=i == 2)
               for i in range(5)]
    track = load_pose_track(write(tmp_path, samples))
    again = load_pose_track(write_pose_track(track, tmp_path / "again.jsonl"))
    for name in ("times_s", "head_position", "head_rotation", "hand_position", "hand_rotation", "grip", "stick", "primary"):
        np.testing.assert_allclose(getattr(again, name), getattr(track, name), atol=1e-12, err_msg=name)
    assert track.primary[1].tolist() == [False, False, True, False, False]


def test_positions_are_scaled_to_the_agents_height(tmp_path):
    track = load_pose_track(write(tmp_path, still(3), {"format": FORMAT_NAME, "version": 1, "standing_head_height_m": 1.7 * 1.1}))
    assert track.head_position[0, 1] == pytest.approx(1.7 / 1.1)


@pytest.mark.parametrize(
    "change, line, reason",
    [
        (lambda s: s[2].update(t=float("nan")), 4, "t = nan is not a finite number"),
        (lambda s: s[1]["head"].update(position=[0.0, float("inf"), 0.0]), 3, "head.position"),
        (lambda s: s[2]["left"].update(rotation=[0.0, 0.0, 0.5, 1.0]), 4, "left.rotation [0.0, 0.0, 0.5, 1.0] is not a unit quaternion"),
        (lambda s: s[3].update(t=0.05), 5, "does not come after the previous sample's 0.2"),
        (lambda s: s[3].update(t=0.6), 5, "missing frames: 0.400 s since the previous sample"),
        (lambda s: s[2]["right"]["position"].__setitem__(0, 5.0), 4, "the right hand jumps"),
        (lambda s: s[2]["head"]["position"].__setitem__(0, 3.0), 4, "the head jumps 3.00 m in 0.100 s"),
        (lambda s: s[1]["right"].pop("grip"), 3, "right: missing field(s) grip"),
        (lambda s: s[1].pop("left"), 3, "missing field(s) left"),
        (lambda s: s[1]["right"].update(grip=1.5), 3, "right.grip = 1.5 is not a number in [0, 1]"),
        (lambda s: s[1]["left"].update(stick=[0.0, 2.0]), 3, "left.stick = [0.0, 2.0] is outside [-1, 1]"),
        (lambda s: s[1]["left"].update(primary="yes"), 3, "left.primary = 'yes' is not true or false"),
    ],
)
def test_a_bad_sample_is_refused_with_its_line_and_the_reason(tmp_path, change, line, reason):
    samples = still(5)
    change(samples)
    with pytest.raises(PoseTrackError) as error:
        load_pose_track(write(tmp_path, samples))
    assert error.value.line == line and reason in str(error.value), str(error.value)
    assert f"track.jsonl, line {line}: " in str(error.value)


def test_a_bad_header_or_file_is_refused_and_the_next_load_works(tmp_path):
    with pytest.raises(PoseTrackError, match="line 1: the first line must be the header"):
        load_pose_track(write(tmp_path, still(3), {"format": "something-else"}, name="a.jsonl"))
    with pytest.raises(PoseTrackError, match="format version 9 is not supported"):
        load_pose_track(write(tmp_path, still(3), {"format": FORMAT_NAME, "version": 9}, name="b.jsonl"))
    with pytest.raises(PoseTrackError, match="standing_head_height_m 7 is not a height"):
        load_pose_track(write(tmp_path, still(3), {"format": FORMAT_NAME, "version": 1, "standing_head_height_m": 7}, name="c.jsonl"))
    (tmp_path / "d.jsonl").write_text('{"format": "avalon-pose-track", "version": 1}\n{not json\n')
    with pytest.raises(PoseTrackError, match="line 2: is not JSON"):
        load_pose_track(tmp_path / "d.jsonl")
    with pytest.raises(PoseTrackError, match="cannot be read"):
        load_pose_track(tmp_path / "missing.jsonl")
    with pytest.raises(PoseTrackError, match="has 1 sample"):
        load_pose_track(write(tmp_path, still(1), name="e.jsonl"))
    assert load_pose_track(write(tmp_path, still(3), name="f.jsonl")).samples == 3


def test_the_hand_speed_limit_is_a_glitch_limit_far_above_the_agents_own():
    assert MAX_TRACKED_HAND_SPEED_M_PER_S > 10 * m.MAX_HAND_SPEED_M_PER_S


# ---- the conversion ----------------------------------------------------------------------------


def test_a_track_at_90_hz_gives_the_actions_of_the_same_motion_at_10_hz(tmp_path):
    def motion(t):  # walking forward at 2 m/s while turning left at 0.5 rad/s, a grip from 0.45 s on
        return sample(t, z=-2.0 * t, yaw=0.5 * t, grip=1.0 if t >= 0.45 else 0.0, primary=0.42 < t < 0.44)

    slow = load_pose_track(write(tmp_path, [motion(i / 10) for i in range(11)], name="slow.jsonl"))
    fast = load_pose_track(write(tmp_path, [motion(i / 90) for i in range(91)], name="fast.jsonl"))
    a, b = pose_track_actions(slow), pose_track_actions(fast)
    assert a.shape == b.shape == (10, 21)
    np.testing.assert_allclose(part(b, "head_rotation")[:, 1], 0.5 / math.pi, atol=1e-6)  # 0.5 rad/s of pi
    assert part(b, "right_grasp")[:, 0].tolist() == [0] * 4 + [1] * 6  # the grip at each step's end
    assert part(b, "jump")[:, 0].tolist() == [0, 0, 0, 0, 1, 0, 0, 0, 0, 0]  # pressed inside step 4 only
    # A continuous turn while walking: the walk differs between the two sample rates only by the
    # slerp of the heading between samples.
    np.testing.assert_allclose(a[:, :6], b[:, :6], atol=2e-3)


def test_walking_faster_than_the_agent_is_clamped_and_caught_up(tmp_path):
    # 8 m in 1 s: 1.6 times the agent's top speed, then standing still for a second.
    samples = [sample(i / 10, z=-min(8.0, 0.8 * i)) for i in range(21)]
    actions = pose_track_actions(load_pose_track(write(tmp_path, samples)))
    forward = -part(actions, "head_position")[:, 2]
    assert forward.max() <= 1.0 and np.all(forward[:10] == 1.0)
    walked = forward.sum() * m.MAX_WALK_SPEED_M_PER_S * m.STEP_SECONDS
    assert walked == pytest.approx(8.0, abs=1e-6)  # the shortfall is made up once the person stops
    assert forward[-1] == pytest.approx(0.0, abs=1e-9)


def test_the_sticks_walk_and_turn_and_a_crouch_lowers_the_head(tmp_path):
    samples = [sample(i / 10, height=1.7 - min(0.8, 0.1 * i), stick=(1.0, 0.0)) for i in range(11)]
    for record in samples:
        record["left"]["stick"] = [0.0, 1.0]  # left stick forward
    actions = pose_track_actions(load_pose_track(write(tmp_path, samples)))
    np.testing.assert_allclose(part(actions, "head_position")[:, 2], -1.0)  # walk forward at full speed
    np.testing.assert_allclose(part(actions, "head_rotation")[:, 1], -1.0)  # right stick right: turn right
    np.testing.assert_allclose(part(actions, "head_position")[:8, 1], -0.5)  # 0.1 m per step of 0.2
    np.testing.assert_allclose(part(actions, "head_position")[8:, 1], 0.0, atol=1e-9)  # at 0.9 m, the lowest


def test_a_hand_beyond_arms_reach_is_held_at_the_reach():
    frames = 6
    observations = {key: np.zeros((frames + 1, 3), np.float32) for key in (
        "body_delta_position", "body_delta_rotation", "head_relative_rotation",
        "left_hand_relative_rotation", "right_hand_relative_rotation")}
    observations["head_relative_position"] = np.tile(np.float32([0.0, 1.7, 0.0]), (frames + 1, 1))
    observations["left_hand_relative_position"] = np.tile(np.float32(m.LEFT_HAND_REST_M), (frames + 1, 1))
    right = np.tile(np.float32(m.RIGHT_HAND_REST_M), (frames + 1, 1))
    right[1:, 2] = -1.2  # 0.6 m in front of the rest, beyond the arm's reach (z = -0.97 at that height)
    observations["right_hand_relative_position"] = right
    track = pose_track_from_episode(observations, np.zeros((frames, 21), np.float32), "vr")
    rates = part(pose_track_actions(track), "right_hand_position")[:, 2]
    # Unclamped, three steps at 0.2 m would reach the target and the rate would drop to 0; the
    # arm stops at its reach, so the hand keeps reaching toward the target at full rate.
    np.testing.assert_allclose(rates, -1.0)


def test_an_episode_without_matching_rows_or_with_an_unknown_space_is_refused():
    observations = {"body_delta_position": np.zeros((3, 3), np.float32)}
    with pytest.raises(ValueError, match=r"observations\['body_delta_position'\] has 3 rows; 2 expected for 1 actions"):
        pose_track_from_episode(observations, np.zeros((1, 21), np.float32), "vr")
    with pytest.raises(ValueError, match="action_space 'gamepad' is not one of"):
        pose_track_from_episode(observations, np.zeros((2, 21), np.float32), "gamepad")


def test_a_pose_track_is_frozen():
    track = PoseTrack(*(np.zeros(1) for _ in range(10)))
    with pytest.raises(AttributeError):
        track.grip = np.ones(1)
