"""The ``avalon`` command: ``train``, ``eval``, ``run``, ``replay``, ``benchmark``, ``world``."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from pathlib import Path

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
    0: "identical: every observation, reward and the episode's end as recorded",
    1: "replayed, but different (what differed is printed)",
    2: "usage error",
    3: "the file is missing, unreadable, truncated or not an episode file",
    4: "the world inside the file is refused as unsafe or corrupt",
    5: "the simulator failed (or is not installed)",
}


def _cmd_replay(args: argparse.Namespace) -> int:
    from avalon.data.recording import EpisodeFileError, replay
    from avalon.errors import SimulatorError, SimulatorNotInstalledError, WorldLoadError

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


def _cmd_eval(args: argparse.Namespace) -> int:
    from avalon.env.spaces import action_space
    from avalon.evaluation import RandomPolicy, evaluate_and_save, evaluation_worlds

    if (args.checkpoint is None) == (args.policy is None):
        raise ValueError("give exactly one of --checkpoint PATH and --policy random")
    if args.checkpoint is not None:
        from avalon.agent import load_policy

        policy = load_policy(args.checkpoint, seed=args.seed)
        config = EnvConfig(renderer=args.renderer, render_resolution=args.video_resolution, **policy.env_config_overrides())
        name = f"checkpoint {args.checkpoint}"
        out = Path(args.out or Path(args.checkpoint).parent / f"eval-{time.strftime('%Y%m%d-%H%M%S')}")
    else:
        config = EnvConfig(
            renderer=args.renderer, resolution=args.resolution, action_space=args.action_space, render_resolution=args.video_resolution
        )
        policy = RandomPolicy(action_space(config.action_space), seed=args.seed)
        name = "random policy"
        out = Path(args.out or f"runs/eval-random-{time.strftime('%Y%m%d-%H%M%S')}")
    tasks = _task_list(args.tasks)
    requests = evaluation_worlds(tasks, args.episodes, args.min_difficulty, args.max_difficulty, seed=args.seed)
    print(
        f"avalon eval: {name} on {len(requests)} worlds ({args.episodes} per task: {', '.join(tasks)}; "
        f"difficulty {args.min_difficulty:g} to {args.max_difficulty:g}; {config.action_space}, {config.renderer}, "
        f"{config.resolution}x{config.resolution}; time limits: {args.time_limits})"
    )
    # Worlds that fail every attempt are written with the finished episodes (exit 1 below).
    result, saved = evaluate_and_save(
        policy, config, requests, out / "eval.json", {"policy": name, "argv": sys.argv[1:]},
        num_envs=args.envs, deterministic=args.deterministic, time_limits=args.time_limits,
        video_path=None if args.no_video else out / "episode.gif", video=args.video,
    )
    print(result.table())
    print(f"results: {saved}")
    if result.video_path is not None:
        print(f"video of {_video_episode(result.to_json()['video_episode'])} (RGB beside depth): {result.video_path}")
    if result.failed_worlds:
        print(f"avalon eval: error: {result.failure_message()}", file=sys.stderr)
        return 1
    return 0


def _cmd_world_export(args: argparse.Namespace) -> int:
    from avalon.tasks import generate_world

    path = generate_world(args.task, args.difficulty, args.seed, args.output)
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
    from avalon.world_preview import preview, previews

    if (args.output is None) == (args.out_dir is None):
        raise ValueError("avalon world preview: give either -o/--output (one picture at --difficulty) or --out-dir "
                         "(one picture per --difficulties, named <task>-d<difficulty>.png)")
    if args.out_dir is not None:
        difficulties = _difficulties(args.difficulties) if args.difficulties else (args.difficulty,)
        for path in previews(args.task, difficulties, args.seed, args.out_dir, args.renderer, args.panel_pixels):
            print(path)
        return 0
    if args.difficulties:
        raise ValueError("avalon world preview: --difficulties writes one picture each: give --out-dir, not -o")
    print(preview(args.task, args.difficulty, args.seed, args.output, renderer=args.renderer, panel_pixels=args.panel_pixels))
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
    parser.add_argument("--difficulty-step", type=float, default=3e-4, help="H_t of the curriculum (Table 7: 3e-4)")
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
    replay.add_argument("file")
    replay.add_argument(
        "--renderer", choices=RENDERERS, default=None, help="replay with this renderer (default: the recorded one)"
    )
    replay.set_defaults(handler=_cmd_replay)

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

    evaluation = commands.add_parser("eval", help="evaluate a trained policy (or the random baseline) on fresh worlds")
    evaluation.add_argument("--checkpoint", help="a checkpoint written by `avalon train`")
    evaluation.add_argument("--policy", choices=("random",), help="evaluate uniformly random actions instead")
    evaluation.add_argument("--tasks", default="eat", help="comma-separated tasks (default eat)")
    evaluation.add_argument("--episodes", type=int, default=10, help="worlds per task (default 10)")
    evaluation.add_argument("--min-difficulty", type=float, default=0.0)
    evaluation.add_argument("--max-difficulty", type=float, default=1.0, help="difficulties are evenly spaced in [min, max]")
    evaluation.add_argument("--envs", type=int, default=2, help="simulators run in parallel (default 2)")
    evaluation.add_argument("--seed", type=int, default=0, help="selects the evaluation worlds (default 0)")
    evaluation.add_argument("--deterministic", action="store_true", help="the policy's most likely actions, not samples")
    evaluation.add_argument(
        "--time-limits", choices=("world", "training"), default="world",
        help="world: each world's own limit (the paper's evaluation, 5 min for eat and move); training: the shorter training limits",
    )
    evaluation.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    evaluation.add_argument("--resolution", type=int, default=96, help="random policy only (a checkpoint knows its own)")
    evaluation.add_argument("--action-space", choices=tuple(ACTION_SPACES), default="vr", help="random policy only")
    evaluation.add_argument("--no-video", action="store_true", help="do not write the GIF of an episode")
    evaluation.add_argument(
        "--video", choices=("first", "first_success", "hardest_success"), default="first",
        help="which episode the GIF shows: the first world's, the first to succeed, or the success in the "
        "hardest world (default first)",
    )
    evaluation.add_argument("--video-resolution", type=int, default=256, help="pixels per side of the GIF's frames (default 256)")
    evaluation.add_argument("--out", help="output folder (default: beside the checkpoint, or runs/eval-random-TIMESTAMP)")
    evaluation.set_defaults(handler=_cmd_eval)

    world = commands.add_parser("world", help="world folders")
    world_commands = world.add_subparsers(dest="world_command", required=True)
    export = world_commands.add_parser("export", help="generate a task's world folder")
    export.add_argument("--task", default="trivial")
    export.add_argument("--difficulty", type=float, default=0.0)
    export.add_argument("--seed", type=int, default=0)
    export.add_argument("-o", "--output", required=True)
    export.set_defaults(handler=_cmd_world_export)
    show = world_commands.add_parser("preview", help="picture of a task's world: from above and from the spawn point")
    show.add_argument("--task", default="trivial")
    show.add_argument("--difficulty", type=float, default=0.0)
    show.add_argument("--difficulties", help="comma-separated difficulties, one picture each into --out-dir (e.g. 0,0.5,1)")
    show.add_argument("--seed", type=int, default=0)
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
