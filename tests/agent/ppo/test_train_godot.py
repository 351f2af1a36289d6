"""A few hundred steps of PPO on the real simulator: checkpoints, resume, logs, and the policy."""

import gymnasium
import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from avalon import AvalonEnv, EnvConfig
from avalon.agent import PPOConfig, load_checkpoint, load_policy, train_ppo
from avalon.agent.common.checkpoint import list_checkpoints
from avalon.datagen.export import export_world
from avalon.tasks.trivial import trivial_world

pytestmark = [pytest.mark.godot, pytest.mark.slow]

RESOLUTION = 32
EPISODE_FRAMES = 40  # short episodes, so a few hundred steps see several end


class RecordingCurriculum:
    """The curriculum interface the trainer relies on, with a state that changes as it is used.

    The real curriculum belongs to the env side; this one only lets the test check that the
    trainer logs ``difficulties()``, saves ``state_dict()`` and restores it on resume.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.loaded = None

    def difficulties(self) -> dict[str, float]:
        self.calls += 1
        return {"trivial": 0.01 * self.calls}

    def state_dict(self) -> dict:
        return {"calls": self.calls, "difficulties": {"trivial": 0.01 * self.calls}}

    def load_state_dict(self, state: dict) -> None:
        self.loaded = state
        self.calls = state["calls"]


@pytest.fixture(scope="module")
def envs(tmp_path_factory):
    world = export_world(trivial_world(time_limit_frames=EPISODE_FRAMES), tmp_path_factory.mktemp("worlds") / "short")

    def make():
        return AvalonEnv(EnvConfig(renderer="GLES2", resolution=RESOLUTION, world_dir=str(world)))

    vector = gymnasium.vector.SyncVectorEnv([make, make], autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    yield vector
    vector.close()


def same_tensors(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[key], b[key]) for key in a)


def test_train_checkpoint_resume_and_act(envs, tmp_path):
    config = PPOConfig(unroll_steps=25)  # 2 envs x 25 steps = 50 transitions per update
    out = tmp_path / "run"
    curriculum = RecordingCurriculum()
    first = train_ppo(envs, out, 200, config, curriculum=curriculum, checkpoint_interval_steps=100, progress=False, seed=1)
    assert (first.env_steps, first.updates) == (200, 4)
    # 2 envs x 100 steps in 40-frame episodes: 2 truncations each.
    assert first.episodes == 4 and first.recent_success_rate == 0.0
    assert [path.name for path in list_checkpoints(out)] == ["step-000000000100.pt", "step-000000000200.pt"]
    assert first.final_checkpoint == list_checkpoints(out)[-1]
    saved = load_checkpoint(first.final_checkpoint)
    assert saved["action_space"] == "vr" and saved["resolution"] == RESOLUTION and saved["episodes"] == 4
    assert saved["curriculum"] == curriculum.state_dict()
    assert {int(state["step"]) for state in saved["optimizer"]["state"].values()} == {4 * config.epochs}
    with pytest.raises(ValueError, match="already holds checkpoints"):
        train_ppo(envs, out, 300, config, progress=False)

    # Resuming at the step count already reached trains nothing and saves the very same state.
    resumed_curriculum = RecordingCurriculum()
    same = train_ppo(envs, out, 200, config, curriculum=resumed_curriculum, resume=True, progress=False, seed=1)
    assert resumed_curriculum.loaded == saved["curriculum"]
    assert (same.env_steps, same.updates) == (200, 4)
    again = load_checkpoint(same.final_checkpoint)
    assert same_tensors(again["model"], saved["model"])
    assert again["optimizer"]["state"].keys() == saved["optimizer"]["state"].keys()
    for key, state in saved["optimizer"]["state"].items():
        assert same_tensors(again["optimizer"]["state"][key], state)

    # Resuming further continues the count, the optimiser and the curriculum.
    more = train_ppo(envs, out, 300, config, curriculum=resumed_curriculum, resume=True, progress=False, seed=1)
    assert (more.env_steps, more.updates, more.episodes) == (300, 6, 6)
    latest = load_checkpoint(more.final_checkpoint)
    assert {int(state["step"]) for state in latest["optimizer"]["state"].values()} == {6 * config.epochs}
    assert not same_tensors(latest["model"], saved["model"])
    assert latest["curriculum"]["calls"] > saved["curriculum"]["calls"]
    assert len(list_checkpoints(out)) == 3  # 100, 200, 300 (keep_checkpoints=3)
    for name in ("steps_per_second", "env_wait_fraction", "act_cpu_ms_per_env_step", "learn_cpu_seconds_per_update"):
        assert np.isfinite(getattr(more, name)) and getattr(more, name) > 0, name

    # TensorBoard has the losses, episode statistics per task, curriculum and throughput.
    tags = set()
    for events in (out / "tensorboard").iterdir():
        accumulator = EventAccumulator(str(events))
        accumulator.Reload()
        tags |= set(accumulator.Tags()["scalars"])
    expected = {
        "train/policy_loss", "train/value_loss", "train/entropy", "train/clip_fraction", "episode/return",
        "episode/length", "episode/success_rate", "task/trivial/success_rate", "task/trivial/difficulty",
        "curriculum/trivial", "perf/steps_per_second", "perf/env_wait_fraction",
    }
    assert expected <= tags, expected - tags

    # The saved policy acts in the env: valid actions, reproducible in deterministic mode.
    policy = load_policy(more.final_checkpoint, seed=0)
    assert same_tensors(policy.model.state_dict(), latest["model"])
    assert (policy.action_space, policy.resolution) == ("vr", RESOLUTION)
    assert policy.env_config_overrides() == {"resolution": RESOLUTION, "action_space": "vr"}
    observations, _ = envs.reset(seed=5)
    deterministic = policy.act(observations, deterministic=True)
    assert all(np.array_equal(deterministic[k], v) for k, v in policy.act(observations, deterministic=True).items())
    for _ in range(3):
        actions = policy.act(observations)
        assert envs.action_space.contains(actions)
        assert actions["jump"].dtype == np.int64 and actions["head_position"].dtype == np.float32
        observations, *_ = envs.step(actions)
