"""Costs of the PPO agent: acting per env step, learning per update, and (optionally) a real run.

    .venv/bin/avalon benchmark ppo [--resolutions 48,96] [--envs 16] [--unroll 200]
                                      [--act-threads 1] [--learn-threads 2]
                                      [--train-steps 6400 --train-task trivial --train-resolution 48]

Acting and learning are timed on the real network and learner with random observations (the
cost does not depend on what the pixels show), as CPU seconds of this process (robust on a shared
machine) and wall seconds. ``--train-steps`` also trains on real simulators (a SyncVectorEnv of
``--envs`` GLES2 AvalonEnvs) and prints the trainer's own figures: env steps per second with
learning included, and the share of wall time spent waiting on ``envs.step``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import numpy as np
import torch

from avalon.tasks import task_for


def random_observations(resolution: int, batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    from avalon.sim.protocol import OBSERVED_FEATURES

    observations = {"rgbd": rng.integers(0, 256, (batch, resolution, resolution, 4), dtype=np.uint8)}
    for feature in OBSERVED_FEATURES:
        observations[feature.name] = rng.normal(size=(batch, feature.size)).astype(np.float32)
    return observations


def bench_costs(
    resolution: int, action_space_name: str, envs: int, unroll: int, act_threads: int, learn_threads: int, learn_chunk: int | None = None
) -> dict:
    from avalon.agent.common.distributions import ActionLayout
    from avalon.agent.common.network import ActorCritic
    from avalon.agent.common.observations import ObservationLayout
    from avalon.agent.ppo.config import PPOConfig
    from avalon.agent.ppo.learner import make_optimizer, ppo_update
    from avalon.agent.ppo.rollout import RolloutStorage
    from avalon.env.spaces import action_space, observation_space

    rng = np.random.default_rng(0)
    config = PPOConfig(unroll_steps=unroll) if learn_chunk is None else PPOConfig(unroll_steps=unroll, learn_chunk_size=learn_chunk)
    observations = ObservationLayout.from_space(observation_space(resolution))
    actions = ActionLayout.from_space(action_space(action_space_name))
    model = ActorCritic(observations, actions, config).eval()
    batches = [random_observations(resolution, envs, rng) for _ in range(8)]
    generator = torch.Generator().manual_seed(0)

    torch.set_num_threads(act_threads)
    storage = RolloutStorage(observations, envs, unroll, actions.action_size)

    def act(t: int) -> None:
        with torch.inference_mode():
            tensors = observations.to_tensors(batches[t % len(batches)])
            storage.set_observation(t, tensors)
            distribution, values = model(tensors)
            sample = distribution.sample(generator)
            log_probs = distribution.log_prob(sample)
            actions.to_env(sample.numpy())
        storage.set_step(t, sample, log_probs, values, torch.zeros(envs), torch.zeros(envs))

    for t in range(10):
        act(t)
    wall, cpu = time.perf_counter(), time.process_time()
    for t in range(unroll):
        act(t)
    act_wall, act_cpu = time.perf_counter() - wall, time.process_time() - cpu
    storage.set_observation(unroll, observations.to_tensors(batches[0]))
    storage.rewards.normal_(generator=generator)

    torch.set_num_threads(learn_threads)
    optimizer = make_optimizer(model, config)
    ppo_update(model, optimizer, storage, torch.zeros(envs), config, generator)  # warm-up
    wall, cpu = time.perf_counter(), time.process_time()
    ppo_update(model, optimizer, storage, torch.zeros(envs), config, generator)
    learn_wall, learn_cpu = time.perf_counter() - wall, time.process_time() - cpu
    steps = unroll * envs
    return {
        "resolution": resolution,
        "action_space": action_space_name,
        "envs": envs,
        "batch": steps,
        "parameters": sum(p.numel() for p in model.parameters()),
        "act_cpu_ms_per_env_step": 1000 * act_cpu / steps,
        "act_wall_ms_per_env_step": 1000 * act_wall / steps,
        "learn_cpu_s_per_update": learn_cpu,
        "learn_wall_s_per_update": learn_wall,
        "learn_cpu_ms_per_env_step": 1000 * learn_cpu / steps,
        "act_threads": act_threads,
        "learn_threads": learn_threads,
        "learn_chunk_size": config.learn_chunk_size,
    }


def bench_training(task: str, resolution: int, envs: int, unroll: int, steps: int, act_threads: int, learn_threads: int) -> dict:
    import gymnasium

    from avalon import AvalonEnv, EnvConfig
    from avalon.agent import PPOConfig, train_ppo

    def make():
        return AvalonEnv(EnvConfig(renderer="GLES2", resolution=resolution, task=task))

    vector = gymnasium.vector.SyncVectorEnv([make] * envs, autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    try:
        with tempfile.TemporaryDirectory() as out:
            result = train_ppo(
                vector, out, steps, PPOConfig(unroll_steps=unroll), progress=True,
                act_threads=act_threads, learn_threads=learn_threads,
            )
    finally:
        vector.close()
    return {
        "task": task,
        "resolution": resolution,
        "envs": envs,
        "env_steps": result.env_steps,
        "steps_per_second": result.steps_per_second,
        "env_wait_fraction": result.env_wait_fraction,
        "act_cpu_ms_per_env_step": result.act_cpu_ms_per_env_step,
        "learn_cpu_seconds_per_update": result.learn_cpu_seconds_per_update,
        "learn_seconds_per_update": result.learn_seconds_per_update,
        "episodes": result.episodes,
    }


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resolutions", default="48,96")
    parser.add_argument("--action-spaces", default="vr,mouse_keyboard")
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--unroll", type=int, default=200)
    parser.add_argument("--act-threads", type=int, default=1)
    parser.add_argument("--learn-threads", type=int, default=1)
    parser.add_argument("--learn-chunks", default="", help="comma-separated learn_chunk_size values to compare (default: the config's)")
    parser.add_argument("--train-steps", type=int, default=0, help="also train on real simulators for this many env steps")
    parser.add_argument("--train-task", default=task_for("smoke"))
    parser.add_argument("--train-resolution", type=int, default=48)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    figures = []
    for resolution in map(int, args.resolutions.split(",")):
        for name in args.action_spaces.split(","):
            for chunk in [int(c) for c in args.learn_chunks.split(",") if c] or [None]:
                row = bench_costs(resolution, name, args.envs, args.unroll, args.act_threads, args.learn_threads, chunk)
                print(json.dumps(row), flush=True)
                figures.append(row)
    if args.train_steps:
        row = bench_training(
            args.train_task, args.train_resolution, args.envs, args.unroll, args.train_steps, args.act_threads, args.learn_threads
        )
        print(json.dumps(row), flush=True)
        figures.append(row)
    if args.json:
        with open(args.json, "w") as file:
            json.dump(figures, file, indent=2)


if __name__ == "__main__":
    main()
