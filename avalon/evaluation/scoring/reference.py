"""The scripted reference agents on a list of worlds, as an evaluation: each world to its time
limit, in evaluation mode, with reruns after simulator crashes.

A scripted agent reads the World spec and each step's ``info`` (``avalon.agent.scripted``), which a
batched :class:`~avalon.evaluation.policies.Policy` never sees, so it runs here, one env per thread, rather
than through :func:`~avalon.evaluation.runner.evaluate`. It plays the tasks that have a route
(:func:`has_reference`); the other worlds are returned as skipped.
"""

from __future__ import annotations

import queue
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence

import attr

from avalon.agent.scripted import ScriptedPolicy
from avalon.datagen.export import export_world
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.errors import SimulatorError, check_choice, check_int
from avalon.evaluation.results import EpisodeResult, EvaluationResult, FailedWorld, episode_success
from avalon.evaluation.runner import DEFAULT_MAX_ATTEMPTS, TIME_LIMITS
from avalon.sim.temp_folders import make_temp_folder
from avalon.tasks import build_world, check_task
from avalon.training.curriculum import training_time_limit_frames
from avalon.training.world_supply import WorldRequest

#: The action space the scripted agents act in.
REFERENCE_ACTION_SPACE = ScriptedPolicy.action_space


def has_reference(task: str) -> bool:
    """Whether the scripted agents have a route in ``task``'s worlds (a certificate's, or eat's and move's)."""
    return check_task(task).reference_agent is not None


def evaluate_reference(
    env_config: EnvConfig,
    requests: Sequence[WorldRequest],
    num_envs: int = 2,
    time_limits: str = "world",
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    on_outcome: Callable[[int, EpisodeResult | FailedWorld], None] | None = None,
) -> tuple[EvaluationResult, list[WorldRequest]]:
    """Plays the scripted agent in every world of ``requests`` whose task has one; returns the
    result (episodes and failed worlds in request order) and the worlds skipped. ``on_outcome``
    is called from the worker threads as each world finishes."""
    check_choice(time_limits, "time_limits", TIME_LIMITS)
    num_envs = check_int(num_envs, "num_envs", low=1)
    max_attempts = check_int(max_attempts, "max_attempts", low=1)
    if env_config.action_space != REFERENCE_ACTION_SPACE:
        raise ValueError(f"the scripted reference agents act in the {REFERENCE_ACTION_SPACE!r} action space; the "
                         f"evaluation's configuration has {env_config.action_space!r}")
    config = attr.evolve(env_config, is_training=False)
    todo: queue.SimpleQueue[tuple[int, WorldRequest]] = queue.SimpleQueue()
    skipped = []
    for index, request in enumerate(requests):
        if has_reference(request.task):
            todo.put((index, request))
        else:
            skipped.append(request)
    outcomes: dict[int, EpisodeResult | FailedWorld] = {}
    lock = threading.Lock()
    restarts = [0]
    stop = threading.Event()  # set when the calling thread is interrupted (Ctrl-C, SIGTERM)

    def work() -> None:
        env = AvalonEnv(config)
        folder = make_temp_folder("worlds")
        try:
            while not stop.is_set():
                try:
                    index, request = todo.get_nowait()
                except queue.Empty:
                    return
                outcome, crashes = _play(env, folder, request, time_limits, max_attempts, stop)
                if outcome is None:
                    return
                with lock:
                    outcomes[index] = outcome
                    restarts[0] += crashes
                if on_outcome is not None:
                    on_outcome(index, outcome)
        finally:
            env.close()
            shutil.rmtree(folder, ignore_errors=True)

    workers = min(num_envs, len(requests) - len(skipped))
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="avalon-reference") as pool:
        futures = [pool.submit(work) for _ in range(workers)]
        try:
            for future in futures:
                future.result()
        except BaseException:
            stop.set()  # the workers leave their episodes at the next step; the pool then closes
            raise
    ordered = [outcomes[index] for index in sorted(outcomes)]
    result = EvaluationResult(
        episodes=tuple(o for o in ordered if isinstance(o, EpisodeResult)),
        failed_worlds=tuple(o for o in ordered if isinstance(o, FailedWorld)),
        restarts=restarts[0],
    )
    return result, skipped


def _play(
    env: AvalonEnv, folder, request: WorldRequest, time_limits: str, max_attempts: int, stop: threading.Event
) -> tuple[EpisodeResult | FailedWorld | None, int]:
    """One world's episode, rerun from its start after a simulator crash; (outcome, crashes), the
    outcome None when ``stop`` was set during it."""
    try:
        world = build_world(request.task, request.difficulty, request.seed)
        ScriptedPolicy().find_route(world)  # a world without a route is given up before any simulator time
        path = export_world(world, folder / request.folder_name)
    except Exception as error:  # any generator or route failure is reported with its world
        return FailedWorld(request.task, request.difficulty, request.seed, 0, f"world or route failed: {error!r}"), 0
    options = {"world_dir": str(path), "episode_seed": request.seed}
    if time_limits == "training":
        options["time_limit_frames"] = training_time_limit_frames(request.task, request.difficulty)
    crashes, error_text = 0, ""
    try:
        for attempt in range(1, max_attempts + 1):
            agent = ScriptedPolicy()
            try:
                observation, info = env.reset(options=options)
                agent.reset(world, observation, info)
                episode_return, length, done = 0.0, 0, False
                while not done:
                    if stop.is_set():
                        return None, crashes
                    observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
                    episode_return += float(reward)
                    length += 1
                    done = terminated or truncated
            except SimulatorError as error:
                crashes += 1
                error_text = str(error)
                continue
            return EpisodeResult(
                task=request.task, difficulty=request.difficulty, seed=request.seed, success=episode_success(request.task, info),
                score=float(info["score"]), episode_return=episode_return, episode_length=length,
                achievements=tuple(sorted(info["achievements"])), attempts=attempt,
            ), crashes
        return FailedWorld(request.task, request.difficulty, request.seed, max_attempts, error_text), crashes
    finally:
        shutil.rmtree(path, ignore_errors=True)
