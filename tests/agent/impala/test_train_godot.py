"""IMPALA on Ray actors driving the real simulator: a run through ``train_impala`` in which an
actor process is killed, then ``run_training`` resuming it with the final evaluation.

Lean on purpose: 2 actors x 1 simulator at 32 px, unrolls of 20 steps; in the first run
episodes of 30 frames, so that several end.
"""

import os
import signal
import threading
import time

import pytest

from avalon.agent import load_checkpoint, load_policy
from avalon.agent.common.checkpoint import list_checkpoints
from avalon.agent.impala.config import IMPALAConfig
from avalon.agent.impala.pool import make_actor_pool
from avalon.agent.impala.trainer import train_impala
from avalon.app.train import TrainingRun, run_training
from avalon.env.config import EnvConfig
from avalon.training.curriculum import Curriculum, CurriculumConfig

# One local Ray at a time: the Ray tests share a pytest-xdist worker.
pytestmark = [pytest.mark.godot, pytest.mark.slow, pytest.mark.xdist_group("ray")]

ENV_CONFIG = EnvConfig(renderer="GLES2", resolution=32)
CONFIG = IMPALAConfig(unroll_steps=20, envs_per_actor=1)  # two actors
EPISODE_FRAMES = 30


def short_episodes(task: str, difficulty: float) -> int:
    return EPISODE_FRAMES


def kill_actor_after_its_first_unroll(pool, killed: list) -> None:
    """SIGKILLs actor 0's process once the driver holds an unroll (the actors are running)."""
    deadline = time.monotonic() + 120
    while pool.unrolls_received < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    pid = pool.actor_pid(0)
    os.kill(pid, signal.SIGKILL)
    killed.append(pid)


def test_impala_survives_a_killed_actor_then_resumes_and_evaluates(tmp_path):
    import ray

    out = tmp_path / "run"
    curriculum = Curriculum(("eat",), CurriculumConfig(step_size=5e-3))
    pool = make_actor_pool(ENV_CONFIG, curriculum, 2, seed=3, config=CONFIG, time_limit_frames=short_episodes)
    killed: list[int] = []
    killer = threading.Thread(target=kill_actor_after_its_first_unroll, args=(pool, killed), daemon=True)
    killer.start()
    try:
        result = train_impala(pool, out, 160, CONFIG, curriculum=curriculum, seed=3, progress=False, checkpoint_interval_steps=80)
    finally:
        pool.close()
    killer.join(timeout=10)
    assert len(killed) == 1 and pool.restarts == 1  # the dead actor's unroll was dropped, a new actor took its place
    assert (result.env_steps, result.updates) == (160, 4)  # 2 unrolls of 20 steps per update
    assert not ray.is_initialized()  # the Ray the pool started is shut down
    assert [path.name for path in list_checkpoints(out)] == [f"step-{steps:012d}.pt" for steps in (80, 160)]
    saved = load_checkpoint(result.final_checkpoint)
    assert (saved["algorithm"], saved["impala_config"]["unroll_steps"], saved["updates"]) == ("impala", 20, 4)
    # Episodes ended in the actors (80 steps of each simulator, 30-frame episodes; the killed
    # actor's unroll in progress is lost); the driver's curriculum heard of each, and saved it.
    successes, failures = curriculum.counts()["eat"]
    assert result.episodes >= 2 and successes + failures == result.episodes
    assert saved["curriculum"] == curriculum.state_dict()

    # run_training builds the actors itself, resumes, and evaluates the final checkpoint.
    run = TrainingRun(
        out_dir=out, algorithm="impala", total_steps=240, num_envs=2, resume=True, seed=3, env_config=ENV_CONFIG,
        curriculum=CurriculumConfig(step_size=5e-3), config_overrides={"unroll_steps": 20, "envs_per_actor": 1}, eval_episodes=1,
        eval_max_difficulty=0.0, eval_time_limits="training", video_resolution=None, progress=False,
    )
    summary = run_training(run)
    assert (summary["env_steps"], summary["updates"]) == (240, 6)
    assert summary["actor_restarts"] == 0 and summary["simulator_crashes"] == 0 and summary["resets"] >= 2
    # The resumed curriculum went on from the checkpoint's counts.
    assert all(now >= before for now, before in zip(summary["curriculum_counts"]["eat"], (successes, failures)))
    assert summary["episodes"] >= result.episodes
    assert summary["evaluation"]["per_task"]["eat"]["episodes"] == 1 and summary["evaluation"]["error"] is None
    policy = load_policy(summary["checkpoint"], seed=0)
    assert policy.algorithm == "impala" and policy.env_steps == 240 and policy.env_config_overrides()["resolution"] == 32
    assert not ray.is_initialized()
