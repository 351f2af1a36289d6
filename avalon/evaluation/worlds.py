"""The worlds of an evaluation on freshly generated worlds.

The worlds of one evaluation are fixed by its arguments, task by task:

- difficulties: ``episodes`` worlds evenly spaced over ``[min_difficulty, max_difficulty]`` (as
  the paper's evaluation sets, Appendix G.1), or ``episodes`` worlds at each of ``difficulties``;
- seeds: drawn from ``SeedSequence((EVALUATION_SEED_TAG, seed, task index))``, so they never
  coincide with training worlds in practice and the same command always evaluates on the same
  worlds; or, with ``first_seed``, the seeds ``first_seed, first_seed + 1, ...`` at every
  difficulty (the worlds ``AvalonEnv(task=..., difficulty=...)`` makes at ``reset(seed=...)``).

Forced generator choices (``TaskSpec.forcing``) may be pinned in every world.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from avalon.errors import check_int
from avalon.tasks import check_difficulty, check_seed, check_task
from avalon.training.curriculum import group_tasks
from avalon.training.world_supply import WorldRequest

#: Mixed into evaluation world seeds so they differ from any seed a training run draws.
EVALUATION_SEED_TAG = 0x5EED_E7A1


def default_task() -> str:
    """The task evaluated when none is named: the first basic task of the paper's Table 1."""
    return group_tasks(("basic",))[0]


def evaluation_worlds(
    tasks: Sequence[str], episodes: int, min_difficulty: float = 0.0, max_difficulty: float = 1.0, seed: int = 0,
    difficulties: Sequence[float] | None = None, first_seed: int | None = None, forced: Mapping[str, str] | None = None,
) -> list[WorldRequest]:
    """The worlds of an evaluation (see the module doc), task by task, by difficulty; ``forced``
    pins generator choices in every world (each task must declare them: ``TaskSpec.forcing``)."""
    episodes = check_int(episodes, "episodes", low=1, unit="per task and difficulty" if difficulties else "per task")
    if difficulties is not None:
        levels = [check_difficulty(value) for value in difficulties]
        if not levels:
            raise ValueError("difficulties=[] names no difficulty; expected at least one in [0, 1]")
    else:
        low, high = check_difficulty(min_difficulty), check_difficulty(max_difficulty)
        if low > high:
            raise ValueError(f"min_difficulty {low} is above max_difficulty {high}")
        levels = [float(d) for d in (np.linspace(low, high, episodes) if episodes > 1 else [low])]
    if first_seed is not None:
        check_seed(first_seed)
        check_seed(first_seed + episodes - 1)
    per_level = 1 if difficulties is None else episodes
    requests = []
    for index, task in enumerate(tasks):
        check_task(task)
        rng = np.random.default_rng(np.random.SeedSequence((EVALUATION_SEED_TAG, seed, index)))
        for position, level in enumerate(levels):
            for number in range(per_level):
                if first_seed is None:
                    world_seed = int(rng.integers(0, 2**62))
                else:  # the same seeds at every difficulty, or one after the other over evenly spaced ones
                    world_seed = first_seed + (number if difficulties is not None else position)
                requests.append(WorldRequest(task, float(level), world_seed, dict(forced or {})))
    return requests
