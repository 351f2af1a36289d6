"""The ``avalon`` command: ``train``, ``eval``, ``evalset``, ``run``, ``replay``, ``play``, ``human``, ``benchmark``, ``world``."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np

from avalon.agent.registry import ALGORITHMS, Algorithm, get_algorithm
from avalon.env.config import EnvConfig
from avalon.errors import AvalonError
from avalon.sim.protocol import ACTION_SPACES
from avalon.sim.settings import RENDERERS


def _add_env_options(parser: argparse.ArgumentParser, default_renderer: str = "GLES3") -> None:
    parser.add_argument("--renderer", choices=RENDERERS, default=default_renderer)
    parser.add_argument("--resolution", type=int, default=96, help="pixels per side (default 96)")
    parser.add_argument("--action-space", choices=tuple(ACTION_SPACES), default="vr")


def _cmd_run(args: argparse.Namespace) -> int:
    from avalon.demo import run_random_episode

    out = Path(args.out or f"runs/random-{time.strftime('%Y%m%d-%H%M%S')}")
    config = EnvConfig(renderer=args.renderer, resolution=args.resolution, action_space=args.action_space,
                       render_resolution=args.render_resolution)
    print(f"avalon run: one episode of a random agent in the trivial world ({args.renderer}, {args.resolution}x{args.resolution})")
    figures = run_random_episode(out, config, seed=args.seed)
    print(f"  steps: {figures['steps']}   steps per second: {figures['steps_per_second']:.0f}   return: {figures['return']:.4f}")
    size = figures["picture_size"]
    print(f"  frames (RGB above depth, rendered at {size}x{size}): {figures['strip']}")
    print(f"  recording: {figures['recording']}   (replay: avalon replay {figures['recording']})")
    return 0


#: ``avalon replay``'s exit codes (2 is argparse's own, for a usage error).
REPLAY_EXIT_CODES = {
    0: "identical: every observation, reward and the episode's end as recorded (a folder: every file)",
    1: "replayed, but different (what differed is printed); a folder: some file differed or failed (its row says)",
    2: "usage error",
    3: "the file is missing, unreadable, truncated or not an episode file",
    4: "the world inside the file is refused as unsafe or corrupt",
    5: "the simulator failed (or is not installed)",
}


def _cmd_replay(args: argparse.Namespace) -> int:
    from avalon.data.recording import EpisodeFileError, replay
    from avalon.errors import SimulatorError, SimulatorNotInstalledError, WorldLoadError

    if Path(args.file).is_dir():
        return _replay_folder(args)
    overrides = {} if args.renderer is None else {"renderer": args.renderer}
    try:
        result = replay(args.file, **overrides)
    except EpisodeFileError as error:
        code, what = 3, error
    except WorldLoadError as error:
        code, what = 4, error
    except (SimulatorError, SimulatorNotInstalledError) as error:
        code, what = 5, error
    else:
        print(result.describe())
        return 0 if result.identical else 1
    print(f"avalon replay: error: {what}", file=sys.stderr)
    return code


def _replay_folder(args: argparse.Namespace) -> int:
    from avalon.data.replay_folder import episode_files, replay_files, replay_table

    if args.renderer is not None:
        raise ValueError("--renderer applies to one file; a folder replays each file as it was recorded")
    files = episode_files(args.file)
    print(f"avalon replay: {len(files)} episode files under {args.file}, {args.jobs} processes")
    results = replay_files(files, args.jobs)
    table = replay_table(results, args.file)
    print(table)
    if args.report:
        Path(args.report).write_text(table + "\n")
        print(f"table written to {args.report}")
    return 0 if all(result.identical for result in results) else 1


def _cmd_play(args: argparse.Namespace) -> int:
    from avalon.play.session import PlayOptions, PlaySession

    options = PlayOptions(
        player=args.player, task=None if (args.world or args.set) else args.task, difficulty=args.difficulty, seed=args.seed,
        world_dir=args.world, set_name=args.set, set_index=args.index, root=args.root, window_pixels=args.window_pixels,
        renderer=args.renderer, paused=args.paused,
    )
    try:
        result = PlaySession(options).run()
    except OSError as error:
        print(f"avalon play: error: {error}", file=sys.stderr)
        return 2
    meta = result.meta
    outcome = "success" if meta["success"] else ("unfinished" if not meta["finished"] else meta["ending"])
    print(f"avalon play: {meta['frames']} steps, {outcome}, score {meta['score']:.3f}, restarts {meta['restarts']}")
    print(f"  recorded in {result.run}   (replay: avalon replay {result.run})")
    if result.step_seconds:
        ms = np.array(result.step_seconds) * 1000.0
        print(f"  step times (simulator and the {args.window_pixels}-pixel picture): median {np.median(ms):.0f} ms, "
              f"90th percentile {np.percentile(ms, 90):.0f} ms, max {ms.max():.0f} ms; "
              f"{np.mean(ms > 100.0):.0%} over 100 ms; the window drew {result.display_fps:.0f} frames per second")
    return 0


def _cmd_human_compare(args: argparse.Namespace) -> int:
    from avalon.data.pose_import import check_player
    from avalon.play.compare import CompareSession, collect_runs, ranking_table

    runs = collect_runs(args.runs)
    out = Path(args.out)
    print(f"avalon human compare: {len(runs)} runs ({', '.join(run.name for run in runs)}); judgements go to {out / 'comparisons.jsonl'}")
    rows = CompareSession(runs, out, judge=check_player(args.judge), pixels=args.pixels, max_comparisons=args.max).run()
    print(ranking_table(rows))
    print(f"ranking written to {out / 'ranking.json'} and {out / 'ranking.md'}")
    return 0


def _cmd_human_score(args: argparse.Namespace) -> int:
    import json

    from avalon.data.human_scores import human_episodes, human_reference, load_scores, reference_report
    from avalon.data.replay_folder import episode_files, replay_files

    random_scores = load_scores(args.random) if args.random else None
    files = episode_files(args.folder)
    started = time.monotonic()
    print(f"avalon human score: replaying {len(files)} episode files under {args.folder} with {args.jobs} processes")
    results = replay_files(files, args.jobs)
    episodes, left_out = human_episodes(results)
    reference = human_reference(episodes, random_scores, left_out)
    out = Path(args.out or Path(args.folder) / "human_reference.json")
    out.write_text(json.dumps(reference.to_json(), indent=2) + "\n")
    print(reference_report(reference))
    print(f"{len(episodes)} episodes scored in {time.monotonic() - started:.0f} s; "
          f"the reference of {len(reference.worlds)} worlds written to {out}"
          + ("" if random_scores else " (no --random baseline: no world was checked against random)"))
    return 0 if not left_out else 1


def _cmd_human_import(args: argparse.Namespace) -> int:
    from avalon.data.pose_import import import_pose_track
    from avalon.data.pose_tracks import PoseTrackError

    try:
        imported = import_pose_track(
            args.track, args.player, args.root, world_dir=args.world, task=args.task, difficulty=args.difficulty,
            seed=args.seed, renderer=args.renderer, resolution=args.resolution,
        )
    except PoseTrackError as error:
        print(f"avalon human import: error: {error}", file=sys.stderr)
        return 3
    except (ValueError, PermissionError) as error:
        print(f"avalon human import: error: {error}", file=sys.stderr)
        return 2
    outcome = "success" if imported.success else imported.ending
    print(f"avalon human import: {imported.frames} steps, {outcome}, score {imported.score:.3f}")
    print(f"  episode: {imported.episode}   (replay: avalon replay {imported.episode})")
    print(f"  metadata: {imported.meta}")
    return 0


def _cmd_benchmark(args: argparse.Namespace) -> int:
    from avalon.bench.steps import BenchmarkOptions, run_benchmark, save_results

    options = BenchmarkOptions(
        renderers=tuple(args.renderers.split(",")),
        processes=tuple(int(p) for p in args.processes.split(",")),
        steps=args.steps,
        resolution=args.resolution,
        repeats=args.repeats,
        resets=args.resets,
        peer=not args.no_peer,
    )
    for renderer in options.renderers:
        if renderer not in RENDERERS:
            raise SystemExit(f"unknown renderer {renderer!r}; choose from {', '.join(RENDERERS)}")
    results = run_benchmark(options)
    if args.json:
        save_results(results, Path(args.json))
        print(f"figures saved to {args.json}")
    return 0


def _task_list(text: str) -> tuple[str, ...]:
    tasks = tuple(task.strip() for task in text.split(",") if task.strip())
    if not tasks:
        raise ValueError(f"--tasks {text!r} names no task (e.g. --tasks eat,move)")
    return tasks


def _cmd_train(args: argparse.Namespace) -> int:
    from avalon.training.curriculum import CurriculumConfig
    from avalon.training_run import TrainingRun, run_training

    algorithm = get_algorithm(args.trainer)
    overrides = {
        option.field: getattr(args, option.dest) for option in algorithm.options if getattr(args, option.dest) is not None
    }
    run = TrainingRun(
        out_dir=Path(args.out or f"runs/{algorithm.name}-{time.strftime('%Y%m%d-%H%M%S')}"),
        algorithm=algorithm.name,
        tasks=_task_list(args.tasks) if args.tasks else (("eat",) if args.protocol in ("single-task", "multi-task") else ()),
        protocol=args.protocol,
        total_steps=args.steps,
        num_envs=args.envs,
        resume=args.resume,
        seed=args.seed,
        env_config=EnvConfig(renderer=args.renderer, resolution=args.resolution, action_space=args.action_space),
        curriculum=CurriculumConfig(
            step_size=args.difficulty_step, initial_difficulty=args.initial_difficulty, enabled=not args.no_curriculum
        ),
        config_overrides=overrides,
        checkpoint_interval_steps=args.checkpoint_every,
        keep_checkpoints=args.keep_checkpoints,
        eval_episodes=args.eval_episodes,
        eval_max_difficulty=args.eval_max_difficulty,
        eval_time_limits=args.eval_time_limits,
        baseline=args.baseline,
        video_resolution=args.video_resolution,
        device=args.device,
    )
    print(
        f"avalon train {algorithm.name}: {run.protocol} on {', '.join(run.tasks) or run.protocol}, {run.total_steps} env steps, "
        f"{run.num_envs} simulators ({run.env_config.renderer}, {run.env_config.resolution}x{run.env_config.resolution}, "
        f"{run.env_config.action_space}), "
        f"curriculum {'on, H_t=' + format(run.curriculum.step_size, 'g') if run.curriculum.enabled else 'off'}"
    )
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
            print(f"video of {_video_episode(evaluation['video_episode'])} (RGB beside depth): {evaluation['video']}")
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


def _video_episode(chosen: dict | None) -> str:
    if chosen is None:
        return "an evaluation episode"
    outcome = "it succeeds" if chosen["success"] else "it fails"
    return f"the episode of evaluation world {chosen['world']} ({outcome})"


def _eval_policy(args: argparse.Namespace):
    """(kind, policy, label, EnvConfig) of ``avalon eval``'s policy options. A checkpoint brings
    its own action space and resolution: asking for others is refused, naming both."""
    from avalon.env.spaces import action_space
    from avalon.evaluation import RandomPolicy
    from avalon.scoring.reference import REFERENCE_ACTION_SPACE

    if (args.checkpoint is None) == (args.policy is None):
        raise ValueError("give exactly one of --checkpoint PATH and --policy random (or --policy reference)")
    if args.checkpoint is not None:
        from avalon.agent import load_policy

        policy = load_policy(args.checkpoint, seed=args.seed)
        own = policy.env_config_overrides()
        asked = {"action_space": args.action_space, "resolution": args.resolution}
        clashes = {name: value for name, value in asked.items() if value is not None and name in own and own[name] != value}
        if clashes:
            theirs = ", ".join(f"{name} {own[name]!r}" for name in clashes)
            ours = ", ".join(f"{name} {value!r}" for name, value in clashes.items())
            raise ValueError(f"checkpoint {args.checkpoint} was trained with {theirs}; this evaluation's configuration has "
                             f"{ours}: a policy is evaluated in the observations and actions it was trained on")
        config = EnvConfig(renderer=args.renderer, render_resolution=args.video_resolution, **own)
        return "checkpoint", policy, f"checkpoint {Path(args.checkpoint).resolve()}", config
    if args.policy == "reference":
        if args.action_space not in (None, REFERENCE_ACTION_SPACE):
            raise ValueError(f"the scripted reference agents act in the {REFERENCE_ACTION_SPACE!r} action space; this "
                             f"evaluation's configuration has {args.action_space!r}")
        config = EnvConfig(renderer=args.renderer, resolution=args.resolution or 96, action_space=REFERENCE_ACTION_SPACE,
                           render_resolution=args.video_resolution)
        return "reference", None, "scripted reference agents", config
    config = EnvConfig(renderer=args.renderer, resolution=args.resolution or 96, action_space=args.action_space or "vr",
                       render_resolution=args.video_resolution)
    return "random", RandomPolicy(action_space(config.action_space), seed=args.seed), f"random policy (seed {args.seed})", config


def _eval_worlds(args: argparse.Namespace) -> tuple[list, str]:
    """The requested worlds and how to name them: an evaluation set, or today's evenly spaced worlds."""
    from avalon.evaluation import evaluation_worlds
    from avalon.scoring.scored_evaluation import generated_worlds_label

    if args.set is not None:
        from avalon.scoring.sets import set_requests

        return set_requests(args.set), f"set {args.set}"
    tasks = _task_list(args.tasks)
    requests = evaluation_worlds(tasks, args.episodes, args.min_difficulty, args.max_difficulty, seed=args.seed)
    return requests, generated_worlds_label(tasks, args.episodes, args.min_difficulty, args.max_difficulty, args.seed)


