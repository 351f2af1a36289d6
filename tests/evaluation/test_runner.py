"""The runner with the real simulator: every world played once, by a batched policy or by the
scripted reference agents, reruns after simulators that crash or never start, worlds a policy
cannot play or does not play, and the video."""

import os
import signal

import attr
import pytest
from PIL import Image

from avalon.env.config import EnvConfig
from avalon.evaluation.policies import RandomPolicy
from avalon.evaluation.reference import ReferencePolicy
from avalon.evaluation.results import EvaluationFailed
from avalon.evaluation.runner import check_time_limits, episode_time_limit, evaluate
from avalon.evaluation.worlds import evaluation_worlds
from avalon.tasks import TASKS
from avalon.training.curriculum import training_time_limit_frames
from avalon.training.world_supply import WorldRequest
from tests.processes import godot_that_fails_after, is_alive, our_godot_pids


@pytest.mark.godot
@pytest.mark.slow
def test_a_random_policy_is_evaluated_on_every_world_once_with_a_video(tmp_path):
    requests = evaluation_worlds(["trivial", "eat"], 2, 0.0, 0.1, seed=3)
    result = evaluate(
        RandomPolicy("vr", seed=0), EnvConfig(renderer="GLES2", resolution=32), requests,
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


class KillingPolicy:
    """Random actions; before its action batches number ``kill_at`` (1 = the first step of the
    first episodes) it kills one of the simulators running at the first of them, in pid order,
    with SIGKILL: a crash a known number of steps into an episode."""

    def __init__(self, kill_at: tuple[int, ...]) -> None:
        self.policy = RandomPolicy("vr", seed=0)
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
    assert "simulator restarts: 2" in result.table()


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
def test_the_video_is_rendered_at_the_render_resolution_and_says_which_episode_it_shows(tmp_path):
    requests = evaluation_worlds(["trivial"], 2, seed=3)
    config = EnvConfig(renderer="GLES2", resolution=32, render_resolution=64, time_limit_frames=12)
    result = evaluate(
        RandomPolicy("vr", seed=0), config, requests, num_envs=2, video_path=tmp_path / "episode.gif",
        progress=False, video="first_success",
    )
    assert not any(e.success for e in result.episodes)
    assert result.video_episode == (0, False)
    gif = Image.open(result.video_path)
    assert gif.n_frames == 13 and gif.size == (3 * 128, 3 * 64)  # 64 px pictures (not the 32 px observations), enlarged to >= 192 px


def test_time_limits_are_the_worlds_the_trainings_or_a_number_of_frames():
    request = WorldRequest("eat", 0.5, 1)
    assert episode_time_limit(check_time_limits("world"), request) is None
    assert episode_time_limit(check_time_limits("training"), request) == training_time_limit_frames("eat", 0.5)
    assert episode_time_limit(check_time_limits("200"), request) == 200 == check_time_limits(200)
    for bad in ("soon", 0, -5, True, 1.5):
        with pytest.raises(ValueError, match="time limits|time_limits"):
            check_time_limits(bad)


def test_a_policy_is_refused_in_another_action_space_before_any_simulator_starts():
    with pytest.raises(ValueError, match="acts in the 'mouse_keyboard' action space; the evaluation's configuration has 'vr'"):
        evaluate(ReferencePolicy(), EnvConfig(action_space="vr"), evaluation_worlds(["eat"], 1), progress=False)


def _no_route(world):
    raise ValueError("no way to the food here")


@pytest.mark.godot
def test_the_reference_agents_play_their_tasks_skip_the_others_and_give_up_a_world_without_a_route(monkeypatch):
    # Move's route fails in this test (its spec's reference route raises): that world is given up
    # at once, without reruns; trivial has no reference agent and is skipped.
    monkeypatch.setitem(TASKS, "move", attr.evolve(TASKS["move"], reference_route=_no_route))
    requests = [WorldRequest("eat", 0.0, 3), WorldRequest("trivial", 0.0, 1), WorldRequest("move", 0.0, 2)]
    config = EnvConfig(renderer="GLES2", resolution=32, action_space="mouse_keyboard")
    with pytest.raises(EvaluationFailed) as caught:
        evaluate(ReferencePolicy(), config, requests, num_envs=2, progress=False)
    result = caught.value.result
    assert [(e.task, e.success, e.note, e.attempts) for e in result.episodes] == [("eat", True, "", 1)]
    assert result.skipped == (requests[1],)
    [failed] = result.failed_worlds
    assert (failed.task, failed.attempts, result.restarts) == ("move", 1, 0)
    assert "the policy cannot play this world: ValueError: no way to the food here" in failed.error
