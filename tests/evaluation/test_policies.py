"""What the runner asks of a policy: the random baseline's actions (per env, seeded by the world,
sticky), and plain and recurrent policies seen through the runner's episode hooks."""

import numpy as np
import pytest

from avalon.env.spaces import action_space
from avalon.evaluation.policies import RandomPolicy, episodic, plays
from avalon.training.world_supply import WorldRequest

OBSERVATION = {"rgbd": np.zeros((8, 8, 4), np.uint8)}


def batch(rows: int) -> dict[str, np.ndarray]:
    return {"rgbd": np.zeros((rows, 8, 8, 4), np.uint8)}


def test_the_random_policy_samples_valid_batched_actions():
    space = action_space("mouse_keyboard")
    actions = RandomPolicy("mouse_keyboard", seed=0).act(batch(3))
    assert set(actions) == set(space.spaces)
    for key, values in actions.items():
        assert len(values) == 3 and all(space[key].contains(value) for value in values)


def _episode(policy: RandomPolicy, env: int, world_seed: int, steps: int, others: int = 0) -> list[dict]:
    """``steps`` actions of ``env`` in the world of ``world_seed``, acting beside ``others`` other envs."""
    policy.start_episode(env, WorldRequest("eat", 0.0, world_seed), OBSERVATION, {})
    for other in range(others):
        policy.start_episode(100 + other, WorldRequest("eat", 0.0, other), OBSERVATION, {})
    envs = [env] + [100 + other for other in range(others)]
    rows = [policy.act(batch(len(envs)), envs=envs, infos=[{}] * len(envs)) for _ in range(steps)]
    return [{key: value[0] for key, value in row.items()} for row in rows]


def same(first: list[dict], second: list[dict]) -> bool:
    return all(np.array_equal(a[key], b[key]) for a, b in zip(first, second) for key in a)


def test_a_worlds_random_actions_depend_on_the_world_and_the_seed_alone():
    alone = _episode(RandomPolicy("vr", seed=3), env=0, world_seed=11, steps=5)
    beside_others = _episode(RandomPolicy("vr", seed=3), env=1, world_seed=11, steps=5, others=2)
    assert same(alone, beside_others)
    # The sets' random baseline: the action space seeded with the world's seed (policy seed 0).
    space = action_space("vr")
    space.seed(11 + 3)
    assert same(alone, [space.sample() for _ in range(5)])
    assert not same(alone, _episode(RandomPolicy("vr", seed=3), env=0, world_seed=12, steps=5))
    policy = RandomPolicy("vr", seed=3)
    first = _episode(policy, env=0, world_seed=11, steps=5)
    assert same(first, _episode(policy, env=0, world_seed=11, steps=5))  # a rerun replays them


def test_sticky_actions_hold_each_sample_for_repeat_steps():
    held = _episode(RandomPolicy("vr", seed=0, repeat=3), env=0, world_seed=4, steps=7)
    assert same(held[:3], [held[0]] * 3) and same(held[3:6], [held[3]] * 3) and not same(held[:1], held[3:4])
    space = action_space("vr")
    space.seed(4)
    samples = [space.sample() for _ in range(3)]
    assert same([held[0], held[3], held[6]], samples)
    with pytest.raises(ValueError, match="repeat=0"):
        RandomPolicy("vr", repeat=0)
    with pytest.raises(ValueError, match="action_space='keyboard'"):
        RandomPolicy("keyboard")


class Recording:
    """A recurrent policy that keeps what it was told."""

    recurrent = True

    def __init__(self) -> None:
        self.calls = []

    def act(self, observations, deterministic=False, *, envs, is_first):
        self.calls.append((list(envs), list(is_first)))
        return {"x": np.zeros(len(envs))}


class Plain:
    def act(self, observations, deterministic=False):
        return {"x": np.full(len(observations["rgbd"]), float(deterministic))}


def test_a_recurrent_policy_is_told_which_rows_start_an_episode_and_a_plain_one_gets_observations_alone():
    recording = Recording()
    policy = episodic(recording)
    request = WorldRequest("eat", 0.0, 1)
    policy.start_episode(0, request, OBSERVATION, {})
    policy.start_episode(1, request, OBSERVATION, {})
    policy.act(batch(2), False, envs=[0, 1], infos=[{}, {}])
    policy.act(batch(2), False, envs=[0, 1], infos=[{}, {}])
    policy.start_episode(1, request, OBSERVATION, {})  # env 1's next world (or a rerun)
    policy.act(batch(2), False, envs=[0, 1], infos=[{}, {}])
    assert recording.calls == [([0, 1], [True, True]), ([0, 1], [False, False]), ([0, 1], [False, True])]
    assert policy.end_episode(0, OBSERVATION, {}) == ""
    assert episodic(Plain()).act(batch(2), True, envs=[0, 1], infos=[{}, {}])["x"].tolist() == [1.0, 1.0]
    random = RandomPolicy("vr")
    assert episodic(random) is random
    assert plays(Plain(), "eat") and plays(random, "move")
