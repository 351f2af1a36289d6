"""Ctrl-C (SIGINT) and SIGTERM during real training: the update in progress is finished, a
checkpoint is written at the step count that includes it, and ``resume`` continues from there."""

import signal

import pytest

from avalon.agent import PPOConfig, TrainingInterrupted, load_checkpoint, train_ppo
from avalon.agent.common.checkpoint import latest_checkpoint, list_checkpoints
from avalon.agent.ppo import trainer as trainer_module
from avalon.env.config import EnvConfig
from avalon.training.curriculum import Curriculum
from avalon.training.envs import make_training_envs

pytestmark = [pytest.mark.godot, pytest.mark.slow]

UNROLL = 20  # one env: 20 env steps per update
CONFIG = PPOConfig(unroll_steps=UNROLL)
ADAM_STEPS_PER_UPDATE = CONFIG.epochs * CONFIG.minibatches


class SignalReachedTheTest(Exception):
    """A signal got past the trainer to the handler the test had installed."""


@pytest.fixture
def test_handler():
    """The test's own SIGINT and SIGTERM handler (SIGTERM's default would end pytest), which the
    trainer must put back when it returns; restored to the previous ones afterwards."""

    def reached(signum, frame):
        raise SignalReachedTheTest(signal.Signals(signum).name)

    previous = {signum: signal.signal(signum, reached) for signum in (signal.SIGINT, signal.SIGTERM)}
    yield reached
    for signum, handler in previous.items():
        signal.signal(signum, handler)


@pytest.fixture(scope="module")
def training():
    curriculum = Curriculum(["eat"])
    envs = make_training_envs(EnvConfig(renderer="GLES2", resolution=32), curriculum, 1, seed=0)
    yield envs, curriculum
    envs.close()


def adam_steps(checkpoint: dict) -> set[int]:
    return {int(state["step"]) for state in checkpoint["optimizer"]["state"].values()}


def update_raising(signums: list[int], at_call: int, calls: list[int]):
    """``ppo_update`` that raises ``signums`` (in order) at the start of its call ``at_call``:
    the trainer's handler runs there, before the update's work."""
    real = trainer_module.ppo_update

    def update(*args, **kwargs):
        calls.append(len(calls) + 1)
        if len(calls) == at_call:
            for signum in signums:
                signal.raise_signal(signum)
        return real(*args, **kwargs)

    return update


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_an_update_finishes_it_writes_a_checkpoint_and_resume_continues(
    training, test_handler, monkeypatch, tmp_path, signum
):
    envs, curriculum = training
    calls: list[int] = []
    monkeypatch.setattr(trainer_module, "ppo_update", update_raising([signum], 2, calls))
    out = tmp_path / "run"
    with pytest.raises(TrainingInterrupted) as caught:
        train_ppo(envs, out, 10 * UNROLL, CONFIG, curriculum=curriculum, checkpoint_interval_steps=1000, progress=False)
    stop = caught.value
    assert stop.signum == signum and calls == [1, 2]
    assert (stop.result.env_steps, stop.result.updates) == (2 * UNROLL, 2)
    # The only checkpoint is the one the signal asked for, and it holds the second update.
    assert [path.name for path in list_checkpoints(out)] == [f"step-{2 * UNROLL:012d}.pt"]
    assert stop.result.final_checkpoint == latest_checkpoint(out)
    saved = load_checkpoint(stop.result.final_checkpoint)
    assert (saved["env_steps"], saved["updates"]) == (2 * UNROLL, 2)
    assert adam_steps(saved) == {2 * ADAM_STEPS_PER_UPDATE}
    assert signal.getsignal(signal.SIGINT) is test_handler and signal.getsignal(signal.SIGTERM) is test_handler

    monkeypatch.undo()
    resumed = train_ppo(envs, out, 3 * UNROLL, CONFIG, curriculum=curriculum, resume=True, progress=False)
    assert (resumed.env_steps, resumed.updates) == (3 * UNROLL, 3)
    assert adam_steps(load_checkpoint(resumed.final_checkpoint)) == {3 * ADAM_STEPS_PER_UPDATE}


def test_a_signal_while_collecting_stops_at_the_next_step_and_keeps_the_last_update(
    training, test_handler, monkeypatch, tmp_path
):
    envs, curriculum = training
    real_step = envs.step
    steps: list[int] = []

    def step(actions):
        steps.append(len(steps) + 1)
        if len(steps) == UNROLL + 5:  # 5 steps into the second unroll
            signal.raise_signal(signal.SIGINT)
        return real_step(actions)

    monkeypatch.setattr(envs, "step", step)
    out = tmp_path / "run"
    with pytest.raises(TrainingInterrupted) as caught:
        train_ppo(envs, out, 10 * UNROLL, CONFIG, curriculum=curriculum, checkpoint_interval_steps=1000, progress=False)
    assert len(steps) == UNROLL + 5  # no step after the one the signal came in
    assert (caught.value.result.env_steps, caught.value.result.updates) == (UNROLL, 1)
    assert [path.name for path in list_checkpoints(out)] == [f"step-{UNROLL:012d}.pt"]
    assert adam_steps(load_checkpoint(latest_checkpoint(out))) == {ADAM_STEPS_PER_UPDATE}
    assert signal.getsignal(signal.SIGINT) is test_handler


def test_a_second_signal_aborts_at_once_with_the_handler_from_before(training, test_handler, monkeypatch, tmp_path):
    envs, curriculum = training
    calls: list[int] = []
    monkeypatch.setattr(trainer_module, "ppo_update", update_raising([signal.SIGINT, signal.SIGINT], 2, calls))
    out = tmp_path / "run"
    with pytest.raises(SignalReachedTheTest, match="SIGINT"):
        train_ppo(envs, out, 10 * UNROLL, CONFIG, curriculum=curriculum, checkpoint_interval_steps=UNROLL, progress=False)
    # Aborted inside the second update: the weights match no step count, the first update's checkpoint stands.
    assert [path.name for path in list_checkpoints(out)] == [f"step-{UNROLL:012d}.pt"]
    assert signal.getsignal(signal.SIGINT) is test_handler and signal.getsignal(signal.SIGTERM) is test_handler
