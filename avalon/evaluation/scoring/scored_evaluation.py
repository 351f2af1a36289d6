"""``avalon eval``: a policy (a checkpoint, the random agent or the scripted reference agents) on a
list of worlds (an evaluation set, or today's evenly spaced worlds), scored and reported.

Into the output folder: ``episodes.jsonl`` (one line per world as it ends; a rerun resumes from
it), ``eval.json`` (the episodes, per-world raw and normalised scores, the report), ``eval.md``
(the table in the layout of the paper's Table 1), ``tasks.png``, ``profile.png``,
``difficulty.png``; optionally the per-world score file normalisation reads (``--write-baseline``
with the random agent, ``--write-reference`` with the reference agents).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import attr

from avalon.env.config import EnvConfig
from avalon.evaluation.policies import Policy
from avalon.evaluation.results import RANDOM_SOURCE, SCRIPTED_SOURCE, save_results
from avalon.evaluation.scoring.episode_log import EpisodeLog
from avalon.evaluation.scoring.estimate import LARGE_EVALUATION_WORLDS, estimated_seconds, frames_at_most, probe
from avalon.evaluation.scoring.normalise import Normalisation, normalisation
from avalon.evaluation.scoring.plots import plot_report
from avalon.evaluation.scoring.report import build_report, markdown_table, normalisation_note, scored_worlds
from avalon.evaluation.scoring.runner import EPISODES_FILE, check_unique, run_evaluation
from avalon.evaluation.scoring.score_files import read_score_file, write_score_file
from avalon.training.world_supply import WorldRequest

#: ``policy`` values: a checkpoint's policy, uniformly random actions, the scripted reference agents.
POLICY_KINDS = ("checkpoint", "random", "reference")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ScoredEvaluation:
    """What ``avalon eval`` does: which policy on which worlds, where the results go, and the
    score files that normalise them."""

    #: One of :data:`POLICY_KINDS`; ``policy`` is its policy (None for ``reference``).
    kind: str = attr.ib(validator=attr.validators.in_(POLICY_KINDS))
    policy: Policy | None
    #: How the policy is named in the files and the report (``checkpoint PATH``, ``random``, ...).
    label: str
    env_config: EnvConfig
    requests: Sequence[WorldRequest]
    #: What the worlds are: an evaluation set's name, or how today's worlds were chosen.
    worlds_label: str
    out_dir: Path
    num_envs: int = 2
    time_limits: str = "world"
    deterministic: bool = False
    video: str | None = "first"
    #: Per-world score files of the random agent and of the reference (both or neither).
    baseline_file: Path | None = None
    reference_file: Path | None = None
    write_baseline: Path | None = None
    write_reference: Path | None = None
    #: Print the time estimate for at least this many worlds left to play.
    estimate_from_worlds: int = LARGE_EVALUATION_WORLDS
    progress: bool = True
    bootstrap_reps: int = 2000


def generated_worlds_label(tasks: Sequence[str], episodes: int, min_difficulty: float, max_difficulty: float, seed: int) -> str:
    """How the per-episode file names the worlds of ``evaluation_worlds(...)`` (an evaluation set
    is named ``set NAME``)."""
    return f"tasks {','.join(tasks)}, {episodes} per task, difficulty {min_difficulty:g} to {max_difficulty:g}, seed {seed}"


def _check(evaluation: ScoredEvaluation) -> Normalisation | None:
    """Checks what can be checked before any simulator starts; the normalisation, if asked for."""
    check_unique(evaluation.requests)
    if (evaluation.baseline_file is None) != (evaluation.reference_file is None):
        raise ValueError("normalisation needs both --baseline FILE (the random agent's per-world scores) and --reference FILE "
                         "(the reference's); give both or neither")
    if evaluation.write_baseline is not None and evaluation.kind != "random":
        raise ValueError(f"--write-baseline writes the random agent's scores: give --policy random, not {evaluation.label}")
    if evaluation.write_reference is not None and evaluation.kind != "reference":
        raise ValueError(f"--write-reference writes the reference agents' scores: give --policy reference, not {evaluation.label}")
    if evaluation.baseline_file is None:
        return None
    return normalisation(evaluation.requests, read_score_file(evaluation.baseline_file), read_score_file(evaluation.reference_file))


def run_scored_evaluation(evaluation: ScoredEvaluation, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Runs (or resumes) the evaluation, writes its files and returns ``eval.json``'s content;
    ``error`` in it is set when some worlds failed every attempt."""
    normalised_by = _check(evaluation)
    header = {
        "policy": evaluation.label, "action_space": evaluation.env_config.action_space,
        "resolution": evaluation.env_config.resolution, "time_limits": evaluation.time_limits, "set": evaluation.worlds_label,
    }
    done = EpisodeLog(evaluation.out_dir / EPISODES_FILE, header).open()
    todo = [request for request in evaluation.requests if request.folder_name not in done]
    if done:
        say(f"resuming from {evaluation.out_dir / EPISODES_FILE}: {len(evaluation.requests) - len(todo)} of "
            f"{len(evaluation.requests)} worlds already played; {len(todo)} to play")
    if todo and len(todo) >= evaluation.estimate_from_worlds:
        _say_estimate(evaluation, todo, say)
    started = time.monotonic()
    run = run_evaluation(
        evaluation.policy, evaluation.env_config, evaluation.requests, evaluation.out_dir, header,
        num_envs=evaluation.num_envs, time_limits=evaluation.time_limits, deterministic=evaluation.deterministic,
        video_path=None if evaluation.video is None else evaluation.out_dir / "episode.gif", video=evaluation.video or "first",
        progress=evaluation.progress,
    )
    elapsed = time.monotonic() - started
    say(run.result.table())
    say(f"played {run.played} world(s) in {elapsed / 60:.1f} min with {evaluation.num_envs} simulator(s)"
        + (f"; {run.resumed} read back from {EPISODES_FILE}" if run.resumed else ""))
    if run.skipped:
        tasks = sorted({request.task for request in run.skipped})
        say(f"skipped {len(run.skipped)} world(s) of tasks without a reference agent: {', '.join(tasks)}")
    worlds = scored_worlds(run, normalised_by)
    payload: dict[str, Any] = {"policy": evaluation.label, "worlds": evaluation.worlds_label}
    scoring: dict[str, Any] = {
        "episodes_file": str(evaluation.out_dir / EPISODES_FILE),
        "elapsed_s": elapsed, "played": run.played, "resumed": run.resumed,
        "skipped": [request.folder_name for request in run.skipped],
        "normalisation": None if normalised_by is None else normalised_by.describe(),
        "worlds": worlds,
    }
    if worlds:
        report = build_report({evaluation.label: [worlds]}, reps=evaluation.bootstrap_reps)
        scoring["report"] = report
        note = normalisation_note(normalised_by)
        table = markdown_table(report, note)
        (evaluation.out_dir / "eval.md").write_text(table)
        scoring["plots"] = {name: str(path) for name, path in plot_report(report, evaluation.out_dir).items()}
        say(table)
    saved = save_results(run.result, evaluation.out_dir / "eval.json", dict(payload, scoring=scoring))
    say(f"results: {saved}")
    _write_score_files(evaluation, run, say)
    return json.loads(saved.read_text())


