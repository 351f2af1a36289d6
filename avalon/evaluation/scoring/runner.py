"""A scored evaluation that resumes: every world's episode is appended to the per-episode file as it
ends (:mod:`avalon.evaluation.scoring.episode_log`), and a rerun with the same file plays only the
worlds it does not hold yet."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any, Sequence

import attr

from avalon.env.config import EnvConfig
from avalon.evaluation.policies import Policy
from avalon.evaluation.results import EpisodeResult, EvaluationFailed, EvaluationResult, FailedWorld
from avalon.evaluation.runner import evaluate
from avalon.evaluation.scoring.episode_log import EpisodeLog
from avalon.training.world_supply import WorldRequest

#: The per-episode file's name in an evaluation's folder.
EPISODES_FILE = "episodes.jsonl"


@attr.s(frozen=True, auto_attribs=True)
class ScoredRun:
    """The outcome of :func:`run_evaluation`: every episode in request order (those read back
    from the file and those played now; ``result.skipped``: the worlds of tasks the policy does not
    play), and how many episodes were resumed rather than played."""

    result: EvaluationResult
    resumed: int
    played: int


def check_unique(requests: Sequence[WorldRequest]) -> None:
    """Each world once: the per-episode file and the score files are keyed by world."""
    counts = collections.Counter(request.folder_name for request in requests)
    repeated = [key for key, count in counts.items() if count > 1]
    if repeated:
        raise ValueError(f"these worlds are requested more than once: {', '.join(repeated[:10])}")


def run_evaluation(
    policy: Policy, env_config: EnvConfig, requests: Sequence[WorldRequest], out_dir: str | Path, header: dict[str, Any],
    **options: Any,
) -> ScoredRun:
    """Evaluates ``policy`` on the worlds of ``requests`` that ``out_dir/episodes.jsonl`` does not
    hold yet, appending each as it ends; ``options`` are :func:`~avalon.evaluation.runner.evaluate`'s.
    ``header`` names the evaluation (:data:`~avalon.evaluation.scoring.episode_log.HEADER_FIELDS`):
    a file of another one is refused. Worlds that fail every attempt are in ``result.failed_worlds``
    (never raised)."""
    if not requests:
        raise ValueError("no worlds to evaluate on")
    check_unique(requests)
    log = EpisodeLog(Path(out_dir) / EPISODES_FILE, header)
    done = log.open()
    todo = [request for request in requests if request.folder_name not in done]
    new: dict[str, EpisodeResult] = {}
    result = EvaluationResult(episodes=())

    def record(index: int, outcome: EpisodeResult | FailedWorld) -> None:
        key = todo[index].folder_name
        log.append(key, outcome)
        if isinstance(outcome, EpisodeResult):
            new[key] = outcome

    if todo:
        try:
            result = evaluate(policy, env_config, todo, on_outcome=record, **options)
        except EvaluationFailed as failure:
            result = failure.result
    video_episode = result.video_episode
    if video_episode is not None:  # its index in ``requests``, not in the worlds left to play
        position = {request.folder_name: index for index, request in enumerate(requests)}
        video_episode = (position[todo[video_episode[0]].folder_name], video_episode[1])
    episodes = {**done, **new}
    combined = attr.evolve(result, episodes=tuple(episodes[r.folder_name] for r in requests if r.folder_name in episodes),
                           video_episode=video_episode)
    resumed = sum(1 for request in requests if request.folder_name in done)
    return ScoredRun(combined, resumed, len(new))