def _cmd_eval(args: argparse.Namespace) -> int:
    from avalon.scoring.scored_evaluation import ScoredEvaluation, run_scored_evaluation

    if args.eval_command == "compare":
        return _cmd_eval_compare(args)
    kind, policy, label, config = _eval_policy(args)
    requests, worlds_label = _eval_worlds(args)
    default_out = Path(args.checkpoint).parent / f"eval-{time.strftime('%Y%m%d-%H%M%S')}" if kind == "checkpoint" else \
        Path(f"runs/eval-{kind}-{time.strftime('%Y%m%d-%H%M%S')}")
    optional = {name: None if getattr(args, name) is None else Path(getattr(args, name))
                for name in ("baseline", "reference", "write_baseline", "write_reference")}
    writing = optional["write_baseline"] is not None or optional["write_reference"] is not None
    if args.set is not None and not writing:  # a set ships its random and reference scores: normalise with them
        from avalon.scoring.sets import set_score_file

        for name, kind in (("baseline", "random"), ("reference", "reference")):
            shipped = set_score_file(args.set, kind) if optional[name] is None else None
            if shipped is not None:
                optional[name] = shipped
                print(f"avalon eval: --{name} {shipped} (the {kind} scores shipped with set {args.set})")
    evaluation = ScoredEvaluation(
        kind=kind, policy=policy, label=label, env_config=config, requests=requests, worlds_label=worlds_label,
        out_dir=Path(args.out) if args.out else default_out, num_envs=args.envs, time_limits=args.time_limits,
        deterministic=args.deterministic, video=None if args.no_video or kind == "reference" else args.video,
        baseline_file=optional["baseline"], reference_file=optional["reference"],
        write_baseline=optional["write_baseline"], write_reference=optional["write_reference"],
    )
    print(
        f"avalon eval: {label} on {len(requests)} worlds ({worlds_label}; {config.action_space}, {config.renderer}, "
        f"{config.resolution}x{config.resolution}; time limits: {args.time_limits})"
    )
    saved = run_scored_evaluation(evaluation)
    if saved.get("video"):
        print(f"video of {_video_episode(saved['video_episode'])} (RGB beside depth): {saved['video']}")
    if saved["error"]:
        print(f"avalon eval: error: {saved['error']}", file=sys.stderr)
        return 1
    return 0


