"""Evaluation on fixed sets of fresh worlds: which worlds, runs with the real simulator, and
simulators that crash or never start during an evaluation."""

import json
import os
import signal

import numpy as np
import pytest
from PIL import Image

from avalon.app.main import main
from avalon.env.config import EnvConfig
from avalon.env.spaces import action_space
from avalon.evaluation.policies import RandomPolicy
from avalon.evaluation.results import EvaluationFailed
from avalon.evaluation.runner import _Video, evaluate
from avalon.evaluation.worlds import evaluation_worlds
from avalon.training.curriculum import training_time_limit_frames
from tests.processes import godot_that_fails_after, is_alive, kill_one_godot_once_two_run, our_godot_pids


def test_evaluation_worlds_have_evenly_spaced_difficulties_and_fixed_seeds():
    requests = evaluation_worlds(["eat", "move"], 5, 0.0, 0.2, seed=0)
    assert [r.task for r in requests] == ["eat"] * 5 + ["move"] * 5
    assert [r.difficulty for r in requests[:5]] == pytest.approx([0.0, 0.05, 0.1, 0.15, 0.2])
    assert requests == evaluation_worlds(["eat", "move"], 5, 0.0, 0.2, seed=0)  # the same worlds every time
    assert len({r.seed for r in requests}) == 10
    other = evaluation_worlds(["eat", "move"], 5, 0.0, 0.2, seed=1)
    assert not {r.seed for r in requests} & {r.seed for r in other}


@pytest.mark.parametrize(
    "args, message",
    [
        ((["eat"], 0), "episodes=0"),
        ((["eat"], 3, 0.5, 0.2), "min_difficulty 0.5 is above max_difficulty 0.2"),
        ((["eat"], 3, 0.0, 1.5), "difficulty 1.5"),
        ((["swim"], 3), "unknown task 'swim'"),
    ],
)
def test_bad_evaluation_settings_are_named(args, message):
    with pytest.raises(ValueError, match=message):
        evaluation_worlds(*args)


def test_the_random_policy_samples_valid_batched_actions():
    space = action_space("mouse_keyboard")
    policy = RandomPolicy(space, seed=0)
    actions = policy.act({"rgbd": np.zeros((3, 8, 8, 4), np.uint8)})
    assert set(actions) == set(space.spaces)
    for key, values in actions.items():
        assert len(values) == 3 and all(space[key].contains(value) for value in values)


@pytest.mark.godot
@pytest.mark.slow
def test_a_random_policy_is_evaluated_on_every_world_once_with_a_video(tmp_path):
    requests = evaluation_worlds(["trivial", "eat"], 2, 0.0, 0.1, seed=3)
    result = evaluate(
        RandomPolicy(action_space("vr"), seed=0), EnvConfig(renderer="GLES2", resolution=32), requests,
        num_envs=2, time_limits="training", video_path=tmp_path / "episode.gif", progress=False,
    )
    assert [(e.task, e.difficulty, e.seed) for e in result.episodes] == [(r.task, r.difficulty, r.seed) for r in requests]
    # Training time limits: 30 s for trivial, 20-40 s for eat; a random agent never finishes early here.
    assert [e.episode_length for e in result.episodes] == [300, 300, 200, 220]
    assert not any(e.success for e in result.episodes) and all(e.score == 0.0 for e in result.episodes)
    per_task = result.per_task()
    assert per_task["eat"]["episodes"] == 2 and per_task["eat"]["success_rate"] == 0.0
    gif = Image.open(result.video_path)
    assert gif.n_frames == 301 and gif.size == (6 * 64, 6 * 32)  # RGB beside depth, enlarged to at least 192 px tall


@pytest.mark.godot
@pytest.mark.slow
def test_eval_command_writes_results_and_refuses_ambiguous_policies(tmp_path, capsys):
    out = tmp_path / "eval"
    code = main([
        "eval", "--policy", "random", "--tasks", "trivial", "--episodes", "1", "--resolution", "32",
        "--time-limits", "training", "--out", str(out),
    ])
    assert code == 0
    printed = capsys.readouterr().out
    assert "trivial" in printed and str(out / "eval.json") in printed
    saved = json.loads((out / "eval.json").read_text())
    assert saved["per_task"]["trivial"]["episodes"] == 1 and (out / "episode.gif").is_file()
    assert main(["eval", "--tasks", "eat"]) == 2
    assert "exactly one of --checkpoint PATH and --policy random" in capsys.readouterr().err


