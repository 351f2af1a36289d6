"""``avalon evalset build`` and ``verify``: a set's manifest, reference scores and build report.

:func:`build_set` plans the recipe's worlds (:mod:`avalon.evaluation.sets.recipe`), makes each one in a
worker (:func:`avalon.evaluation.sets.worker.build_one`: certificate, replacements, content hash, the
reference agent's episode) through :func:`avalon.evaluation.sets.runner.run_jobs`, then writes
``<name>.json`` (the manifest), ``<name>.reference.json`` (the reference agent's score and success
per world, keyed by ``SetWorld.key``; only when the reference agent ran) and ``<name>.report.md``.
:func:`verify_set` regenerates every world of a manifest and compares its content hash.
"""

from __future__ import annotations

import collections
import os
import sys
import time
from typing import Optional

import attr
from tqdm import tqdm

from avalon.datagen.world import GENERATOR_VERSION
from avalon.evaluation.results import RANDOM_SOURCE, SCRIPTED_SOURCE
from avalon.evaluation.sets.manifest import (
    RANDOM_SUFFIX,
    REFERENCE_SUFFIX,
    REPORT_SUFFIX,
    EvalSet,
    SetWorld,
    companion_path,
    load_set,
    manifest_path,
    write_json,
)
from avalon.evaluation.sets.recipe import SetRecipe, plan_worlds
from avalon.evaluation.sets.runner import JobStats, run_jobs
from avalon.evaluation.sets.worker import RANDOM_ACTION_SPACE, BuiltWorld, build_one, random_run, world_hash


@attr.s(frozen=True, auto_attribs=True)
class BuildResult:
    """A built set and how the build went."""

    evalset: EvalSet
    built: tuple[BuiltWorld, ...]
    reference_ran: bool
    wall_s: float
    backend: str
    worker_retries: int

    @property
    def generation_s(self) -> float:
        """Generation, certificates and export summed over the worlds (CPU seconds of the workers)."""
        return sum(world.generation_s for world in self.built)

    def reference_scores(self) -> dict[str, dict]:
        """``{SetWorld.key: {"score", "success", "source"}}`` of every world the reference agent played."""
        return {b.world.key: {"score": b.reference.score, "success": b.reference.success, "source": SCRIPTED_SOURCE}
                for b in self.built if b.reference is not None and b.reference.error is None}


def build_set(recipe: SetRecipe, directory: str | os.PathLike | None = None, *, jobs: Optional[int] = None,
              ray_address: Optional[str] = None, run_reference: bool = True, progress: bool = True) -> BuildResult:
    """Builds the set of ``recipe`` and writes its files into ``directory`` (default: the
    checked-in sets' folder); see the module's docstring."""
    start = time.perf_counter()
    planned = plan_worlds(recipe)
    stats = JobStats()
    built: list[Optional[BuiltWorld]] = [None] * len(planned)
    results = run_jobs(build_one, [(world, run_reference) for world in planned], jobs=jobs, ray_address=ray_address, stats=stats)
    for index, world in tqdm(results, total=len(planned), desc=f"building {recipe.name}", disable=not progress, file=sys.stderr):
        built[index] = world
    keys = [world.world.key for world in built]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:  # a replacement's next seed met another world's seed: vanishingly rare
        raise ValueError(f"set {recipe.name!r}: worlds {duplicates} came out twice; build it under another version")
    evalset = EvalSet(name=recipe.name, version=recipe.version, created_with=GENERATOR_VERSION,
                      worlds=tuple(world.world for world in built), recipe=recipe.to_json())
    result = BuildResult(evalset, tuple(built), run_reference, time.perf_counter() - start, stats.backend, stats.retries)
    _refuse_to_change_a_built_set(evalset, directory)
    write_json(manifest_path(recipe.name, directory), evalset.to_json())
    reference_file = companion_path(recipe.name, REFERENCE_SUFFIX, directory)
    if run_reference:
        write_json(reference_file, result.reference_scores())
    elif reference_file.exists():
        reference_file.unlink()  # it would describe other worlds' hashes
    companion_path(recipe.name, REPORT_SUFFIX, directory).write_text(build_report(result))
    return result


