"""Reading and checking world folders (the format :mod:`avalon.datagen.export` writes).

A world folder holds ``world.tscn`` (the Godot scene), the data files its nodes read
(``terrain.bin`` for an island) and ``world.json``::

    {
      "format_version": 2,            # this layout
      "generator_version": "0.1.0",   # avalon.datagen.world.GENERATOR_VERSION that wrote it
      "task": "eat",                  # task name, or "trivial" for the test world
      "difficulty": 0.5,              # in [0, 1]
      "seed": 3,
      "food_count": 1,
      "time_limit_frames": 200,       # the episode is truncated after this many steps
      "content_hash": "sha256:...",   # over the world's content, see below
      "files_hash": "sha256:...",     # over every other file in the folder as it is, see content_hash
      "success_rule": "all_food_or_energy_gain"  # optional (absent: "all_food"), see SUCCESS_RULES
    }

The content hash is the files hash with each data file in its canonical encoding
(:mod:`avalon.datagen.export`): it names the world, whatever encoding ships it, and is what
evaluation sets and episode files pin. Loading checks the files hash.

World folders (and the episode files that carry them) may come from other people: they are data,
and :func:`read_world_info` checks one completely before anything of it reaches Godot
(docs/security.md): only regular files with the names the exporter writes (no symbolic links,
subfolders or devices; nothing outside the folder is ever opened), every value of world.json
within what the simulator and the RESET message accept, the content hash, and world.tscn against
what the exporter can write (:mod:`avalon.datagen.export.scene_check`).
"""

from __future__ import annotations

import hashlib
import json
import math
import mmap
import os
import re
import stat
from pathlib import Path

import attr

from avalon.datagen.world import SUCCESS_RULES
from avalon.errors import WorldLoadError

FORMAT_VERSION = 2
#: The last release (git tag) that reads each older format.
LAST_READING_RELEASE = {1: "world-format-1"}
SCENE_FILE = "world.tscn"
INFO_FILE = "world.json"
#: Largest files read (bytes): world.json, world.tscn, a data file. Godot's pool arrays hold
#: fewer than 2**31 bytes; a world folder 10x the largest generated one is still far below.
MAX_INFO_BYTES = 1 << 16
MAX_SCENE_BYTES = 1 << 26
MAX_DATA_BYTES = 1 << 30
#: RESET carries the time limit as u32 (avalon.sim.protocol.RESET_FIXED); 0 would end at once.
MAX_TIME_LIMIT_FRAMES = 2**32 - 1
#: Seeds are unsigned 64-bit wherever they reach the simulator.
MAX_SEED = 2**64 - 1
MAX_FOOD_COUNT = 2**31 - 1
_HASH_PREFIX = "sha256:"
_HASH_RE = re.compile(r"sha256:[0-9a-f]{64}\Z")
_NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")  # task names
_VERSION_RE = re.compile(r"[0-9A-Za-z.+_-]{1,64}\Z")  # generator versions

_REQUIRED_KEYS = {
    "format_version": int,
    "generator_version": str,
    "task": str,
    "difficulty": (int, float),
    "seed": int,
    "food_count": int,
    "time_limit_frames": int,
    "content_hash": str,
    "files_hash": str,
}
#: Keys world.json may hold, and their values when it does not.
_OPTIONAL_KEYS = {"success_rule": (str, "all_food")}


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class WorldInfo:
    """The contents of ``world.json`` plus the folder's absolute path."""

    path: Path
    format_version: int
    generator_version: str
    task: str
    difficulty: float
    seed: int
    food_count: int
    time_limit_frames: int
    #: Over the world's content (data files in their canonical encoding): what sets and episodes pin.
    content_hash: str
    #: Over the folder's files as they are: checked when the folder is read.
    files_hash: str
    #: How an episode succeeds (a key of ``avalon.datagen.world.SUCCESS_RULES``).
    success_rule: str = "all_food"


