"""Steps per second of the full agent against the walking-skeleton agent, on the same worlds.

Issue 4's target: on a Small eat world the full agent (grasp, climb, eat, falls, movement work,
achievements) steps at >= 90% of the skeleton agent's rate. Both are measured in one run: the
skeleton's code is checked out from git (``--skeleton``, default the last commit before the
mechanics) into a temporary worktree, the worlds are generated once by the current code, and the
two agents take turns (``--rounds``) so that a noisy machine affects both alike. The speed-ups of
the link to Python, the main loop and the simulator made since ``PORT_BASE`` are applied to the
skeleton too.

    .venv/bin/avalon benchmark agent [--skeleton c94fb9c] [--rounds 3] [--steps 2000]

Per agent and world it prints the median steps/s (random VR actions, GLES2, 96x96) and the median
CPU time per step of the Godot process and of Python.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[3]
SKELETON_REVISION = "c94fb9c"  # "Protocol 3 ...": the agent before the game mechanics of issue 4
# Speed-ups of the link to Python (godot/link/link.gd, godot/bridge/bridge.gd in the skeleton; git
# diff -M follows the rename), the main loop and the Python simulator made after the mechanics
# landed have nothing to do with the agent: their diff since PORT_BASE is applied to the skeleton's
# checkout too, so that the comparison measures the agent alone (--no-port to skip it).
PORT_BASE = "4ec1c50"
PORTED_FILES = ("godot/bridge/bridge.gd", "godot/link/link.gd", "godot/main.gd", "avalon/sim/simulator.py", "avalon/sim/display.py")
DIFFICULTIES = (0.0, 0.5, 1.0)  # eat worlds at these difficulties are all Small


def _process_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(world_dir: str, steps: int, warmup: int = 50) -> dict[str, float]:
    """Runs random actions in one world with the ``avalon`` package on sys.path (either agent)."""
    from avalon import AvalonEnv, EnvConfig

    env = AvalonEnv(EnvConfig(renderer="GLES2", world_dir=world_dir))
    try:
        env.reset(seed=1)
        env.action_space.seed(1)
        actions = [env.action_space.sample() for _ in range(warmup + steps)]
        for action in actions[:warmup]:
            env.step(action)
        pid = env.simulator_pid
        godot_start, python_start, wall_start = _process_cpu_s(pid), time.process_time(), time.perf_counter()
        for action in actions[warmup:]:
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset(seed=1)
        wall = time.perf_counter() - wall_start
        return {
            "steps_per_second": steps / wall,
            "godot_cpu_ms_per_step": (_process_cpu_s(pid) - godot_start) / steps * 1e3,
            "python_cpu_ms_per_step": (time.process_time() - python_start) / steps * 1e3,
        }
    finally:
        env.close()


def _run_child(code_dir: Path, world_dir: Path, steps: int) -> dict[str, float]:
    environment = dict(os.environ, PYTHONPATH=str(code_dir))
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(world_dir), "--steps", str(steps)]
    output = subprocess.run(command, env=environment, check=True, capture_output=True, text=True, cwd=code_dir).stdout
    return json.loads(output.strip().splitlines()[-1])


def _port_infrastructure(skeleton_dir: Path) -> None:
    """Applies the agent-independent speed-ups (PORTED_FILES since PORT_BASE) to the skeleton's checkout."""
    patch = subprocess.run(["git", "-C", str(REPOSITORY), "diff", "-M", PORT_BASE, "--", *PORTED_FILES],
                           check=True, capture_output=True).stdout
    applied = subprocess.run(["git", "-C", str(skeleton_dir), "apply"], input=patch, capture_output=True)
    if applied.returncode != 0:
        sys.exit(f"could not apply the link/main-loop speed-ups to the skeleton (use --no-port):\n{applied.stderr.decode()}")
    print(f"skeleton: applied the speed-ups of {', '.join(PORTED_FILES)} since {PORT_BASE}", file=sys.stderr)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--skeleton", default=SKELETON_REVISION, help="git revision of the skeleton agent")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=2000, help="steps per measurement")
    parser.add_argument("--no-port", action="store_true", help="do not apply the later link/main-loop speed-ups to the skeleton")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.steps <= 0 or args.rounds <= 0:
        parser.error(f"--steps ({args.steps}) and --rounds ({args.rounds}) must be positive")
    if args.child:
        print(json.dumps(measure(args.child, args.steps)))
        return 0

    sys.path.insert(0, str(REPOSITORY))
    from avalon.tasks import generate_world, task_for

    with tempfile.TemporaryDirectory(prefix="avalon-bench-agent-") as scratch:
        scratch_dir = Path(scratch)
        skeleton_dir = scratch_dir / "skeleton"
        subprocess.run(["git", "-C", str(REPOSITORY), "worktree", "add", "--detach", str(skeleton_dir), args.skeleton],
                       check=True, capture_output=True)
        if not args.no_port:
            _port_infrastructure(skeleton_dir)
        try:
            task = task_for("first")
            worlds = {d: generate_world(task, d, 1, scratch_dir / f"{task}-{d}") for d in DIFFICULTIES}
            agents = {"skeleton": skeleton_dir, "full": REPOSITORY}
            figures: dict[tuple[str, float], list[dict[str, float]]] = {}
            for round_index in range(args.rounds):
                for difficulty, world in worlds.items():
                    for agent, code_dir in agents.items():
                        result = _run_child(code_dir, world, args.steps)
                        figures.setdefault((agent, difficulty), []).append(result)
                        print(f"round {round_index + 1}/{args.rounds} eat {difficulty:.1f} {agent:8s} "
                              f"{result['steps_per_second']:6.0f} steps/s", file=sys.stderr)
        finally:
            subprocess.run(["git", "-C", str(REPOSITORY), "worktree", "remove", "--force", str(skeleton_dir)],
                           check=False, capture_output=True)

    def median(agent: str, difficulty: float, key: str) -> float:
        return statistics.median(result[key] for result in figures[(agent, difficulty)])

    def per_cpu_second(agent: str, difficulty: float) -> float:
        """Steps per CPU-second of Godot + Python: what the step costs, whatever else the machine runs."""
        return statistics.median(1e3 / (result["godot_cpu_ms_per_step"] + result["python_cpu_ms_per_step"])
                                 for result in figures[(agent, difficulty)])

    print(f"Small eat worlds, GLES2 96x96, random VR actions, median of {args.rounds} rounds of {args.steps} steps")
    print(f"{'world':10s} {'agent':9s} {'steps/s':>8s} {'steps/CPU-s':>12s} {'Godot ms':>9s} {'Python ms':>10s}")
    for difficulty in DIFFICULTIES:
        for agent in agents:
            print(f"eat {difficulty:<6.1f} {agent:9s} {median(agent, difficulty, 'steps_per_second'):8.0f} "
                  f"{per_cpu_second(agent, difficulty):12.0f} "
                  f"{median(agent, difficulty, 'godot_cpu_ms_per_step'):9.3f} {median(agent, difficulty, 'python_cpu_ms_per_step'):10.3f}")
        ratio = median("full", difficulty, "steps_per_second") / median("skeleton", difficulty, "steps_per_second")
        cpu_ratio = per_cpu_second("full", difficulty) / per_cpu_second("skeleton", difficulty)
        print(f"{'':10s} full / skeleton = {ratio:.2f} wall-clock, {cpu_ratio:.2f} per CPU-second (target >= 0.90)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
