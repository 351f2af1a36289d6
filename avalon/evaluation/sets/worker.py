"""One world of a set, as a worker process (local or a Ray task) makes it.

:func:`build_one` generates a planned world, checks it against its task's solvability certificate
(tasks with ``TaskSpec.certificate``), replaces a world that fails to generate or whose certificate
fails by the next seed (paper, Appendix G.2: "new worlds with an increased seed (and the same
difficulty level)"), exports it to hash its folder, and, when asked, lets the scripted reference
agent play it in the simulator. :func:`world_hash` regenerates a world of a manifest for ``verify``.
Folders live in a temporary folder of this process (``avalon-worlds-<pid>-...``) and are removed
before returning.
"""

from __future__ import annotations

import json
import shutil
import time
import traceback
from pathlib import Path
from typing import Optional

import attr

from avalon.datagen.export import export_world
from avalon.datagen.world import World
from avalon.datagen.world_folder import INFO_FILE
from avalon.errors import SimulatorError
from avalon.evaluation.sets.manifest import SetWorld
from avalon.evaluation.sets.recipe import PlannedWorld
from avalon.sim.temp_folders import make_temp_folder
from avalon.tasks import WorldGenerationError, build_world, check_task

#: Next seeds tried for one planned world before the build gives up on it.
MAX_REPLACEMENTS = 20
#: Runs of the reference agent on one world (the first and reruns after simulator crashes).
REFERENCE_ATTEMPTS = 3


@attr.s(frozen=True, auto_attribs=True)
class Replacement:
    """A seed given up for a planned world, and why (generation failed or the certificate did not hold)."""

    seed: int
    reason: str


@attr.s(frozen=True, auto_attribs=True)
class ReferenceRun:
    """The scripted reference agent's episode on one world: Appendix M's score and success, or
    the error that stopped every attempt."""

    score: float
    success: bool
    steps: int
    #: Why it failed, when it did (where the route follower stopped), or the simulator's last error.
    detail: str = ""
    error: Optional[str] = None


@attr.s(frozen=True, auto_attribs=True)
class BuiltWorld:
    """What :func:`build_one` made of a planned world."""

    planned: PlannedWorld
    world: SetWorld
    replacements: tuple[Replacement, ...]
    #: Whether a certificate checked it (False: its task has none).
    certified: bool
    generation_s: float
    reference: Optional[ReferenceRun]


def build_one(planned: PlannedWorld, run_reference: bool) -> BuiltWorld:
    """The set's world for ``planned`` (see the module's docstring); ``WorldGenerationError`` when
    :data:`MAX_REPLACEMENTS` next seeds fail too."""
    spec = check_task(planned.task)
    start = time.perf_counter()
    replacements: list[Replacement] = []
    seed = planned.seed
    for _ in range(MAX_REPLACEMENTS + 1):
        try:
            world = build_world(planned.task, planned.difficulty, seed, forced=planned.forced)
        except WorldGenerationError as error:
            replacements.append(Replacement(seed, f"generation failed: {error}"))
            seed += 1
            continue
        if spec.certificate is not None:
            certificate = spec.certificate(world)
            if not certificate.ok:
                replacements.append(Replacement(seed, f"certificate: {certificate.reason}"))
                seed += 1
                continue
        break
    else:
        raise WorldGenerationError(
            f"{planned.task} d={planned.difficulty:g}: seeds {planned.seed} to {seed - 1} all failed; last: {replacements[-1].reason}")
    folder_root = make_temp_folder("worlds")
    try:
        folder = export_world(world, folder_root / "world")
        content_hash = json.loads((folder / INFO_FILE).read_text())["content_hash"]
        generation_s = time.perf_counter() - start
        reference = _reference_run(world, folder) if run_reference and has_reference_agent(planned.task) else None
    finally:
        shutil.rmtree(folder_root, ignore_errors=True)
    entry = SetWorld(task=planned.task, difficulty=planned.difficulty, seed=seed, forced=planned.forced, content_hash=content_hash)
    return BuiltWorld(planned, entry, tuple(replacements), spec.certificate is not None, generation_s, reference)