def read_world_info(folder: str | os.PathLike) -> WorldInfo:
    """Checks that ``folder`` is a world folder as the exporter writes it and returns its
    ``world.json``: the files, world.json's values, the content hash and world.tscn (see the
    module's docstring).

    Raises :class:`WorldLoadError` naming the file and what is wrong with it.
    """
    from avalon.datagen.export.scene_check import check_scene_text

    path = Path(folder).expanduser().resolve()
    if not path.exists():
        raise WorldLoadError(f"world folder {path} does not exist")
    if not path.is_dir():
        raise WorldLoadError(f"world folder {path} is not a folder")
    names = _list_files(path)
    info_path, scene_path = path / INFO_FILE, path / SCENE_FILE
    if INFO_FILE not in names:
        raise WorldLoadError(f"world folder {path} has no {INFO_FILE}")
    if SCENE_FILE not in names:
        raise WorldLoadError(f"world folder {path} has no {SCENE_FILE}")
    info = _check_info(_read_small(info_path, MAX_INFO_BYTES), info_path)
    scene_bytes = _read_small(scene_path, MAX_SCENE_BYTES)
    digest = hashlib.sha256()
    for name in sorted(names - {INFO_FILE}):
        _hash_file(digest, name, scene_bytes if name == SCENE_FILE else None, path)
    actual = _HASH_PREFIX + digest.hexdigest()
    if actual != info["files_hash"]:
        raise WorldLoadError(
            f"{info_path}: files_hash is {info['files_hash']} but the folder's files hash to {actual}: "
            "a file was changed, truncated, added or removed after export; regenerate the world"
        )
    try:
        scene_text = scene_bytes.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WorldLoadError(f"{scene_path} is not UTF-8 text ({error})") from None
    summary = check_scene_text(scene_text, str(scene_path))
    data_files = names - {INFO_FILE, SCENE_FILE}
    missing, unused = sorted(summary.data_files - data_files), sorted(data_files - summary.data_files)
    if missing:
        raise WorldLoadError(f"{path / missing[0]} is missing: {SCENE_FILE} reads it")
    if unused:
        raise WorldLoadError(f"{path / unused[0]}: {SCENE_FILE} does not use it, and the exporter writes no unused files")
    return WorldInfo(path=path, **info)


def content_hash(folder: Path, replaced: dict[str, bytes] | None = None) -> str:
    """SHA-256 over every file of a world folder except ``world.json``, in name order (each
    file's name, a NUL byte, then its bytes; ``replaced`` gives other bytes for the files it
    names). Refuses (:class:`WorldLoadError`) what a world folder cannot hold: symbolic links,
    subfolders, devices, names the exporter does not write."""
    folder = Path(folder)
    replaced = replaced or {}
    digest = hashlib.sha256()
    for name in sorted(_list_files(folder) - {INFO_FILE}):
        _hash_file(digest, name, replaced.get(name), folder)
    return _HASH_PREFIX + digest.hexdigest()


def _allowed_names() -> frozenset[str]:
    from avalon.datagen.export.scene_check import DATA_FILES

    return DATA_FILES | {INFO_FILE, SCENE_FILE}


def _list_files(folder: Path) -> set[str]:
    """The names in ``folder``, each checked to be a regular file the exporter may write
    (entries are not followed: a symbolic link is refused, never opened)."""
    allowed = _allowed_names()
    names = set()
    try:
        entries = list(os.scandir(folder))
    except OSError as error:
        raise WorldLoadError(f"world folder {folder} cannot be listed: {error.strerror}") from None
    for entry in entries:
        where = folder / entry.name
        if entry.name not in allowed:
            raise WorldLoadError(
                f"{where}: a world folder holds only {', '.join(sorted(allowed))}; refusing anything else"
            )
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            raise WorldLoadError(f"{where} is a symbolic link: a world folder holds regular files only, nothing outside it is read")
        if not stat.S_ISREG(mode):
            raise WorldLoadError(f"{where} is not a regular file")
        names.add(entry.name)
    return names


