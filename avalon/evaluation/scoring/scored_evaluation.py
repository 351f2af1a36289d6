"""A scored evaluation: a policy (a checkpoint, the random agent or the scripted reference agents)
on a list of worlds (an evaluation set, or fresh worlds), scored and reported. ``avalon eval`` runs
one, and so does ``avalon train`` after training.

Into the output folder: ``episodes.jsonl`` (one line per world as it ends; a rerun resumes from
it), ``eval.json`` (:mod:`avalon.evaluation.eval_file`: the episodes, their raw and normalised
scores, success by task and difficulty, the report), ``eval.md`` (the table in the layout of the
paper's Table 1), ``tasks.png``, ``profile.png``, ``difficulty.png``, the video; optionally the
per-world score file normalisation reads (``write_baseline`` with the random agent,
``write_reference`` with the reference agents).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import attr

from avalon.env.config import EnvConfig
from avalon.evaluation.eval_file import eval_content, scored_episodes, write_eval_file
from avalon.evaluation.policies import Policy
from avalon.evaluation.results import EvaluationResult
from avalon.evaluation.runner import check_time_limits
from avalon.evaluation.scoring.episode_log import EpisodeLog
from avalon.evaluation.scoring.estimate import LARGE_EVALUATION_WORLDS, estimated_seconds, frames_at_most, probe
from avalon.evaluation.scoring.normalise import Normalisation, normalisation
from avalon.evaluation.scoring.plots import plot_report
from avalon.evaluation.scoring.report import build_report, markdown_table, normalisation_note
from avalon.evaluation.scoring.runner import EPISODES_FILE, ScoredRun, check_unique, run_evaluation
from avalon.evaluation.scoring.score_files import RANDOM_SOURCE, SCRIPTED_SOURCE, read_score_file, write_score_file
from avalon.evaluation.success_rates import by_difficulty, difficulty_lines
from avalon.training.world_supply import WorldRequest

#: ``kind`` values: a checkpoint's policy, uniformly random actions, the scripted reference agents.
POLICY_KINDS = ("checkpoint", "random", "reference")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ScoredEvaluation:
    """Which policy on which worlds, where the results go, and the score files that normalise them."""

    #: One of :data:`POLICY_KINDS`.
    kind: str = attr.ib(validator=attr.validators.in_(POLICY_KINDS))
    policy: Policy
    #: How the policy is named in the files and the report (``checkpoint PATH``, ``random``, ...).
    label: str
    env_config: EnvConfig
    requests: Sequence[WorldRequest]
    #: What the worlds are: an evaluation set's name, or how fresh worlds were chosen.
    worlds_label: str
    out_dir: Path
    num_envs: int = 2
    #: "world", "training" or a number of frames (:func:`avalon.evaluation.runner.check_time_limits`).
    time_limits: str | int = attr.ib(default="world", converter=check_time_limits)
    deterministic: bool = False
    video: str | None = "first"
    #: Per-world score files of the random agent and of the reference (both or neither).
    baseline_file: Path | None = None
    reference_file: Path | None = None
    write_baseline: Path | None = None
    write_reference: Path | None = None
    #: Print the time estimate for at least this many worlds left to play (None: never).
    estimate_from_worlds: int | None = LARGE_EVALUATION_WORLDS
    #: Print success by task and difficulty (each episode's note under its difficulty), as for
    #: worlds chosen at given difficulties; else only the episodes' notes.
    by_difficulty: bool = False
    progress: bool = True
    bootstrap_reps: int = 2000


@attr.s(frozen=True, auto_attribs=True)
class ScoredOutcome:
    """What :func:`run_scored_evaluation` wrote: ``eval.json``'s path and content, and the result."""

    path: Path
    content: Mapping[str, Any]
    result: EvaluationResult


def generated_worlds_label(tasks: Sequence[str], episodes: int, min_difficulty: float, max_difficulty: float, seed: int,
                           difficulties: Sequence[float] | None = None, first_seed: int | None = None) -> str:
    """How the per-episode file names the worlds of ``evaluation_worlds(...)`` (an evaluation set
    is named ``set NAME``)."""
    if difficulties:
        spread = f"{episodes} per task at each difficulty of {','.join(f'{d:g}' for d in difficulties)}"
    else:
        spread = f"{episodes} per task, difficulty {min_difficulty:g} to {max_difficulty:g}"
    seeds = f"seeds from {first_seed}" if first_seed is not None else f"seed {seed}"
    return f"tasks {','.join(tasks)}, {spread}, {seeds}"


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