def world_hash(world: SetWorld) -> str:
    """The content hash of ``world``'s folder, generated afresh (no certificate, no replacement), or
    ``"generation failed: ..."`` when it cannot be generated."""
    folder_root = make_temp_folder("worlds")
    try:
        try:
            generated = build_world(world.task, world.difficulty, world.seed, forced=world.forced)
        except WorldGenerationError as error:
            return f"generation failed: {str(error).splitlines()[0]}"
        folder = export_world(generated, folder_root / "world")
        return json.loads((folder / INFO_FILE).read_text())["content_hash"]
    finally:
        shutil.rmtree(folder_root, ignore_errors=True)


def has_reference_agent(task: str) -> bool:
    """Whether a scripted reference agent plays ``task``: a route exists for its worlds
    (:func:`avalon.agent.scripted.route_for`: certified tasks and the walking tasks)."""
    return check_task(task).reference_agent is not None


# One simulator per worker process and action space, started by its first episode and kept for the
# next ones (it ends with the process: the simulator's exit handler, or Godot's closed socket).
_envs: dict = {}


def _worker_env(action_space: str):
    """This process's env for ``action_space``: evaluation mode (the world's own time limit,
    C_move = 0), 32 x 32 pixels (neither agent reads them)."""
    if action_space not in _envs:
        from avalon.env.avalon_env import AvalonEnv
        from avalon.env.config import EnvConfig

        _envs[action_space] = AvalonEnv(EnvConfig(renderer="GLES2", action_space=action_space, resolution=32, is_training=False))
    return _envs[action_space]


def close_envs() -> None:
    """Closes this process's envs (a worker's end does it too)."""
    while _envs:
        _envs.popitem()[1].close()


def _reference_run(world: World, folder: Path) -> ReferenceRun:
    from avalon.agent.scripted import follower_for, route_for, run_episode
    from avalon.agent.scripted.actions import ACTION_SPACE, action

    idle, last_error = action(), ""
    for _ in range(REFERENCE_ATTEMPTS):
        env = _worker_env(ACTION_SPACE)
        try:
            episode = run_episode(env, follower_for(world, route_for(world)),
                                  options={"world_dir": str(folder), "episode_seed": world.seed})
        except SimulatorError:  # the env starts a fresh simulator at its next reset
            last_error = traceback.format_exc(limit=2)
            continue
        info, steps, ended = episode.info, episode.steps, episode.terminated or episode.truncated
        try:
            # An agent that gave up stands still to the time limit: a score as `avalon eval` measures it (G.3).
            while not (ended or info["success"]):
                _, _, terminated, truncated, info = env.step(idle)
                steps, ended = steps + 1, terminated or truncated
        except SimulatorError:
            last_error = traceback.format_exc(limit=2)
            continue
        detail = "" if info["success"] else episode.follow.describe()
        return ReferenceRun(float(info["score"]), bool(info["success"]), steps, detail)
    return ReferenceRun(0.0, False, 0, error=f"the simulator failed {REFERENCE_ATTEMPTS} times: {last_error}")


#: The random agent's action space: ``EnvConfig``'s default, the space policies are trained in.
RANDOM_ACTION_SPACE = "vr"


def random_run(world: SetWorld) -> ReferenceRun:
    """The random agent's episode on ``world`` (the paper's random baseline): uniformly random
    actions of :data:`RANDOM_ACTION_SPACE`, seeded by the world's seed, in evaluation mode to the
    world's time limit; rerun from the start after a simulator crash (3 attempts)."""
    folder_root = make_temp_folder("worlds")
    try:
        folder = export_world(build_world(world.task, world.difficulty, world.seed, forced=world.forced), folder_root / "world")
        last_error = ""
        for _ in range(REFERENCE_ATTEMPTS):
            env = _worker_env(RANDOM_ACTION_SPACE)
            env.action_space.seed(world.seed % 2**32)
            try:
                _, info = env.reset(options={"world_dir": str(folder), "episode_seed": world.seed})
                steps, ended = 0, False
                while not ended:
                    _, _, terminated, truncated, info = env.step(env.action_space.sample())
                    steps, ended = steps + 1, terminated or truncated
            except SimulatorError:
                last_error = traceback.format_exc(limit=2)
                continue
            return ReferenceRun(float(info["score"]), bool(info["success"]), steps)
        return ReferenceRun(0.0, False, 0, error=f"the simulator failed {REFERENCE_ATTEMPTS} times: {last_error}")
    finally:
        shutil.rmtree(folder_root, ignore_errors=True)
