"""How long an evaluation will take at most, said before it starts: every world played to its
time limit (a random agent's episodes mostly are) at a steps/s measured on one of its worlds."""

from __future__ import annotations

import shutil
import time
from typing import Sequence

import attr

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.spaces import action_space
from avalon.sim.temp_folders import make_temp_folder
from avalon.tasks import check_task, generate_world
from avalon.training.curriculum import training_time_limit_frames
from avalon.training.world_supply import WorldRequest
from avalon.validation import check_int, check_number

#: Evaluations of at least this many worlds print their estimate (the probe costs a few seconds).
LARGE_EVALUATION_WORLDS = 40
PROBE_STEPS = 200


def frames_at_most(requests: Sequence[WorldRequest], time_limits: str = "world") -> int:
    """The steps of every world played to its time limit (G.3's, or the training limits)."""
    if time_limits == "training":
        return sum(training_time_limit_frames(r.task, r.difficulty) for r in requests)
    return sum(check_task(r.task).evaluation_time_limit_frames for r in requests)


def estimated_seconds(frames: int, steps_per_second: float, num_envs: int) -> float:
    """``frames`` steps over ``num_envs`` simulators each at ``steps_per_second``."""
    frames = check_int(frames, "frames", low=0, unit="steps")
    steps_per_second = check_number(steps_per_second, "steps_per_second", above=0, unit="steps per second")
    num_envs = check_int(num_envs, "num_envs", low=1)
    return frames / (steps_per_second * num_envs)


def measure_steps_per_second(env_config: EnvConfig, request: WorldRequest, steps: int = PROBE_STEPS, seed: int = 0) -> float:
    """Random steps per second of one simulator in ``request``'s world (reset excluded)."""
    steps = check_int(steps, "steps", low=1)
    folder = make_temp_folder("worlds")
    env = AvalonEnv(attr.evolve(env_config, is_training=False))
    try:
        path = generate_world(request.task, request.difficulty, request.seed, folder / request.folder_name)
        env.reset(options={"world_dir": str(path), "episode_seed": request.seed, "time_limit_frames": steps + 1})
        space = action_space(env_config.action_space)
        space.seed(seed)
        actions = [space.sample() for _ in range(steps)]
        start = time.perf_counter()
        for action in actions:
            env.step(action)
        return steps / (time.perf_counter() - start)
    finally:
        env.close()
        shutil.rmtree(folder, ignore_errors=True)