class KillingPolicy:
    """Random actions; before its action batches number ``kill_at`` (1 = the first step of the
    first episodes) it kills one of the simulators running at the first of them, in pid order,
    with SIGKILL: a crash a known number of steps into an episode."""

    def __init__(self, kill_at: tuple[int, ...]) -> None:
        self.policy = RandomPolicy(action_space("vr"), seed=0)
        self.kill_at = kill_at
        self.calls = 0
        self.targets: list[int] = []
        self.killed: list[int] = []

    def act(self, observations, deterministic=False):
        self.calls += 1
        if self.calls in self.kill_at:
            if not self.targets:
                self.targets = our_godot_pids()
                assert len(self.targets) >= len(self.kill_at), self.targets
            pid = self.targets[len(self.killed)]
            assert is_alive(pid), f"simulator {pid} died before it was killed"
            os.kill(pid, signal.SIGKILL)
            self.killed.append(pid)
        return self.policy.act(observations, deterministic)


def assert_full_episodes(episodes):
    """Each episode ran from its world's start: at most the training time limit, all of it
    unless the food was eaten (a rerun that kept counting the crashed run's steps would overrun)."""
    for episode in episodes:
        limit = training_time_limit_frames(episode.task, episode.difficulty)
        assert episode.episode_length <= limit and (episode.success or episode.episode_length == limit), episode


@pytest.mark.godot
@pytest.mark.slow
def test_simulators_killed_mid_episode_are_restarted_and_their_worlds_rerun_from_the_start(tmp_path):
    requests = evaluation_worlds(["eat"], 6, 0.0, 0.1, seed=5)
    # Both first episodes are cut short: one 20 steps in, the other 60 steps in (while the
    # first one's rerun is at step 40 in a fresh simulator).
    policy = KillingPolicy(kill_at=(20, 60))
    result = evaluate(
        policy, EnvConfig(renderer="GLES2", resolution=32), requests, num_envs=2, time_limits="training",
        video_path=tmp_path / "episode.gif", progress=False,
    )
    assert len(policy.killed) == 2
    assert [(e.task, e.difficulty, e.seed) for e in result.episodes] == [(r.task, r.difficulty, r.seed) for r in requests]
    assert result.failed_worlds == ()
    assert result.restarts == 2
    # The two slots' first worlds were each played twice; world 0 is always a slot's first.
    assert sorted(e.attempts for e in result.episodes) == [1, 1, 1, 1, 2, 2]
    assert result.episodes[0].attempts == 2
    assert_full_episodes(result.episodes)
    # The video of world 0 shows its rerun only: its first frame and one per step.
    assert Image.open(result.video_path).n_frames == result.episodes[0].episode_length + 1
    saved = result.to_json()
    assert saved["restarts"] == 2 and [e["attempts"] for e in saved["episodes"]] == [e.attempts for e in result.episodes]
    assert "simulator restarts: 2" in result.table()


@pytest.mark.godot
@pytest.mark.slow
def test_eval_command_survives_a_simulator_killed_during_the_evaluation(tmp_path, capsys):
    # Into start-up or the first episode: a slot plays 3 worlds of 200+ steps.
    killer, killed = kill_one_godot_once_two_run(delay_s=0.2)
    out = tmp_path / "eval"
    code = main([
        "eval", "--policy", "random", "--tasks", "eat", "--episodes", "6", "--envs", "2", "--resolution", "32",
        "--time-limits", "training", "--max-difficulty", "0.1", "--out", str(out), "--no-video",
    ])
    killer.join()
    assert killed and code == 0
    saved = json.loads((out / "eval.json").read_text())
    assert len(saved["episodes"]) == 6 and saved["per_task"]["eat"]["episodes"] == 6
    assert saved["failed_worlds"] == [] and saved["restarts"] >= 1
    printed = capsys.readouterr().out
    assert f"simulator restarts: {saved['restarts']}" in printed


