#!/usr/bin/env python
"""Success rate of a uniformly random agent (``env.action_space.sample()``) on generated task worlds.

Episode k plays the world of seed ``first_seed + k`` with actions sampled from the action space
seeded with ``action_seed + k``, so a run is reproducible. Prints one line per episode (with
``--verbose``) and a summary per action space: successes / episodes, a 95 % Wilson interval,
grasps and the mean episode length. Usage:

    bin/random_agent_success.py [--task eat] [--difficulty 0] [--episodes 50] [--frames 200]
                                [--spaces vr mouse_keyboard] [--first-seed 0] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import time

from avalon import AvalonEnv, EnvConfig


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a binomial proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def run_space(space: str, args: argparse.Namespace) -> dict:
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space=space, task=args.task, difficulty=args.difficulty))
    successes = grasped = frames = 0
    started = time.time()
    try:
        for k in range(args.episodes):
            env.reset(seed=args.first_seed + k, options={"time_limit_frames": args.frames})
            env.action_space.seed(args.action_seed + k)
            done = success = grasp = False
            length = 0
            while not done:
                observation, _, terminated, truncated, info = env.step(env.action_space.sample())
                length += 1
                done = terminated or truncated
                success = success or bool(info["success"])
                holding = observation["left_hand_is_grasping"][0] or observation["right_hand_is_grasping"][0]
                grasp = grasp or bool(holding)
            successes += success
            grasped += grasp
            frames += length
            if args.verbose:
                print(f"{space} episode {k} seed {args.first_seed + k}: success={success} grasped={grasp} "
                      f"frames={length}", flush=True)
    finally:
        env.close()
    low, high = wilson_interval(successes, args.episodes)
    return {
        "space": space, "task": args.task, "difficulty": args.difficulty, "episodes": args.episodes,
        "frames_limit": args.frames, "successes": successes, "rate": successes / args.episodes,
        "wilson_95": [low, high], "episodes_with_a_grasp": grasped, "mean_frames": frames / args.episodes,
        "wall_s": time.time() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="eat")
    parser.add_argument("--difficulty", type=float, default=0.0)
    parser.add_argument("--episodes", type=int, default=50)
    parser.add_argument("--frames", type=int, default=200, help="time limit per episode (10 frames per second)")
    parser.add_argument("--spaces", nargs="+", default=["vr", "mouse_keyboard"])
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--action-seed", type=int, default=1000)
    parser.add_argument("--json", help="also write the summaries here")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    results = []
    for space in args.spaces:
        result = run_space(space, args)
        results.append(result)
        low, high = result["wilson_95"]
        print(
            f"{space}: {result['successes']}/{result['episodes']} successes ({100 * result['rate']:.1f} %, "
            f"95 % interval {100 * low:.1f}-{100 * high:.1f} %), {result['episodes_with_a_grasp']} episodes "
            f"with a grasp, mean length {result['mean_frames']:.0f} frames, {result['wall_s']:.0f} s",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=2)


if __name__ == "__main__":
    main()
