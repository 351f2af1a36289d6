"""``avalon train dreamer``'s path end to end with the real simulator (32 px, tiny networks):
run_training, checkpoints, resume, the final evaluation, and the checkpoint as a policy."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from avalon.agent import load_checkpoint, load_policy
from avalon.agent.common.checkpoint import list_checkpoints
from avalon.app.train import TrainingRun, run_training
from avalon.env.config import EnvConfig
from tests.agent.dreamer.conftest import TINY

pytestmark = [pytest.mark.godot, pytest.mark.slow]

#: 40 rows of the untrained actor's actions before learning, then 10 steps of each of the 2 envs per update.
SMALL = {**TINY, "prefill_steps": 40, "collect_steps": 10, "unroll": 8, "batch_size": 4}


def run(out, total_steps: int, **changes) -> dict:
    return run_training(TrainingRun(
        out_dir=out, algorithm="dreamer", tasks=("eat",), total_steps=total_steps, num_envs=2, seed=3,
        env_config=EnvConfig(renderer="GLES2", resolution=32), config_overrides=SMALL, checkpoint_interval_steps=60,
        eval_time_limits="training", progress=False, **changes,
    ))


def test_dreamer_trains_checkpoints_resumes_and_its_checkpoint_plays(tmp_path):
    out = tmp_path / "run"
    first = run(out, 98, eval_episodes=1)
    # The first collect fills the prefill (2 first rows + 19 steps x 2 envs = 40 rows), then 10 steps x 2 per update.
    assert (first["env_steps"], first["updates"]) == (38 + 3 * 20, 4)
    assert [path.name for path in list_checkpoints(out)] == ["step-000000000078.pt", "step-000000000098.pt"]
    saved = load_checkpoint(first["checkpoint"])
    assert saved["algorithm"] == "dreamer" and saved["resolution"] == 32 and saved["learner_updates"] == 4
    assert {"world_model", "actor", "critic", "slow_critic", "optimizers", "dreamer_config"} <= set(saved)
    assert {int(s["step"]) for s in saved["optimizers"]["model"]["state"].values()} == {4}
    assert first["evaluation"]["per_task"]["eat"]["episodes"] == 1 and first["evaluation"]["error"] is None

    # Resumed: the empty replay is refilled (40 rows, with the actor), then it learns on.
    more = run(out, 150, eval_episodes=0, resume=True)
    assert (more["env_steps"], more["updates"]) == (98 + 38 + 20, 6)
    latest = load_checkpoint(more["checkpoint"])
    assert latest["learner_updates"] == 6 and latest["curriculum"] is not None
    assert {int(s["step"]) for s in latest["optimizers"]["actor"]["state"].values()} == {6}
    assert not torch.equal(latest["world_model"]["rssm.gru.weight_hh"], saved["world_model"]["rssm.gru.weight_hh"])

    # The checkpoint as a recurrent policy: valid actions, a state per env.
    policy = load_policy(more["checkpoint"], seed=0)
    assert policy.recurrent and policy.env_config_overrides() == {"resolution": 32, "action_space": "vr"}
    from avalon.env.spaces import action_space, observation_space

    observations = observation_space(32).sample()
    batch = {key: np.stack([value, value]) for key, value in observations.items()}
    actions = policy.act(batch, envs=[4, 7], is_first=[True, True])
    assert all(action_space("vr").contains({key: value[i] for key, value in actions.items()}) for i in range(2))


def test_a_simulator_killed_during_a_dreamer_run_is_restarted_and_the_run_finishes(tmp_path):
    from tests.processes import kill_one_godot_once_two_run

    killer, killed = kill_one_godot_once_two_run(delay_s=0.3)  # into the prefill or the first updates
    summary = run(tmp_path / "run", 240, eval_episodes=0)
    killer.join()
    assert killed and summary["simulator_crashes"] >= 1
    assert summary["env_steps"] >= 240 and summary["interrupted"] is None
