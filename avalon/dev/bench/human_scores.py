"""Replaying and scoring a folder of human episodes: the time ``avalon human score`` takes.

Writes ``--episodes`` episodes of ``--steps`` random ``vr`` actions (on eat worlds of seeds 0, 1,
..., five players) in the layout of ``vr_data/`` into ``--root`` (a temporary folder by default),
then times ``avalon human score ROOT --jobs N``: every file replayed in N processes, scored and the
reference written. The issue's target: 100 episodes of 300 steps with 2 processes in at most 2
minutes. Usage:

    avalon benchmark human-scores [--episodes 100] [--steps 300] [--jobs 2] [--root DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from avalon import AvalonEnv, EnvConfig
from avalon.app.main import main as avalon
from avalon.episodes.recording import RecordEpisodes
from avalon.human.pose_import import world_folder_name
from avalon.tasks import task_for


def write_episodes(root: Path, episodes: int, steps: int) -> None:
    task = task_for("first")
    env = RecordEpisodes(AvalonEnv(EnvConfig(renderer="GLES2", action_space="vr", is_training=False, task=task)),
                         root / ".recording")
    try:
        for k in range(episodes):
            env.action_space.seed(k)
            _, info = env.reset(seed=k // 5, options={"time_limit_frames": steps})
            for _ in range(steps):  # the time limit ends the episode at `steps`, which writes its file
                _, _, terminated, truncated, info = env.step(env.action_space.sample())
                if terminated or truncated:
                    break
            world = env.unwrapped.world
            run = root / world_folder_name(world.task, world.seed, world.difficulty) / f"player{k % 5}" / f"{k:03d}"
            run.mkdir(parents=True)
            shutil.move(str(env.last_path), run / "episode.npz")
            (run / "meta.json").write_text(json.dumps({"player": f"player{k % 5}", "restarts": 0, "task": task}))
    finally:
        env.close()
        shutil.rmtree(root / ".recording", ignore_errors=True)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--root", help="where the episodes go (default: a temporary folder, removed after)")
    args = parser.parse_args(argv)
    root = Path(args.root or tempfile.mkdtemp(prefix="avalon-human-bench-"))
    try:
        started = time.monotonic()
        write_episodes(root, args.episodes, args.steps)
        print(f"wrote {args.episodes} episodes of {args.steps} steps in {time.monotonic() - started:.0f} s")
        started = time.monotonic()
        code = avalon(["human", "score", str(root), "--jobs", str(args.jobs)])
        elapsed = time.monotonic() - started
        print(f"avalon human score: {args.episodes} episodes of {args.steps} steps with {args.jobs} processes in "
              f"{elapsed:.1f} s (target <= 120 s); load average {os.getloadavg()[0]:.1f}; exit code {code}")
        return code
    finally:
        if not args.root:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
