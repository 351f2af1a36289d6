"""Ways to tamper with an exported world folder, for the tests of what loading one refuses.

Tampering that should be caught by the scene check re-seals the folder (recomputes world.json's
files hash), as an attacker would, so the hash cannot be what catches it.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
from collections.abc import Callable
from pathlib import Path

import attr
import numpy as np
import zstandard

from avalon.datagen.animal_placement import animal_entity
from avalon.datagen.export import content_hash, marshal
from avalon.datagen.world import Entity, World
from avalon.tasks.trivial import trivial_world

SCENE = "world.tscn"
INFO = "world.json"
TERRAIN = "terrain.bin"


def copy_world(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def reseal(folder: Path) -> None:
    """Recomputes world.json's files hash over the folder's files as they are now."""
    info = json.loads((folder / INFO).read_text())
    info["files_hash"] = content_hash(folder)
    (folder / INFO).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")


def edit_info(folder: Path, **values) -> None:
    info = json.loads((folder / INFO).read_text())
    info.update(values)
    (folder / INFO).write_text(json.dumps(info))


def edit_scene(folder: Path, edit: Callable[[str], str], seal: bool = True) -> None:
    """Rewrites world.tscn with ``edit(text)``; then re-seals the folder unless ``seal`` is False."""
    path = folder / SCENE
    text = path.read_text()
    edited = edit(text)
    assert edited != text, "the edit changed nothing"
    path.write_text(edited)
    if seal:
        reseal(folder)


def add_before_nodes(section: str) -> Callable[[str], str]:
    """An edit inserting ``section`` (a whole section, ending in a line break) before the first node."""
    return lambda text: text.replace("[node ", section + "\n[node ", 1)


def add_after_root(lines: str) -> Callable[[str], str]:
    """An edit giving the root node the property lines ``lines``."""
    return lambda text: re.sub(r'(\[node name="World" type="Spatial"\]\n)', lambda m: m.group(1) + lines, text, count=1)


def replace(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text, f"{old!r} is not in the scene"
        return text.replace(old, new, 1)

    return edit


def exploit_script(marker: Path) -> str:
    """GDScript source that writes ``marker`` as soon as its node is created."""
    return (
        "extends Spatial\n\n"
        "func _init():\n"
        "\tvar file = File.new()\n"
        f'\tfile.open("{marker}", File.WRITE)\n'
        '\tfile.store_string("the world folder ran code")\n'
        "\tfile.close()\n"
    )


def add_embedded_script(folder: Path, marker: Path, seal: bool = True) -> None:
    """The attack of the issue: a GDScript sub_resource set as the root's script, which Godot
    runs when it instances the scene."""
    source = exploit_script(marker).replace("\\", "\\\\").replace('"', '\\"')
    section = f'[sub_resource type="GDScript" id=99]\nscript/source = "{source}"\n'

    def edit(text: str) -> str:
        return add_after_root("script = SubResource( 99 )\n")(add_before_nodes(section)(text))

    edit_scene(folder, edit, seal)


def world_at_the_bounds() -> World:
    """The trivial world with numbers at the bounds of what a scene may hold
    (avalon/datagen/export/scene_ranges.py): a far spawn and apple, a huge box and apple, the
    largest and smallest tool scales, an animal's huge territory and attack."""
    entities = (
        Entity(kind="apple", name="far", position=(1e6, -1e6, 0.0), params={"radius": 1e6, "mass": 1e9}),
        Entity(kind="box", name="big", position=(0.0, 0.5, -3.0), params={"size": (1e6, 1e6, 1e6), "color": (0.0, 1.0, 0.0)}),
        Entity(kind="stick", name="scaled", position=(2.0, 0.2, 0.0), params={"safe_scale": 1000.0}),
        Entity(kind="rock", name="small", position=(3.0, 0.2, 0.0), params={"safe_scale": 0.001}),
        animal_entity("mouse", "mouse", (4.0, 0.0, 0.0), attack_damage=1e9, territory_radius_m=1e6),
    )
    return attr.evolve(trivial_world(), entities=entities, spawn_position=(-1e6, 1e6, 1e6))


# ---------------------------------------------------------------------- terrain.bin

_POOL_LAYOUT = {
    marshal.POOL_BYTE_ARRAY: ("u1", 1),
    marshal.POOL_INT_ARRAY: ("<i4", 1),
    marshal.POOL_REAL_ARRAY: ("<f4", 1),
    marshal.POOL_VECTOR3_ARRAY: ("<f4", 3),
    marshal.POOL_COLOR_ARRAY: ("<f4", 4),
}


def decode(data: bytes, offset: int = 0):
    """``(value, next offset)`` of the variant at ``offset``: the inverse of :func:`marshal.encode`
    for what terrain_data writes (pool arrays come back as :class:`marshal.PoolArray`)."""
    header, = struct.unpack_from("<I", data, offset)
    kind, flags, offset = header & 0xFFFF, header >> 16, offset + 4
    if kind == marshal.BOOL:
        return bool(struct.unpack_from("<I", data, offset)[0]), offset + 4
    if kind == marshal.INT:
        if flags:
            return struct.unpack_from("<q", data, offset)[0], offset + 8
        return struct.unpack_from("<i", data, offset)[0], offset + 4
    if kind == marshal.REAL:
        return struct.unpack_from("<f", data, offset)[0], offset + 4
    if kind == marshal.STRING:
        size, = struct.unpack_from("<I", data, offset)
        return data[offset + 4 : offset + 4 + size].decode(), offset + 4 + size + (-size % 4)
    if kind == marshal.VECTOR3:
        return marshal.vector3(*struct.unpack_from("<fff", data, offset)), offset + 12
    count, = struct.unpack_from("<I", data, offset)
    offset += 4
    if kind == marshal.DICTIONARY:
        result = {}
        for _ in range(count):
            key, offset = decode(data, offset)
            result[key], offset = decode(data, offset)
        return result, offset
    if kind == marshal.ARRAY:
        items = []
        for _ in range(count):
            item, offset = decode(data, offset)
            items.append(item)
        return items, offset
    dtype, width = _POOL_LAYOUT[kind]
    values = np.frombuffer(data, dtype, count * width, offset).copy()
    size = values.nbytes
    values = values.reshape(count, width) if width > 1 else values
    return marshal.PoolArray(kind, values), offset + size + (-size % 4 if kind == marshal.POOL_BYTE_ARRAY else 0)


def terrain_encoding(folder: Path) -> bytes:
    """terrain.bin's encoded variant, decompressed (without the file's header)."""
    data = (folder / TERRAIN).read_bytes()
    assert data[:4] == marshal.COMPRESSED_MAGIC
    length, = struct.unpack_from("<I", data, 4)
    encoding = zstandard.ZstdDecompressor().decompress(data[8:], max_output_size=length)
    assert len(encoding) == length
    return encoding


def read_terrain(folder: Path) -> dict:
    data = terrain_encoding(folder)
    value, end = decode(data)
    assert end == len(data)
    return value


def write_terrain(folder: Path, value: dict) -> None:
    marshal.store_compressed(folder / TERRAIN, value)


def edit_terrain(folder: Path, edit: Callable[[dict], None]) -> None:
    """Decodes terrain.bin, lets ``edit`` change it in place, writes it back and re-seals."""
    value = read_terrain(folder)
    edit(value)
    write_terrain(folder, value)
    reseal(folder)