def _open_regular(path: Path, limit: int) -> tuple[int, int]:
    """An open descriptor of the regular file at ``path`` (never through a symbolic link) and its size."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise WorldLoadError(f"{path} cannot be opened: {error.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise WorldLoadError(f"{path} is not a regular file")
    if info.st_size > limit:
        os.close(fd)
        raise WorldLoadError(f"{path} holds {info.st_size} bytes, more than the {limit} a world folder's file may")
    return fd, info.st_size


def _read_small(path: Path, limit: int) -> bytes:
    fd, size = _open_regular(path, limit)
    with open(fd, "rb", closefd=True) as file:
        data = file.read(limit + 1)
    if len(data) != size:
        raise WorldLoadError(f"{path} changed while it was read")
    return data


def _hash_file(digest, name: str, data: bytes | None, folder: Path) -> None:
    """Adds one file to the content hash; ``data`` if already read, else mapped (not copied)."""
    digest.update(name.encode() + b"\0")
    if data is not None:
        digest.update(data)
        return
    fd, size = _open_regular(folder / name, MAX_DATA_BYTES)
    try:
        if size:
            with mmap.mmap(fd, size, access=mmap.ACCESS_READ) as mapped:
                digest.update(mapped)
    finally:
        os.close(fd)


def _check_info(data: bytes, info_path: Path) -> dict:
    """world.json's values, each checked against what the simulator and the wire accept."""
    try:
        info = json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as error:
        raise WorldLoadError(f"{info_path} is not valid JSON: {error}") from None
    if not isinstance(info, dict):
        raise WorldLoadError(f"{info_path} must hold a JSON object, not {type(info).__name__}")
    version = info.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and version != FORMAT_VERSION:
        raise WorldLoadError(
            f"{info_path} has format_version {version}, this version reads {FORMAT_VERSION}; regenerate the world"
            + (f" (format {version} folders load with avalon {LAST_READING_RELEASE[version]})" if version in LAST_READING_RELEASE else "")
        )
    for key, expected in _REQUIRED_KEYS.items():
        if key not in info:
            raise WorldLoadError(f"{info_path} lacks the key {key!r}")
        if not isinstance(info[key], expected) or isinstance(info[key], bool):
            raise WorldLoadError(f"{info_path}: {key!r} is {info[key]!r}, expected {_type_names(expected)}")
    for key, (expected, _) in _OPTIONAL_KEYS.items():
        if key in info and not isinstance(info[key], expected):
            raise WorldLoadError(f"{info_path}: {key!r} is {_short(info[key])}, expected {_type_names(expected)}")
    unknown = sorted(set(info) - set(_REQUIRED_KEYS) - set(_OPTIONAL_KEYS))
    if unknown:
        raise WorldLoadError(f"{info_path} has unknown key(s) {unknown}; it holds {sorted(_REQUIRED_KEYS)} "
                             f"and may hold {sorted(_OPTIONAL_KEYS)}")

    def refuse(key: str, expected: str) -> None:
        raise WorldLoadError(f"{info_path}: {key} is {_short(info[key])}, expected {expected}")

    if not 0 < info["time_limit_frames"] <= MAX_TIME_LIMIT_FRAMES:
        refuse("time_limit_frames", f"a positive number of frames up to {MAX_TIME_LIMIT_FRAMES} (RESET carries it as u32)")
    difficulty = float(info["difficulty"])
    if not (math.isfinite(difficulty) and 0.0 <= difficulty <= 1.0):
        refuse("difficulty", "a number in [0, 1]")
    if not 0 <= info["seed"] <= MAX_SEED:
        refuse("seed", f"an integer from 0 to {MAX_SEED}")
    if not 0 <= info["food_count"] <= MAX_FOOD_COUNT:
        refuse("food_count", f"an integer from 0 to {MAX_FOOD_COUNT}")
    if not _NAME_RE.match(info["task"]):
        refuse("task", "a task name (lower-case letters, digits and _)")
    if not _VERSION_RE.match(info["generator_version"]):
        refuse("generator_version", "a version such as 0.1.0")
    for key in ("content_hash", "files_hash"):
        if not _HASH_RE.match(info[key]):
            refuse(key, "'sha256:' and 64 lower-case hex digits")
    if info.get("success_rule", "all_food") not in SUCCESS_RULES:
        refuse("success_rule", f"one of {sorted(SUCCESS_RULES)}")
    fields = {key: info[key] for key in _REQUIRED_KEYS}
    fields.update({key: info.get(key, default) for key, (_, default) in _OPTIONAL_KEYS.items()})
    fields["difficulty"] = difficulty
    return fields


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"key(s) {repeated} appear more than once")
    return dict(pairs)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _type_names(expected) -> str:
    types = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(t.__name__ for t in types)