def _refuse_to_change_a_built_set(evalset: EvalSet, directory) -> None:
    """A set already built under this name and version must come out the same: scores on it
    would otherwise stop being comparable. ``ValueError`` naming the worlds that differ."""
    path = manifest_path(evalset.name, directory)
    if not path.exists():
        return
    existing = load_set(evalset.name, directory)
    if existing.version != evalset.version:
        return  # a new version replaces the old one's files
    old, new = {w.key: w for w in existing.worlds}, {w.key: w for w in evalset.worlds}
    changed = sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
    if changed:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise ValueError(f"{path} already holds set {evalset.name!r} version {evalset.version}, and {len(changed)} of its worlds "
                         f"came out differently ({shown}): re-version the set (a new name or version in "
                         "avalon/evaluation/sets/recipe.py) instead of rebuilding it; nothing was written")


def build_report(result: BuildResult) -> str:
    """The build report (Markdown): per task, worlds, forced worlds, replacements and the reference
    agent's successes; then every replacement and every world the reference agent failed."""
    evalset = result.evalset
    lines = [
        f"# Evaluation set `{evalset.name}` (version {evalset.version})",
        "",
        f"Built by `avalon evalset build {evalset.name}` with generator version {evalset.created_with}: "
        f"{len(evalset.worlds)} worlds. "
        + ("The scripted reference agent played every world that has one, in the simulator (evaluation mode, "
           "each world's own time limit)." if result.reference_ran else
           "**The reference agent was not run** (`--no-reference`)."),
        "",
    ] + _task_table(result) + ["", (f"Build time: {result.wall_s:.0f} s wall on {result.backend}, "
                               f"{result.worker_retries} world(s) rerun after a worker died.")]
    replaced = [w for w in result.built if w.replacements]
    lines += ["", "## Replaced worlds", ""]
    lines += [f"- {w.planned.task} d={w.planned.difficulty:g}: seed {r.seed} replaced ({r.reason.splitlines()[0]})"
              for w in replaced for r in w.replacements] or ["None: every planned seed gave a world its certificate accepts."]
    if result.reference_ran:
        failed = [w for w in result.built if w.reference is not None and not w.reference.success]
        lines += ["", "## Worlds the reference agent did not solve", ""]
        lines += [f"- `{w.world.key}`{_forced_note(w.world)}: "
                  + (w.reference.error.splitlines()[0] if w.reference.error else w.reference.detail.splitlines()[0] if w.reference.detail
                     else "not solved") for w in failed] or ["None."]
    return "\n".join(lines) + "\n"


def _task_table(result: BuildResult) -> list[str]:
    """Per task: worlds, forced worlds, whether a certificate checked them, replaced worlds, reference solved."""
    lines = ["| task | worlds | forced | certified | replaced | reference solved |", "|---|---|---|---|---|---|"]
    by_task: dict[str, list[BuiltWorld]] = collections.defaultdict(list)
    for world in result.built:
        by_task[world.world.task].append(world)
    for task, worlds in by_task.items():
        played = [w.reference for w in worlds if w.reference is not None]
        solved = f"{sum(r.success for r in played)} / {len(played)}" if played else ("no agent" if result.reference_ran else "not run")
        certified = "yes" if worlds[0].certified else "no certificate"
        lines.append(f"| {task} | {len(worlds)} | {sum(bool(w.world.forced) for w in worlds)} | {certified} | "
                     f"{sum(bool(w.replacements) for w in worlds)} | {solved} |")
    return lines


def _forced_note(world: SetWorld) -> str:
    return "" if not world.forced else " (" + ", ".join(f"{k}={v}" for k, v in world.forced.items()) + ")"


def build_summary(result: BuildResult) -> str:
    """What ``avalon evalset build`` prints: the per-task table, the times, where the files went."""
    table = "\n".join(_task_table(result))
    return (f"{table}\n{len(result.evalset.worlds)} worlds, {sum(bool(w.replacements) for w in result.built)} replaced; "
            f"generation time {result.wall_s:.1f} s wall ({result.generation_s:.1f} s of generation, certificates and export "
            f"summed over the worlds) on {result.backend}; {result.worker_retries} world(s) rerun after a worker died")


@attr.s(frozen=True, auto_attribs=True)
class Mismatch:
    """A world whose regenerated folder does not hash to its manifest's hash."""

    world: SetWorld
    regenerated_hash: str