def _cmd_evalset(args: argparse.Namespace) -> int:
    """``avalon evalset list | build NAME | verify NAME | baseline NAME`` (docs/evaluation.md, "Evaluation sets")."""
    from avalon.evalsets import RECIPES, load_set, set_names
    from avalon.evalsets.build import build_set, build_summary, random_baseline, verify_set
    from avalon.evalsets.recipe import recipe

    if args.evalset_command == "list":
        for name in sorted(set(set_names(args.dir)) | set(RECIPES)):
            try:
                evalset = load_set(name, args.dir)
                print(f"{name}: version {evalset.version}, {len(evalset.worlds)} worlds ({', '.join(evalset.tasks())}), "
                      f"generator {evalset.created_with}")
            except ValueError:
                print(f"{name}: not built (avalon evalset build {name})")
        return 0
    if args.evalset_command == "build":
        chosen = recipe(args.name)
        where = f"Ray at {args.ray}" if args.ray else f"{args.jobs or 'all'} local process(es)"
        print(f"avalon evalset build: {chosen.name} version {chosen.version}, {chosen.worlds_per_task} worlds per task, "
              f"reference agent {'skipped' if args.no_reference else 'in the simulator'}, on {where}", flush=True)
        result = build_set(chosen, args.dir, jobs=args.jobs, ray_address=args.ray, run_reference=not args.no_reference)
        print(build_summary(result))
        print(f"manifest, reference scores and report written beside {args.dir or 'avalon/evalsets'}/{chosen.name}.json")
        return 0
    if args.evalset_command == "baseline":
        result = random_baseline(args.name, args.dir, jobs=args.jobs, ray_address=args.ray)
        print(result.summary())
        return 1 if result.failed else 0
    result = verify_set(args.name, args.dir, jobs=args.jobs, ray_address=args.ray)
    print(result.message())
    return 0 if result.ok else 1