def run_scored_evaluation(evaluation: ScoredEvaluation, say: Callable[[str], None] = print) -> ScoredOutcome:
    """Runs (or resumes) the evaluation and writes its files; ``content["error"]`` is set when some
    worlds failed every attempt."""
    normalised_by = _check(evaluation)
    config = evaluation.env_config
    header = {"policy": evaluation.label, "action_space": config.action_space, "resolution": config.resolution,
              "time_limits": evaluation.time_limits, "set": evaluation.worlds_label}
    done = EpisodeLog(evaluation.out_dir / EPISODES_FILE, header).open()
    todo = [request for request in evaluation.requests if request.folder_name not in done]
    if done:
        say(f"resuming from {evaluation.out_dir / EPISODES_FILE}: {len(evaluation.requests) - len(todo)} of "
            f"{len(evaluation.requests)} worlds already played; {len(todo)} to play")
    if todo and evaluation.estimate_from_worlds is not None and len(todo) >= evaluation.estimate_from_worlds:
        _say_estimate(evaluation, todo, say)
    started = time.monotonic()
    run = run_evaluation(
        evaluation.policy, config, evaluation.requests, evaluation.out_dir, header, num_envs=evaluation.num_envs,
        time_limits=evaluation.time_limits, deterministic=evaluation.deterministic, progress=evaluation.progress,
        video_path=None if evaluation.video is None else evaluation.out_dir / "episode.gif", video=evaluation.video or "first",
    )
    elapsed = time.monotonic() - started
    _say_run(evaluation, run, elapsed, say)
    episodes = run.result.episodes
    normalised = [None if normalised_by is None else normalised_by.score(e.task, e.score) for e in episodes]
    scored = scored_episodes(episodes, [None if value is None or math.isnan(value) else value for value in normalised])
    report, plots = None, {}
    if scored:
        report = build_report({evaluation.label: [scored]}, reps=evaluation.bootstrap_reps)
        table = markdown_table(report, normalisation_note(normalised_by))
        (evaluation.out_dir / "eval.md").write_text(table)
        plots = {name: str(path) for name, path in plot_report(report, evaluation.out_dir).items()}
        say(table)
    content = eval_content(
        policy=evaluation.label, worlds=evaluation.worlds_label, result=run.result, episodes=scored,
        settings={"action_space": config.action_space, "resolution": config.resolution, "renderer": config.renderer,
                  "time_limits": evaluation.time_limits, "deterministic": evaluation.deterministic, "envs": evaluation.num_envs},
        run={"episodes_file": str(evaluation.out_dir / EPISODES_FILE), "elapsed_s": elapsed, "played": run.played,
             "resumed": run.resumed},
        normalisation=None if normalised_by is None else normalised_by.describe(), report=report, plots=plots,
    )
    saved = write_eval_file(evaluation.out_dir / "eval.json", content)
    say(f"results: {saved}")
    _write_score_files(evaluation, run, say)
    return ScoredOutcome(saved, content, run.result)


#: Episode notes printed at most, when success by difficulty is not (eval.json holds every one).
NOTES_SHOWN = 20


def _say_run(evaluation: ScoredEvaluation, run: ScoredRun, elapsed: float, say: Callable[[str], None]) -> None:
    """The per-task table, success by difficulty or the episodes' notes, what was played and what skipped."""
    episodes = run.result.episodes
    say(run.result.table())
    if evaluation.by_difficulty:
        say("\n".join(difficulty_lines(by_difficulty(episodes), episodes)))
    noted = [e for e in episodes if e.note]
    if evaluation.kind == "reference" and episodes:
        from avalon.evaluation.reference import solved_lines

        say("\n".join(solved_lines(episodes)))
    elif noted and not evaluation.by_difficulty:
        lines = [f"    {e.key}: {e.note}" for e in noted[:NOTES_SHOWN]]
        more = f" ({len(noted) - NOTES_SHOWN} more in eval.json)" if len(noted) > NOTES_SHOWN else ""
        say("\n".join([f"what the policy said of {len(noted)} episode(s){more}:"] + lines))
    say(f"played {run.played} world(s) in {elapsed / 60:.1f} min with {evaluation.num_envs} simulator(s)"
        + (f"; {run.resumed} read back from {EPISODES_FILE}" if run.resumed else ""))
    if run.result.skipped:
        tasks = sorted({request.task for request in run.result.skipped})
        say(f"skipped {len(run.result.skipped)} world(s) of tasks without a reference agent: {', '.join(tasks)}")


def _say_estimate(evaluation: ScoredEvaluation, todo: Sequence[WorldRequest], say: Callable[[str], None]) -> None:
    frames = frames_at_most(todo, evaluation.time_limits)
    hardest = max(todo, key=lambda request: request.difficulty)  # the largest worlds: slowest to make and to step
    measured = probe(evaluation.env_config, hardest, num_envs=min(evaluation.num_envs, len(todo)))
    seconds = estimated_seconds(frames, len(todo), measured, evaluation.num_envs)
    say(f"estimated time: about {seconds / 60:.0f} min for {len(todo)} worlds ({frames} steps if every episode runs to its "
        f"time limit at {measured.steps_per_second:.0f} random steps/s, measured with {evaluation.num_envs} simulators in a "
        f"{hardest.task} world of difficulty {hardest.difficulty:g}, which took {measured.generation_s:.1f} s to generate)")


def _write_score_files(evaluation: ScoredEvaluation, run: ScoredRun, say: Callable[[str], None]) -> None:
    for path, source in ((evaluation.write_baseline, RANDOM_SOURCE), (evaluation.write_reference, SCRIPTED_SOURCE)):
        if path is None:
            continue
        if run.result.failed_worlds:
            say(f"not writing {path}: {len(run.result.failed_worlds)} world(s) failed; rerun the same command to play them")
            continue
        written = write_score_file(path, {episode.key: episode for episode in run.result.episodes}, source)
        say(f"per-world scores of the {source}: {written}")
