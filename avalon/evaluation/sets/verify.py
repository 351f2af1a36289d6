"""``avalon evalset verify``: every world of a set regenerated and its content hash compared with
the manifest's; a mismatch means the set must be re-versioned."""

from __future__ import annotations

import os
from typing import NamedTuple, Optional

import attr

from avalon.datagen.world import GENERATOR_VERSION
from avalon.evaluation.sets.manifest import EvalSet, SetWorld, load_set
from avalon.evaluation.sets.runner import JobStats, run_over_worlds
from avalon.evaluation.sets.worker import world_hash


class Mismatch(NamedTuple):
    """A world whose regenerated folder does not hash to its manifest's hash."""

    world: SetWorld
    regenerated_hash: str


@attr.s(frozen=True, auto_attribs=True)
class VerifyResult:
    """A verified set, the worlds that did not match, and what the run cost."""

    evalset: EvalSet
    mismatches: tuple[Mismatch, ...]
    #: Where it ran, its wall time, and the worlds made again after their worker died.
    cost: JobStats

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def message(self) -> str:
        """What ``avalon evalset verify`` prints."""
        evalset = self.evalset
        timing = f"in {self.cost.wall_s:.1f} s on {self.cost.backend}"
        if self.ok:
            return f"set {evalset.name!r} version {evalset.version}: all {len(evalset.worlds)} worlds match their content hashes ({timing})"
        lines = [f"{m.world.described}: the manifest says {m.world.content_hash}, regenerated {m.regenerated_hash}"
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
    evalset = load_set(name, directory)
    regenerated, cost = run_over_worlds(world_hash, [(world,) for world in evalset.worlds], description=f"verifying {name}",
                                        jobs=jobs, ray_address=ray_address, progress=progress)
    mismatches = tuple(Mismatch(world, content_hash) for world, content_hash in zip(evalset.worlds, regenerated)
                       if content_hash != world.content_hash)
    return VerifyResult(evalset, mismatches, cost)
