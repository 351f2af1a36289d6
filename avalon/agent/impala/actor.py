"""An IMPALA actor: a process that owns simulators and steps them with a copy of the policy.

:class:`UnrollActor` is a plain class; :mod:`avalon.agent.impala.pool` runs each one as a Ray actor.
It builds the same envs as PPO's (``AvalonEnv -> RestartOnCrash -> CurriculumWorlds`` in a
``ThreadedVectorEnv``), so simulator crashes are restarted inside it. Each :meth:`UnrollActor.unroll`
loads the weights and the curriculum's difficulties the driver sends, steps every simulator
``steps`` times from where the last unroll stopped, and returns the unroll as numpy arrays
(uint8 images) with the episodes that ended in it.

The curriculum: the driver's is the truth. The actor's :class:`FollowingCurriculum` starts each
unroll at the driver's difficulties, moves them locally as episodes end (so worlds drawn in the
middle of an unroll follow), and records each (task, success) for the driver to apply to its own.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Any

import attr
import numpy as np
import torch

from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.episodes import EpisodeTracker
from avalon.agent.common.network import ActorCritic
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.impala.config import IMPALAConfig
from avalon.agent.impala.learner import OBSERVATION_KEYS
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.spaces import RGBD_KEY
from avalon.env.vector import ThreadedVectorEnv
from avalon.env.wrappers import RestartOnCrash
from avalon.training.curriculum import Curriculum, CurriculumConfig, training_time_limit_frames
from avalon.training.envs import CurriculumWorlds


class FollowingCurriculum(Curriculum):
    """An actor's copy of the driver's curriculum: :meth:`follow` sets its difficulties, every
    :meth:`update` is also recorded for :meth:`drain` (see the module doc)."""

    def __init__(self, tasks, config: CurriculumConfig | None = None) -> None:
        super().__init__(tasks, config)
        self._outcomes: list[tuple[str, bool]] = []

    def follow(self, difficulties: Mapping[str, float]) -> None:
        self.load_state_dict({"max_difficulty": dict(difficulties)})

    def update(self, task: str, success: bool) -> float:
        self._outcomes.append((task, bool(success)))
        return super().update(task, success)

    def drain(self) -> list[tuple[str, bool]]:
        """The (task, success) of the episodes counted since the last call (crashed ones are not)."""
        outcomes, self._outcomes = self._outcomes, []
        return outcomes


@attr.s(frozen=True, auto_attribs=True)
class ActorSpec:
    """What an actor is built from (all plain, picklable values)."""

    env_config: EnvConfig
    tasks: tuple[str, ...]
    curriculum: CurriculumConfig
    config: IMPALAConfig
    #: Seeds its worlds and its sampling: ``SeedSequence((seed, index, generation, env))``.
    seed: int
    index: int  # which actor (0 .. actors - 1)
    num_envs: int  # simulators it steps
    generation: int = 0  # restarts of this actor so far (a restarted actor draws new worlds)
    #: Each episode's time limit, as :class:`CurriculumWorlds` takes it (None: the world's own).
    time_limit_frames: Callable[[str, float], int] | None = training_time_limit_frames


class UnrollActor:
    """Steps ``spec.num_envs`` simulators with a copy of the policy (see the module doc)."""

    def __init__(self, spec: ActorSpec) -> None:
        torch.set_num_threads(1)  # the simulators need the cores; a batch of a few observations needs no more
        self.spec = spec
        self.curriculum = FollowingCurriculum(spec.tasks, spec.curriculum)
        key = (spec.seed, spec.index, spec.generation)

        def make(env_index: int):
            def build():
                return CurriculumWorlds(
                    RestartOnCrash(AvalonEnv(spec.env_config)), self.curriculum, seed=np.random.SeedSequence(key + (env_index,)),
                    time_limit_frames=spec.time_limit_frames,
                )

            return build

        self.envs = ThreadedVectorEnv([make(i) for i in range(spec.num_envs)])
        self.observation_layout = ObservationLayout.from_space(self.envs.single_observation_space)
        self.action_layout = ActionLayout.from_space(self.envs.single_action_space)
        self.model = ActorCritic(self.observation_layout, self.action_layout, spec.config).eval()
        self.sampler = torch.Generator()
        self.sampler.manual_seed(int(np.random.SeedSequence(key).generate_state(1, np.uint64)[0] >> 1))
        self.tracker = EpisodeTracker(self.envs.num_envs)
        self.observations: dict[str, np.ndarray] | None = None
        self.weights_version = -1

    def pid(self) -> int:
        """This process's id (for the driver's records and for tests that kill it)."""
        return os.getpid()

    def unroll(self, weights: Mapping[str, np.ndarray], version: int, difficulties: Mapping[str, float], steps: int) -> dict[str, Any]:
        """``steps`` steps of every simulator with the policy ``weights`` (numpy state dict, the
        driver's update ``version``) and the curriculum at ``difficulties``.

        Returns arrays ``rgbd``/``proprio`` ``(steps + 1, n, ...)``, ``actions`` ``(steps, n, A)``,
        ``behaviour_log_probs``/``rewards``/``dones`` ``(steps, n)``, the ``episodes`` that ended
        (:class:`EpisodeRecord`), the curriculum ``outcomes`` (task, success), ``version``, and
        the seconds spent stepping the simulators (``env_s``), acting (``act_s``) and in all (``unroll_s``).
        """
        started = time.perf_counter()
        if version != self.weights_version:
            self.model.load_state_dict({name: torch.from_numpy(np.array(value)) for name, value in weights.items()})
            self.weights_version = version
        self.curriculum.follow(difficulties)
        if self.observations is None:
            self.observations, _infos = self.envs.reset()
        n, layout = self.envs.num_envs, self.observation_layout
        observations = {
            RGBD_KEY: np.empty((steps + 1, n) + layout.image_shape, np.uint8),
            "proprio": np.empty((steps + 1, n, layout.proprio_size), np.float32),
        }
        actions = np.empty((steps, n, self.action_layout.action_size), np.float32)
        log_probs, rewards, dones = (np.empty((steps, n), np.float32) for _ in range(3))
        episodes = []
        env_s = act_s = 0.0
        for t in range(steps + 1):
            tick = time.perf_counter()
            tensors = layout.to_tensors(self.observations)
            for key in OBSERVATION_KEYS:
                observations[key][t] = tensors[key].numpy()
            if t == steps:  # the observation after the last step: stored to bootstrap from
                break
            with torch.inference_mode():
                distribution, _values = self.model(tensors)
                sampled = distribution.sample(self.sampler)
                log_probs[t] = distribution.log_prob(sampled).numpy()
            actions[t] = sampled.numpy()
            env_actions = self.action_layout.to_env(actions[t])
            tock = time.perf_counter()
            self.observations, step_rewards, terminated, truncated, infos = self.envs.step(env_actions)
            env_s += time.perf_counter() - tock
            act_s += tock - tick
            rewards[t] = step_rewards
            dones[t] = np.logical_or(terminated, truncated)
            episodes += self.tracker.step(step_rewards, dones[t], infos)
        return {
            **observations,
            "actions": actions,
            "behaviour_log_probs": log_probs,
            "rewards": rewards,
            "dones": dones,
            "episodes": episodes,
            "outcomes": self.curriculum.drain(),
            "version": version,
            "env_s": env_s,
            "act_s": act_s,
            "unroll_s": time.perf_counter() - started,
        }

    def counts(self) -> dict[str, float]:
        """Simulator crashes, resets and world waits of this actor's envs so far."""
        envs = self.envs.envs
        return {
            "simulator_crashes": sum(env.env.crashes for env in envs),
            "resets": sum(env.resets for env in envs),
            "world_wait_s_total": sum(env.world_wait_s for env in envs),
            "world_wait_s_max": max(env.max_world_wait_s for env in envs),
        }

    def close(self) -> dict[str, float]:
        """Closes the simulators and world generators; returns the final :meth:`counts`."""
        counts = self.counts()
        self.envs.close()
        return counts
