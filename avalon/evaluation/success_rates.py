"""Success rates by task and difficulty: how often a policy succeeds at each difficulty it played,
with a 95 % Wilson interval, and whether the rate falls as the difficulty rises (a task's
difficulty should make it harder for every policy, the random one included)."""

from __future__ import annotations

import math
from typing import Any, Sequence

from avalon.evaluation.results import EpisodeResult

#: The achievement that says an episode held something (an item or a climbing hold).
GRASP_ACHIEVEMENT = "grasp"


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a binomial proportion ((0, 1) without trials)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def by_difficulty(episodes: Sequence[EpisodeResult]) -> dict[str, list[dict[str, Any]]]:
    """Per task, one row per difficulty (ascending): episodes, successes, success rate and its
    Wilson interval, mean raw score, mean length (steps) and the episodes that grasped something."""
    groups: dict[str, dict[float, list[EpisodeResult]]] = {}
    for episode in episodes:
        groups.setdefault(episode.task, {}).setdefault(episode.difficulty, []).append(episode)
    table = {}
    for task, levels in groups.items():
        rows = []
        for difficulty in sorted(levels):
            group = levels[difficulty]
            successes = sum(e.success for e in group)
            rows.append({
                "difficulty": difficulty, "episodes": len(group), "successes": successes,
                "success_rate": successes / len(group), "wilson_95": list(wilson_interval(successes, len(group))),
                "mean_score": sum(e.score for e in group) / len(group),
                "mean_length": sum(e.episode_length for e in group) / len(group),
                "grasped": sum(GRASP_ACHIEVEMENT in e.achievements for e in group),
            })
        table[task] = rows
    return table


def falls_with_difficulty(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether the success rate falls with difficulty (``rows`` of one task): it never rises from
    one difficulty to the next and is lower at the hardest than at the easiest. A rate that stays
    the same everywhere (0 / 50 at every difficulty) does not fall: it is no evidence."""
    rates = [row["success_rate"] for row in sorted(rows, key=lambda row: row["difficulty"])]
    return all(later <= earlier for earlier, later in zip(rates, rates[1:])) and rates[-1] < rates[0]


def trend_text(rows: Sequence[dict[str, Any]]) -> str:
    """How the success rate moves with difficulty, in words."""
    rates = sorted({row["success_rate"] for row in rows})
    if len(rates) == 1:
        return f"stays at {100 * rates[0]:.1f} % at every difficulty (it does not fall)"
    return "falls with difficulty" if falls_with_difficulty(rows) else "RISES somewhere with difficulty"


def trends(table: dict[str, list[dict[str, Any]]]) -> dict[str, bool]:
    """Per task played at several difficulties: whether its success rate falls with difficulty."""
    return {task: falls_with_difficulty(rows) for task, rows in table.items() if len(rows) > 1}


def difficulty_lines(table: dict[str, list[dict[str, Any]]], episodes: Sequence[EpisodeResult] = ()) -> list[str]:
    """What ``avalon eval`` prints of :func:`by_difficulty`: a line per task and difficulty, under
    it each episode's note (the scripted agents' where and why), and per task played at several
    difficulties how its rate moves."""
    lines = []
    for task, rows in table.items():
        for row in rows:
            low, high = row["wilson_95"]
            lines.append(
                f"{task} d={row['difficulty']:g}: {row['successes']}/{row['episodes']} successes ({100 * row['success_rate']:.1f} %, "
                f"95 % interval {100 * low:.1f}-{100 * high:.1f} %), {row['grasped']} episodes with a grasp, mean score "
                f"{row['mean_score']:.3f}, mean length {row['mean_length']:.0f} steps")
            lines += [f"    seed {e.seed}: {e.note}" for e in episodes
                      if e.note and e.task == task and e.difficulty == row["difficulty"]]
        if len(rows) > 1:
            lines.append(f"{task}: the success rate {trend_text(rows)}")
    return lines
