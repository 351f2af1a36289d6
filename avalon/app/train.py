"""``avalon train <algorithm>``: a training run from the command line, and what ``make run`` runs.

Builds the curriculum over the protocol's tasks, the training environments (worlds generated
ahead, simulators stepped in parallel), trains with a registered algorithm (PPO by default;
``avalon.agent.registry``) with progress bar, TensorBoard logs and checkpoints, then evaluates
the final policy on fresh worlds as ``avalon eval`` does (the same ``eval.json``, report and plots;
optionally beside the random policy on the same worlds) with a GIF of an episode (the success in
the hardest world), and writes a PNG of the learning curve. A run stopped by Ctrl-C or SIGTERM keeps its last update (see
:func:`run_training`).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

import attr

from avalon.agent.common.presets import RUN_SETTINGS, choose_settings, preset_help
from avalon.agent.registry import ALGORITHMS, Algorithm, get_algorithm
from avalon.app.options import task_list, video_episode
from avalon.env.config import EnvConfig
from avalon.sim.protocol import ACTION_SPACES
from avalon.sim.settings import RENDERERS
from avalon.tasks import task_for
from avalon.training.curriculum import PROTOCOLS, Curriculum, CurriculumConfig, protocol_tasks


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class TrainingRun:
    """One training run: where it writes, what it trains on, for how long, and its evaluation."""

    out_dir: Path
    #: The registered algorithm that trains (``avalon.agent.registry``).
    algorithm: str = "ppo"
    tasks: tuple[str, ...] = attr.ib(factory=lambda: (task_for("first"),))
    protocol: str = "multi-task"
    total_steps: int = 200_000  # env steps over all envs, including steps before a resume
    num_envs: int = 2
    resume: bool = False
    seed: int = 0
    env_config: EnvConfig = attr.ib(factory=lambda: EnvConfig(renderer="GLES2"))
    curriculum: CurriculumConfig = attr.ib(factory=CurriculumConfig)
    #: Overrides of the algorithm's config fields (its defaults otherwise; PPO: Table 7), e.g.
    #: {"unroll_steps": 100}.
    config_overrides: dict[str, Any] = attr.ib(factory=dict)
    checkpoint_interval_steps: int = 100_000
    keep_checkpoints: int = 3
    #: Evaluation after training: worlds per task (0 skips it), difficulty range, time limits.
    eval_episodes: int = 10
    eval_max_difficulty: float = 1.0
    eval_time_limits: str = "world"
    #: Also evaluate this baseline policy on the same worlds ("random"), or None.
    baseline: str | None = None
    #: Side of the evaluation video's frames, pixels (the simulator renders them at this size;
    #: the observations keep the env's resolution). None: the observation's size.
    video_resolution: int | None = 256
    progress: bool = True
    #: The learner's torch device: "cpu", or "cuda" where a GPU exists (simulators' actors act on the CPU).
    device: str = "cpu"
    #: The preset and the options given over it (``avalon.agent.common.presets.RunSettings.to_json``):
    #: written to ``out_dir/settings.json`` with the algorithm's whole config; None: not written.
    settings: dict[str, Any] | None = None


def env_counts(envs: Any) -> dict[str, float]:
    """Simulator crashes, resets and world waits of a run's envs: their own ``env_counts()``
    (IMPALA's actors), else summed over a vector env of ``CurriculumWorlds``."""
    if hasattr(envs, "env_counts"):
        return dict(envs.env_counts())
    return {
        "simulator_crashes": sum(env.env.crashes for env in envs.envs),
        # The first reset of each env waits for its generator to start; steady state is the rest.
        "resets": sum(env.resets for env in envs.envs),
        "world_wait_s_total": sum(env.world_wait_s for env in envs.envs),
        "world_wait_s_max": max(env.max_world_wait_s for env in envs.envs),
    }


def run_training(run: TrainingRun) -> dict[str, Any]:
    """Trains, evaluates, and returns a summary (paths and figures), also saved as summary.json.

    summary.json is written as soon as training ends, then again with the evaluation added, so
    a failed evaluation never loses it. When training is stopped by SIGINT or SIGTERM (after a
    checkpoint, as :func:`~avalon.agent.train_ppo` does), ``summary["interrupted"]`` is the signal's
    name and no evaluation runs. When evaluation worlds fail every attempt,
    ``summary["evaluation"]["failed_worlds"]`` lists them and ``["error"]`` says why; the
    finished episodes are kept.
    """
    from avalon.agent import TrainingInterrupted
    from avalon.agent.common.checkpoint import latest_checkpoint
    from avalon.agent.common.device import resolve_device
    from avalon.agent.registry import get_algorithm

    algorithm = get_algorithm(run.algorithm)
    train = algorithm.train_function()
    train_tasks, eval_tasks = protocol_tasks(run.protocol, run.tasks)
    config = algorithm.config_class()(**run.config_overrides)
    config.check_batch(run.num_envs)
    resolve_device(run.device)  # a bad device fails before any simulator starts
    curriculum = Curriculum(train_tasks, run.curriculum)
    out_dir = Path(run.out_dir)
    if run.settings is not None and (run.resume or latest_checkpoint(out_dir) is None):  # else the loop refuses the folder
        out_dir.mkdir(parents=True, exist_ok=True)
        _write_summary({**run.settings, "config": config.to_dict()}, out_dir / "settings.json")
    envs = algorithm.envs_function()(run.env_config, curriculum, run.num_envs, seed=run.seed, config=config)
    interrupted = None
    try:
        result = train(
            envs, out_dir, run.total_steps, config, curriculum=curriculum, resume=run.resume, seed=run.seed,
            progress=run.progress, checkpoint_interval_steps=run.checkpoint_interval_steps,
            keep_checkpoints=run.keep_checkpoints, device=run.device,
        )
    except TrainingInterrupted as stop:
        result, interrupted = stop.result, stop.signal_name
    finally:
        envs.close()
    figures = env_counts(envs)
    summary: dict[str, Any] = {
        "out_dir": str(out_dir),
        "tensorboard": str(out_dir / "tensorboard"),
        "checkpoint": str(result.final_checkpoint),
        "interrupted": interrupted,
        "env_steps": result.env_steps,
        "updates": result.updates,
        "episodes": result.episodes,
        "steps_per_second": result.steps_per_second,
        "env_wait_fraction": result.env_wait_fraction,
        "recent_success_rate": result.recent_success_rate,
        "max_difficulty": curriculum.difficulties(),
        "curriculum_counts": {task: list(counts) for task, counts in curriculum.counts().items()},
        **figures,
    }
    path = out_dir / "summary.json"
    _write_summary(summary, path)
    if interrupted is None and run.eval_episodes > 0:
        summary["evaluation"] = _evaluate(run, eval_tasks, result.final_checkpoint)
        _write_summary(summary, path)
    summary["learning_curve"] = _learning_curve(run, summary)
    _write_summary(summary, path)
    summary["summary"] = str(path)
    return summary


def _learning_curve(run: TrainingRun, summary: dict[str, Any]) -> str | None:
    """The PNG of the training episodes' success rate (with the evaluation's as lines), or None
    when no episode has finished yet."""
    from avalon.agent.common.episodes import EPISODE_LOG_FILE, read_episode_log
    from avalon.app.plots import plot_learning_curve

    rows = read_episode_log(Path(run.out_dir) / EPISODE_LOG_FILE)
    if not rows:
        return None
    references = {}
    evaluation = summary.get("evaluation") or {}
    evaluated = (("evaluation, trained", evaluation.get("per_task")), (f"evaluation, {run.baseline}", evaluation.get("baseline_per_task")))
    for label, per_task in evaluated:
        if per_task:
            successes = sum(row["success_rate"] * row["episodes"] for row in per_task.values())
            references[label] = float(successes / sum(row["episodes"] for row in per_task.values()))
    tasks = ", ".join(sorted({row["task"] for row in rows}))
    title = f"{tasks}: {summary['env_steps']} env steps, {run.env_config.action_space}, {run.env_config.resolution} px"
    return str(plot_learning_curve(rows, Path(run.out_dir) / "learning_curve.png", title, references))


def _write_summary(summary: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(summary, indent=2))


def _evaluate(run: TrainingRun, tasks: tuple[str, ...], checkpoint: Path) -> dict[str, Any]:
    """The final policy's scored evaluation (``avalon eval``'s, into ``eval-TIMESTAMP/``), and the
    random policy's on the same worlds into its ``random/`` when asked; their summary."""
    from avalon.agent import load_policy
    from avalon.evaluation.policies import RandomPolicy
    from avalon.evaluation.results import comparison_table
    from avalon.evaluation.scoring.scored_evaluation import ScoredEvaluation, generated_worlds_label, run_scored_evaluation
    from avalon.evaluation.worlds import evaluation_worlds

    if run.baseline not in (None, "random"):
        raise ValueError(f"baseline={run.baseline!r} is not one of ('random',)")
    policy = load_policy(checkpoint, seed=run.seed)
    config = attr.evolve(run.env_config, render_resolution=run.video_resolution, **policy.env_config_overrides())
    eval_dir = Path(run.out_dir) / f"eval-{time.strftime('%Y%m%d-%H%M%S')}"
    requests = evaluation_worlds(tasks, run.eval_episodes, 0.0, run.eval_max_difficulty, seed=run.seed)
    scored = ScoredEvaluation(
        kind="checkpoint", policy=policy, label=f"checkpoint {Path(checkpoint).resolve()}", env_config=config,
        requests=requests, worlds_label=generated_worlds_label(tasks, run.eval_episodes, 0.0, run.eval_max_difficulty, run.seed),
        out_dir=eval_dir, num_envs=run.num_envs, time_limits=run.eval_time_limits, video="hardest_success",
        estimate_from_worlds=None, progress=run.progress,
    )
    trained = run_scored_evaluation(scored, say=lambda _line: None)
    written = trained.content
    summary = {
        "results": str(trained.path), "video": written["video"], "video_episode": written["video_episode"],
        "per_task": written["per_task"], "restarts": written["restarts"], "failed_worlds": written["failed_worlds"],
        "error": written["error"], "table": trained.result.table(), "max_difficulty": run.eval_max_difficulty,
        "time_limits": run.eval_time_limits,
    }
    if run.baseline is not None:
        baseline = run_scored_evaluation(attr.evolve(
            scored, kind="random", policy=RandomPolicy(config.action_space, seed=run.seed), label=f"random policy (seed {run.seed})",
            out_dir=eval_dir / "random", video=None,
        ), say=lambda _line: None)
        summary.update(
            baseline=run.baseline, baseline_results=str(baseline.path), baseline_per_task=baseline.content["per_task"],
            baseline_error=baseline.content["error"],
            table=comparison_table({"trained": trained.result, run.baseline: baseline.result}),
        )
        if summary["error"] is None and baseline.content["error"] is not None:
            summary["error"] = f"baseline: {baseline.content['error']}"
    return summary


def _cmd_train(args: argparse.Namespace) -> int:
    from avalon.training.curriculum import CurriculumConfig

    algorithm = get_algorithm(args.trainer)
    overrides = {
        option.field: getattr(args, option.dest) for option in algorithm.options if getattr(args, option.dest) is not None
    }
    settings = choose_settings(algorithm, args.preset, args.device, {key: getattr(args, key) for key in RUN_SETTINGS}, overrides)
    run = TrainingRun(
        out_dir=Path(args.out or f"runs/{algorithm.name}-{time.strftime('%Y%m%d-%H%M%S')}"),
        algorithm=algorithm.name,
        tasks=task_list(args.tasks) if args.tasks else ((task_for("first"),) if PROTOCOLS[args.protocol] is None else ()),
        protocol=args.protocol,
        total_steps=args.steps,
        num_envs=settings.run["envs"],
        resume=args.resume,
        seed=args.seed,
        env_config=EnvConfig(renderer=args.renderer, resolution=settings.run["resolution"], action_space=args.action_space),
        curriculum=CurriculumConfig(
            step_size=settings.run["difficulty_step"], initial_difficulty=args.initial_difficulty, enabled=not args.no_curriculum
        ),
        config_overrides=settings.config,
        checkpoint_interval_steps=args.checkpoint_every,
        keep_checkpoints=args.keep_checkpoints,
        eval_episodes=args.eval_episodes,
        eval_max_difficulty=args.eval_max_difficulty,
        eval_time_limits=args.eval_time_limits,
        baseline=args.baseline,
        video_resolution=args.video_resolution,
        device=settings.device,
        settings=settings.to_json(),
    )
    for warning in settings.warnings:
        print(f"avalon train: warning: {warning}", file=sys.stderr)
    print(
        f"avalon train {algorithm.name}: {run.protocol} on {', '.join(run.tasks) or run.protocol}, {run.total_steps} env steps, "
        f"{run.num_envs} simulators ({run.env_config.renderer}, {run.env_config.resolution}x{run.env_config.resolution}, "
        f"{run.env_config.action_space}), "
        f"curriculum {'on, H_t=' + format(run.curriculum.step_size, 'g') if run.curriculum.enabled else 'off'}"
    )
    print("\n".join(settings.lines()))
    summary = run_training(run)
    print(
        f"trained {summary['env_steps']} env steps in {summary['updates']} updates, {summary['episodes']} episodes; "
        f"{summary['steps_per_second']:.0f} steps/s including learning, {summary['env_wait_fraction']:.0%} of the time "
        f"waiting on the simulators; simulator crashes: {summary['simulator_crashes']}"
    )
    difficulties = ", ".join(f"{task} {value:.4f}" for task, value in summary["max_difficulty"].items())
    print(f"curriculum max difficulty: {difficulties}")
    evaluation = summary.get("evaluation")
    if evaluation is not None:
        beside = f"; beside the {evaluation['baseline']} policy on the same worlds" if evaluation.get("baseline") else ""
        print(f"evaluation (difficulty 0 to {evaluation['max_difficulty']:g}, {evaluation['time_limits']} time limits{beside}):")
        print(evaluation["table"])
    print(f"logs (tensorboard --logdir {summary['tensorboard']}): {summary['tensorboard']}")
    print(f"checkpoint: {summary['checkpoint']}")
    if summary.get("learning_curve"):
        print(f"learning curve (success rate of the training episodes): {summary['learning_curve']}")
    if evaluation is not None:
        baseline = f" and {evaluation['baseline_results']}" if evaluation.get("baseline") else ""
        print(f"evaluation results: {evaluation['results']}" + baseline)
        if evaluation["video"]:
            print(f"video of {video_episode(evaluation['video_episode'])} (RGB beside depth): {evaluation['video']}")
    print(f"summary: {summary['summary']}")
    if summary["interrupted"] is not None:
        print(
            f"stopped by {summary['interrupted']} after the update at {summary['env_steps']} env steps, no evaluation; "
            f"to continue: the same command with --resume --out {run.out_dir}"
        )
        return 128 + signal.Signals[summary["interrupted"]].value
    if evaluation is not None and evaluation["error"]:
        print(f"avalon train: error: evaluation: {evaluation['error']}", file=sys.stderr)
        return 1
    return 0


def _add_train_parser(trainers: argparse._SubParsersAction, algorithm: Algorithm) -> None:
    """``avalon train <algorithm>``: the options of every training run, and the algorithm's own
    (its registry row's ``options``, between the curriculum's and the checkpoints')."""
    parser = trainers.add_parser(algorithm.name, help=algorithm.summary)
    parser.add_argument("--preset", choices=[preset.name for preset in algorithm.presets] or None, help=preset_help(algorithm.presets))
    parser.add_argument("--tasks", help="comma-separated training tasks (default eat; the MT-* protocols fix their own)")
    parser.add_argument(
        "--protocol", default="multi-task", choices=tuple(PROTOCOLS),
        help="training protocol of the paper's section 5.2 (MT-* fix their own tasks)",
    )
    parser.add_argument("--steps", type=int, default=200_000, help="env steps over all simulators (default 200000)")
    parser.add_argument("--envs", type=int, help="simulators stepped in parallel (default: the preset's)")
    parser.add_argument("--out", help=f"run folder (default runs/{algorithm.name}-TIMESTAMP)")
    parser.add_argument("--resume", action="store_true", help="continue from the latest checkpoint in --out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    parser.add_argument("--resolution", type=int, help="pixels per side (default: the preset's)")
    parser.add_argument("--action-space", choices=tuple(ACTION_SPACES), default="vr")
    parser.add_argument("--no-curriculum", action="store_true", help="difficulties from U[0, 1] (the paper's ablation)")
    parser.add_argument(
        "--difficulty-step", type=float,
        help=f"H_t of the curriculum (default: the preset's; Table 7, {algorithm.title}: {algorithm.difficulty_step:g})",
    )
    parser.add_argument("--initial-difficulty", type=float, default=0.0, help="d_t at the start (default 0)")
    for option in algorithm.options:
        parser.add_argument(option.flag, type=option.type, help=option.help)
    parser.add_argument("--checkpoint-every", type=int, default=100_000, help="env steps between checkpoints")
    parser.add_argument("--keep-checkpoints", type=int, default=3, help="newest checkpoints kept (default 3)")
    parser.add_argument("--eval-episodes", type=int, default=10, help="evaluation worlds per task after training (0 skips)")
    parser.add_argument("--eval-max-difficulty", type=float, default=1.0)
    parser.add_argument("--eval-time-limits", choices=("world", "training"), default="world")
    parser.add_argument("--baseline", choices=("random",), help="also evaluate this policy on the same worlds and print both")
    parser.add_argument("--video-resolution", type=int, default=256, help="pixels per side of the evaluation GIF's frames (default 256)")
    parser.add_argument(
        "--device", default="auto",
        help="the learner's torch device: auto (default: cuda where torch sees a GPU, else cpu), cpu, cuda or cuda:N",
    )
    parser.set_defaults(handler=_cmd_train)


def add_parser(commands: argparse._SubParsersAction) -> None:
    """``avalon train <algorithm>``: one sub-command per registered algorithm."""
    algorithms = ", ".join(algorithm.title for algorithm in ALGORITHMS.values())
    train = commands.add_parser("train", help=f"train an agent ({algorithms}) with the difficulty curriculum")
    trainers = train.add_subparsers(dest="trainer", required=True)
    for algorithm in ALGORITHMS.values():
        _add_train_parser(trainers, algorithm)