@pytest.mark.godot
@pytest.mark.slow
def test_a_world_whose_simulator_fails_every_attempt_is_reported_with_the_finished_ones(tmp_path, monkeypatch):
    # Two simulators start; after one is killed, no simulator starts again.
    wrapper = godot_that_fails_after(2, tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{wrapper}{os.pathsep}{os.environ['PATH']}")
    requests = evaluation_worlds(["eat"], 3, 0.0, 0.1, seed=5)
    policy = KillingPolicy(kill_at=(20,))
    with pytest.raises(EvaluationFailed) as caught:
        evaluate(policy, EnvConfig(renderer="GLES2", resolution=32), requests, num_envs=2, time_limits="training", progress=False)
    result = caught.value.result
    # The killed slot's worlds fail (one crash, then two refused starts; then three refused
    # starts); the other slot's worlds finish. Nothing is dropped.
    played = [(e.task, e.difficulty, e.seed) for e in result.episodes]
    failed = [(f.task, f.difficulty, f.seed) for f in result.failed_worlds]
    assert sorted(played + failed) == sorted((r.task, r.difficulty, r.seed) for r in requests)
    assert played and failed
    assert all(f.attempts == 3 and "exited during start-up with code 3" in f.error for f in result.failed_worlds)
    assert all(e.attempts == 1 for e in result.episodes)
    assert_full_episodes(result.episodes)
    assert result.restarts == 3 * len(failed)
    message = str(caught.value)
    assert f"{len(failed)} of 3 evaluation worlds failed" in message
    for _task, _difficulty, seed in failed:
        assert f"seed {seed}" in message


@pytest.mark.godot
def test_eval_command_writes_the_failed_worlds_and_exits_non_zero(tmp_path, monkeypatch, capsys):
    wrapper = godot_that_fails_after(0, tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{wrapper}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "eval"
    code = main([
        "eval", "--policy", "random", "--tasks", "eat", "--episodes", "2", "--envs", "1", "--resolution", "32",
        "--time-limits", "training", "--max-difficulty", "0.1", "--out", str(out),
    ])
    assert code == 1
    captured = capsys.readouterr()
    assert "2 of 2 evaluation worlds failed" in captured.err and "exited during start-up with code 3" in captured.err
    assert str(out / "eval.json") in captured.out
    saved = json.loads((out / "eval.json").read_text())
    assert saved["episodes"] == [] and saved["restarts"] == 6
    expected = [(r.task, r.seed) for r in evaluation_worlds(["eat"], 2, 0.0, 0.1, seed=0)]
    assert [(f["task"], f["seed"]) for f in saved["failed_worlds"]] == expected
    assert all(f["attempts"] == 3 and "code 3" in f["error"] for f in saved["failed_worlds"])
    assert "2 of 2 evaluation worlds failed" in saved["error"]


def test_the_video_is_the_first_success_else_the_first_worlds_episode():
    frames = {index: [np.full((4, 4, 4), index, np.uint8)] for index in range(4)}
    first = _Video("first")
    assert first.wants(0) and not first.wants(2)
    first.offer(0, False, frames[0])
    assert first.chosen() == (frames[0], (0, False))

    video = _Video("first_success")
    assert video.chosen() is None
    assert video.wants(0) and video.wants(3)
    video.offer(3, False, frames[3])  # a failure is not kept unless it is the first world's
    video.offer(0, False, frames[0])
    assert video.chosen() == (frames[0], (0, False))
    video.offer(2, True, frames[2])
    assert video.chosen() == (frames[2], (2, True))
    assert video.wants(0) and not video.wants(1)  # nothing else is recorded once a success is kept
    video.offer(1, True, frames[1])
    assert video.chosen()[1] == (2, True)


@pytest.mark.godot
def test_the_video_is_rendered_at_the_render_resolution_and_says_which_episode_it_shows(tmp_path):
    requests = evaluation_worlds(["trivial"], 2, seed=3)
    config = EnvConfig(renderer="GLES2", resolution=32, render_resolution=64, time_limit_frames=12)
    result = evaluate(
        RandomPolicy(action_space("vr"), seed=0), config, requests, num_envs=2, video_path=tmp_path / "episode.gif",
        progress=False, video="first_success",
    )
    assert not any(e.success for e in result.episodes)
    assert result.video_episode == (0, False) and result.to_json()["video_episode"] == {"world": 0, "success": False}
    gif = Image.open(result.video_path)
    assert gif.n_frames == 13 and gif.size == (3 * 128, 3 * 64)  # 64 px pictures (not the 32 px observations), enlarged to >= 192 px


def test_the_hardest_success_is_the_success_in_the_latest_world():
    frames = {index: [np.full((4, 4, 4), index, np.uint8)] for index in range(5)}
    video = _Video("hardest_success")
    video.offer(0, False, frames[0])
    assert video.chosen() == (frames[0], (0, False))
    video.offer(3, True, frames[3])
    video.offer(1, True, frames[1])  # finished later, but an easier world
    video.offer(4, False, frames[4])
    assert video.chosen() == (frames[3], (3, True))
    assert video.wants(4) and not video.wants(2)  # only later worlds can still replace it
