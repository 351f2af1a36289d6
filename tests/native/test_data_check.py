"""The native checks of world data files (native/data_check.c), called directly through ctypes:
the layout check accepts exactly what the exporter encodes and refuses truncations, bad counts
and deep nesting (which Godot's own decoder would recurse into until its stack ran out)."""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest

from avalon.datagen.export import marshal
from avalon.sim.paths import find_native_library

MAX_DEPTH = 8  # as godot/world/terrain_file.gd


@pytest.fixture(scope="module")
def library():
    path = find_native_library()
    assert path is not None, "this checkout's Godot project loads the native library"
    library = ctypes.CDLL(str(path))
    library.avalon_variant_layout_error.restype = ctypes.c_int64
    library.avalon_variant_layout_error.argtypes = [ctypes.c_char_p, ctypes.c_int64, ctypes.c_int]
    library.avalon_indices_below.restype = ctypes.c_bool
    library.avalon_indices_below.argtypes = [ctypes.POINTER(ctypes.c_int32), ctypes.c_int64, ctypes.c_int64]
    library.avalon_all_within.restype = ctypes.c_bool
    library.avalon_all_within.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_int64, ctypes.c_double, ctypes.c_double]
    return library


def layout_error(library, data: bytes, max_depth: int = MAX_DEPTH) -> int:
    return library.avalon_variant_layout_error(data, len(data), max_depth)


SAMPLE = {
    "format_version": 4,
    "big": 2**40,
    "flag": True,
    "name": "terrain",
    "centre": marshal.vector3(1.0, 2.0, 3.0),
    "real": 0.5,
    "grid": [marshal.real_array([1.0, 2.0]), marshal.byte_array([1, 0, 1]), marshal.int_array([0, 1, 2])],
    "mesh": {"vertices": marshal.vector3_array(np.zeros((3, 3))), "colors": marshal.color_array(np.ones((3, 3))),
             "indices": marshal.int_array([0, 1, 2])},
    "empty": [],
}


def test_everything_the_exporter_encodes_is_accepted(library):
    data = marshal.encode(SAMPLE)
    assert layout_error(library, data) == 0


def test_every_truncation_and_any_trailing_byte_are_refused(library):
    data = marshal.encode(SAMPLE)
    assert all(layout_error(library, data[:size]) != 0 for size in range(len(data)))
    assert layout_error(library, data + b"\0\0\0\0") == len(data) + 1


@pytest.mark.parametrize(
    "data, offset",
    [
        (struct.pack("<II", marshal.POOL_INT_ARRAY, 0x40000001) + bytes(16), 0),  # 4 * count overflows 32 bits
        (struct.pack("<II", marshal.POOL_VECTOR3_ARRAY, 0xFFFFFFFF) + bytes(16), 0),
        (struct.pack("<II", marshal.STRING, 0xFFFFFFF0) + bytes(16), 0),
        (struct.pack("<II", marshal.DICTIONARY, 0x7FFFFFFF) + bytes(16), 0),  # more values than bytes
        (struct.pack("<II", marshal.ARRAY, 0x80000001) + struct.pack("<II", marshal.INT, 1), 0),  # the "shared" bit
        (struct.pack("<II", 17, 0), 0),  # an object
        (struct.pack("<I", 0), 0),  # nil: the zeros a short read pads with
        (struct.pack("<II", marshal.BOOL | (1 << 16), 1), 0),  # a flag on a bool
        (struct.pack("<II", marshal.ARRAY, 2) + struct.pack("<II", marshal.INT, 1) + struct.pack("<II", 99, 0), 16),
    ],
)
def test_bad_headers_are_refused_at_their_offset(library, data, offset):
    assert layout_error(library, data) == offset + 1


def test_nesting_deeper_than_the_limit_is_refused_without_recursion(library):
    def nested(depth: int) -> bytes:
        return struct.pack("<II", marshal.ARRAY, 1) * depth + struct.pack("<II", marshal.INT, 7)

    assert layout_error(library, nested(MAX_DEPTH)) == 0
    assert layout_error(library, nested(MAX_DEPTH + 1)) == 8 * MAX_DEPTH + 1
    assert layout_error(library, nested(200_000)) == 8 * MAX_DEPTH + 1  # Godot's bytes2var crashes on this
    assert layout_error(library, nested(1), max_depth=33) != 0  # beyond the compiled-in limit: refused


def test_indices_and_values_finite_and_within_bounds(library):
    def below(indices, count):
        array = np.ascontiguousarray(indices, np.int32)
        return library.avalon_indices_below(array.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)), len(array), count)

    def within(values, low, high):
        array = np.ascontiguousarray(values, np.float32)
        return library.avalon_all_within(array.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), len(array), low, high)

    def finite(values):
        largest = float(np.finfo(np.float32).max)
        return within(values, -largest, largest)

    assert below([0, 1, 2, 2], 3) and below([], 0)
    assert not below([0, 3, 1], 3) and not below([0, -1, 1], 3) and not below([2**31 - 1], 3)
    assert finite([0.0, -1e30, 3.5]) and finite([])
    assert not finite([0.0, np.nan]) and not finite([np.inf, 0.0]) and not finite([-np.inf])
    # Bounds, inclusive (terrain_file.gd: coordinates within +-1e6 m, colours in [0, 1], scales).
    assert within([-1e6, 0.0, 1e6], -1e6, 1e6) and within([0.0, 1.0], 0.0, 1.0) and within([], 0.0, 0.0)
    assert not within([0.5, 1e6 + 1], -1e6, 1e6) and not within([-2e6], -1e6, 1e6) and not within([1.0001], 0.0, 1.0)
    assert not within([np.nan], -np.inf, np.inf) and not within([np.inf], -np.inf, np.inf)
