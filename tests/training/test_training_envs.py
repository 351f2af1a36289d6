"""Training environments with the real simulator: curriculum worlds, vector stepping, crash
recovery, bad actions, clean-up."""

import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from avalon.env.config import EnvConfig
from avalon.training.curriculum import Curriculum, CurriculumConfig
from avalon.training.envs import make_training_envs
from avalon.training.world_supply import WorldRequest
from tests.training.test_world_supply import alive, wait_gone

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SHORT_LIMIT_FRAMES = 12
CONFIG = EnvConfig(renderer="GLES2", resolution=32)


def short_limit(task: str, difficulty: float) -> int:
    return SHORT_LIMIT_FRAMES


def zero_actions(envs) -> dict:
    actions = envs.action_space.sample()
    return {key: np.zeros_like(value) for key, value in actions.items()}


def godot_pids(envs) -> list[int]:
    return [env.unwrapped.simulator_pid for env in envs.envs]


@pytest.fixture
def eat_envs():
    curriculum = Curriculum(["eat", "move"], CurriculumConfig(step_size=0.1, initial_difficulty=0.5))
    envs = make_training_envs(CONFIG, curriculum, num_envs=2, seed=3, time_limit_frames=short_limit)
    yield envs, curriculum
    envs.close()


def test_episodes_end_with_same_step_autoreset_and_move_the_curriculum(eat_envs):
    envs, curriculum = eat_envs
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    observations, infos = envs.reset(seed=5)
    assert observations["rgbd"].shape == (2, 32, 32, 4) and observations["rgbd"].dtype == np.uint8
    assert observations["energy"].shape == (2, 1)
    first_worlds = [Path(path) for path in infos["world_dir"]]
    assert all(path.is_dir() for path in first_worlds)
    assert all(0.0 <= d <= 0.5 for d in infos["difficulty"]) and set(infos["task"]) <= {"eat", "move"}

    for step in range(1, SHORT_LIMIT_FRAMES + 1):
        observations, rewards, terminated, truncated, infos = envs.step(zero_actions(envs))
        if step < SHORT_LIMIT_FRAMES:
            assert not (terminated | truncated).any()
    # Both episodes reached the time limit in the same step: new episodes started at once.
    assert truncated.all() and not terminated.any()
    final = infos["final_info"]
    assert infos["_final_info"].all()
    assert list(final["episode_length"]) == [SHORT_LIMIT_FRAMES] * 2
    assert np.allclose(final["episode_return"], -1e-4 * SHORT_LIMIT_FRAMES, atol=1e-5)  # frame penalty only
    assert not final["success"].any()
    # Two failures at d_t = 0.5 with H_t = 0.1: each task that was played fell by 0.1 per episode.
    played = list(final["task"])
    for task in ("eat", "move"):
        assert curriculum.max_difficulty(task) == pytest.approx(0.5 - 0.1 * played.count(task))
        assert curriculum.counts()[task] == (0, played.count(task))
    assert infos["frame"].tolist() == [0, 0]  # the observations are the new episodes' first frames
    assert infos["final_obs"][0]["rgbd"].shape == (32, 32, 4)
    assert not any(path.exists() for path in first_worlds)  # finished worlds are deleted
    assert all(Path(path).is_dir() for path in infos["world_dir"])


def test_the_worlds_follow_the_seed(eat_envs):
    envs, _ = eat_envs
    _, first = envs.reset(seed=11)
    _, again = envs.reset(seed=11)
    assert list(first["seed"]) == list(again["seed"])
    assert list(first["difficulty"]) == list(again["difficulty"])
    _, other = envs.reset(seed=12)
    assert list(other["seed"]) != list(first["seed"])