@attr.s(frozen=True, auto_attribs=True)
class VerifyResult:
    evalset: EvalSet
    mismatches: tuple[Mismatch, ...]
    wall_s: float
    backend: str
    worker_retries: int

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def message(self) -> str:
        """What ``avalon evalset verify`` prints."""
        evalset = self.evalset
        timing = f"in {self.wall_s:.1f} s on {self.backend}"
        if self.ok:
            return f"set {evalset.name!r} version {evalset.version}: all {len(evalset.worlds)} worlds match their content hashes ({timing})"
        lines = [f"{m.world.key}{_forced_note(m.world)}: the manifest says {m.world.content_hash}, regenerated {m.regenerated_hash}"
                 for m in self.mismatches]
        generator = ("" if evalset.created_with == GENERATOR_VERSION else
                     f" (it was built with generator version {evalset.created_with}, this is {GENERATOR_VERSION})")
        lines.append(
            f"{len(self.mismatches)} of {len(evalset.worlds)} worlds of set {evalset.name!r} version {evalset.version} do not match "
            f"their content hashes{generator} ({timing}). The set must be re-versioned: build it under a new name or version "
            "(a new SetRecipe in avalon/evaluation/sets/recipe.py) instead of editing or rebuilding this one, "
            "so scores on it stay comparable.")
        return "\n".join(lines)


def verify_set(name: str, directory: str | os.PathLike | None = None, *, jobs: Optional[int] = None,
               ray_address: Optional[str] = None, progress: bool = True) -> VerifyResult:
    """Regenerates every world of the set ``name`` and compares its content hash with the manifest's."""
    start = time.perf_counter()
    evalset = load_set(name, directory)
    stats = JobStats()
    regenerated: list[Optional[str]] = [None] * len(evalset.worlds)
    results = run_jobs(world_hash, [(world,) for world in evalset.worlds], jobs=jobs, ray_address=ray_address, stats=stats)
    for index, content_hash in tqdm(results, total=len(evalset.worlds), desc=f"verifying {name}", disable=not progress, file=sys.stderr):
        regenerated[index] = content_hash
    mismatches = tuple(Mismatch(world, content_hash) for world, content_hash in zip(evalset.worlds, regenerated)
                       if content_hash != world.content_hash)
    return VerifyResult(evalset, mismatches, time.perf_counter() - start, stats.backend, stats.retries)


@attr.s(frozen=True, auto_attribs=True)
class BaselineResult:
    """The random agent's results on a set, in the set's order, and what it cost."""

    evalset: EvalSet
    scores: dict[str, dict]
    failed: tuple[str, ...]
    wall_s: float
    backend: str
    worker_retries: int

    def summary(self) -> str:
        lines = ["| task | worlds | random successes | mean score |", "|---|---|---|---|"]
        for task in self.evalset.tasks():
            entries = [self.scores[w.key] for w in self.evalset.worlds if w.task == task and w.key in self.scores]
            mean = sum(e["score"] for e in entries) / len(entries) if entries else float("nan")
            lines.append(f"| {task} | {len(entries)} | {sum(e['success'] for e in entries)} | {mean:.3f} |")
        lines.append(f"random agent ({RANDOM_ACTION_SPACE} actions) on {len(self.scores)} worlds in {self.wall_s:.0f} s on "
                     f"{self.backend}; {self.worker_retries} world(s) rerun after a worker died")
        lines += [f"FAILED (simulator): {key}" for key in self.failed]
        return "\n".join(lines)


def random_baseline(name: str, directory: str | os.PathLike | None = None, *, jobs: Optional[int] = None,
                    ray_address: Optional[str] = None, progress: bool = True) -> BaselineResult:
    """Plays the random agent on every world of the set ``name`` and writes ``<name>.random.json``
    (``{SetWorld.key: {"score", "success", "source"}}``: what normalisation subtracts). Worlds whose simulator
    failed every attempt are left out of the file and listed."""
    start = time.perf_counter()
    evalset = load_set(name, directory)
    stats = JobStats()
    runs: dict[str, object] = {}
    results = run_jobs(random_run, [(world,) for world in evalset.worlds], jobs=jobs, ray_address=ray_address, stats=stats)
    for index, run in tqdm(results, total=len(evalset.worlds), desc=f"random agent on {name}", disable=not progress, file=sys.stderr):
        runs[evalset.worlds[index].key] = run
    ordered = [(w.key, runs[w.key]) for w in evalset.worlds]
    scores = {key: {"score": run.score, "success": run.success, "source": RANDOM_SOURCE} for key, run in ordered if run.error is None}
    write_json(companion_path(name, RANDOM_SUFFIX, directory), scores)
    failed = tuple(key for key, run in ordered if run.error is not None)
    return BaselineResult(evalset, scores, failed, time.perf_counter() - start, stats.backend, stats.retries)
