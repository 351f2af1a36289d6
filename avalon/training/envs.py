"""Training environments: worlds from the curriculum, generated ahead, stepped in parallel.

:func:`make_training_envs` builds what a trainer steps: a :class:`~avalon.env.vector.ThreadedVectorEnv`
of ``num_envs`` environments, each one

    AvalonEnv  ->  RestartOnCrash  ->  CurriculumWorlds

:class:`CurriculumWorlds` picks every episode's world: a task (uniformly among the training tasks),
a difficulty from ``U[0, d_t]`` of the shared :class:`~avalon.training.curriculum.Curriculum` and a
fresh seed; a :class:`~avalon.training.world_supply.WorldSupply` generates it ahead of time in a
background process. When the episode ends the curriculum hears whether it succeeded (a crashed
simulator's episode is not counted), the world folder is deleted, and the final ``info`` carries
``episode_return``, ``episode_length``, ``max_difficulty`` (``d_t`` after the update) and
``world_wait_s`` (how long the reset waited for its world; 0 in steady state).
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Sequence

import gymnasium as gym
import numpy as np

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.vector import ThreadedVectorEnv
from avalon.env.wrappers import RestartOnCrash
from avalon.errors import check_int
from avalon.training.curriculum import Curriculum, training_time_limit_frames
from avalon.training.world_supply import SuppliedWorld, WorldRequest, WorldSupply

log = logging.getLogger(__name__)

#: Worlds requested ahead of the one in play, per environment.
DEFAULT_WORLDS_AHEAD = 2
#: Consecutive failed generations tolerated before the error is raised.
MAX_GENERATION_FAILURES = 8


class CurriculumWorlds(gym.Wrapper):
    """Gives every episode a freshly generated world chosen by the curriculum (see module doc).

    ``seed`` seeds the choice of tasks, difficulties and world seeds; ``reset(seed=s)`` reseeds
    it (worlds already requested are dropped). ``time_limit_frames(task, difficulty)`` gives each
    episode's time limit (default: :func:`~avalon.training.curriculum.training_time_limit_frames`);
    ``None`` keeps the world's own (evaluation) limit.
    """

    def __init__(
        self,
        env: gym.Env,
        curriculum: Curriculum,
        tasks: Sequence[str] | None = None,
        seed: int | np.random.SeedSequence | None = None,
        worlds_ahead: int = DEFAULT_WORLDS_AHEAD,
        time_limit_frames: Callable[[str, float], int] | None = training_time_limit_frames,
        supply: WorldSupply | None = None,
    ) -> None:
        super().__init__(env)
        worlds_ahead = check_int(worlds_ahead, "worlds_ahead", low=1)
        self.curriculum = curriculum
        self.tasks = tuple(tasks) if tasks is not None else curriculum.tasks
        unknown = [task for task in self.tasks if task not in curriculum.tasks]
        if not self.tasks or unknown:
            raise ValueError(f"tasks {list(self.tasks)} must be a non-empty subset of the curriculum's {list(curriculum.tasks)}")
        self.worlds_ahead = worlds_ahead
        self.time_limit_frames = time_limit_frames
        self._rng = np.random.default_rng(seed)
        self._supply = supply if supply is not None else WorldSupply()
        self._world: SuppliedWorld | None = None
        #: Resets so far, and the seconds they waited on world generation in total and at most.
        self.resets = 0
        self.world_wait_s = 0.0
        self.max_world_wait_s = 0.0
        self._return = 0.0
        self._length = 0
        self._started = False

    def next_request(self) -> WorldRequest:
        """The next world to generate: task, difficulty from U[0, d_t], seed."""
        task = self.tasks[int(self._rng.integers(len(self.tasks)))]
        difficulty = self.curriculum.sample(task, self._rng)
        return WorldRequest(task, difficulty, int(self._rng.integers(0, 2**62)))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if options:
            raise ValueError(f"CurriculumWorlds chooses the worlds itself; reset options {sorted(options)} are not accepted")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._drop_pending()
        if not self._started or seed is not None:
            self._started = True
            while self._supply.pending < self.worlds_ahead:
                self._supply.submit(self.next_request())
        self._discard_world()
        world = self._next_world()
        options = {"world_dir": str(world.path), "episode_seed": world.request.seed}
        if self.time_limit_frames is not None:
            options["time_limit_frames"] = self.time_limit_frames(world.request.task, world.request.difficulty)
        try:
            observation, info = self.env.reset(options=options)
        except BaseException:
            self._supply.discard(world)
            raise
        self._world = world
        self.resets += 1
        self.world_wait_s += world.wait_s
        self.max_world_wait_s = max(self.max_world_wait_s, world.wait_s)
        self._return, self._length = 0.0, 0
        info = dict(info, max_difficulty=self.curriculum.max_difficulty(world.request.task), world_wait_s=world.wait_s)
        return observation, info

    def step(self, action: Any):
        if self._world is None:
            raise RuntimeError("call reset() before step()")
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._return += float(reward)
        self._length += 1
        if terminated or truncated:
            task = self._world.request.task
            if info.get("simulator_crashed"):
                max_difficulty = self.curriculum.max_difficulty(task)
            else:
                max_difficulty = self.curriculum.update(task, bool(info["success"]))
            info = dict(info, episode_return=self._return, episode_length=self._length, max_difficulty=max_difficulty)
        return observation, reward, terminated, truncated, info

    def close(self) -> None:
        self._discard_world()
        self._supply.close()
        super().close()

    def _next_world(self) -> SuppliedWorld:
        """Takes the next generated world, requesting its replacement; skips failed generations."""
        for _ in range(MAX_GENERATION_FAILURES):
            world = self._supply.take()
            self._supply.submit(self.next_request())
            if world.error is None:
                return world
            log.warning("world generation failed for %s; using the next world: %s", world.request, world.error)
        raise RuntimeError(f"{MAX_GENERATION_FAILURES} world generations in a row failed; last: {world.error}")

    def _discard_world(self) -> None:
        if self._world is not None:
            self._supply.discard(self._world)
            self._world = None

    def _drop_pending(self) -> None:
        while self._supply.pending:
            self._supply.discard(self._supply.take())


def make_training_envs(
    env_config: EnvConfig,
    curriculum: Curriculum,
    num_envs: int,
    seed: int = 0,
    worlds_ahead: int = DEFAULT_WORLDS_AHEAD,
    time_limit_frames: Callable[[str, float], int] | None = training_time_limit_frames,
) -> ThreadedVectorEnv:
    """``num_envs`` training environments over ``curriculum``'s tasks (see the module doc).

    Environment ``i`` draws its worlds from ``SeedSequence((seed, i))``. Nothing starts until the
    first ``reset()``, except the world generator processes.
    """
    num_envs = check_int(num_envs, "num_envs", low=1)

    def make(index: int):
        def build() -> gym.Env:
            env = RestartOnCrash(AvalonEnv(env_config))
            return CurriculumWorlds(
                env, curriculum, seed=np.random.SeedSequence((seed, index)), worlds_ahead=worlds_ahead,
                time_limit_frames=time_limit_frames,
            )

        return build

    return ThreadedVectorEnv([make(index) for index in range(num_envs)])


def local_training_envs(env_config: EnvConfig, curriculum: Curriculum, num_envs: int, *, seed: int, config: Any) -> Any:
    """The registry's default ``make_envs``: simulators in threads of this process
    (:func:`make_training_envs`); ``config`` (the algorithm's) is not needed."""
    return make_training_envs(env_config, curriculum, num_envs, seed=seed)
