"""One world of a set, as a worker process (local or a Ray task) makes it.

:func:`build_one` generates a planned world, checks it against its task's solvability certificate
(tasks with ``TaskSpec.certificate``), replaces a world that fails to generate or whose certificate
fails by the next seed (paper, Appendix G.2: "new worlds with an increased seed (and the same
difficulty level)"), exports it to hash its folder, and, when asked, lets the scripted reference
agent play it in the simulator. :func:`random_run` lets the random agent play a world of a
manifest, and :func:`world_hash` regenerates one for ``verify``. Both agents are played by the
evaluation's runner (:func:`avalon.evaluation.runner.evaluate`: reruns after simulator crashes)
in this process's simulator. Folders live in a temporary folder of this process
(``avalon-worlds-<pid>-...``) and are removed before returning.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import NamedTuple

import attr

from avalon.datagen.export import export_world
from avalon.datagen.world_folder import INFO_FILE
from avalon.evaluation.policies import Policy, RandomPolicy
from avalon.evaluation.reference import ReferencePolicy, has_reference
from avalon.evaluation.results import EpisodeResult, EvaluationFailed, FailedWorld
from avalon.evaluation.runner import evaluate
from avalon.evaluation.sets.manifest import SetWorld
from avalon.evaluation.sets.recipe import PlannedWorld
from avalon.sim.temp_folders import make_temp_folder
from avalon.tasks import WorldGenerationError, build_world, check_task
from avalon.training.world_supply import WorldRequest

#: Next seeds tried for one planned world before the build gives up on it.
MAX_REPLACEMENTS = 20
#: Runs of the reference agent on one world (the first and reruns after simulator crashes).
REFERENCE_ATTEMPTS = 3


class Replacement(NamedTuple):
    """A seed given up for a planned world, and why (its generation or its certificate failed)."""

    seed: int
    reason: str


@attr.s(frozen=True, auto_attribs=True)
class BuiltWorld:
    """What :func:`build_one` made of a planned world."""

    planned: PlannedWorld
    world: SetWorld
    replacements: tuple[Replacement, ...]
    #: Whether a certificate checked it (False: its task has none).
    certified: bool
    generation_s: float
    #: The reference agent's episode (its ``note``: where and why it stopped), the world it gave up
    #: (the simulator failed every attempt), or None when it did not play.
    reference: EpisodeResult | FailedWorld | None


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
        request = WorldRequest(planned.task, planned.difficulty, seed, planned.forced)
        playing = run_reference and has_reference(planned.task)
        reference = _play(ReferencePolicy({request: world}), request, folder) if playing else None
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


def _play(policy: Policy, request: WorldRequest, folder: Path) -> EpisodeResult | FailedWorld:
    """``policy``'s episode in the world at ``folder``, in this process's simulator of its action
    space, rerun from the start after a simulator crash (``REFERENCE_ATTEMPTS`` runs at most)."""
    env = _worker_env(policy.action_space)
    try:
        result = evaluate(policy, env.config, [request], progress=False, max_attempts=REFERENCE_ATTEMPTS,
                          world_folders={request: folder}, envs=[env])
    except EvaluationFailed as failure:
        return failure.result.failed_worlds[0]
    return result.episodes[0]


#: The random agent's action space: ``EnvConfig``'s default, the space policies are trained in.
RANDOM_ACTION_SPACE = "vr"


def random_run(world: SetWorld) -> EpisodeResult | FailedWorld:
    """The random agent's episode on ``world`` (the paper's random baseline): uniformly random
    actions of :data:`RANDOM_ACTION_SPACE`, seeded by the world's seed (:class:`RandomPolicy` of
    seed 0), in evaluation mode to the world's time limit."""
    folder_root = make_temp_folder("worlds")
    try:
        folder = export_world(build_world(world.task, world.difficulty, world.seed, forced=world.forced), folder_root / "world")
        return _play(RandomPolicy(RANDOM_ACTION_SPACE, seed=0), world.request, folder)
    finally:
        shutil.rmtree(folder_root, ignore_errors=True)
