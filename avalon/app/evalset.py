"""``avalon evalset list | build | verify | baseline``: the versioned evaluation sets
(:mod:`avalon.evaluation.sets`)."""

from __future__ import annotations

import argparse


def _cmd_evalset(args: argparse.Namespace) -> int:
    """``avalon evalset list | build NAME | verify NAME | baseline NAME`` (docs/evaluation.md, "Evaluation sets")."""
    from avalon.evaluation.sets import RECIPES, load_set, set_names
    from avalon.evaluation.sets.baseline import random_baseline
    from avalon.evaluation.sets.build import build_set, build_summary
    from avalon.evaluation.sets.recipe import recipe
    from avalon.evaluation.sets.verify import verify_set

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
        print(f"manifest, reference scores and report written beside {args.dir or 'avalon/evaluation/sets'}/{chosen.name}.json")
        return 0
    if args.evalset_command == "baseline":
        result = random_baseline(args.name, args.dir, jobs=args.jobs, ray_address=args.ray)
        print(result.summary())
        return 1 if result.failed else 0
    result = verify_set(args.name, args.dir, jobs=args.jobs, ray_address=args.ray)
    print(result.message())
    return 0 if result.ok else 1


def add_parser(commands: argparse._SubParsersAction) -> None:
    """``avalon evalset``."""
    from avalon.training.ray_cluster import LOCAL_RAY

    evalset = commands.add_parser("evalset", help="versioned evaluation sets: list, build, verify, baseline")
    evalset_commands = evalset.add_subparsers(dest="evalset_command", required=True)
    listing = evalset_commands.add_parser("list", help="the sets, built or not")
    listing.add_argument("--dir", help="folder of the manifests (default: the checked-in avalon/evaluation/sets)")
    listing.set_defaults(handler=_cmd_evalset)
    for name, summary in (("build", "generate a set from its recipe: manifest, reference scores, build report"),
                          ("verify", "regenerate every world of a set and compare its content hash"),
                          ("baseline", "play the random agent on every world of a set: <name>.random.json")):
        command = evalset_commands.add_parser(name, help=summary)
        command.add_argument("name", help="the set (avalon evalset list)")
        command.add_argument("--jobs", type=int, help="worker processes, or Ray CPUs for a local Ray (default: every core)")
        command.add_argument("--ray", nargs="?", const=LOCAL_RAY, metavar="ADDRESS",
                             help="run the worlds as Ray tasks: on a local Ray started for the run, or on the cluster at ADDRESS")
        command.add_argument("--dir", help="folder of the manifests (default: the checked-in avalon/evaluation/sets)")
        if name == "build":
            command.add_argument("--no-reference", action="store_true",
                                 help="skip the reference agent's runs in the simulator (a quick build; the report says so)")
        command.set_defaults(handler=_cmd_evalset)
