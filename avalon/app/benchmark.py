"""``avalon benchmark [NAME] [OPTIONS]``: the developer layer's benchmarks (:mod:`avalon.dev.bench`) by name.

Each row of :data:`BENCHMARKS` names a module with ``main(argv, prog) -> int``, which parses its own
options (``avalon benchmark vector --help``). The module is imported only when its benchmark
runs: the developer layer sits above this one, which names it and never imports it otherwise,
and building the parser loads none of them. Plain ``avalon benchmark [OPTIONS]`` runs ``steps``.
"""

from __future__ import annotations

import argparse
import importlib

import attr


@attr.s(frozen=True, auto_attribs=True)
class Benchmark:
    module: str  # a module of avalon.dev.bench with main(argv, prog) -> int
    summary: str


BENCHMARKS = {
    "steps": Benchmark("avalon.dev.bench.steps", "steps per second and memory, with the ceiling and a peer (the default)"),
    "worlds": Benchmark("avalon.dev.bench.worlds",
                        "generation, export, reset and steps/s per task and world size (also avalon world benchmark)"),
    "agent": Benchmark("avalon.dev.bench.agent", "the full agent against the walking-skeleton agent, on the same worlds"),
    "animals": Benchmark("avalon.dev.bench.animals", "a Small island with 10 active animals against none"),
    "buildings": Benchmark("avalon.dev.bench.buildings",
                           "worlds with buildings: generation, export, folder size, steps/s inside one and among three"),
    "callgrind": Benchmark("avalon.dev.bench.callgrind", "Godot's instructions per step, under valgrind"),
    "carry-worlds": Benchmark("avalon.dev.bench.carry_worlds", "the world benchmark's carry rows, per base task"),
    "certificates": Benchmark("avalon.dev.bench.certificates", "what solvability certificates cost"),
    "doors": Benchmark("avalon.dev.bench.doors", "a world with 4 doors of 3 locks each against the trivial world"),
    "dreamer": Benchmark("avalon.dev.bench.dreamer", "DreamerV2's learning speed and its replay's memory"),
    "human-scores": Benchmark("avalon.dev.bench.human_scores", "the time avalon human score takes on a folder of episodes"),
    "ppo": Benchmark("avalon.dev.bench.ppo", "PPO's acting and learning costs"),
    "startup": Benchmark("avalon.dev.bench.startup", "simulator start-up, alone and with silent local clients on its port"),
    "task-generation": Benchmark("avalon.dev.bench.task_generation", "world generation per task"),
    "trainers": Benchmark("avalon.dev.bench.trainers", "PPO's and IMPALA's steps/s with learning on the same simulators"),
    "vector": Benchmark("avalon.dev.bench.vector", "ThreadedVectorEnv against Gymnasium's vector envs"),
    "world-checks": Benchmark("avalon.dev.bench.world_checks", "what the checks of an untrusted world folder cost"),
    "worldgen": Benchmark("avalon.dev.bench.worldgen", "terrain, biomes and scenery generation per world size"),
}
DEFAULT = "steps"
_HELP = ("-h", "--help")


def run_benchmark(name: str, argv: list[str], prog: str | None = None) -> int:
    """Runs benchmark ``name`` with its own command-line ``argv``; its exit code."""
    benchmark = BENCHMARKS[name]
    main = importlib.import_module(benchmark.module).main
    return main(argv, prog=prog or f"avalon benchmark {name}") or 0


def listing() -> str:
    return "benchmarks (avalon benchmark NAME --help):\n" + "\n".join(
        f"  {name:16} {benchmark.summary}" for name, benchmark in BENCHMARKS.items())


def _cmd_benchmark(args: argparse.Namespace) -> int:
    argv = list(args.arguments)
    if argv and not argv[0].startswith("-"):
        name = argv.pop(0)
        if name not in BENCHMARKS:
            raise ValueError(f"unknown benchmark {name!r}; the benchmarks are: {', '.join(BENCHMARKS)}")
        return run_benchmark(name, argv)
    if any(arg in _HELP for arg in argv):  # the default's options, then the others' names
        try:
            return run_benchmark(DEFAULT, argv, prog="avalon benchmark")
        finally:
            print("\n" + listing())
    return run_benchmark(DEFAULT, argv, prog="avalon benchmark")


def add_passthrough_parser(commands: argparse._SubParsersAction, name: str, *, help: str, handler) -> argparse.ArgumentParser:
    """A sub-command whose words all go to ``handler`` as ``args.arguments``, options and ``--help``
    included: no character starts an option of its own (NUL cannot be in a command-line argument)."""
    parser = commands.add_parser(name, help=help, add_help=False, prefix_chars="\0")
    parser.add_argument("arguments", nargs="*")
    parser.set_defaults(handler=handler)
    return parser


def add_parser(commands: argparse._SubParsersAction) -> None:
    """``avalon benchmark``."""
    add_passthrough_parser(commands, "benchmark", handler=_cmd_benchmark,
                           help="steps per second and memory, with the ceiling and a peer; NAME: another benchmark "
                           "(avalon benchmark --help lists them)")
