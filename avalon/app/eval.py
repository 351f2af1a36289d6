"""``avalon eval``: a policy (a checkpoint, the random agent or the scripted reference agents) scored on
an evaluation set or on fresh worlds (:mod:`avalon.evaluation.scoring`), and ``avalon eval compare``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from avalon.app.options import task_list, video_episode
from avalon.env.config import EnvConfig
from avalon.sim.protocol import ACTION_SPACES
from avalon.sim.settings import RENDERERS


def _eval_policy(args: argparse.Namespace):
    """(kind, policy, label, EnvConfig) of ``avalon eval``'s policy options. A checkpoint brings
    its own action space and resolution: asking for others is refused, naming both."""
    from avalon.env.spaces import action_space
    from avalon.evaluation.policies import RandomPolicy
    from avalon.evaluation.scoring.reference import REFERENCE_ACTION_SPACE

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
    from avalon.evaluation.scoring.scored_evaluation import generated_worlds_label
    from avalon.evaluation.worlds import evaluation_worlds

    if args.set is not None:
        from avalon.evaluation.scoring.sets import set_requests

        return set_requests(args.set), f"set {args.set}"
    tasks = task_list(args.tasks)
    requests = evaluation_worlds(tasks, args.episodes, args.min_difficulty, args.max_difficulty, seed=args.seed)
    return requests, generated_worlds_label(tasks, args.episodes, args.min_difficulty, args.max_difficulty, args.seed)


def _cmd_eval(args: argparse.Namespace) -> int:
    from avalon.evaluation.scoring.scored_evaluation import ScoredEvaluation, run_scored_evaluation

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
        from avalon.evaluation.scoring.sets import set_score_file

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
        print(f"video of {video_episode(saved['video_episode'])} (RGB beside depth): {saved['video']}")
    if saved["error"]:
        print(f"avalon eval: error: {saved['error']}", file=sys.stderr)
        return 1
    return 0


def _cmd_eval_compare(args: argparse.Namespace) -> int:
    from avalon.evaluation.scoring.compare import compare_runs

    out = Path(args.out or f"runs/compare-{time.strftime('%Y%m%d-%H%M%S')}")
    table, written = compare_runs(
        args.runs, out, None if args.baseline is None else Path(args.baseline), None if args.reference is None else Path(args.reference)
    )
    print(table)
    for name, path in written.items():
        print(f"{name}: {path}")
    return 0


def add_parser(commands: argparse._SubParsersAction) -> None:
    """``avalon eval`` and ``avalon eval compare``."""
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
