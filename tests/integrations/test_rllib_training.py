"""RLlib's PPO and APPO train on the real simulator through :mod:`avalon.integrations.rllib`, on a
local Ray the test starts, and leave no process behind."""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import pytest
import ray
from ray.rllib.algorithms.appo import APPOConfig
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, LEARNER_RESULTS, NUM_ENV_STEPS_SAMPLED

from avalon.agent.common.config import NetworkConfig
from avalon.integrations.rllib import avalon_module_spec, build_algo, check_resources, register

from ..processes import is_alive, process_environment, tagged_processes

# One local Ray at a time: the Ray tests share a pytest-xdist worker.
pytestmark = pytest.mark.xdist_group("ray")

TINY = NetworkConfig(conv_layers=((8, 4, 4),), image_features=16, proprio_features=16, proprio_layers=1, hidden_features=16)


@pytest.fixture
def tagged_ray(monkeypatch, request):
    """A local Ray of 2 CPUs whose processes, and everything they start, carry a tag in their
    environment; after the test, none of them may be left."""
    tag = f"avalon-rllib-test-{uuid.uuid4().hex}"
    # Short: Ray puts its session (and Unix sockets, at most 107 bytes) in the temporary folder.
    scratch = Path(tempfile.mkdtemp(prefix="avr-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(scratch, ignore_errors=True))
    monkeypatch.setenv("AVALON_RAY_TEST_TAG", tag)
    monkeypatch.setenv("TMPDIR", str(scratch))
    assert not ray.is_initialized()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    request.addfinalizer(ray.shutdown)
    return tag


def _assert_all_ended(tag: str, pids: list[int]) -> None:
    deadline = time.monotonic() + 60.0
    while tagged_processes(tag) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert tagged_processes(tag) == {}
    assert [pid for pid in pids if is_alive(pid)] == []


def _probe(runner) -> dict:
    """What an env runner's env is running: its process, Godot and Xvfb, and its episode."""
    from avalon.sim.display import shared_xvfb_pid

    env = runner.env.unwrapped.envs[0].unwrapped
    return {
        "pid": os.getpid(),
        "godot": env.simulator_pid,
        "xvfb": shared_xvfb_pid(),
        "episode_seed": env.episode_seed,
        "task": env.world.task,
        "encoder": type(runner.module.encoder.encoder).__name__,
    }


def _display_and_port(godot_pid: int) -> tuple[str, str]:
    """The X display a running Godot draws on and the loopback port it connected to."""
    environment = process_environment(godot_pid)
    return environment["DISPLAY"], environment["AVALON_PORT"]


def _learner_loss(result: dict) -> float:
    return result[LEARNER_RESULTS]["default_policy"]["total_loss"]


@pytest.mark.godot
@pytest.mark.slow
def test_rllib_ppo_trains_on_two_env_runners_with_a_simulator_each_and_leaves_no_process(tagged_ray):
    config = (
        PPOConfig()
        .environment(register(), env_config={"tasks": ["eat"], "resolution": 32, "worlds_ahead": 1})
        .env_runners(num_env_runners=2, num_envs_per_env_runner=1, rollout_fragment_length=32)
        .training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)
        .learners(num_learners=0)
        .rl_module(rl_module_spec=avalon_module_spec(TINY))
        .debugging(seed=11)
    )
    algo = build_algo(config)
    try:
        results = [algo.train() for _ in range(2)]
        probes = algo.env_runner_group.foreach_env_runner(_probe, local_env_runner=False)
        sockets = [_display_and_port(probe["godot"]) for probe in probes]
    finally:
        algo.stop()
    ray.shutdown()

    for result in results:
        assert result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED] > 0
        assert math.isfinite(_learner_loss(result))
    assert len(probes) == 2 and all(probe["encoder"] == "AvalonTorchEncoder" and probe["task"] == "eat" for probe in probes)
    # One simulator per env, in its runner's process, on its runner's own Xvfb: no shared display
    # or port, and different worlds.
    assert len({probe["pid"] for probe in probes}) == 2 and all(probe["pid"] != os.getpid() for probe in probes)
    assert len({probe["godot"] for probe in probes}) == 2 and len({probe["xvfb"] for probe in probes}) == 2
    assert len({display for display, _ in sockets}) == 2 and len({port for _, port in sockets}) == 2
    assert len({probe["episode_seed"] for probe in probes}) == 2
    _assert_all_ended(tagged_ray, [pid for probe in probes for pid in (probe["pid"], probe["godot"], probe["xvfb"])])


@pytest.mark.godot
@pytest.mark.slow
def test_rllib_appo_trains_one_iteration_with_the_avalon_module(tagged_ray):
    config = (
        APPOConfig()
        .environment(register(), env_config={"task": "eat", "resolution": 32, "seed": 4})
        .env_runners(num_env_runners=0, rollout_fragment_length=32)  # sampling in this process: cheap
        .training(train_batch_size_per_learner=32)
        .learners(num_learners=0)
        .reporting(min_time_s_per_iteration=0)
        .rl_module(rl_module_spec=avalon_module_spec(TINY))
    )
    algo = build_algo(config)
    try:
        env = algo.env_runner.env.unwrapped.envs[0].unwrapped
        for _ in range(5):  # APPO is asynchronous: an iteration may end before its first update
            result = algo.train()
            if LEARNER_RESULTS in result and "default_policy" in result[LEARNER_RESULTS]:
                break
        godot = env.simulator_pid
    finally:
        algo.stop()
    ray.shutdown()
    assert result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED] > 0
    assert math.isfinite(_learner_loss(result))
    assert godot is not None
    _assert_all_ended(tagged_ray, [godot])


def test_appo_with_its_default_learner_and_two_env_runners_on_two_cpus_is_refused_at_once(tagged_ray):
    """RLlib's own build_algo() would wait forever here for a third CPU; the integration's refuses
    before anything starts, naming the fix (the one the PPO and APPO tests above use)."""
    config = (
        APPOConfig()
        .environment(register(), env_config={"task": "eat", "resolution": 32})
        .env_runners(num_env_runners=2)
        .rl_module(rl_module_spec=avalon_module_spec(TINY))
    )
    started = time.monotonic()
    with pytest.raises(ValueError, match=r"asks Ray for 3 CPU .* and the cluster has 2 CPU.*config.learners\(num_learners=0\)"):
        build_algo(config)
    assert time.monotonic() - started < 30  # refused, not waited on
    assert check_resources(config.learners(num_learners=0)).total("CPU") == 2  # the fix fits this Ray
    ray.shutdown()
    _assert_all_ended(tagged_ray, [])