def _add_evalset_parser(commands: argparse._SubParsersAction) -> None:
    from avalon.ray_cluster import LOCAL_RAY

    evalset = commands.add_parser("evalset", help="versioned evaluation sets: list, build, verify, baseline")
    evalset_commands = evalset.add_subparsers(dest="evalset_command", required=True)
    listing = evalset_commands.add_parser("list", help="the sets, built or not")
    listing.add_argument("--dir", help="folder of the manifests (default: the checked-in avalon/evalsets)")
    listing.set_defaults(handler=_cmd_evalset)
    for name, summary in (("build", "generate a set from its recipe: manifest, reference scores, build report"),
                          ("verify", "regenerate every world of a set and compare its content hash"),
                          ("baseline", "play the random agent on every world of a set: <name>.random.json")):
        command = evalset_commands.add_parser(name, help=summary)
        command.add_argument("name", help="the set (avalon evalset list)")
        command.add_argument("--jobs", type=int, help="worker processes, or Ray CPUs for a local Ray (default: every core)")
        command.add_argument("--ray", nargs="?", const=LOCAL_RAY, metavar="ADDRESS",
                             help="run the worlds as Ray tasks: on a local Ray started for the run, or on the cluster at ADDRESS")
        command.add_argument("--dir", help="folder of the manifests (default: the checked-in avalon/evalsets)")
        if name == "build":
            command.add_argument("--no-reference", action="store_true",
                                 help="skip the reference agent's runs in the simulator (a quick build; the report says so)")
        command.set_defaults(handler=_cmd_evalset)


