"""The env creator RLlib's env runners call: one :class:`~avalon.env.avalon_env.AvalonEnv` (one
Godot simulator) per call, seeded apart from every other env of the run.

``env_config`` (RLlib passes it as an ``EnvContext``, a dict that also carries ``worker_index``)
holds any :class:`~avalon.env.config.EnvConfig` keyword (``resolution``, ``action_space``,
``task``, ``difficulty``, ``world_dir``, ``renderer``, ...) and these keys of its own:

- ``seed``: the run's base seed (None: every env draws its seeds from OS entropy). The env of
  worker ``w`` that is the ``v``-th this process has made for it gets :func:`env_seed` ``(seed,
  w, v)``. RLlib's own seeding (``config.debugging(seed=s)``) resets env runner ``w``'s vector env
  with ``s + w``, which Gymnasium spreads as ``s + w + i`` over its envs, so worker 1's second env
  and worker 2's first would get the same seed: a seed passed to ``reset`` is therefore mixed with
  ``(w, v)`` the same way before the env sees it.
- ``tasks``: train on these tasks with the difficulty curriculum of Appendix I, as ``avalon
  train`` does (training time limits, worlds generated ahead in a background process, a crashed
  simulator's episode truncated). Each env keeps its own :class:`~avalon.training.curriculum.Curriculum`:
  RLlib's env runners are separate processes, and sharing ``d_t`` across them is not done here.
  Without ``tasks`` every episode's world comes from ``task`` at ``difficulty`` (or is
  ``world_dir``), with the world's own time limit.
- ``curriculum``: a dict of :class:`~avalon.training.curriculum.CurriculumConfig` fields
  (``step_size``, ``initial_difficulty``, ``enabled``), with ``tasks`` only.
- ``worlds_ahead``: worlds generated ahead of the one in play, with ``tasks`` only.

Nothing clashes between env runners: each simulator listens on its own ephemeral loopback port
(:mod:`avalon.sim.simulator`) and each env runner process starts its own Xvfb, whose display
number the X server picks itself (``-displayfd``; :mod:`avalon.sim.display`).

RLlib creates a runner's envs one after another in its process, each with ``vector_index`` 0
(``gym_env_vectorize_mode="sync"``, the default), so the vector index is counted here. With
``"async"`` each env is made in a process of its own and the count restarts at 0 in each: give
RLlib a seed (``config.debugging(seed=...)``) so that the reset seeds tell them apart.
``"vector_entry_point"`` is refused.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import attr
import gymnasium as gym
import numpy as np

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig, check_seed
from avalon.env.wrappers import RestartOnCrash
from avalon.errors import check_int
from avalon.training.curriculum import Curriculum, CurriculumConfig
from avalon.training.envs import DEFAULT_WORLDS_AHEAD, CurriculumWorlds

#: The name :func:`register` gives the env in Ray's registry by default.
ENV_NAME = "avalon"
#: ``env_config`` keys that are not ``EnvConfig`` keywords.
OWN_KEYS = ("tasks", "curriculum", "worlds_ahead")

_made_lock = threading.Lock()
_made: dict[int, int] = {}  # worker index -> envs this process has made for it


def env_seed(seed: int, worker_index: int, vector_index: int) -> int:
    """The seed of env ``vector_index`` of env runner ``worker_index`` in a run seeded ``seed``:
    distinct for every (worker, vector) pair, an int in [0, 2**63)."""
    sequence = np.random.SeedSequence((check_seed(seed), worker_index, vector_index))
    return int(sequence.generate_state(1, np.uint64)[0] >> np.uint64(1))


class SeedPerEnv(gym.Wrapper):
    """Mixes a seed given to ``reset`` with the env's (worker, vector) indices (see the module doc)."""

    def __init__(self, env: gym.Env, worker_index: int, vector_index: int) -> None:
        super().__init__(env)
        self.worker_index = worker_index
        self.vector_index = vector_index

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            seed = env_seed(seed, self.worker_index, self.vector_index)
        return self.env.reset(seed=seed, options=options)


def env_creator(env_config: Mapping[str, Any] | None = None) -> gym.Env:
    """One env for RLlib: ``tune.register_env("avalon", env_creator)`` (or :func:`register`).

    ``env_config``: an RLlib ``EnvContext`` or a plain dict; see the module doc for its keys.
    Every key is checked here, so a typo fails when the env runner starts, naming the key.
    """
    config = dict(env_config or {})
    if "num_envs" in config:
        raise ValueError(
            "the avalon env creator makes one env per call; use gym_env_vectorize_mode 'sync' (RLlib's default) "
            "or 'async', not 'vector_entry_point'"
        )
    tasks = config.pop("tasks", None)
    curriculum = config.pop("curriculum", None)
    worlds_ahead = config.pop("worlds_ahead", None)
    unknown = sorted(str(key) for key in config if key not in EnvConfig.keywords())
    if unknown:
        raise ValueError(
            f"unknown env_config key(s) {unknown}; the keys are the EnvConfig fields ({', '.join(EnvConfig.keywords())}) "
            f"and {', '.join(OWN_KEYS)}"
        )
    if tasks is None and (curriculum is not None or worlds_ahead is not None):
        raise ValueError("env_config keys 'curriculum' and 'worlds_ahead' need 'tasks' (the curriculum's tasks)")
    base_seed = config.pop("seed", None)
    if base_seed is not None:
        check_seed(base_seed)
    settings = EnvConfig(**config)  # every field checked before anything is made
    schedule = None if tasks is None else _curriculum(tasks, curriculum)
    ahead = DEFAULT_WORLDS_AHEAD if worlds_ahead is None else check_int(worlds_ahead, "worlds_ahead", low=1)
    worker_index = int(getattr(env_config, "worker_index", 0) or 0)
    with _made_lock:
        vector_index = int(getattr(env_config, "vector_index", 0) or 0) + _made.get(worker_index, 0)
        _made[worker_index] = _made.get(worker_index, 0) + 1
    seed = None if base_seed is None else env_seed(base_seed, worker_index, vector_index)
    env: gym.Env = RestartOnCrash(AvalonEnv(attr.evolve(settings, seed=seed)))
    if schedule is not None:
        env = CurriculumWorlds(env, schedule, seed=seed, worlds_ahead=ahead)
    return SeedPerEnv(env, worker_index, vector_index)


def _curriculum(tasks: Any, options: Any) -> Curriculum:
    if isinstance(tasks, str) or not isinstance(tasks, (list, tuple)):
        raise ValueError(f"env_config 'tasks' must be a list of task names, got {tasks!r}")
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"env_config 'curriculum' must be a dict of CurriculumConfig fields, got {options!r}")
    try:
        config = CurriculumConfig(**dict(options or {}))
    except TypeError as error:  # an unknown field
        raise ValueError(f"env_config 'curriculum': {error}") from None
    return Curriculum(tasks, config)


def register(name: str = ENV_NAME) -> str:
    """Registers :func:`env_creator` in Ray's registry as ``name`` and returns ``name``, for
    ``config.environment(name, env_config={...})``."""
    from ray import tune

    tune.register_env(name, env_creator)
    return name
