"""What a policy is to an evaluation, the random baseline, and how the runner drives any policy.

A policy is any object with ``act(observations, deterministic) -> actions`` over batched dicts of
arrays (leading dimension: the envs in play): a trained agent (``avalon.agent.load_policy``),
:class:`RandomPolicy` (the benchmark's 0, section 5.4) or the scripted reference agents
(:class:`avalon.evaluation.reference.ReferencePolicy`, the benchmark's 1). A policy may also have:

- ``action_space``: the name of the action space its actions belong to ("vr" or
  "mouse_keyboard"); the runner refuses an env configuration with another one;
- ``recurrent = True``: it keeps a state per env, so ``act`` also takes ``envs`` (each row's env)
  and ``is_first`` (whether the row's episode starts with this observation);
- ``start_episode(env, request, observation, info)``: called in each env at the start of every
  episode (a rerun after a simulator crash included) with the world's ``WorldRequest`` and the
  reset's observation and ``info``; such a policy's ``act`` also takes ``envs`` and ``infos`` (each
  row's latest ``info``), and its ``end_episode(env, observation, info) -> str`` is called when the
  episode ends: what it says is the episode's ``note`` (the scripted agents: where and why they
  stopped);
- ``plays(task) -> bool``: the worlds of a task it does not play are skipped, and said to be.

:func:`episodic` gives every policy the last form, which is the one the runner calls.
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from avalon.env.spaces import RGBD_KEY, action_space
from avalon.errors import check_choice, check_int
from avalon.sim.protocol import ACTION_SPACES
from avalon.training.world_supply import WorldRequest

Batch = dict[str, np.ndarray]


class Policy(Protocol):
    def act(self, observations: Batch, deterministic: bool = False) -> Batch:
        """Batched actions for batched observations (the optional members: the module's doc)."""


class EpisodicPolicy(Protocol):
    """The form of a policy the runner calls (:func:`episodic` makes it of any policy)."""

    def start_episode(self, env: int, request: WorldRequest, observation: Batch, info: Mapping[str, Any]) -> None: ...

    def act(self, observations: Batch, deterministic: bool, *, envs: Sequence[int],
            infos: Sequence[Mapping[str, Any]]) -> Batch: ...

    def end_episode(self, env: int, observation: Batch, info: Mapping[str, Any]) -> str: ...


def episodic(policy: Policy) -> EpisodicPolicy:
    """``policy`` itself when it has ``start_episode``; else a wrapper that gives a recurrent
    policy its ``envs`` and ``is_first`` and a plain one its observations alone."""
    if hasattr(policy, "start_episode"):
        return policy
    return _Batched(policy)


def plays(policy: Policy, task: str) -> bool:
    """Whether ``policy`` plays worlds of ``task`` (every task unless it says otherwise)."""
    decides = getattr(policy, "plays", None)
    return True if decides is None else bool(decides(task))


class _Batched:
    """A policy without episode hooks, as :class:`EpisodicPolicy`."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.recurrent = bool(getattr(policy, "recurrent", False))
        self._first: dict[int, bool] = {}

    def start_episode(self, env: int, request: WorldRequest, observation: Batch, info: Mapping[str, Any]) -> None:
        self._first[env] = True

    def act(self, observations: Batch, deterministic: bool, *, envs: Sequence[int],
            infos: Sequence[Mapping[str, Any]]) -> Batch:
        if not self.recurrent:
            return self.policy.act(observations, deterministic=deterministic)
        is_first = [self._first.get(env, True) for env in envs]
        for env in envs:
            self._first[env] = False
        return self.policy.act(observations, deterministic=deterministic, envs=list(envs), is_first=is_first)

    def end_episode(self, env: int, observation: Batch, info: Mapping[str, Any]) -> str:
        return ""


class RandomPolicy:
    """Uniformly random actions of an action space (the paper's random baseline).

    Each env samples from its own copy of the space, seeded at every episode's start with
    ``(seed + world seed) mod 2**32``: a world's actions do not depend on which env plays it or on
    what the other envs do, a rerun after a crash replays them, and ``seed=0`` plays exactly what
    ``avalon evalset baseline`` plays. ``repeat`` holds each sample for that many steps (sticky
    actions: 1 draws a new one every step)."""

    def __init__(self, action_space: str = "vr", seed: int = 0, repeat: int = 1) -> None:
        self.action_space = check_choice(action_space, "action_space", tuple(ACTION_SPACES))
        self.seed = check_int(seed, "seed", low=0)
        self.repeat = check_int(repeat, "repeat", low=1, unit="steps each sample is held")
        self._spaces: dict[int, Any] = {}
        self._held: dict[int, tuple[dict[str, Any] | None, int]] = {}  # per env: the sample and its steps so far

    def start_episode(self, env: int, request: WorldRequest, observation: Batch, info: Mapping[str, Any]) -> None:
        self._space(env).seed((self.seed + request.seed) % 2**32)
        self._held[env] = (None, 0)

    def act(self, observations: Batch, deterministic: bool = False, *, envs: Sequence[int] | None = None,
            infos: Sequence[Mapping[str, Any]] | None = None) -> Batch:
        """One action per row; without ``envs`` the rows are envs ``0 .. B - 1`` (each env's space
        seeded with ``seed + env`` when it first acts outside an episode)."""
        rows = range(len(observations[RGBD_KEY])) if envs is None else envs
        samples = [self._next(env) for env in rows]
        return {key: np.stack([sample[key] for sample in samples]) for key in samples[0]}

    def end_episode(self, env: int, observation: Batch, info: Mapping[str, Any]) -> str:
        return ""

    def _space(self, env: int):
        if env not in self._spaces:
            self._spaces[env] = action_space(self.action_space)
            self._spaces[env].seed((self.seed + env) % 2**32)
        return self._spaces[env]

    def _next(self, env: int) -> dict[str, Any]:
        sample, steps = self._held.get(env, (None, 0))
        if sample is None or steps % self.repeat == 0:
            sample = self._space(env).sample()
        self._held[env] = (sample, steps + 1)
        return sample
