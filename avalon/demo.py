"""``avalon run``: one episode of a random agent in the trivial world, with a picture of it.

Generates the trivial world, runs one episode with uniformly random actions, records it, prints
steps per second, and saves a PNG strip of RGB frames above their depth frames.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PIL import Image

from avalon.datagen.export import export_world
from avalon.datagen.trivial import trivial_world
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.recording import RecordEpisodes

STRIP_FRAMES = 8
STRIP_SCALE = 2


def depth_picture(depth: np.ndarray) -> np.ndarray:
    """The depth channel as an RGB picture: near is bright, the sky (farther than the range) dark blue."""
    grey = np.repeat(depth[..., None], 3, axis=2).astype(np.uint8)
    grey[depth == 0] = (10, 10, 40)
    return grey


def frame_strip(frames: list[np.ndarray], scale: int = STRIP_SCALE) -> Image.Image:
    """A picture with RGB frames in the top row and their depth below."""
    top = np.concatenate([frame[..., :3] for frame in frames], axis=1)
    bottom = np.concatenate([depth_picture(frame[..., 3]) for frame in frames], axis=1)
    picture = Image.fromarray(np.concatenate([top, bottom], axis=0))
    return picture.resize((picture.width * scale, picture.height * scale), Image.NEAREST)


def run_random_episode(out_dir: Path, config: EnvConfig, seed: int = 0) -> dict:
    """Runs one random episode in the trivial world; returns figures and the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    world_dir = export_world(trivial_world(seed=seed), out_dir / "world")
    env = RecordEpisodes(AvalonEnv(config, world_dir=str(world_dir)), out_dir)
    env.action_space.seed(seed)
    frames, total_reward, steps = [], 0.0, 0
    try:
        observation, _ = env.reset(seed=seed)
        frames.append(observation["rgbd"])
        actions = [env.action_space.sample() for _ in range(env.unwrapped.world.time_limit_frames)]
        started = time.perf_counter()
        done = False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(actions[steps])
            steps += 1
            total_reward += reward
            frames.append(observation["rgbd"])
            done = terminated or truncated
        elapsed = time.perf_counter() - started
    finally:
        env.close()
    chosen = [frames[i] for i in np.linspace(0, len(frames) - 1, STRIP_FRAMES).round().astype(int)]
    strip_path = out_dir / "frames.png"
    frame_strip(chosen).save(strip_path)
    return {
        "steps": steps,
        "steps_per_second": steps / elapsed,
        "return": total_reward,
        "strip": strip_path,
        "recording": env.last_path,
        "world": world_dir,
    }
