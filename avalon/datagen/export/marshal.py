"""Godot 3's binary variant encoding (``var2bytes`` / ``File.store_var``), for the types we export.

World data too large for scene text (terrain grids, meshes, scenery instances) is written in this
encoding so the simulator decodes a whole file with one native ``File.get_var()`` call. Layouts
(little-endian, every value padded to 4 bytes) were read off Godot 3.2.3's own ``var2bytes``;
``tests/datagen/test_marshal.py`` checks them against Godot.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import zstandard

BOOL, INT, REAL, STRING, VECTOR3 = 1, 2, 3, 4, 7
DICTIONARY, ARRAY = 18, 19
POOL_BYTE_ARRAY, POOL_INT_ARRAY, POOL_REAL_ARRAY, POOL_VECTOR3_ARRAY, POOL_COLOR_ARRAY = 20, 21, 22, 25, 26
INT64_FLAG = 1 << 16


class PoolArray:
    """A numpy array to encode as one of Godot's pool arrays (the kind is chosen by ``kind``)."""

    __slots__ = ("kind", "values")

    def __init__(self, kind: int, values: np.ndarray) -> None:
        self.kind = kind
        self.values = values


def byte_array(values) -> PoolArray:
    return PoolArray(POOL_BYTE_ARRAY, np.ascontiguousarray(values, np.uint8).reshape(-1))


def int_array(values) -> PoolArray:
    return PoolArray(POOL_INT_ARRAY, np.ascontiguousarray(values, "<i4").reshape(-1))


def real_array(values) -> PoolArray:
    return PoolArray(POOL_REAL_ARRAY, np.ascontiguousarray(values, "<f4").reshape(-1))


def vector3_array(values) -> PoolArray:
    return PoolArray(POOL_VECTOR3_ARRAY, np.ascontiguousarray(values, "<f4").reshape(-1, 3))


def color_array(rgb) -> PoolArray:
    """Colours from (n, 3) RGB or (n, 4) RGBA floats in [0, 1]."""
    rgb = np.asarray(rgb, np.float32).reshape(len(rgb), -1)
    if rgb.shape[1] == 3:
        rgb = np.concatenate([rgb, np.ones((len(rgb), 1), np.float32)], axis=1)
    return PoolArray(POOL_COLOR_ARRAY, np.ascontiguousarray(rgb, "<f4"))


def _pad(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 4)


def encode(value) -> bytes:
    """``var2bytes(value)`` for bool, int, float, str, (x, y, z) via :func:`vector3`, dicts with
    string keys, lists/tuples, and :class:`PoolArray`."""
    if isinstance(value, (bool, np.bool_)):
        return struct.pack("<II", BOOL, int(value))
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if -(2**31) <= value < 2**31:
            return struct.pack("<Ii", INT, value)
        return struct.pack("<Iq", INT | INT64_FLAG, value)
    if isinstance(value, (float, np.floating)):
        return struct.pack("<If", REAL, float(value))
    if isinstance(value, str):
        data = value.encode()
        return struct.pack("<II", STRING, len(data)) + _pad(data)
    if isinstance(value, _Vector3):
        return struct.pack("<Ifff", VECTOR3, *value.xyz)
    if isinstance(value, PoolArray):
        values = value.values
        count = len(values)
        body = values.tobytes()
        return struct.pack("<II", value.kind, count) + (_pad(body) if value.kind == POOL_BYTE_ARRAY else body)
    if isinstance(value, Mapping):
        parts = [struct.pack("<II", DICTIONARY, len(value))]
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"dictionary keys must be strings, not {key!r}")
            parts += [encode(key), encode(item)]
        return b"".join(parts)
    if isinstance(value, Sequence):
        return struct.pack("<II", ARRAY, len(value)) + b"".join(encode(item) for item in value)
    raise TypeError(f"cannot encode {type(value).__name__} for Godot")


class _Vector3:
    __slots__ = ("xyz",)

    def __init__(self, x: float, y: float, z: float) -> None:
        self.xyz = (float(x), float(y), float(z))


def vector3(x: float, y: float, z: float) -> _Vector3:
    return _Vector3(x, y, z)


def file_bytes(value) -> bytes:
    """``value`` as ``File.store_var`` writes it: a u32 length, then the encoded variant."""
    data = encode(value)
    return struct.pack("<I", len(data)) + data


def store_var(path: Path, value) -> None:
    """Writes ``value`` as ``File.store_var`` does (:func:`file_bytes`)."""
    path.write_bytes(file_bytes(value))


#: The first bytes of a compressed data file (``godot/world/terrain_file.gd`` reads it).
COMPRESSED_MAGIC = b"AVZ1"
#: zstd's default level: a fifth to a tenth of the encoding's size; Godot decompresses ~250 MB/s here.
COMPRESSION_LEVEL = 3


def store_compressed(path: Path, value) -> None:
    """Writes ``value`` compressed: ``COMPRESSED_MAGIC``, the u32 length of the encoded variant,
    then the encoding as one zstd frame (Godot's ``PoolByteArray.decompress`` with
    ``File.COMPRESSION_ZSTD``)."""
    data = encode(value)
    frame = zstandard.ZstdCompressor(level=COMPRESSION_LEVEL).compress(data)
    path.write_bytes(COMPRESSED_MAGIC + struct.pack("<I", len(data)) + frame)