def test_a_killed_simulator_truncates_its_episode_and_training_goes_on(eat_envs):
    envs, curriculum = eat_envs
    envs.reset(seed=1)
    envs.step(zero_actions(envs))
    before = curriculum.counts()
    victim, other = godot_pids(envs)
    os.kill(victim, signal.SIGKILL)
    observations, rewards, terminated, truncated, infos = envs.step(zero_actions(envs))
    assert truncated.tolist() == [True, False] and rewards[0] == 0.0
    assert infos["final_info"]["simulator_crashed"][0]
    assert infos["_final_info"].tolist() == [True, False]
    assert curriculum.counts() == before  # a crash says nothing about the agent
    # The same step already restarted env 0 in a fresh process; both keep stepping.
    new_victim, same_other = godot_pids(envs)
    assert new_victim != victim and same_other == other and alive(new_victim)
    for _ in range(3):
        observations, rewards, terminated, truncated, infos = envs.step(zero_actions(envs))
    assert observations["rgbd"].shape == (2, 32, 32, 4)
    assert envs.envs[0].env.crashes == 1


def test_a_bad_action_names_the_env_and_the_key_and_moves_nothing(eat_envs):
    envs, _ = eat_envs
    _, infos = envs.reset(seed=2)
    frames = list(infos["frame"])
    actions = zero_actions(envs)
    actions["head_position"][1, 2] = np.nan
    with pytest.raises(ValueError, match="'head_position' of environment 1"):
        envs.step(actions)
    actions = zero_actions(envs)
    actions["left_grasp"] = np.array([0, 3])
    with pytest.raises(ValueError, match="'left_grasp' of environment 1"):
        envs.step(actions)
    actions = zero_actions(envs)
    del actions["jump"]
    with pytest.raises(ValueError, match="missing \\['jump'\\]"):
        envs.step(actions)
    _, _, _, _, infos = envs.step(zero_actions(envs))
    assert list(infos["frame"]) == [frame + 1 for frame in frames]  # nothing moved before


def test_close_leaves_no_simulator_generator_or_world_folder():
    curriculum = Curriculum(["eat"])
    envs = make_training_envs(CONFIG, curriculum, num_envs=2, seed=0, time_limit_frames=short_limit)
    _, infos = envs.reset(seed=0)
    envs.step(zero_actions(envs))
    simulators = godot_pids(envs)
    generators = [env._supply.pid for env in envs.envs]
    folders = [env._supply.directory for env in envs.envs]
    assert all(alive(pid) for pid in simulators + generators)
    envs.close()
    assert all(wait_gone(pid) for pid in simulators + generators)
    assert not any(folder.exists() for folder in folders)


def test_worlds_are_generated_ahead_while_episodes_run(eat_envs):
    envs, _ = eat_envs
    envs.reset(seed=4)
    wrapper = envs.envs[0]
    supply = wrapper._supply
    assert supply.pending == wrapper.worlds_ahead == 2
    ahead = [supply.directory / request.folder_name for request in supply._pending]
    deadline = time.monotonic() + 120
    while not all((folder / "world.json").exists() for folder in ahead) and time.monotonic() < deadline:
        time.sleep(0.1)  # the episode in play is paused: generation does not need it to step
    assert all((folder / "world.json").exists() for folder in ahead)  # ready before any reset asks
    for _ in range(SHORT_LIMIT_FRAMES):
        _, _, _, _, infos = envs.step(zero_actions(envs))
    assert Path(infos["world_dir"][0]) in ahead


def test_world_requests_come_from_the_curriculum():
    curriculum = Curriculum(["eat"], CurriculumConfig(initial_difficulty=0.3))
    envs = make_training_envs(CONFIG, curriculum, num_envs=1, seed=0)
    try:
        wrapper = envs.envs[0]
        requests = [wrapper.next_request() for _ in range(200)]
    finally:
        envs.close()
    assert all(isinstance(r, WorldRequest) and r.task == "eat" and 0 <= r.difficulty <= 0.3 for r in requests)
    assert len({r.seed for r in requests}) == 200


def test_every_simulator_of_a_process_keeps_rendering(eat_envs):
    """Godot stops drawing a window another covers: each simulator's window has its own place."""
    envs, _ = eat_envs
    observations, _ = envs.reset(seed=6)
    turn = zero_actions(envs)
    turn["head_rotation"][:, 1] = 1.0  # both agents turn left at full speed
    previous = observations["rgbd"]
    for _ in range(SHORT_LIMIT_FRAMES - 2):
        observations, *_ = envs.step(turn)
        changed = [not np.array_equal(observations["rgbd"][i], previous[i]) for i in range(2)]
        assert changed == [True, True]
        previous = observations["rgbd"]
