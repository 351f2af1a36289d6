"""Steps per second of vectorised environments: our ThreadedVectorEnv against Gymnasium's
AsyncVectorEnv (one process per env, shared memory) and SyncVectorEnv, on the same worlds.

Usage: avalon benchmark vector [--envs 2] [--steps 2000] [--rounds 3] [--renderer GLES2] [--task trivial]

Every variant steps ``--envs`` AvalonEnvs with the same pre-drawn random actions (SAME_STEP
autoreset); rounds alternate between variants so that other load on the machine hits them alike;
the best round counts. Prints one line per variant and the ratios to AsyncVectorEnv.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.vector import ThreadedVectorEnv
from avalon.tasks import task_for


def make_env(config: EnvConfig):
    def build() -> gym.Env:
        return AvalonEnv(config)

    return build


def measure(envs, actions: list, warmup: int = 50) -> float:
    envs.reset(seed=0)
    for action in actions[:warmup]:
        envs.step(action)
    start = time.perf_counter()
    for action in actions[warmup:]:
        envs.step(action)
    elapsed = time.perf_counter() - start
    return (len(actions) - warmup) * envs.num_envs / elapsed


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=2000, help="vector steps per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--renderer", default="GLES2")
    parser.add_argument("--resolution", type=int, default=96)
    parser.add_argument("--task", default=task_for("smoke"))
    args = parser.parse_args(argv)

    config = EnvConfig(renderer=args.renderer, resolution=args.resolution, task=args.task)
    fns = [make_env(config) for _ in range(args.envs)]
    variants = {
        "ThreadedVectorEnv (ours)": lambda: ThreadedVectorEnv(fns),
        "AsyncVectorEnv (shared memory)": lambda: AsyncVectorEnv(fns, shared_memory=True, autoreset_mode=AutoresetMode.SAME_STEP),
        "SyncVectorEnv": lambda: SyncVectorEnv(fns, autoreset_mode=AutoresetMode.SAME_STEP),
    }
    built = {name: make() for name, make in variants.items()}
    try:
        space = built["ThreadedVectorEnv (ours)"].action_space
        space.seed(0)
        actions = [space.sample() for _ in range(args.steps + 50)]
        best = {name: 0.0 for name in built}
        for round_index in range(args.rounds):
            for name, envs in built.items():
                sps = measure(envs, actions)
                best[name] = max(best[name], sps)
                print(f"round {round_index + 1}: {name:<32} {sps:7.0f} steps/s", flush=True)
    finally:
        for envs in built.values():
            envs.close()
    reference = best["AsyncVectorEnv (shared memory)"]
    print(f"\n{args.envs} envs, {args.task} world, {args.renderer} {args.resolution}x{args.resolution}, best of {args.rounds} rounds:")
    for name, sps in best.items():
        print(f"  {name:<32} {sps:7.0f} steps/s   {sps / reference:5.2f}x AsyncVectorEnv")


if __name__ == "__main__":
    main()
