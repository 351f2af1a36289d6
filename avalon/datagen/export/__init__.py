"""World → world folder: the only Python that knows Godot's scene syntax, binary encoding and
``res://`` paths.

A world folder holds ``world.tscn`` (the scene), the data files its nodes read, in Godot's
binary variant encoding (``terrain.bin``: terrain, water, scenery and tree colliders, compressed;
``buildings.bin``, when the world has buildings: their meshes and colliders), and ``world.json``
(see :mod:`avalon.datagen.world_folder`): task, difficulty, seed, food count, time limit,
generator version, a hash of the other files as they are, and the content hash: the same files
with ``terrain.bin`` in its canonical encoding (``terrain_data.CANONICAL``), which does not change
when the shipped encoding does. Writing is atomic: the folder appears complete or not at all.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from avalon.datagen import world_folder
from avalon.datagen.export import marshal
from avalon.datagen.export.scene_text import (
    BUILDINGS_DATA_FILE,
    ENTITY_SCENES,
    SKY_DOME_SCENE,
    STATIC_LIT_KINDS,
    TERRAIN_DATA_FILE,
    TERRAIN_SCENE,
    world_scene_text,
)
from avalon.datagen.world import GENERATOR_VERSION, Terrain, World
from avalon.datagen.world_folder import FORMAT_VERSION, INFO_FILE, SCENE_FILE

__all__ = [
    "ENTITY_SCENES",
    "SKY_DOME_SCENE",
    "STATIC_LIT_KINDS",
    "TERRAIN_SCENE",
    "content_hash",
    "export_world",
    "world_info",
    "world_scene_text",
    "write_world_files",
]

def content_hash(folder: Path, canonical: dict[str, bytes] | None = None) -> str:
    """SHA-256 over every file of a world folder except ``world.json``, in name order (see
    :func:`avalon.datagen.world_folder.content_hash`: regular files only, never followed links),
    with the bytes of the files named in ``canonical`` replaced by those."""
    return world_folder.content_hash(folder, canonical)


def write_world_files(world: World, folder: Path) -> dict[str, bytes]:
    """The scene and its data files (everything but world.json); returns the canonical bytes of
    the files whose shipped bytes differ from them (the content hash is over those)."""
    from avalon.datagen.export.building_data import buildings_data
    from avalon.datagen.export.terrain_data import CANONICAL, terrain_data

    if world.scenery and not isinstance(world.ground, Terrain):
        raise ValueError("scenery needs a Terrain ground (it is merged into the terrain's meshes)")
    (folder / SCENE_FILE).write_text(world_scene_text(world))
    if world.buildings:
        marshal.store_var(folder / BUILDINGS_DATA_FILE, buildings_data(world.buildings, world.lighting))
    if not isinstance(world.ground, Terrain):
        return {}
    marshal.store_compressed(folder / TERRAIN_DATA_FILE, terrain_data(world.ground, world.scenery, world.lighting))
    canonical = terrain_data(world.ground, world.scenery, world.lighting, CANONICAL)
    return {TERRAIN_DATA_FILE: marshal.file_bytes(canonical)}


def world_info(world: World, folder_hash: str, files_hash: str) -> dict:
    optional = {} if world.success_rule == "all_food" else {"success_rule": world.success_rule}
    return {
        "format_version": FORMAT_VERSION,
        "generator_version": GENERATOR_VERSION,
        "task": world.task,
        "difficulty": world.difficulty,
        "seed": world.seed,
        "food_count": world.food_count,
        "time_limit_frames": world.time_limit_frames,
        "content_hash": folder_hash,
        "files_hash": files_hash,
        **optional,
    }


def export_world(world: World, output_dir: str | os.PathLike) -> Path:
    """Writes ``world`` as a world folder at ``output_dir`` and returns its absolute path.

    An existing world folder there is replaced; an existing folder holding anything else is
    refused (nothing is deleted).
    """
    output = Path(output_dir).resolve()
    if output.exists():
        if not output.is_dir():
            raise FileExistsError(f"{output} exists and is not a folder")
        if any(output.iterdir()) and not (output / INFO_FILE).is_file():
            raise FileExistsError(f"{output} exists and holds something other than a world folder; refusing to overwrite it")
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{output.name}.", dir=output.parent))
    try:
        canonical = write_world_files(world, staging)
        info = world_info(world, content_hash(staging, canonical), content_hash(staging))
        (staging / INFO_FILE).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
        staging.chmod(0o755)
        if output.exists():
            shutil.rmtree(output)
        staging.rename(output)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return output
