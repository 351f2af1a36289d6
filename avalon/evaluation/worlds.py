"""The worlds of an evaluation on freshly generated worlds.

The worlds of one evaluation are fixed by ``(tasks, episodes, difficulty range, seed)``: for each
task, ``episodes`` worlds with difficulties evenly spaced over ``[min_difficulty,
max_difficulty]`` (as the paper's evaluation sets, Appendix G.1) and world seeds drawn from
``SeedSequence((EVALUATION_SEED_TAG, seed, task index))``, so they never coincide with training
worlds in practice and the same command always evaluates on the same worlds.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from avalon.errors import check_int
from avalon.tasks import check_difficulty, check_task
from avalon.training.world_supply import WorldRequest

#: Mixed into evaluation world seeds so they differ from any seed a training run draws.
EVALUATION_SEED_TAG = 0x5EED_E7A1


def evaluation_worlds(
    tasks: Sequence[str], episodes: int, min_difficulty: float = 0.0, max_difficulty: float = 1.0, seed: int = 0
) -> list[WorldRequest]:
    """The worlds of an evaluation (see the module doc), task by task."""
    episodes = check_int(episodes, "episodes", low=1, unit="per task")
    low, high = check_difficulty(min_difficulty), check_difficulty(max_difficulty)
    if low > high:
        raise ValueError(f"min_difficulty {low} is above max_difficulty {high}")
    requests = []
    for index, task in enumerate(tasks):
        check_task(task)
        rng = np.random.default_rng(np.random.SeedSequence((EVALUATION_SEED_TAG, seed, index)))
        difficulties = np.linspace(low, high, episodes) if episodes > 1 else np.array([low])
        for difficulty in difficulties:
            requests.append(WorldRequest(task, float(difficulty), int(rng.integers(0, 2**62))))
    return requests