def _cmd_eval_compare(args: argparse.Namespace) -> int:
    from avalon.scoring.compare import compare_runs

    out = Path(args.out or f"runs/compare-{time.strftime('%Y%m%d-%H%M%S')}")
    table, written = compare_runs(
        args.runs, out, None if args.baseline is None else Path(args.baseline), None if args.reference is None else Path(args.reference)
    )
    print(table)
    for name, path in written.items():
        print(f"{name}: {path}")
    return 0


#: ``--force``'s help (``avalon world export`` and ``preview``).
FORCE_HELP = "pin one of the task's generator choices (repeatable; the task's TaskSpec.forcing), e.g. prey_kind=rabbit"


def _cmd_world_export(args: argparse.Namespace) -> int:
    from avalon.tasks import generate_world
    from avalon.tasks.kit.forcing import parse_forced

    path = generate_world(args.task, args.difficulty, args.seed, args.output, forced=parse_forced(args.force))
    print(path)
    return 0


def _difficulties(text: str) -> tuple[float, ...]:
    """A comma-separated list of difficulties (``0,0.5,1``), each checked."""
    from avalon.tasks import check_difficulty

    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--difficulties {text!r}: expected comma-separated numbers in [0, 1], e.g. 0,0.5,1") from None
    if not values:
        raise ValueError(f"--difficulties {text!r}: expected at least one number in [0, 1]")
    return tuple(check_difficulty(value) for value in values)


def _cmd_world_preview(args: argparse.Namespace) -> int:
    from avalon.tasks.kit.forcing import parse_forced
    from avalon.world_preview import preview, previews

    if (args.output is None) == (args.out_dir is None):
        raise ValueError("avalon world preview: give either -o/--output (one picture at --difficulty) or --out-dir "
                         "(one picture per --difficulties, named <task>-d<difficulty>.png)")
    if args.out_dir is not None:
        difficulties = _difficulties(args.difficulties) if args.difficulties else (args.difficulty,)
        for path in previews(args.task, difficulties, args.seed, args.out_dir, args.renderer, args.panel_pixels,
                             forced=parse_forced(args.force)):
            print(path)
        return 0
    if args.difficulties:
        raise ValueError("avalon world preview: --difficulties writes one picture each: give --out-dir, not -o")
    print(preview(args.task, args.difficulty, args.seed, args.output, renderer=args.renderer, panel_pixels=args.panel_pixels,
                  forced=parse_forced(args.force)))
    return 0


def _cmd_world_benchmark(args: argparse.Namespace) -> int:
    from avalon.bench.worlds import WorldBenchOptions, run_world_benchmark, save_rows
    from avalon.datagen.terrain import WORLD_SIZES_M
    from avalon.tasks import check_task

    defaults = WorldBenchOptions()
    tasks = _task_list(args.tasks) if args.tasks else defaults.tasks
    for task in tasks:
        check_task(task)
    sizes = tuple(size.strip() for size in args.sizes.split(",") if size.strip()) if args.sizes is not None else defaults.sizes
    unknown = [size for size in sizes if size not in WORLD_SIZES_M]
    if unknown:
        raise ValueError(f"--sizes: unknown world size(s) {unknown}; the sizes are {', '.join(WORLD_SIZES_M)}")
    options = WorldBenchOptions(
        renderer=args.renderer, seeds=args.seeds, steps=args.steps, tasks=tasks, sizes=sizes,
        difficulties=_difficulties(args.difficulties) if args.difficulties else defaults.difficulties, carry=args.carry,
    )
    rows = run_world_benchmark(options)
    if args.json:
        save_rows(rows, Path(args.json))
        print(f"figures saved to {args.json}")
    return 0


