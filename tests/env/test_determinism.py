"""Same world + same actions -> same observation bytes, across fresh processes; record and replay."""

import json

import numpy as np
import pytest

from avalon import AvalonEnv
from avalon.episodes.recording import RecordEpisodes, Recording, observation_digest, replay

pytestmark = pytest.mark.godot


def _episode_digests(world_dir, renderer, seed, count):
    env = AvalonEnv(renderer=renderer, world_dir=str(world_dir))
    try:
        env.action_space.seed(seed)
        actions = [env.action_space.sample() for _ in range(count)]
        observation, _ = env.reset(seed=seed)
        digests = [observation_digest(observation)]
        pid = env.simulator_pid
        for action in actions:
            digests.append(observation_digest(env.step(action)[0]))
        return digests, pid
    finally:
        env.close()


@pytest.mark.parametrize("renderer", ["GLES2", "GLES3"])
def test_same_world_and_actions_give_identical_observations_in_two_fresh_processes(renderer, long_trivial_world_dir):
    first, first_pid = _episode_digests(long_trivial_world_dir, renderer, seed=11, count=60)
    second, second_pid = _episode_digests(long_trivial_world_dir, renderer, seed=11, count=60)
    assert first_pid != second_pid
    assert first == second
    assert len(set(first)) > 50  # the agent really moved: the frames differ from each other
    other, _ = _episode_digests(long_trivial_world_dir, renderer, seed=12, count=60)
    assert other[0] == first[0] and other[1:] != first[1:]  # different actions, different frames


def test_recorded_episode_replays_to_identical_bytes_and_a_tampered_one_does_not(tmp_path):
    env = RecordEpisodes(AvalonEnv(renderer="GLES2", task="trivial"), tmp_path / "episodes")
    env.action_space.seed(4)
    try:
        env.reset(seed=4)
        for _ in range(30):
            env.step(env.action_space.sample())
    finally:
        env.close()  # writes the unfinished episode
    path = env.last_path
    recording = Recording.load(path)
    assert recording.actions.shape == (30, 21) and recording.rgbd_sha256.shape == (31, 32)
    assert recording.meta["episode_seed"] == 4 and recording.meta["world"]["task"] == "trivial"
    assert replay(path).identical  # the world folder is gone; the file carries it

    with np.load(path) as data:
        parts = {key: data[key] for key in data.files}
    parts["actions"] = parts["actions"].copy()
    parts["actions"][10, 2] = -1.0 if parts["actions"][10, 2] != -1.0 else 1.0  # walk differently at step 11
    tampered = tmp_path / "tampered.npz"
    np.savez(tampered, **parts)
    result = replay(tampered)
    assert not result.identical and result.first_mismatch == 11


def test_episode_file_is_documented_numpy(tmp_path):
    env = RecordEpisodes(AvalonEnv(renderer="GLES2", task="trivial"), tmp_path)
    try:
        env.reset(seed=0)
        env.step(env.action_space.sample())
        env.reset(seed=1)  # cutting an episode short writes it
    finally:
        env.close()
    files = sorted(p.name for p in tmp_path.glob("*.npz"))
    assert files == ["episode-00000.npz", "episode-00001.npz"]
    with np.load(tmp_path / files[0]) as data:
        observed = {"observation/" + key for key in env.observation_space if key != "rgbd"}
        assert set(data.files) == {"meta", "actions", "rewards", "rgbd_sha256", "world_tar"} | observed
        assert data["observation/energy"].shape == (2, 1) and data["observation/energy"].dtype == np.float32
        meta = json.loads(str(data["meta"]))
    assert {
        "format_version", "protocol_version", "action_space", "resolution", "renderer", "is_training",
        "movement_coefficient", "time_limit_frames", "episode_seed", "frames", "ending", "world",
    } <= set(meta)
