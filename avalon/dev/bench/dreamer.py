"""Prints DreamerV2's learning speed on this machine and its replay's memory per million frames.

    avalon benchmark dreamer --resolution 96 --updates 3            # Table 7's sizes
    avalon benchmark dreamer --resolution 64 --batch-size 8 --deter-size 200 ...  # any DreamerConfig field

Updates run on a replay of random frames in the Avalon observation and VR action spaces (the
speed of an update does not depend on what the frames show); the first update is a warm-up and
not counted. Env steps per second need the simulators: ``avalon train dreamer`` prints them.
"""

from __future__ import annotations

import argparse
import time

import attr
import numpy as np
import torch

from avalon.agent.common.device import resolve_device
from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.dreamer.config import DreamerConfig
from avalon.agent.dreamer.learner import DreamerLearner
from avalon.agent.dreamer.replay import ReplayBuffer, bytes_per_step
from avalon.env.spaces import action_space, observation_space


def memory_per_million_frames_gb(resolution: int, action_space_name: str = "vr") -> float:
    """Gigabytes (10^9 bytes) a million env steps take in the replay at ``resolution`` pixels."""
    layout = ObservationLayout.from_space(observation_space(resolution))
    actions = ActionLayout.from_space(action_space(action_space_name)).action_size
    return bytes_per_step(layout, actions) * 1e6 / 1e9


def measure(config: DreamerConfig, resolution: int, updates: int, threads: int, device: str = "cpu") -> dict[str, float]:
    """Seconds per update (mean of ``updates`` after one warm-up) of ``config`` at ``resolution``."""
    torch.set_num_threads(threads)
    observation_layout = ObservationLayout.from_space(observation_space(resolution))
    action_layout = ActionLayout.from_space(action_space("vr"))
    rows = config.unroll + config.batch_size  # enough distinct sequences
    gb = max(config.replay_gb, 2 * rows * bytes_per_step(observation_layout, action_layout.action_size) / 1e9)
    replay = ReplayBuffer(observation_layout, action_layout.action_size, 1, gb, config.unroll)
    rng = np.random.default_rng(0)
    for step in range(rows):
        image = rng.integers(0, 256, observation_layout.image_shape, dtype=np.uint8)
        proprio = rng.standard_normal(observation_layout.proprio_size).astype(np.float32)
        action = rng.uniform(-1, 1, action_layout.action_size).astype(np.float32)
        action[action_layout.normal_size:] = action[action_layout.normal_size:] > 0
        replay.add(0, image, proprio, action, float(rng.standard_normal()), step % 100 == 0, False)
    learner = DreamerLearner(observation_layout, action_layout, config, resolve_device(device))
    generator = torch.Generator().manual_seed(0)
    noise = generator if learner.device.type == "cpu" else None
    learner.update(replay.sample(config.batch_size, generator), noise)  # warm-up
    started = time.perf_counter()
    for _ in range(updates):
        learner.update(replay.sample(config.batch_size, generator), noise)
    seconds = (time.perf_counter() - started) / updates
    parameters = sum(p.numel() for module in (learner.world_model, learner.actor, learner.critic) for p in module.parameters())
    return {"seconds_per_update": seconds, "updates_per_second": 1.0 / seconds, "parameters": float(parameters)}


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--resolution", type=int, default=96, help="image side, pixels (default 96)")
    parser.add_argument("--updates", type=int, default=3, help="timed updates after one warm-up (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1, as the trainer learns)")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    for field in attr.fields(DreamerConfig):  # --batch-size 8 sets batch_size (default: Table 7's)
        parser.add_argument("--" + field.name.replace("_", "-"), type=type(field.default), dest=field.name, help=f"default {field.default}")
    args = parser.parse_args(argv)
    fields = DreamerConfig().to_dict()
    config = DreamerConfig(**{name: value for name, value in vars(args).items() if name in fields and value is not None})
    figures = measure(config, args.resolution, args.updates, args.threads, args.device)
    sequences = f"{config.batch_size} x {config.unroll}"
    print(
        f"dreamer update at {args.resolution} px, batch {sequences}, horizon {config.horizon}, deter {config.deter_size}, "
        f"cnn depth {config.cnn_depth}, mlp {config.mlp_layers} x {config.mlp_units} ({figures['parameters'] / 1e6:.2f} M parameters), "
        f"{args.threads} thread(s) on {args.device}: {figures['seconds_per_update']:.3f} s per update, "
        f"{figures['updates_per_second']:.3f} updates/s"
    )
    for resolution in (96, 64):
        print(f"replay memory per million frames at {resolution} px RGBD (VR actions): {memory_per_million_frames_gb(resolution):.2f} GB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