def _say_estimate(evaluation: ScoredEvaluation, todo: Sequence[WorldRequest], say: Callable[[str], None]) -> None:
    frames = frames_at_most(todo, evaluation.time_limits)
    hardest = max(todo, key=lambda request: request.difficulty)  # the largest worlds: slowest to make and to step
    measured = probe(evaluation.env_config, hardest, num_envs=min(evaluation.num_envs, len(todo)))
    seconds = estimated_seconds(frames, len(todo), measured, evaluation.num_envs)
    say(f"estimated time: about {seconds / 60:.0f} min for {len(todo)} worlds ({frames} steps if every episode runs to its "
        f"time limit at {measured.steps_per_second:.0f} random steps/s, measured with {evaluation.num_envs} simulators in a "
        f"{hardest.task} world of difficulty {hardest.difficulty:g}, which took {measured.generation_s:.1f} s to generate)")


def _write_score_files(evaluation: ScoredEvaluation, run, say: Callable[[str], None]) -> None:
    for path, source in ((evaluation.write_baseline, RANDOM_SOURCE), (evaluation.write_reference, SCRIPTED_SOURCE)):
        if path is None:
            continue
        if run.result.failed_worlds:
            say(f"not writing {path}: {len(run.result.failed_worlds)} world(s) failed; rerun the same command to play them")
            continue
        written = write_score_file(path, dict(zip(run.keys, run.result.episodes)), source)
        say(f"per-world scores of the {source}: {written}")