def _add_train_parser(trainers: argparse._SubParsersAction, algorithm: Algorithm) -> None:
    """``avalon train <algorithm>``: the options of every training run, and the algorithm's own
    (its registry row's ``options``, between the curriculum's and the checkpoints')."""
    parser = trainers.add_parser(algorithm.name, help=algorithm.summary)
    parser.add_argument("--tasks", help="comma-separated training tasks (default eat; the MT-* protocols fix their own)")
    parser.add_argument(
        "--protocol", default="multi-task", choices=("single-task", "multi-task", "MT-TB", "MT-TA", "MT-TC"),
        help="training protocol of the paper's section 5.2 (MT-* fix their own tasks)",
    )
    parser.add_argument("--steps", type=int, default=200_000, help="env steps over all simulators (default 200000)")
    parser.add_argument("--envs", type=int, default=2, help="simulators stepped in parallel (default 2)")
    parser.add_argument("--out", help=f"run folder (default runs/{algorithm.name}-TIMESTAMP)")
    parser.add_argument("--resume", action="store_true", help="continue from the latest checkpoint in --out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    parser.add_argument("--resolution", type=int, default=96)
    parser.add_argument("--action-space", choices=tuple(ACTION_SPACES), default="vr")
    parser.add_argument("--no-curriculum", action="store_true", help="difficulties from U[0, 1] (the paper's ablation)")
    parser.add_argument(
        "--difficulty-step", type=float, default=algorithm.difficulty_step,
        help=f"H_t of the curriculum (Table 7, {algorithm.title}: {algorithm.difficulty_step:g})",
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
        "--device", default="cpu", help="the learner's torch device: cpu (default), cuda or cuda:N where a GPU exists"
    )
    parser.set_defaults(handler=_cmd_train)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="avalon", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run a random agent for one episode and save pictures of it")
    _add_env_options(run)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--render-resolution", type=int, default=256,
                     help="pixels per side of the pictures (default 256; the observation keeps --resolution)")
    run.add_argument("--out", help="output folder (default runs/random-TIMESTAMP)")
    run.set_defaults(handler=_cmd_run)

    replay = commands.add_parser(
        "replay", help="replay an episode file and check the observations are identical",
        epilog="exit codes:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in REPLAY_EXIT_CODES.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("file", help="an episode file, or a folder: every episode file below it (e.g. vr_data/)")
    replay.add_argument(
        "--renderer", choices=RENDERERS, default=None, help="replay with this renderer (default: the recorded one)"
    )
    replay.add_argument("--jobs", type=int, default=2, help="folder: replays run in parallel (default 2)")
    replay.add_argument("--report", help="folder: also write the table (Markdown) to this file")
    replay.set_defaults(handler=_cmd_replay)

    play = commands.add_parser(
        "play", help="play a world yourself in a window (keys and mouse); the episode is recorded under vr_data/",
        description="WASD walk, mouse look (C releases it), Space jump, Tab crouch, left/right button grasp with the "
        "left/right hand, wheel reach, E eat, T throw, R restart, F1 help, Esc quit. Steps at 10 per second.",
    )
    play.add_argument("--player", required=True, help="your player id (letters, digits, - and _)")
    play_world = play.add_mutually_exclusive_group()
    play_world.add_argument("--task", default="eat", help="the task whose world to play (default eat)")
    play_world.add_argument("--world", help="a world folder to play instead")
    play_world.add_argument("--set", help="an evaluation set (avalon evalset list): play its world --index")
    play.add_argument("--difficulty", type=float, default=0.0)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--index", type=int, default=0, help="with --set: which of its worlds (from 0)")
    play.add_argument("--root", default="vr_data", help="where the episode is recorded (default vr_data)")
    play.add_argument("--window-pixels", type=int, default=512, help="side of the view, rendered at that size (>= 512)")
    play.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    play.add_argument("--paused", action="store_true", help="step once per key press (debugging)")
    play.set_defaults(handler=_cmd_play)

    human = commands.add_parser("human", help="human episodes: import pose tracks, score them, judge policies side by side")
    human_commands = human.add_subparsers(dest="human_command", required=True)
    importer = human_commands.add_parser(
        "import", help="play a pose track (JSON Lines, vr_data/README.md) on a world and record it as an episode",
        epilog="exit codes: 0 recorded; 2 usage error or bad option; 3 the pose track is refused (line and reason printed)",
    )
    importer.add_argument("track", help="the pose track file")
    importer.add_argument("--player", required=True, help="player id (letters, digits, - and _)")
    where = importer.add_mutually_exclusive_group(required=True)
    where.add_argument("--world", help="a world folder")
    where.add_argument("--task", help="generate the world of this task (with --difficulty and --seed)")
    importer.add_argument("--difficulty", type=float, default=0.0)
    importer.add_argument("--seed", type=int, default=0)
    importer.add_argument("--root", default="vr_data", help="where episodes go (default vr_data)")
    importer.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    importer.add_argument("--resolution", type=int, default=96)
    importer.set_defaults(handler=_cmd_human_import)
    compare = human_commands.add_parser(
        "compare", help="judge two policies' episodes on the same world side by side; rank the policies with TrueSkill",
        description="Each run is a folder of episode files; episodes are paired by world. Keys: Left/1 left better, "
        "Right/2 right better, Down/0/Space equally, S skip, Esc stop. Judgements are kept and resumed.",
    )
    compare.add_argument("runs", nargs="+", help="two or more folders of episode files, one per policy")
    compare.add_argument("--judge", default="anonymous", help="who judges (letters, digits, - and _)")
    compare.add_argument("--out", default="comparisons", help="folder of comparisons.jsonl and the ranking (default comparisons)")
    compare.add_argument("--pixels", type=int, default=384, help="side of each video (default 384)")
    compare.add_argument("--max", type=int, default=None, help="stop after this many judgements")
    compare.set_defaults(handler=_cmd_human_compare)
    scorer = human_commands.add_parser(
        "score", help="replay every human episode under a folder, score it and write the per-world human reference",
        epilog="exit codes: 0 every episode replayed identically and was scored; 1 some were left out (listed); 2 usage error",
    )
    scorer.add_argument("folder", help="a folder of human episodes (vr_data/)")
    scorer.add_argument("--jobs", type=int, default=2, help="replays run in parallel (default 2)")
    scorer.add_argument("--random", help="per-world random baseline scores (JSON); worlds where humans do no better are left out")
    scorer.add_argument("--out", help="the reference file (default FOLDER/human_reference.json)")
    scorer.set_defaults(handler=_cmd_human_score)

    bench = commands.add_parser("benchmark", help="steps per second and memory, with the ceiling and a peer")
    bench.add_argument("--renderers", default="GLES2,GLES3")
    bench.add_argument("--processes", default="1,2", help="comma-separated process counts (default 1,2)")
    bench.add_argument("--steps", type=int, default=3000, help="steps per measurement (default 3000)")
    bench.add_argument("--resolution", type=int, default=96)
    bench.add_argument("--repeats", type=int, default=3, help="measurements per figure; the best counts (default 3)")
    bench.add_argument("--resets", type=int, default=1000, help="resets for the memory check (0 skips it)")
    bench.add_argument("--no-peer", action="store_true", help="skip MiniWorld")
    bench.add_argument("--json", help="also save the figures to this file")
    bench.set_defaults(handler=_cmd_benchmark)

    algorithms = ", ".join(algorithm.title for algorithm in ALGORITHMS.values())
    train = commands.add_parser("train", help=f"train an agent ({algorithms}) with the difficulty curriculum")
    trainers = train.add_subparsers(dest="trainer", required=True)
    for algorithm in ALGORITHMS.values():
        _add_train_parser(trainers, algorithm)

    evaluation = commands.add_parser(
        "eval", help="score a trained policy, the random agent or the scripted reference agents on a set of worlds",
        description="Scores a policy on an evaluation set (--set) or on evenly spaced fresh worlds (--tasks, --episodes); "
        "`avalon eval compare` puts several evaluations side by side.",
    )
    evaluation.add_argument("--checkpoint", help="a checkpoint written by `avalon train`")
    evaluation.add_argument("--policy", choices=("random", "reference"),
                            help="uniformly random actions, or the scripted reference agents (tasks that have one)")
    evaluation.add_argument("--set", help="an evaluation set's name (instead of --tasks and --episodes)")
    evaluation.add_argument("--tasks", default="eat", help="comma-separated tasks (default eat)")
    evaluation.add_argument("--episodes", type=int, default=10, help="worlds per task (default 10)")
    evaluation.add_argument("--min-difficulty", type=float, default=0.0)
    evaluation.add_argument("--max-difficulty", type=float, default=1.0, help="difficulties are evenly spaced in [min, max]")
    evaluation.add_argument("--envs", type=int, default=2, help="simulators run in parallel (default 2)")
    evaluation.add_argument("--seed", type=int, default=0, help="selects the evaluation worlds and seeds the policy (default 0)")
    evaluation.add_argument("--deterministic", action="store_true", help="the policy's most likely actions, not samples")
    evaluation.add_argument(
        "--time-limits", choices=("world", "training"), default="world",
        help="world: each world's own limit (the paper's evaluation, 5 min for eat and move); training: the shorter training limits",
    )
    evaluation.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    evaluation.add_argument("--resolution", type=int, default=None,
                            help="pixels per side (default 96; a checkpoint's own, and another is refused)")
    evaluation.add_argument("--action-space", choices=tuple(ACTION_SPACES), default=None,
                            help="default vr (reference: mouse_keyboard; a checkpoint's own, and another is refused)")
    evaluation.add_argument("--baseline", help="the random agent's per-world score file (normalised score 0); with --reference")
    evaluation.add_argument("--reference", help="the reference's per-world score file (normalised score 1); with --baseline")
    evaluation.add_argument("--write-baseline", metavar="FILE",
                            help="with --policy random: write the per-world scores that --baseline reads")
    evaluation.add_argument("--write-reference", metavar="FILE",
                            help="with --policy reference: write the per-world scores that --reference reads")
    evaluation.add_argument("--no-video", action="store_true", help="do not write the GIF of an episode")
    evaluation.add_argument(
        "--video", choices=("first", "first_success", "hardest_success"), default="first",
        help="which episode the GIF shows: the first world's, the first to succeed, or the success in the "
        "hardest world (default first)",
    )
    evaluation.add_argument("--video-resolution", type=int, default=256, help="pixels per side of the GIF's frames (default 256)")
    evaluation.add_argument("--out", help="output folder (default: beside the checkpoint, or runs/eval-KIND-TIMESTAMP); "
                            "an existing one's episodes.jsonl is resumed")
    evaluation.set_defaults(handler=_cmd_eval, eval_command=None)
    eval_commands = evaluation.add_subparsers(dest="eval_command")
    compare = eval_commands.add_parser(
        "compare", help="several evaluations side by side: Table 1's layout, aggregates, plots",
        description="Each RUN is an eval.json, or NAME=A.json,B.json for several runs (e.g. training seeds) of one column.",
    )
    compare.add_argument("runs", nargs="+", metavar="RUN")
    compare.add_argument("--out", help="output folder (default runs/compare-TIMESTAMP)")
    compare.add_argument("--baseline", help="normalise every run anew: the random agent's per-world score file (with --reference)")
    compare.add_argument("--reference", help="normalise every run anew: the reference's per-world score file (with --baseline)")

    _add_evalset_parser(commands)

    world = commands.add_parser("world", help="world folders")
    world_commands = world.add_subparsers(dest="world_command", required=True)
    export = world_commands.add_parser("export", help="generate a task's world folder")
    export.add_argument("--task", default="trivial")
    export.add_argument("--difficulty", type=float, default=0.0)
    export.add_argument("--seed", type=int, default=0)
    export.add_argument("-o", "--output", required=True)
    export.add_argument("--force", action="append", metavar="OPTION=VALUE", help=FORCE_HELP)
    export.set_defaults(handler=_cmd_world_export)
    show = world_commands.add_parser("preview", help="picture of a task's world: from above and from the spawn point")
    show.add_argument("--task", default="trivial")
    show.add_argument("--difficulty", type=float, default=0.0)
    show.add_argument("--difficulties", help="comma-separated difficulties, one picture each into --out-dir (e.g. 0,0.5,1)")
    show.add_argument("--seed", type=int, default=0)
    show.add_argument("--force", action="append", metavar="OPTION=VALUE", help=FORCE_HELP)
    show.add_argument("--renderer", choices=RENDERERS, default="GLES3")
    show.add_argument("--panel-pixels", type=int, default=512, help="side of each of the two panels (default 512)")
    show.add_argument("-o", "--output", help="PNG file to write")
    show.add_argument("--out-dir", help="folder to write <task>-d<difficulty>.png into (docs/images for the docs)")
    show.set_defaults(handler=_cmd_world_preview)
    bench = world_commands.add_parser("benchmark", help="generation, export, reset and steps/s per task and world size")
    bench.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    bench.add_argument("--seeds", type=int, default=3, help="worlds per row (the median counts)")
    bench.add_argument("--steps", type=int, default=1000, help="random steps per world")
    bench.add_argument("--tasks", help="comma-separated tasks (default: every registered task)")
    bench.add_argument("--difficulties", help="comma-separated difficulties of each task's rows (default 0,0.5,1)")
    bench.add_argument("--sizes", help="comma-separated island sizes of eat d = 0.5 rows (default: every size; '' for none)")
    bench.add_argument("--carry", action="store_true",
                       help="also rows with the agent carrying a stone or log, or pushing a boulder (mouse_keyboard)")
    bench.add_argument("--json", help="also save the figures to this file")
    bench.set_defaults(handler=_cmd_world_benchmark)
    return parser


@contextlib.contextmanager
def _terminate_cleanly():
    """SIGTERM (``kill PID``, a job scheduler's stop) raises ``SystemExit(143)`` in the main thread.

    Python's default for SIGTERM ends the process at once, without ``finally`` blocks or
    ``atexit``: the simulators die with their sockets, but their temporary folders, the world
    supply's folders and a half-written run would be left behind. As an exception, everything
    unwinds as on Ctrl-C. Only installed over the default handler, from the main thread. While
    a trainer runs, its own handler (``avalon.agent.common.stopping.StopRequest``) takes precedence:
    the update in progress is finished and checkpointed, and this one is put back afterwards.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with _terminate_cleanly():
        try:
            return args.handler(args)
        except (AvalonError, ValueError, FileExistsError) as error:
            print(f"avalon {args.command}: error: {error}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:  # Ctrl-C outside training (which handles it itself): no traceback
            print(f"avalon {args.command}: interrupted", file=sys.stderr)
            return 128 + signal.SIGINT


if __name__ == "__main__":
    sys.exit(main())
