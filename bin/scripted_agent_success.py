#!/usr/bin/env python
"""Success rate of the scripted agent (``avalon.agent.scripted``) on generated task worlds.

For each difficulty, episode k plays the world of seed ``first_seed + k`` in evaluation mode
within the world's own time limit, following the world's route (``avalon.agent.scripted.route_for``:
eat and move today). Prints per difficulty the successes and, for each failure, the seed, the food
and where the agent failed and why; ``--json`` keeps it all. Usage:

    bin/scripted_agent_success.py [--task move] [--difficulties 0,0.5,1] [--episodes 20]
                                  [--first-seed 0] [--force OPTION=VALUE ...] [--json FILE]

``--force`` pins a forced option of the task's (``TaskSpec.forcing``, e.g. ``base_task=throw`` for
carry): each world is then built forced and exported, and the episode plays that folder.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Optional

from avalon import AvalonEnv, EnvConfig
from avalon.agent.scripted import follower_for, route_for, run_episode
from avalon.agent.scripted.actions import ACTION_SPACE
from avalon.datagen.export import export_world
from avalon.tasks import build_world, check_difficulty, check_task
from avalon.tasks.kit.forcing import parse_forced


def run(task: str, difficulty: float, episodes: int, first_seed: int, forced: Optional[dict[str, str]] = None) -> dict:
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space=ACTION_SPACE, resolution=32, is_training=False,
                              task=task, difficulty=difficulty))
    successes, failures, steps = 0, [], []
    started = time.time()
    work = Path(tempfile.mkdtemp(prefix="scripted-success-"))
    try:
        for seed in range(first_seed, first_seed + episodes):
            world = build_world(task, difficulty, seed, forced=forced or None)
            # A forced world is not the one the env builds from the seed: play its exported folder.
            options = {"world_dir": str(export_world(world, work / f"{task}-{seed}"))} if forced else None
            episode = run_episode(env, follower_for(world, route_for(world)), seed=seed, options=options)
            if forced:
                shutil.rmtree(work / f"{task}-{seed}", ignore_errors=True)
            successes += episode.success
            steps.append(episode.steps)
            if not episode.success:
                failures.append({"seed": seed, "food": [food.kind for food in world.food], "why": episode.follow.describe()})
    finally:
        env.close()
        shutil.rmtree(work, ignore_errors=True)
    return {"task": task, "difficulty": difficulty, "forced": dict(forced or {}), "episodes": episodes, "successes": successes,
            "rate": successes / episodes, "mean_steps": sum(steps) / len(steps), "failures": failures,
            "wall_s": time.time() - started}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="move")
    parser.add_argument("--difficulties", default="0,0.5,1", help="comma-separated difficulties")
    parser.add_argument("--episodes", type=int, default=20, help="worlds per difficulty")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--force", action="append", default=[], metavar="OPTION=VALUE",
                        help="a forced option of the task (repeatable), e.g. base_task=throw")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    try:
        check_task(args.task)
        difficulties = [check_difficulty(float(part)) for part in args.difficulties.split(",") if part.strip()]
        forced = parse_forced(args.force)
        if forced:
            build_world(args.task, difficulties[0] if difficulties else 0.0, args.first_seed, forced=forced)  # checks them
    except ValueError as error:
        parser.error(str(error))
    if args.episodes < 1 or not difficulties:
        parser.error("expected --episodes >= 1 and at least one difficulty")
    results = []
    for difficulty in difficulties:
        result = run(args.task, difficulty, args.episodes, args.first_seed, forced)
        results.append(result)
        label = args.task + "".join(f" {key}={value}" for key, value in forced.items())
        print(f"{label} d={difficulty:g}: {result['successes']}/{result['episodes']} successes, "
              f"mean {result['mean_steps']:.0f} steps, {result['wall_s']:.0f} s", flush=True)
        for failure in result["failures"]:
            print(f"    seed {failure['seed']} ({', '.join(failure['food'])}): {failure['why']}", flush=True)
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=2)


if __name__ == "__main__":
    main()
