"""Evaluating a policy on freshly generated worlds: per-task success rates, scores and a video.

The worlds of one evaluation are fixed by ``(tasks, episodes, difficulty range, seed)``: for each
task, ``episodes`` worlds with difficulties evenly spaced over ``[min_difficulty,
max_difficulty]`` (as the paper's evaluation sets, Appendix G.1) and world seeds drawn from
``SeedSequence((EVALUATION_SEED_TAG, seed, task index))``, so they never coincide with training
worlds in practice and the same command always evaluates on the same worlds. Episodes run in
evaluation mode (``C_move = 0``, Appendix B.1) up to each world's own time limit (Appendix G.3),
unless ``time_limits="training"``.

Any object with ``act(observations, deterministic) -> actions`` (batched dicts of arrays) is a
policy: a trained agent (``avalon.agent``) or :class:`RandomPolicy`, whose figures are the
baseline every score is normalised against (section 5.4).
"""

from __future__ import annotations

import collections
import json
import math
import queue
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, Sequence

import attr
import gymnasium as gym
import numpy as np
from PIL import Image
from tqdm import tqdm

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.curriculum import training_time_limit_frames
from avalon.env.spaces import RGBD_KEY
from avalon.env.world_supply import WorldRequest, WorldSupply
from avalon.tasks import check_difficulty, check_task

#: Mixed into evaluation world seeds so they differ from any seed a training run draws.
EVALUATION_SEED_TAG = 0x5EED_E7A1
TIME_LIMITS = ("world", "training")


class Policy(Protocol):
    def act(self, observations: dict[str, np.ndarray], deterministic: bool = False) -> dict[str, np.ndarray]:
        """Batched actions for batched observations (leading dimension: environments)."""


class RandomPolicy:
    """Uniformly random actions from the action space (the paper's random baseline)."""

    def __init__(self, action_space: gym.spaces.Space, seed: int | None = None) -> None:
        self.action_space = action_space
        self.action_space.seed(seed)

    def act(self, observations: dict[str, np.ndarray], deterministic: bool = False) -> dict[str, np.ndarray]:
        count = len(observations[RGBD_KEY])
        samples = [self.action_space.sample() for _ in range(count)]
        return {key: np.stack([sample[key] for sample in samples]) for key in samples[0]}


def evaluation_worlds(
    tasks: Sequence[str], episodes: int, min_difficulty: float = 0.0, max_difficulty: float = 1.0, seed: int = 0
) -> list[WorldRequest]:
    """The worlds of an evaluation (see the module doc), task by task."""
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes={episodes!r} must be an int >= 1 (per task)")
    low, high = check_difficulty(min_difficulty), check_difficulty(max_difficulty)
    if low > high:
        raise ValueError(f"min_difficulty {low} is above max_difficulty {high}")
    requests = []
    for index, task in enumerate(tasks):
        check_task(task)
        rng = np.random.default_rng(np.random.SeedSequence((EVALUATION_SEED_TAG, seed, index)))
        difficulties = np.linspace(low, high, episodes) if episodes > 1 else np.array([low])
        for difficulty in difficulties:
            requests.append(WorldRequest(task, float(difficulty), int(rng.integers(0, 2**62))))
    return requests


@attr.s(frozen=True, auto_attribs=True)
class EpisodeResult:
    task: str
    difficulty: float
    seed: int
    success: bool
    score: float  # Appendix M
    episode_return: float
    episode_length: int
    achievements: tuple[str, ...]


@attr.s(frozen=True, auto_attribs=True)
class EvaluationResult:
    episodes: tuple[EpisodeResult, ...]
    video_path: Path | None = None

    def per_task(self) -> dict[str, dict[str, float]]:
        """Per task: episodes, success rate, mean score, mean return, mean length."""
        groups: dict[str, list[EpisodeResult]] = collections.defaultdict(list)
        for episode in self.episodes:
            groups[episode.task].append(episode)
        return {
            task: {
                "episodes": len(group),
                "success_rate": float(np.mean([e.success for e in group])),
                "mean_score": float(np.mean([e.score for e in group])),
                "mean_return": float(np.mean([e.episode_return for e in group])),
                "mean_length": float(np.mean([e.episode_length for e in group])),
            }
            for task, group in groups.items()
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "per_task": self.per_task(),
            "episodes": [attr.asdict(episode) for episode in self.episodes],
            "video": None if self.video_path is None else str(self.video_path),
        }

    def table(self) -> str:
        lines = ["task      episodes  success  mean score  mean length", "-" * 52]
        for task, row in self.per_task().items():
            lines.append(
                f"{task:<9} {row['episodes']:>8}  {row['success_rate']:>6.1%}  {row['mean_score']:>10.3f}  {row['mean_length']:>11.1f}"
            )
        return "\n".join(lines)


class _Slot:
    """One environment of the evaluation, its world supply and its episode in play."""

    def __init__(self, config: EnvConfig) -> None:
        self.env = AvalonEnv(config)
        self.supply = WorldSupply()
        self.request: WorldRequest | None = None
        self.world = None
        self.observation: dict[str, np.ndarray] | None = None
        self.episode_return = 0.0
        self.length = 0
        self.frames: list[np.ndarray] | None = None

    def close(self) -> None:
        self.env.close()
        self.supply.close()


