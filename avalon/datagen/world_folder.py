"""Reading and checking world folders (the format :mod:`avalon.datagen.export` writes).

A world folder holds ``world.tscn`` (the Godot scene) and ``world.json``::

    {
      "format_version": 1,            # this layout
      "generator_version": "0.1.0",   # avalon.datagen.world.GENERATOR_VERSION that wrote it
      "task": "eat",                  # task name, or "trivial" for the test world
      "difficulty": 0.5,              # in [0, 1]
      "seed": 3,
      "food_count": 1,
      "time_limit_frames": 200,       # the episode is truncated after this many steps
      "content_hash": "sha256:..."    # over every other file in the folder, see export.content_hash
    }
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import attr

from avalon.env.errors import WorldLoadError

FORMAT_VERSION = 1
SCENE_FILE = "world.tscn"
INFO_FILE = "world.json"
_REQUIRED_KEYS = {
    "format_version": int,
    "generator_version": str,
    "task": str,
    "difficulty": (int, float),
    "seed": int,
    "food_count": int,
    "time_limit_frames": int,
    "content_hash": str,
}


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
    content_hash: str


def read_world_info(folder: str | os.PathLike) -> WorldInfo:
    """Checks that ``folder`` is a world folder and returns its ``world.json``.

    Raises :class:`WorldLoadError` naming the path and what is wrong with it.
    """
    path = Path(folder).expanduser().resolve()
    if not path.exists():
        raise WorldLoadError(f"world folder {path} does not exist")
    if not path.is_dir():
        raise WorldLoadError(f"world folder {path} is not a folder")
    info_path, scene_path = path / INFO_FILE, path / SCENE_FILE
    if not info_path.is_file():
        raise WorldLoadError(f"world folder {path} has no {INFO_FILE}")
    if not scene_path.is_file():
        raise WorldLoadError(f"world folder {path} has no {SCENE_FILE}")
    try:
        info = json.loads(info_path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise WorldLoadError(f"{info_path} is not valid JSON: {error}") from None
    if not isinstance(info, dict):
        raise WorldLoadError(f"{info_path} must hold a JSON object, not {type(info).__name__}")
    for key, expected in _REQUIRED_KEYS.items():
        if key not in info:
            raise WorldLoadError(f"{info_path} lacks the key {key!r}")
        if not isinstance(info[key], expected) or isinstance(info[key], bool):
            raise WorldLoadError(f"{info_path}: {key!r} is {info[key]!r}, expected {_type_names(expected)}")
    if info["format_version"] != FORMAT_VERSION:
        raise WorldLoadError(
            f"{info_path} has format_version {info['format_version']}, this version reads {FORMAT_VERSION}; regenerate the world"
        )
    if info["time_limit_frames"] <= 0:
        raise WorldLoadError(f"{info_path}: time_limit_frames is {info['time_limit_frames']}, expected a positive number")
    fields = {key: info[key] for key in _REQUIRED_KEYS}
    fields["difficulty"] = float(fields["difficulty"])
    return WorldInfo(path=path, **fields)


def _type_names(expected) -> str:
    types = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(t.__name__ for t in types)
