"""``avalon evalset build``: a set's manifest, reference scores and build report.

:func:`build_set` plans the recipe's worlds (:mod:`avalon.evaluation.sets.recipe`), makes each one in a
worker (:func:`avalon.evaluation.sets.worker.build_one`: certificate, replacements, content hash, the
reference agent's episode) through :func:`avalon.evaluation.sets.runner.run_jobs`, then writes
``<name>.json`` (the manifest), ``<name>.reference.json`` (the reference agent's score and success
per world, keyed by ``SetWorld.key``; only when the reference agent ran) and ``<name>.report.md``.
"""

from __future__ import annotations

import collections
import os
from typing import Optional

import attr

from avalon.datagen.world import GENERATOR_VERSION
from avalon.evaluation.results import EpisodeResult
from avalon.evaluation.scoring.score_files import SCRIPTED_SOURCE, score_entries
from avalon.evaluation.sets.manifest import REFERENCE_SUFFIX, REPORT_SUFFIX, EvalSet, companion_path, load_set, manifest_path, write_json
from avalon.evaluation.sets.recipe import SetRecipe, plan_worlds
from avalon.evaluation.sets.runner import JobStats, run_over_worlds
from avalon.evaluation.sets.worker import BuiltWorld, build_one


@attr.s(frozen=True, auto_attribs=True)
class BuildResult:
    """A built set and how the build went."""

    evalset: EvalSet
    #: Each planned world as it was made, in the set's order.
    built: tuple[BuiltWorld, ...]
    #: Whether the reference agents played (False with ``--no-reference``).
    reference_ran: bool
    #: Where it ran, its wall time, and the worlds made again after their worker died.
    cost: JobStats

    @property
    def generation_s(self) -> float:
        """Generation, certificates and export summed over the worlds (CPU seconds of the workers)."""
        return sum(world.generation_s for world in self.built)

    def reference_scores(self) -> dict[str, dict]:
        """``{SetWorld.key: {"score", "success", "source"}}`` of every world the reference agent played."""
        return score_entries({b.world.key: b.reference for b in self.built if isinstance(b.reference, EpisodeResult)},
                             SCRIPTED_SOURCE)


def build_set(recipe: SetRecipe, directory: str | os.PathLike | None = None, *, jobs: Optional[int] = None,
              ray_address: Optional[str] = None, run_reference: bool = True, progress: bool = True) -> BuildResult:
    """Builds the set of ``recipe`` and writes its files into ``directory`` (default: the
    checked-in sets' folder); see the module's docstring."""
    planned = plan_worlds(recipe)
    built, cost = run_over_worlds(build_one, [(world, run_reference) for world in planned], description=f"building {recipe.name}",
                                  jobs=jobs, ray_address=ray_address, progress=progress)
    keys = [world.world.key for world in built]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:  # a replacement's next seed met another world's seed: vanishingly rare
        raise ValueError(f"set {recipe.name!r}: worlds {duplicates} came out twice; build it under another version")
    evalset = EvalSet(name=recipe.name, version=recipe.version, created_with=GENERATOR_VERSION,
                      worlds=tuple(world.world for world in built), recipe=recipe.to_json())
    result = BuildResult(evalset, tuple(built), run_reference, cost)
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
    ] + _task_table(result) + ["", (f"Build time: {result.cost.wall_s:.0f} s wall on {result.cost.backend}, "
                               f"{result.cost.retries} world(s) rerun after a worker died.")]
    replaced = [w for w in result.built if w.replacements]
    lines += ["", "## Replaced worlds", ""]
    lines += [f"- {w.planned.task} d={w.planned.difficulty:g}: seed {r.seed} replaced ({r.reason.splitlines()[0]})"
              for w in replaced for r in w.replacements] or ["None: every planned seed gave a world its certificate accepts."]
    if result.reference_ran:
        failed = [w for w in result.built if w.reference is not None and not _solved(w)]
        lines += ["", "## Worlds the reference agent did not solve", ""]
        lines += [f"- `{w.world.described}`: {_why_not_solved(w.reference)}" for w in failed] or ["None."]
    return "\n".join(lines) + "\n"


def _solved(world: BuiltWorld) -> bool:
    return isinstance(world.reference, EpisodeResult) and world.reference.success


def _why_not_solved(reference) -> str:
    """The first line of what stopped the reference agent: the simulator's last error, or where the agent stopped."""
    text = reference.error if not isinstance(reference, EpisodeResult) else reference.note
    return text.splitlines()[0] if text else "not solved"


def _task_table(result: BuildResult) -> list[str]:
    """Per task: worlds, forced worlds, whether a certificate checked them, replaced worlds, reference solved."""
    lines = ["| task | worlds | forced | certified | replaced | reference solved |", "|---|---|---|---|---|---|"]
    by_task: dict[str, list[BuiltWorld]] = collections.defaultdict(list)
    for world in result.built:
        by_task[world.world.task].append(world)
    for task, worlds in by_task.items():
        played = [w for w in worlds if w.reference is not None]
        solved = f"{sum(_solved(w) for w in played)} / {len(played)}" if played else ("no agent" if result.reference_ran else "not run")
        certified = "yes" if worlds[0].certified else "no certificate"
        lines.append(f"| {task} | {len(worlds)} | {sum(bool(w.world.forced) for w in worlds)} | {certified} | "
                     f"{sum(bool(w.replacements) for w in worlds)} | {solved} |")
    return lines


def build_summary(result: BuildResult) -> str:
    """What ``avalon evalset build`` prints: the per-task table, the times, where the files went."""
    table = "\n".join(_task_table(result))
    return (f"{table}\n{len(result.evalset.worlds)} worlds, {sum(bool(w.replacements) for w in result.built)} replaced; "
            f"generation time {result.cost.wall_s:.1f} s wall ({result.generation_s:.1f} s of generation, certificates and export "
            f"summed over the worlds) on {result.cost.backend}; {result.cost.retries} world(s) rerun after a worker died")
