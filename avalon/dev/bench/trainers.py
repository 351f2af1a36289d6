"""Env steps per second including learning: PPO and IMPALA on the same number of simulators.

    .venv/bin/avalon benchmark trainers [--envs 2] [--steps 2000] [--warmup 400] [--resolution 96]
                                           [--task eat] [--rounds 1] [--envs-per-actor N] [--json FILE]

Both train on the curriculum's worlds of ``--task`` exactly as ``avalon train`` does (GLES2,
VR actions, Table 7's settings; PPO: ``--envs`` simulators in threads of this process, unrolls of
200; IMPALA: ``--envs`` simulators in one Ray actor, or in actors of ``--envs-per-actor``, unrolls of
100, one unroll per simulator per update). Each trainer first runs ``--warmup`` steps (simulators, world generators and Ray
start), then ``--steps`` more on the same simulators, which are timed; ``--rounds`` alternates the
two so that a noisy machine affects both alike. Printed per round: steps/s with learning, the
share of the time the trainer waited on simulators (PPO) or actors (IMPALA), and for IMPALA
Ray's overhead per unroll (from request to result on the driver, minus the unroll's time inside
its actor: scheduling, the weights in and the unroll out) and the actors' own steps/s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from avalon.env.config import EnvConfig
from avalon.tasks import task_for
from avalon.training.curriculum import Curriculum, CurriculumConfig


def bench_ppo(env_config: EnvConfig, task: str, envs: int, warmup: int, steps: int, out: Path, envs_per_actor: int | None) -> dict:
    from avalon.agent.ppo.config import PPOConfig
    from avalon.agent.ppo.trainer import train_ppo
    from avalon.training.envs import make_training_envs

    config = PPOConfig()
    curriculum = Curriculum((task,), CurriculumConfig(step_size=3e-4))
    vector = make_training_envs(env_config, curriculum, envs)
    try:
        train_ppo(vector, out, warmup, config, curriculum=curriculum, progress=False)
        result = train_ppo(vector, out, warmup + steps, config, curriculum=curriculum, resume=True, progress=False)
    finally:
        vector.close()
    return {"trainer": "ppo", "steps_per_second": result.steps_per_second, "wait_fraction": result.env_wait_fraction,
            "learn_s_per_update": result.learn_seconds_per_update, "steps": result.env_steps - warmup}


def bench_impala(
    env_config: EnvConfig, task: str, envs: int, warmup: int, steps: int, out: Path, envs_per_actor: int | None
) -> dict:
    from avalon.agent.impala.config import IMPALAConfig
    from avalon.agent.impala.pool import make_actor_pool
    from avalon.agent.impala.trainer import train_impala

    config = IMPALAConfig(envs_per_actor=envs_per_actor)
    curriculum = Curriculum((task,), CurriculumConfig(step_size=5e-3))
    pool = make_actor_pool(env_config, curriculum, envs, seed=0, config=config)
    try:
        train_impala(pool, out, warmup, config, curriculum=curriculum, progress=False)
        result = train_impala(pool, out, warmup + steps, config, curriculum=curriculum, resume=True, progress=False)
        overhead = pool.overhead()
    finally:
        pool.close()
    ray_s = overhead["round_trip_s_per_unroll"] - overhead["actor_s_per_unroll"]
    return {
        "trainer": "impala", "steps_per_second": result.steps_per_second, "wait_fraction": result.env_wait_fraction,
        "learn_s_per_update": result.learn_seconds_per_update, "steps": result.env_steps - warmup,
        "ray_s_per_unroll": ray_s, "ray_overhead_fraction": ray_s / overhead["round_trip_s_per_unroll"],
        "actor_steps_per_second": config.unroll_steps * pool.envs_per_actor / overhead["actor_s_per_unroll"] * pool.num_actors,
        "actor_env_ms_per_step": 1000 * overhead["actor_env_s_per_unroll"] / config.unroll_steps,
        "actor_act_ms_per_step": 1000 * overhead["actor_act_s_per_unroll"] / config.unroll_steps,
    }


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", type=int, default=2, help="simulators (PPO: threads; IMPALA: actors of one each)")
    parser.add_argument("--steps", type=int, default=2000, help="timed env steps per trainer and round")
    parser.add_argument("--warmup", type=int, default=400, help="env steps before the timed ones (start-up)")
    parser.add_argument("--resolution", type=int, default=96)
    parser.add_argument("--task", default=task_for("first"))
    parser.add_argument("--envs-per-actor", type=int, help="IMPALA's simulators per actor (default: all in one actor)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    env_config = EnvConfig(renderer="GLES2", resolution=args.resolution)
    rows = []
    for round_index in range(args.rounds):
        for bench in (bench_ppo, bench_impala):
            with tempfile.TemporaryDirectory() as out:
                figures = bench(env_config, args.task, args.envs, args.warmup, args.steps, Path(out), args.envs_per_actor)
            row = {"round": round_index, **figures}
            rows.append(row)
            print(json.dumps(row), flush=True)
    speeds = {name: statistics.median(row["steps_per_second"] for row in rows if row["trainer"] == name) for name in ("ppo", "impala")}
    impala = [row for row in rows if row["trainer"] == "impala"]
    print(
        f"{args.envs} simulators, {args.resolution} px, {args.task}: PPO {speeds['ppo']:.0f} steps/s, IMPALA {speeds['impala']:.0f} "
        f"steps/s with learning ({speeds['impala'] / speeds['ppo']:.2f}x PPO); Ray's overhead "
        f"{statistics.median(row['ray_s_per_unroll'] for row in impala) * 1000:.0f} ms per unroll, "
        f"{statistics.median(row['ray_overhead_fraction'] for row in impala):.1%} of its round trip"
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "median_steps_per_second": speeds}, indent=2))


if __name__ == "__main__":
    main()