def evaluate(
    policy: Policy,
    env_config: EnvConfig,
    requests: Sequence[WorldRequest],
    num_envs: int = 2,
    deterministic: bool = False,
    time_limits: str = "world",
    video_path: str | Path | None = None,
    progress: bool = True,
) -> EvaluationResult:
    """Runs one episode in each requested world, ``num_envs`` at a time, and collects the results.

    The first episode is recorded (RGB beside depth) as an animated GIF at ``video_path``.
    """
    if time_limits not in TIME_LIMITS:
        raise ValueError(f"time_limits={time_limits!r} is not one of {TIME_LIMITS}")
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs={num_envs!r} must be an int >= 1")
    if not requests:
        raise ValueError("no worlds to evaluate on")
    config = attr.evolve(env_config, is_training=False)
    todo: queue.SimpleQueue[tuple[int, WorldRequest]] = queue.SimpleQueue()
    for index, request in enumerate(requests):
        todo.put((index, request))
    slots = [_Slot(config) for _ in range(min(num_envs, len(requests)))]
    results: dict[int, EpisodeResult] = {}
    record = video_path is not None
    frames_for_video: list[np.ndarray] = []
    bar = tqdm(total=len(requests), desc="evaluating", unit="episode", disable=not progress)

    def start(slot: _Slot) -> bool:
        """Resets ``slot`` into its next world (keeping one more in generation); False when none is left."""
        if slot.world is not None:
            slot.supply.discard(slot.world)
            slot.world = None
        if slot.request is None:  # first use: queue up to two worlds
            for _ in range(2):
                if not todo.empty():
                    slot.supply.submit(todo.get()[1])
        if slot.supply.pending == 0:
            slot.request = None
            return False
        world = slot.supply.take()
        if not todo.empty():
            slot.supply.submit(todo.get()[1])
        if world.error is not None:
            raise RuntimeError(f"could not generate evaluation world {world.request}: {world.error}")
        slot.world, slot.request = world, world.request
        options = {"world_dir": str(world.path), "episode_seed": world.request.seed}
        if time_limits == "training":
            options["time_limit_frames"] = training_time_limit_frames(world.request.task, world.request.difficulty)
        slot.observation, _ = slot.env.reset(options=options)
        slot.episode_return, slot.length = 0.0, 0
        return True

    def step(slot: _Slot, action: dict[str, np.ndarray]) -> EpisodeResult | None:
        observation, reward, terminated, truncated, info = slot.env.step(action)
        slot.observation = observation
        slot.episode_return += float(reward)
        slot.length += 1
        if slot.frames is not None:
            slot.frames.append(observation[RGBD_KEY])
        if not (terminated or truncated):
            return None
        request = slot.request
        return EpisodeResult(
            task=request.task, difficulty=request.difficulty, seed=request.seed, success=bool(info["success"]),
            score=float(info["score"]), episode_return=slot.episode_return, episode_length=slot.length,
            achievements=tuple(sorted(info["achievements"])),
        )

    try:
        with ThreadPoolExecutor(max_workers=len(slots), thread_name_prefix="avalon-eval") as pool:
            active = [slot for slot, started in zip(slots, pool.map(start, slots)) if started]
            if record and active:
                active[0].frames = [active[0].observation[RGBD_KEY]]
            # Which request each slot is playing, by position in `requests` (results keep that order).
            index_of = {id(request): index for index, request in enumerate(requests)}
            while active:
                batch = {key: np.stack([slot.observation[key] for slot in active]) for key in active[0].observation}
                actions = policy.act(batch, deterministic=deterministic)
                single = [{key: value[i] for key, value in actions.items()} for i in range(len(active))]
                outcomes = list(pool.map(step, active, single))
                finished = [(slot, outcome) for slot, outcome in zip(active, outcomes) if outcome is not None]
                for slot, outcome in finished:
                    results[index_of[id(slot.request)]] = outcome
                    bar.update(1)
                    bar.set_postfix(success=f"{np.mean([r.success for r in results.values()]):.0%}")
                    if slot.frames is not None:
                        frames_for_video, slot.frames = slot.frames, None
                done = [slot for slot, _ in finished]
                exhausted = {id(slot) for slot, started in zip(done, pool.map(start, done)) if not started}
                active = [slot for slot in active if id(slot) not in exhausted]
    finally:
        bar.close()
        for slot in slots:
            slot.close()
    written = write_episode_gif(frames_for_video, Path(video_path)) if record and frames_for_video else None
    return EvaluationResult(tuple(results[index] for index in sorted(results)), written)


def write_episode_gif(frames: Sequence[np.ndarray], path: Path, scale: int = 2, fps: int = 10) -> Path:
    """An animated GIF of RGBD frames: RGB on the left, depth (near = bright) on the right."""
    if not frames:
        raise ValueError("no frames to write")
    path.parent.mkdir(parents=True, exist_ok=True)
    images = []
    for frame in frames:
        rgb = frame[..., :3]
        depth = np.repeat(frame[..., 3:4], 3, axis=2)  # the encoding is already near = bright
        both = np.concatenate([rgb, depth], axis=1)
        image = Image.fromarray(both)
        if scale != 1:
            image = image.resize((image.width * scale, image.height * scale), Image.NEAREST)
        images.append(image.convert("P", palette=Image.ADAPTIVE, colors=255))
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return path


def save_results(result: EvaluationResult, path: str | Path, extra: dict[str, Any] | None = None) -> Path:
    """Writes the results (and ``extra`` fields) as JSON."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = dict(extra or {}, **result.to_json())
    path.write_text(json.dumps(payload, indent=2, default=_json_default))
    return path


def _json_default(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    raise TypeError(f"cannot write {type(value).__name__} as JSON")
