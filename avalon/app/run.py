"""``avalon run``: one episode of a random agent in the trivial world, with a picture of it.

Generates the trivial world, runs one episode with uniformly random actions, records it, prints
steps per second (of the steps alone), and saves a PNG strip of eight moments of the episode, RGB
above depth, rendered at ``config.render_resolution`` (the observation's size when None): the
simulator draws these pictures only when asked, so the steps' speed is unchanged.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from PIL import Image

from avalon.datagen.export import export_world
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.episodes.recording import RecordEpisodes
from avalon.sim.protocol import ACTION_SPACES
from avalon.sim.settings import RENDERERS
from avalon.tasks import smoke_world

STRIP_FRAMES = 8
#: Smaller frames are enlarged (nearest neighbour, by a whole factor) to about this size in the strip.
STRIP_FRAME_MIN_PX = 192


def depth_picture(depth: np.ndarray) -> np.ndarray:
    """The depth channel as an RGB picture: near is bright, the sky (farther than the range) dark blue."""
    grey = np.repeat(depth[..., None], 3, axis=2).astype(np.uint8)
    grey[depth == 0] = (10, 10, 40)
    return grey


def frame_strip(frames: list[np.ndarray], scale: int | None = None) -> Image.Image:
    """A picture with RGB frames in the top row and their depth below (``scale`` None: enough to
    show each frame at ``STRIP_FRAME_MIN_PX`` or more)."""
    if scale is None:
        scale = max(1, STRIP_FRAME_MIN_PX // frames[0].shape[0])
    top = np.concatenate([frame[..., :3] for frame in frames], axis=1)
    bottom = np.concatenate([depth_picture(frame[..., 3]) for frame in frames], axis=1)
    picture = Image.fromarray(np.concatenate([top, bottom], axis=0))
    return picture.resize((picture.width * scale, picture.height * scale), Image.NEAREST)


def run_random_episode(out_dir: Path, config: EnvConfig, seed: int = 0) -> dict:
    """Runs one random episode in the trivial world; returns figures and the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    world_dir = export_world(smoke_world(seed=seed), out_dir / "world")
    env = RecordEpisodes(AvalonEnv(config, world_dir=str(world_dir)), out_dir)
    avalon_env: AvalonEnv = env.unwrapped
    env.action_space.seed(seed)
    frames, total_reward, steps, elapsed = [], 0.0, 0, 0.0
    try:
        env.reset(seed=seed)
        limit = avalon_env.episode_time_limit_frames
        actions = [env.action_space.sample() for _ in range(limit)]
        shown = set(np.linspace(0, limit, STRIP_FRAMES).round().astype(int).tolist())
        frames.append(avalon_env.render_rgbd())
        done = False
        while not done:
            started = time.perf_counter()
            _, reward, terminated, truncated, _ = env.step(actions[steps])
            elapsed += time.perf_counter() - started
            steps += 1
            total_reward += reward
            done = terminated or truncated
            if steps in shown or done:
                frames.append(avalon_env.render_rgbd())
    finally:
        env.close()
    strip_path = out_dir / "frames.png"
    frame_strip(frames).save(strip_path)
    return {
        "steps": steps,
        "steps_per_second": steps / elapsed,
        "return": total_reward,
        "strip": strip_path,
        "picture_size": frames[0].shape[0],
        "recording": env.last_path,
        "world": world_dir,
    }


def _add_env_options(parser: argparse.ArgumentParser, default_renderer: str = "GLES3") -> None:
    parser.add_argument("--renderer", choices=RENDERERS, default=default_renderer)
    parser.add_argument("--resolution", type=int, default=96, help="pixels per side (default 96)")
    parser.add_argument("--action-space", choices=tuple(ACTION_SPACES), default="vr")


def _cmd_run(args: argparse.Namespace) -> int:
    out = Path(args.out or f"runs/random-{time.strftime('%Y%m%d-%H%M%S')}")
    config = EnvConfig(renderer=args.renderer, resolution=args.resolution, action_space=args.action_space,
                       render_resolution=args.render_resolution)
    print(f"avalon run: one episode of a random agent in the trivial world ({args.renderer}, {args.resolution}x{args.resolution})")
    figures = run_random_episode(out, config, seed=args.seed)
    print(f"  steps: {figures['steps']}   steps per second: {figures['steps_per_second']:.0f}   return: {figures['return']:.4f}")
    size = figures["picture_size"]
    print(f"  frames (RGB above depth, rendered at {size}x{size}): {figures['strip']}")
    print(f"  recording: {figures['recording']}   (replay: avalon replay {figures['recording']})")
    return 0


def add_parser(commands: argparse._SubParsersAction) -> None:
    """``avalon run``."""
    run = commands.add_parser("run", help="run a random agent for one episode and save pictures of it")
    _add_env_options(run)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--render-resolution", type=int, default=256,
                     help="pixels per side of the pictures (default 256; the observation keeps --resolution)")
    run.add_argument("--out", help="output folder (default runs/random-TIMESTAMP)")
    run.set_defaults(handler=_cmd_run)
