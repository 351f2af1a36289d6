"""Imported pose tracks replay in the real simulator: a scripted agent's episode is turned into the
head-and-hands pose track a headset would have recorded (:func:`pose_track_from_episode`), written
and read back as a file, converted to ``vr`` actions (:func:`pose_track_actions`) and played in a
fresh ``vr`` simulator on the same world: the episode ends the same way, every proprioceptive
observation matches, and the frames match to within float rounding of the poses.

Why not bit for bit: the observations a track is made from are float32, so the actions recovered
differ from the ones played by about 1e-6 of a rate; the poses then differ by micrometres and a
few pixels on edges may change colour.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.task_routes import walk_route
from avalon.datagen.export import export_world
from avalon.env.spaces import RGBD_KEY, ActionCodec
from avalon.human.pose_actions import pose_track_actions, pose_track_from_episode
from avalon.human.pose_tracks import load_pose_track, write_pose_track

pytestmark = pytest.mark.godot

RESOLUTION = 64
#: Proprioception may differ by float32 rounding of the poses the track is made from.
POSE_TOLERANCE = 1e-4
#: Share of a frame's pixel values that may differ (edges shifted by micrometres).
PIXELS_DIFFERING_AT_MOST = 0.005  # measured: at most 0.12 % over four scripted episodes


@pytest.fixture(scope="module")
def envs():
    made = {space: AvalonEnv(EnvConfig(renderer="GLES2", action_space=space, resolution=RESOLUTION, is_training=False))
            for space in ("mouse_keyboard", "vr")}
    yield made
    for env in made.values():
        env.close()


class Played:
    def __init__(self) -> None:
        self.observations: list[dict[str, np.ndarray]] = []
        self.actions: list[np.ndarray] = []
        self.info: dict = {}
        self.ending = "running"

    def keep(self, observation, info) -> None:
        self.observations.append({key: np.array(value) for key, value in observation.items()})
        self.info = info

    def proprioception(self) -> dict[str, np.ndarray]:
        return {key: np.stack([o[key] for o in self.observations]) for key in self.observations[0] if key != RGBD_KEY}


def play_scripted(env, world, route, options) -> Played:
    played, codec = Played(), ActionCodec("mouse_keyboard")
    agent = RouteFollower(world, route)
    observation, info = env.reset(options=options)
    agent.reset(observation, info)
    played.keep(observation, info)
    while played.ending == "running":
        action = agent.act(observation, info)
        observation, _, terminated, truncated, info = env.step(action)
        played.actions.append(codec.encode(action))
        played.keep(observation, info)
        if terminated or truncated or info["success"]:
            played.ending = "success" if info["success"] else "terminated" if terminated else "truncated"
    return played


def play_actions(env, vectors: np.ndarray, options) -> Played:
    played, codec = Played(), ActionCodec("vr")
    observation, info = env.reset(options=options)
    played.keep(observation, info)
    for vector in vectors:
        observation, _, terminated, truncated, info = env.step(codec.decode(vector))
        played.keep(observation, info)
        if terminated or truncated or info["success"]:
            played.ending = "success" if info["success"] else "terminated" if terminated else "truncated"
            break
    return played


@pytest.mark.parametrize("task, difficulty, seed", [("move", 0.5, 1), ("eat", 0.5, 2)])
def test_a_scripted_episode_imported_as_a_pose_track_replays_in_vr(envs, tmp_path, task, difficulty, seed):
    world, route = walk_route(task, difficulty, seed)
    options = {"world_dir": str(export_world(world, tmp_path / "world")), "episode_seed": 7}
    original = play_scripted(envs["mouse_keyboard"], world, route, options)
    assert original.ending == "success", f"the scripted agent must solve {task} d={difficulty} seed={seed} first"

    track = pose_track_from_episode(original.proprioception(), np.stack(original.actions), "mouse_keyboard")
    track = load_pose_track(write_pose_track(track, tmp_path / "track.jsonl", standing_head_height_m=1.8))
    actions = pose_track_actions(track)
    assert actions.shape == (len(original.actions), 21)

    imported = play_actions(envs["vr"], actions, options)
    assert imported.ending == original.ending and len(imported.observations) == len(original.observations)
    assert imported.info["food_eaten"] == original.info["food_eaten"] == len(world.food)
    assert_same_episode(imported, original)


def assert_same_episode(imported: Played, original: Played) -> None:
    ours, theirs = imported.proprioception(), original.proprioception()
    for key in theirs:
        worst = float(np.abs(ours[key] - theirs[key]).max())
        assert worst <= POSE_TOLERANCE, f"{key} differs by {worst:.2e} at frame {int(np.abs(ours[key] - theirs[key]).max(axis=1).argmax())}"
    for frame, (a, b) in enumerate(zip(imported.observations, original.observations)):
        differing = float(np.mean(a[RGBD_KEY] != b[RGBD_KEY]))
        assert differing <= PIXELS_DIFFERING_AT_MOST, f"frame {frame}: {differing:.1%} of the pixel values differ"


def smooth_vr_actions(steps: int, seed: int) -> np.ndarray:
    """Every continuous part of the ``vr`` space moving (sums of sines), hands opening and closing,
    a few jumps. The hands sweep quickly about their rest (so they stay clear of the ground and
    of Euler angles' gimbal lock at a 90 degree pitch); the body walks and turns slowly."""
    rng = np.random.default_rng(seed)
    #                 head xyz         head pyr          each hand's xyz and pyr
    amplitude = np.r_[0.8, 0.3, 0.8, 0.5, 0.8, 0.5, [0.5] * 3, [0.3] * 3, [0.5] * 3, [0.3] * 3]
    frequency = np.r_[rng.uniform(0.05, 0.15, 6), rng.uniform(0.25, 0.45, 12)]
    t = np.arange(steps)[:, None]
    actions = np.zeros((steps, 21), np.float32)
    actions[:, :18] = amplitude * np.sin(t * frequency + rng.uniform(0, 2 * np.pi, 18))
    actions[:, 18] = (t[:, 0] // 7) % 2
    actions[:, 19] = (t[:, 0] // 11) % 2
    actions[::13, 20] = 1
    return actions


def test_a_vr_episode_moving_every_part_imported_as_a_pose_track_replays(envs, tmp_path):
    world, _ = walk_route("move", 0.0, 3)
    options = {"world_dir": str(export_world(world, tmp_path / "world")), "episode_seed": 3}
    original = play_actions(envs["vr"], smooth_vr_actions(60, seed=5), options)
    vectors = np.stack([ActionCodec("vr").encode(ActionCodec("vr").decode(v)) for v in smooth_vr_actions(60, seed=5)])
    track = pose_track_from_episode(original.proprioception(), vectors[: len(original.observations) - 1], "vr")
    actions = pose_track_actions(load_pose_track(write_pose_track(track, tmp_path / "track.jsonl")))
    imported = play_actions(envs["vr"], actions, options)
    assert len(imported.observations) == len(original.observations)
    assert_same_episode(imported, original)


# ---- avalon human import -----------------------------------------------------------------------


def test_an_imported_episode_lands_in_the_player_folder_and_replays_identically(envs, tmp_path, capsys):
    from avalon.app.main import main
    from avalon.episodes.recording import replay

    world, route = walk_route("eat", 0.5, 2)
    world_dir = export_world(world, tmp_path / "world")
    original = play_scripted(envs["mouse_keyboard"], world, route, {"world_dir": str(world_dir), "episode_seed": 0})
    track = write_pose_track(pose_track_from_episode(original.proprioception(), np.stack(original.actions), "mouse_keyboard"),
                             tmp_path / "track.jsonl")
    root = tmp_path / "vr_data"
    argv = ["human", "import", str(track), "--player", "ana_1", "--world", str(world_dir), "--root", str(root), "--resolution", "32"]
    assert main(argv) == 0
    assert main(argv) == 0  # a second run of the same player and world: a new run folder
    printed = capsys.readouterr().out
    runs = sorted((root / "eat__2__0.5" / "ana_1").iterdir())
    assert [run.name for run in runs] == ["001", "002"] and "success" in printed
    meta = json.loads((runs[0] / "meta.json").read_text())
    assert meta["player"] == "ana_1" and meta["task"] == "eat" and meta["seed"] == 2 and meta["difficulty"] == 0.5
    assert meta["success"] is True and meta["finished"] and meta["restarts"] == 0 and meta["frames"] == len(original.actions)
    assert meta["score"] > 0 and meta["source"]["file"] == str(track)
    assert replay(runs[0] / "episode.npz").identical
    assert not (root / ".importing").exists()


def test_a_bad_track_or_player_id_records_nothing_and_says_why(tmp_path, capsys):
    from avalon.app.main import main

    root = tmp_path / "vr_data"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "avalon-pose-track", "version": 1}\n{"t": 0}\n')
    assert main(["human", "import", str(bad), "--player", "p", "--task", "eat", "--root", str(root)]) == 3
    assert "bad.jsonl, line 2: missing field(s) head, left, right" in capsys.readouterr().err
    assert main(["human", "import", str(bad), "--player", "../p", "--task", "eat", "--root", str(root)]) == 2
    assert "player id '../p' must be 1-64 letters" in capsys.readouterr().err
    assert not root.exists()
