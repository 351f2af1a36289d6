"""About how long an evaluation will take, said before it starts: every world played to its time
limit (a random agent's episodes mostly are) at a steps/s measured in its hardest world with as
many simulators as the evaluation runs, plus every world's generation at the time that world took.
Neither other tasks' slower generators nor the policy's own time are in it: a checkpoint's network
and terrain tasks make the evaluation slower than said (docs/benchmarks.md compares the two)."""

from __future__ import annotations

import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import attr

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.spaces import action_space
from avalon.errors import check_int, check_number
from avalon.evaluation.runner import check_time_limits, episode_time_limit
from avalon.sim.temp_folders import make_temp_folder
from avalon.tasks import check_task, generate_world
from avalon.training.world_supply import WorldRequest

#: Evaluations of at least this many worlds print their estimate (the probe costs a few seconds).
LARGE_EVALUATION_WORLDS = 40
PROBE_STEPS = 200


def frames_at_most(requests: Sequence[WorldRequest], time_limits: str | int = "world") -> int:
    """The steps of every world played to its time limit (G.3's, the training limits, or a number of frames)."""
    limits = [episode_time_limit(check_time_limits(time_limits), r) for r in requests]
    return sum(check_task(r.task).evaluation_time_limit_frames if limit is None else limit for r, limit in zip(requests, limits))


@attr.s(frozen=True, auto_attribs=True)
class Probe:
    """What :func:`probe` measured in one world: random steps per second of the simulators in lock
    step, all together (resets excluded), and seconds to generate and export the world."""

    steps_per_second: float
    generation_s: float


def estimated_seconds(frames: int, worlds: int, probe: Probe, num_envs: int) -> float:
    """``frames`` steps at the probe's rate, plus ``worlds`` generations at the probe's time, each
    simulator's worlds generated one after the other (counted apart: at most, as generation
    overlaps the steps of the world in play)."""
    frames = check_int(frames, "frames", low=0, unit="steps")
    worlds = check_int(worlds, "worlds", low=0)
    num_envs = check_int(num_envs, "num_envs", low=1)
    rate = check_number(probe.steps_per_second, "steps_per_second", above=0, unit="steps per second")
    generation_s = check_number(probe.generation_s, "generation_s", low=0, unit="s")
    return frames / rate + worlds * generation_s / num_envs


def probe(env_config: EnvConfig, request: WorldRequest, num_envs: int = 1, steps: int = PROBE_STEPS, seed: int = 0) -> Probe:
    """Generates ``request``'s world (timed) and steps ``num_envs`` simulators in it with random
    actions in lock step, as :func:`~avalon.evaluation.runner.evaluate` steps them (timed)."""
    steps = check_int(steps, "steps", low=1)
    num_envs = check_int(num_envs, "num_envs", low=1)
    folder = make_temp_folder("worlds")
    envs = []
    try:
        start = time.perf_counter()
        path = generate_world(request.task, request.difficulty, request.seed, folder / request.folder_name)
        generation_s = time.perf_counter() - start
        space = action_space(env_config.action_space)
        space.seed(seed)
        actions = [space.sample() for _ in range(steps)]
        for _ in range(num_envs):
            envs.append(AvalonEnv(attr.evolve(env_config, is_training=False)))
            envs[-1].reset(options={"world_dir": str(path), "episode_seed": request.seed, "time_limit_frames": steps + 1})
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=num_envs) as pool:
            for action in actions:  # in lock step, as evaluate() steps its simulators
                list(pool.map(lambda env, action=action: env.step(action), envs))
        return Probe(num_envs * steps / (time.perf_counter() - start), generation_s)
    finally:
        for env in envs:
            env.close()
        shutil.rmtree(folder, ignore_errors=True)
