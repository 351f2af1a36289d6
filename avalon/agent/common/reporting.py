"""What a training loop shows after each update: TensorBoard scalars and the progress bar's text."""

from __future__ import annotations

from typing import Any

from avalon.agent.common.episodes import EpisodeRecord, EpisodeTracker, summarize


def log_update(
    writer: Any, env_steps: int, stats: dict[str, float], ended: list[EpisodeRecord], perf: dict[str, float], curriculum: Any
) -> None:
    """One update's scalars at x = ``env_steps``: the learner's ``stats`` as ``train/*``, the
    episodes that ended (``episode/*``, ``task/<task>/*``), ``perf``, and ``curriculum/<task>``."""
    for name, value in stats.items():
        writer.add_scalar(f"train/{name}", value, env_steps)
    for name, value in summarize(ended).items():
        writer.add_scalar(name, value, env_steps)
    for name, value in perf.items():
        writer.add_scalar(name, value, env_steps)
    if curriculum is not None:
        for task, difficulty in sorted(curriculum.difficulties().items()):
            writer.add_scalar(f"curriculum/{task}", difficulty, env_steps)


def progress_postfix(perf: dict[str, float], tracker: EpisodeTracker, curriculum: Any) -> str:
    """The progress bar's text: steps/s, recent success rate, and the curriculum's difficulties."""
    success = tracker.recent_success_rate()
    parts = [f"sps={perf['perf/steps_per_second']:.0f}", f"success={'-' if success is None else f'{success:.2f}'}"]
    if curriculum is not None:
        difficulties = curriculum.difficulties()
        parts.append("d=" + ",".join(f"{task}:{value:.2f}" for task, value in sorted(difficulties.items())))
    return " ".join(parts)
