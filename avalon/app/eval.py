"""``avalon eval``: a policy (a checkpoint, the random agent or the scripted reference agents) scored on
an evaluation set or on fresh worlds (:mod:`avalon.evaluation.scoring`), and ``avalon eval compare``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from avalon.app.options import difficulty_list, task_list, video_episode
from avalon.env.config import EnvConfig
from avalon.sim.protocol import ACTION_SPACES
from avalon.sim.settings import RENDERERS
from avalon.training.curriculum import PROTOCOLS, protocol_tasks


def _eval_policy(args: argparse.Namespace):
    """(kind, policy, label, EnvConfig) of ``avalon eval``'s policy options. A checkpoint brings
    its own action space and resolution: asking for others is refused, naming both."""
    from avalon.evaluation.policies import RandomPolicy
    from avalon.evaluation.reference import REFERENCE_ACTION_SPACE, ReferencePolicy

    if (args.checkpoint is None) == (args.policy is None):
        raise ValueError("give exactly one of --checkpoint PATH and --policy random (or --policy reference)")
    if args.repeat != 1 and args.policy != "random":
        raise ValueError(f"--repeat {args.repeat} holds the random agent's actions: give --policy random")
    rendering = {"renderer": args.renderer, "render_resolution": args.video_resolution}
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
        return "checkpoint", policy, f"checkpoint {Path(args.checkpoint).resolve()}", EnvConfig(**rendering, **own)
    if args.policy == "reference":
        if args.action_space not in (None, REFERENCE_ACTION_SPACE):
            raise ValueError(f"the scripted reference agents act in the {REFERENCE_ACTION_SPACE!r} action space; this "
                             f"evaluation's configuration has {args.action_space!r}")
        config = EnvConfig(resolution=args.resolution or 96, action_space=REFERENCE_ACTION_SPACE, **rendering)
        return "reference", ReferencePolicy(), "scripted reference agents", config
    config = EnvConfig(resolution=args.resolution or 96, action_space=args.action_space or "vr", **rendering)
    policy = RandomPolicy(config.action_space, seed=args.seed, repeat=args.repeat)
    sticky = f", each action held {args.repeat} steps" if args.repeat > 1 else ""
    return "random", policy, f"random policy (seed {args.seed}{sticky})", config


def _requested_tasks(args: argparse.Namespace) -> tuple[str, ...]:
    """The tasks asked for: ``--protocol``'s evaluation tasks (read from the specs' groups), else
    ``--tasks``; empty when neither was given."""
    if args.protocol is None:
        return task_list(args.tasks) if args.tasks else ()
    return protocol_tasks(args.protocol, task_list(args.tasks) if args.tasks else ())[1]


def _eval_worlds(args: argparse.Namespace) -> tuple[list, str]:
    """The requested worlds and how to name them: an evaluation set, or fresh worlds."""
    from avalon.evaluation.scoring.scored_evaluation import generated_worlds_label
    from avalon.evaluation.worlds import default_task, evaluation_worlds
    from avalon.tasks.kit.forcing import parse_forced

    if args.set is not None:
        from avalon.evaluation.scoring.sets import set_requests

        if args.force or args.difficulties or args.first_seed is not None:
            raise ValueError(f"--set {args.set} holds its own worlds: --force, --difficulties and --first-seed choose fresh ones")
        requests = set_requests(args.set)
        tasks = _requested_tasks(args)
        if not tasks:
            return requests, f"set {args.set}"
        absent = [task for task in tasks if task not in {request.task for request in requests}]
        if absent:
            option = f"--protocol {args.protocol}" if args.protocol else "--tasks"
            raise ValueError(f"{option}: set {args.set} holds no worlds of {', '.join(absent)}")
        which = f"protocol {args.protocol}" if args.protocol else f"tasks {','.join(tasks)}"
        return [request for request in requests if request.task in tasks], f"set {args.set}, {which}"
    tasks = _requested_tasks(args) or (default_task(),)
    difficulties = difficulty_list(args.difficulties) if args.difficulties else None
    forced = parse_forced(args.force)
    requests = evaluation_worlds(tasks, args.episodes, args.min_difficulty, args.max_difficulty, seed=args.seed,
                                 difficulties=difficulties, first_seed=args.first_seed, forced=forced)
    label = generated_worlds_label(tasks, args.episodes, args.min_difficulty, args.max_difficulty, args.seed, difficulties,
                                   args.first_seed)
    return requests, label + "".join(f", forced {option}={value}" for option, value in forced.items())


def _normalising_files(args: argparse.Namespace) -> dict[str, Path | None]:
    """``--baseline``, ``--reference`` and the ``--write-*`` files; with ``--set`` and none of
    them, the random and reference scores the set ships (said)."""
    from avalon.evaluation.scoring.sets import set_score_file

    files = {name: None if getattr(args, name) is None else Path(getattr(args, name))
             for name in ("baseline", "reference", "write_baseline", "write_reference")}
    if args.set is None or files["write_baseline"] is not None or files["write_reference"] is not None:
        return files
    kinds = {"baseline": "random", "reference": "reference"}
    shipped = {name: set_score_file(args.set, kind) for name, kind in kinds.items() if files[name] is None}
    lacking = [name for name, path in shipped.items() if path is None]
    if lacking:  # normalisation needs both files: say which the set does not ship, and which it does
        ships = "".join(f"; its {kinds[name]} scores: {path}" for name, path in shipped.items() if path is not None)
        print(f"avalon eval: set {args.set} ships no {' and no '.join(kinds[name] for name in lacking)} scores{ships}: raw "
              f"scores only, unless --baseline and --reference are given")
        return files
    for name, path in shipped.items():
        files[name] = path
        print(f"avalon eval: --{name} {path} (the {kinds[name]} scores shipped with set {args.set})")
    return files


def _cmd_eval(args: argparse.Namespace) -> int:
    from avalon.evaluation.scoring.scored_evaluation import ScoredEvaluation, run_scored_evaluation

    if args.eval_command in ("compare", "report"):
        return _cmd_eval_tables(args)
    kind, policy, label, config = _eval_policy(args)
    requests, worlds_label = _eval_worlds(args)
    if kind == "reference" and args.set is None:  # a set's other tasks are skipped, and said so
        from avalon.evaluation.reference import check_reference_tasks

        check_reference_tasks(sorted({request.task for request in requests}))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    default_out = Path(args.checkpoint).parent / f"eval-{stamp}" if kind == "checkpoint" else Path(f"runs/eval-{kind}-{stamp}")
    files = _normalising_files(args)
    evaluation = ScoredEvaluation(
        kind=kind, policy=policy, label=label, env_config=config, requests=requests, worlds_label=worlds_label,
        out_dir=Path(args.out) if args.out else default_out, num_envs=args.envs, time_limits=args.time_limits,
        deterministic=args.deterministic, video=None if args.no_video else args.video,
        baseline_file=files["baseline"], reference_file=files["reference"],
        write_baseline=files["write_baseline"], write_reference=files["write_reference"], by_difficulty=bool(args.difficulties),
    )
    print(f"avalon eval: {label} on {len(requests)} worlds ({worlds_label}; {config.action_space}, {config.renderer}, "
          f"{config.resolution}x{config.resolution}; time limits: {evaluation.time_limits})")
    saved = run_scored_evaluation(evaluation).content
    if saved.get("video"):
        print(f"video of {video_episode(saved['video_episode'])} (RGB beside depth): {saved['video']}")
    if saved["error"]:
        print(f"avalon eval: error: {saved['error']}", file=sys.stderr)
        return 1
    return 0


def _cmd_eval_tables(args: argparse.Namespace) -> int:
    """``avalon eval compare`` and ``avalon eval report``: tables over several evaluations."""
    if args.eval_command == "compare":
        from avalon.evaluation.scoring.compare import compare_runs as write_tables
    else:
        from avalon.evaluation.scoring.paper_table import write_paper_report as write_tables

    out = Path(args.out or f"runs/{args.eval_command}-{time.strftime('%Y%m%d-%H%M%S')}")
    table, written = write_tables(
        args.runs, out, None if args.baseline is None else Path(args.baseline), None if args.reference is None else Path(args.reference)
    )
    print(table)
    for name, path in written.items():
        print(f"{name}: {path}")
    return 0


def _add_world_options(evaluation: argparse.ArgumentParser) -> None:
    """Which worlds: a set, or fresh ones."""
    evaluation.add_argument("--set", help="an evaluation set's name (instead of --tasks and --episodes)")
    evaluation.add_argument("--tasks", help="comma-separated tasks (default: the first basic task of the paper's Table 1; "
                            "with --set, only the set's worlds of these tasks)")
    evaluation.add_argument("--protocol", choices=tuple(PROTOCOLS), metavar="PROTOCOL",
                            help=f"the tasks a training protocol evaluates on ({', '.join(PROTOCOLS)}: MT-* all twenty, "
                            "ST-B the one basic task --tasks names); with --set, the set's worlds of them")
    evaluation.add_argument("--episodes", type=int, default=10,
                            help="worlds per task, or per task and difficulty with --difficulties (default 10)")
    evaluation.add_argument("--min-difficulty", type=float, default=0.0)
    evaluation.add_argument("--max-difficulty", type=float, default=1.0, help="difficulties are evenly spaced in [min, max]")
    evaluation.add_argument("--difficulties", metavar="LIST",
                            help="comma-separated difficulties, e.g. 0,0.5,1: --episodes worlds at each (instead of the spacing)")
    evaluation.add_argument("--first-seed", type=int, metavar="SEED",
                            help="world seeds SEED, SEED+1, ... (at every difficulty with --difficulties) instead of drawn ones")
    evaluation.add_argument("--force", action="append", default=[], metavar="OPTION=VALUE",
                            help="a generator choice of the task's forced in every world (repeatable), e.g. food_kind=fig")
    evaluation.add_argument("--seed", type=int, default=0,
                            help="selects the drawn world seeds and seeds the policy (the random agent: each world's actions "
                            "from this plus the world's seed; default 0)")


def add_parser(commands: argparse._SubParsersAction) -> None:
    """``avalon eval`` and ``avalon eval compare``."""
    evaluation = commands.add_parser(
        "eval", help="score a trained policy, the random agent or the scripted reference agents on a set of worlds",
        description="Scores a policy on an evaluation set (--set) or on fresh worlds (--tasks, --episodes, --difficulties); "
        "prints success by task and difficulty, with where and why the scripted agents stopped; "
        "`avalon eval compare` puts several evaluations side by side.",
    )
    evaluation.add_argument("--checkpoint", help="a checkpoint written by `avalon train`")
    evaluation.add_argument("--policy", choices=("random", "reference"),
                            help="uniformly random actions, or the scripted reference agents (tasks that have one)")
    evaluation.add_argument("--repeat", type=int, default=1, metavar="K",
                            help="with --policy random: hold each sampled action K steps (sticky actions; default 1)")
    _add_world_options(evaluation)
    evaluation.add_argument("--envs", type=int, default=2, help="simulators run in parallel (default 2)")
    evaluation.add_argument("--deterministic", action="store_true", help="the policy's most likely actions, not samples")
    evaluation.add_argument(
        "--time-limits", default="world", metavar="world|training|FRAMES",
        help="world: each world's own limit (the paper's evaluation, 5 min for most tasks); training: the shorter training "
        "limits; or a number of frames (10 per second)",
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
        description="Each RUN is an eval.json (of `avalon eval` or `avalon train`), or NAME=A.json,B.json for several runs "
        "(e.g. training seeds) of one column.",
    )
    report = eval_commands.add_parser(
        "report", help="the paper's Table 1 (mean scores) and Table 8 (optimality gap) from evaluations on one set",
        description="Rows per task in the paper's order, then all basic / all compositional / all; a column per RUN, each "
        "cell the estimate with half its 95%% interval; Markdown, JSON and a figure. Each RUN is an eval.json, or "
        "NAME=A.json,B.json for several runs of one column; every run must be on the same set and set version.",
    )
    for sub, default in ((compare, "compare"), (report, "report")):
        sub.add_argument("runs", nargs="+", metavar="RUN")
        sub.add_argument("--out", help=f"output folder (default runs/{default}-TIMESTAMP)")
        sub.add_argument("--baseline", help="normalise every run anew: the random agent's per-world score file (with --reference)")
        sub.add_argument("--reference", help="normalise every run anew: the reference's per-world score file (with --baseline)")
