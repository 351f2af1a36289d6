"""An evaluation set's manifest: which worlds it holds and the content hash each must have.

The manifest ``<name>.json`` (checked in beside this module) names every world by task, difficulty,
seed and forced options, with the content hash of its world folder (``world.json``'s
``content_hash``: SHA-256 over the folder's other files with their data in its canonical encoding,
:mod:`avalon.datagen.export`; the same whatever encoding the folder ships)
and the generator version that made it. The world folders are not kept: they are regenerated from
these fields, and ``avalon evalset verify`` checks the hashes still match.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import attr

from avalon.errors import check_int, check_non_empty_str, refuse
from avalon.tasks.kit.forcing import ForcedOptions
from avalon.training.world_supply import WorldRequest

#: Where the checked-in manifests live (package data).
SETS_DIR = Path(__file__).resolve().parent
#: Layout of the manifest file.
MANIFEST_FORMAT = 1
#: File name suffixes of a set's files beside its manifest ``<name>.json``.
REFERENCE_SUFFIX = ".reference.json"
RANDOM_SUFFIX = ".random.json"
REPORT_SUFFIX = ".report.md"
_COMPANION_SUFFIXES = (REFERENCE_SUFFIX, RANDOM_SUFFIX, REPORT_SUFFIX)
_HASH = re.compile(r"sha256:[0-9a-f]{64}")
#: A re-issued companion file's ending (``.reference.2.json``).
_REISSUE = re.compile(r"\.(reference|random)\.[0-9]+\.json$")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class SetWorld:
    """One world of a set: what regenerates it and the content hash its folder must have."""

    task: str
    difficulty: float
    seed: int
    content_hash: str
    #: Generator options pinned for this world (``{"food_kind": "fig"}``), empty for most.
    forced: ForcedOptions = attr.ib(factory=ForcedOptions, converter=ForcedOptions.of)

    def __attrs_post_init__(self) -> None:
        WorldRequest(self.task, self.difficulty, self.seed, self.forced)  # checks task, difficulty, seed and forcing
        if not isinstance(self.content_hash, str) or not _HASH.fullmatch(self.content_hash):
            refuse("content_hash", self.content_hash, "'sha256:' and 64 lower-case hex digits")

    @property
    def request(self) -> WorldRequest:
        return WorldRequest(self.task, self.difficulty, self.seed, self.forced)

    @property
    def key(self) -> str:
        """``task-difficulty-seed``: the world's name in per-world score files (its request's folder name)."""
        return self.request.folder_name

    @property
    def described(self) -> str:
        """Its key, and its forced options in brackets when it has any (as reports name it)."""
        forced = ", ".join(f"{option}={value}" for option, value in self.forced.items())
        return self.key + (f" ({forced})" if forced else "")

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task, "difficulty": self.difficulty, "seed": self.seed, "forced": dict(self.forced),
                "content_hash": self.content_hash}


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class EvalSet:
    """A versioned evaluation set: its worlds in task order, then by difficulty."""

    name: str
    version: int
    #: ``avalon.datagen.world.GENERATOR_VERSION`` of the generator that built it.
    created_with: str
    worlds: tuple[SetWorld, ...] = attr.ib(converter=tuple)
    #: How the worlds were chosen (:class:`~avalon.evaluation.sets.recipe.SetRecipe`'s fields), for the record.
    recipe: dict[str, Any] = attr.ib(factory=dict, eq=False)

    def requests(self) -> list[WorldRequest]:
        """One :class:`WorldRequest` per world, in the set's order."""
        return [world.request for world in self.worlds]

    def tasks(self) -> list[str]:
        """The set's tasks, in its order."""
        return list(dict.fromkeys(world.task for world in self.worlds))

    def to_json(self) -> dict[str, Any]:
        return {"format": MANIFEST_FORMAT, "name": self.name, "version": self.version, "created_with": self.created_with,
                "recipe": self.recipe, "worlds": [world.to_json() for world in self.worlds]}


def manifest_path(name: str, directory: str | os.PathLike | None = None) -> Path:
    return Path(directory or SETS_DIR) / f"{name}.json"


def companion_path(name: str, suffix: str, directory: str | os.PathLike | None = None) -> Path:
    """``<directory>/<name><suffix>``: the set's reference scores, random scores or build report."""
    return Path(directory or SETS_DIR) / f"{name}{suffix}"


def reissued_paths(name: str, suffix: str, directory: str | os.PathLike | None = None) -> list[Path]:
    """The re-issues of a set's companion file ``<name><suffix>`` (``v3.reference.json``):
    ``<name><stem>.<n>.json`` (``v3.reference.2.json``), n >= 2, in the order of ``n``."""
    stem = suffix[: -len(".json")]
    found = [(int(match.group(1)), path) for path in Path(directory or SETS_DIR).glob(f"{name}{stem}.*.json")
             if (match := re.fullmatch(re.escape(f"{name}{stem}.") + r"([2-9]|[1-9][0-9]+)\.json", path.name))]
    return [path for _, path in sorted(found)]


def set_names(directory: str | os.PathLike | None = None) -> list[str]:
    """The sets whose manifests are in ``directory`` (default: the checked-in ones), sorted."""
    folder = Path(directory or SETS_DIR)
    return sorted(path.name[: -len(".json")] for path in folder.glob("*.json")
                  if not any(path.name.endswith(suffix) for suffix in _COMPANION_SUFFIXES) and not _REISSUE.search(path.name))


def load_set(name: str, directory: str | os.PathLike | None = None) -> EvalSet:
    """The set ``name`` (from ``directory``, default the checked-in manifests); ``ValueError``
    listing the sets when there is none by that name, or naming the field of a malformed manifest."""
    check_non_empty_str(name, "set name")
    path = manifest_path(name, directory)
    if os.sep in name or not path.is_file():
        names = set_names(directory)
        raise ValueError(f"unknown evaluation set {name!r} in {path.parent}; the sets are: {', '.join(names) or 'none'}")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a readable JSON manifest ({error})") from None
    return set_from_json(data, str(path))


def set_from_json(data: Any, source: str) -> EvalSet:
    """The :class:`EvalSet` a manifest's JSON holds; ``ValueError`` naming ``source`` and the bad field."""
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        raise ValueError(f"{source}: expected a manifest object with format {MANIFEST_FORMAT}")
    try:
        worlds = tuple(SetWorld(**entry) for entry in data["worlds"])
        result = EvalSet(name=check_non_empty_str(data["name"], "name"), version=check_int(data["version"], "version", low=1),
                         created_with=check_non_empty_str(data["created_with"], "created_with"), worlds=worlds,
                         recipe=dict(data.get("recipe", {})))
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{source}: malformed manifest: {type(error).__name__}: {error}") from None
    keys = [world.key for world in worlds]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{source}: a world is listed twice: {sorted(k for k in set(keys) if keys.count(k) > 1)}")
    return result


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON at ``path``, written whole (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    staging.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    staging.replace(path)
