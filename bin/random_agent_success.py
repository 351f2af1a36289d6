#!/usr/bin/env python
"""Success rate of a uniformly random agent (``env.action_space.sample()``) on generated task worlds.

For each action space and difficulty, episode k plays the world of seed ``first_seed + k`` with
actions sampled from the action space seeded with ``action_seed + k``, so a run is reproducible
(the same worlds at every difficulty's seeds). Prints one line per episode (with ``--verbose``)
and a summary per action space and difficulty: successes / episodes, a 95 % Wilson interval,
episodes with a grasp and the mean episode length; then, per action space, whether the rate
falls with difficulty (never rises from one difficulty to the next, and ends lower than it
starts), stays the same (0 / 50 everywhere is no evidence) or rises. ``--repeat K`` holds each
sampled action for K steps (sticky actions). ``--json`` writes all of it.
Works for every registered task. Usage:

    bin/random_agent_success.py [--task eat] [--difficulties 0,0.5,1] [--episodes 50]
                                [--frames 200 | --frames training | --frames world]
                                [--spaces vr mouse_keyboard] [--repeat 1] [--first-seed 0] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import time

from avalon import AvalonEnv, EnvConfig
from avalon.tasks import TASKS, check_difficulty, check_task
from avalon.training.curriculum import training_time_limit_frames

#: ``--frames`` words: each difficulty's training limit, or each world's own (evaluation) limit.
FRAME_LIMITS = ("training", "world")


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a binomial proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def frame_limit(frames: str, task: str, difficulty: float) -> int | None:
    """The episode's time limit for ``--frames`` (None: the world's own)."""
    if frames == "world":
        return None
    if frames == "training":
        return training_time_limit_frames(task, difficulty)
    return int(frames)


def run(space: str, difficulty: float, args: argparse.Namespace) -> dict:
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space=space, task=args.task, difficulty=difficulty))
    limit = frame_limit(args.frames, args.task, difficulty)
    successes = grasped = frames = 0
    started = time.time()
    try:
        for k in range(args.episodes):
            env.reset(seed=args.first_seed + k, options={"time_limit_frames": limit})
            env.action_space.seed(args.action_seed + k)
            done = success = grasp = False
            length = 0
            while not done:
                if length % args.repeat == 0:  # sticky actions: each sample is held for --repeat steps
                    action = env.action_space.sample()
                observation, _, terminated, truncated, info = env.step(action)
                length += 1
                done = terminated or truncated
                success = success or bool(info["success"])
                holding = observation["left_hand_is_grasping"][0] or observation["right_hand_is_grasping"][0]
                grasp = grasp or bool(holding)
            successes += success
            grasped += grasp
            frames += length
            if args.verbose:
                print(f"{space} d={difficulty:g} episode {k} seed {args.first_seed + k}: success={success} "
                      f"grasped={grasp} frames={length}", flush=True)
    finally:
        env.close()
    low, high = wilson_interval(successes, args.episodes)
    return {
        "space": space, "task": args.task, "difficulty": difficulty, "episodes": args.episodes,
        "frames_limit": limit if limit is not None else "world", "successes": successes,
        "rate": successes / args.episodes, "wilson_95": [low, high], "episodes_with_a_grasp": grasped,
        "mean_frames": frames / args.episodes, "wall_s": time.time() - started,
    }


def falls_with_difficulty(results: list[dict]) -> bool:
    """Whether the success rate falls with difficulty (``results`` of one space): it never rises
    from one difficulty to the next and is lower at the hardest than at the easiest. A rate that
    stays the same everywhere (0 / 50 at every difficulty) does not fall: it is no evidence."""
    rates = [result["rate"] for result in sorted(results, key=lambda result: result["difficulty"])]
    return all(later <= earlier for earlier, later in zip(rates, rates[1:])) and rates[-1] < rates[0]


def trend_text(results: list[dict]) -> str:
    """How the success rate moves with difficulty, in words."""
    rates = sorted({result["rate"] for result in results})
    if len(rates) == 1:
        return f"stays at {100 * rates[0]:.1f} % at every difficulty (it does not fall)"
    return "falls with difficulty" if falls_with_difficulty(results) else "RISES somewhere with difficulty"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="eat", help=f"one of {', '.join(sorted(TASKS))}")
    parser.add_argument("--difficulty", type=float, default=0.0, help="one difficulty (see --difficulties)")
    parser.add_argument("--difficulties", help="comma-separated difficulties, e.g. 0,0.5,1 (overrides --difficulty)")
    parser.add_argument("--episodes", type=int, default=50, help="worlds per action space and difficulty")
    parser.add_argument("--frames", default="200",
                        help="time limit per episode: frames (10 per second), 'training' (the task's training limit "
                             "at each difficulty) or 'world' (each world's own, evaluation limit)")
    parser.add_argument("--spaces", nargs="+", default=["vr", "mouse_keyboard"])
    parser.add_argument("--repeat", type=int, default=1,
                        help="steps each sampled action is held for (1: a new sample every step; 3: sticky actions)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--action-seed", type=int, default=1000)
    parser.add_argument("--json", help="also write the summaries here")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    try:
        check_task(args.task)
    except ValueError as error:
        parser.error(str(error))
    text = args.difficulties if args.difficulties else str(args.difficulty)
    try:
        args.difficulties = tuple(check_difficulty(float(part)) for part in text.split(",") if part.strip())
    except ValueError as error:
        parser.error(f"--difficulties {text!r}: {error}")
    if not args.difficulties:
        parser.error(f"--difficulties {text!r}: expected at least one difficulty in [0, 1]")
    if args.frames not in FRAME_LIMITS and not (args.frames.isdigit() and int(args.frames) > 0):
        parser.error(f"--frames {args.frames!r}: expected a positive number of frames or one of {FRAME_LIMITS}")
    if args.episodes < 1:
        parser.error(f"--episodes {args.episodes}: expected at least 1")
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: expected at least 1 (steps each sampled action is held for)")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    results = []
    trends = {}
    for space in args.spaces:
        space_results = []
        for difficulty in args.difficulties:
            result = run(space, difficulty, args)
            space_results.append(result)
            low, high = result["wilson_95"]
            print(
                f"{args.task} d={difficulty:g} {space}: {result['successes']}/{result['episodes']} successes "
                f"({100 * result['rate']:.1f} %, 95 % interval {100 * low:.1f}-{100 * high:.1f} %), "
                f"{result['episodes_with_a_grasp']} episodes with a grasp, mean length {result['mean_frames']:.0f} "
                f"frames, {result['wall_s']:.0f} s",
                flush=True,
            )
        results += space_results
        if len(args.difficulties) > 1:
            trends[space] = falls_with_difficulty(space_results)
            print(f"{args.task} {space}: the success rate {trend_text(space_results)}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"task": args.task, "difficulties": list(args.difficulties), "frames": args.frames,
                       "episodes": args.episodes, "first_seed": args.first_seed, "action_seed": args.action_seed,
                       "repeat": args.repeat,
                       "results": results, "falls_with_difficulty": trends}, file, indent=2)


if __name__ == "__main__":
    main()
