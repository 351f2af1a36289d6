"""Buildings → ``buildings.bin``, what ``godot/world/buildings.gd`` builds them from.

Each building is one mesh (every visible box's faces, vertex-coloured with baked diffuse
lighting, :mod:`avalon.datagen.lighting`; drawn unshaded: one draw call) and its colliders as
boxes (centre, half extents, rotation), in two sets: solid, and climbable (a ladder's grip, and
the outline walls when the building's outside is climbable). Faces no one sees (a wall's top and
bottom, the foundation's underside) are left out.
"""

from __future__ import annotations

import numpy as np

from avalon.datagen.buildings.geometry import INVISIBLE, NOT_COLLIDING, OUTER_ROLES, Box, Role, building_boxes, rotation_matrix
from avalon.datagen.buildings.spec import Building, TileKind
from avalon.datagen.export import marshal
from avalon.datagen.lighting import lit_colors
from avalon.datagen.world import Lighting

BUILDINGS_FORMAT_VERSION = 1

#: Unit box corners (index bits: x, y, z) and, per face (+x, -x, +y, -y, +z, -z), its four corners
#: counter-clockwise seen from outside, and its normal.
_CORNERS = np.array([[(i & 1) * 2 - 1, (i >> 1 & 1) * 2 - 1, (i >> 2 & 1) * 2 - 1] for i in range(8)], np.float64)
_FACE_NORMALS = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], np.float64)


def _face_corners() -> np.ndarray:
    faces = []
    for normal in _FACE_NORMALS:
        axis = int(np.argmax(np.abs(normal)))
        u, v = (axis + 1) % 3, (axis + 2) % 3
        square = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
        if normal[axis] < 0:
            square = square[::-1]
        corners = []
        for su, sv in square:
            point = np.zeros(3)
            point[axis], point[u], point[v] = normal[axis], su, sv
            corners.append(int(np.flatnonzero((_CORNERS == point).all(axis=1))[0]))
        faces.append(corners)
    return np.array(faces)


_FACES = _face_corners()
_TOP, _BOTTOM = 2, 3


def _outside(building: Building, points: np.ndarray) -> np.ndarray:
    """Whether each world point (n, 3) lies outside the building's footprint (horizontally)."""
    rows, cols = building.shape
    col = np.floor(points[:, 0] - building.origin[0]).astype(int)
    row = np.floor(points[:, 2] - building.origin[2]).astype(int)
    inside = (row >= 0) & (row < rows) & (col >= 0) & (col < cols)
    footprint = building.stories[0].kinds != TileKind.VOID
    result = ~inside
    result[inside] = ~footprint[row[inside], col[inside]]
    return result


def _albedos(building: Building, box: Box, outside: np.ndarray) -> np.ndarray:
    """Colour of each of a box's six faces by its role and whether the face looks outside."""
    look = building.appearance
    colours = np.empty((6, 3))
    role = box.role
    if role is Role.FLOOR:
        colours[:] = np.where(outside[:, None], look.exterior_wall_color, look.floor_color)
        colours[_TOP], colours[_BOTTOM] = look.floor_color, look.ceiling_color
    elif role is Role.ROOF:
        colours[:] = look.trim_color
        colours[_TOP], colours[_BOTTOM] = look.roof_color, look.ceiling_color
    elif role in OUTER_ROLES:
        outer = look.exterior_wall_color if role is Role.OUTER_WALL else look.trim_color
        colours[:] = np.where(outside[:, None], outer, look.interior_wall_color)
        colours[_TOP] = colours[_BOTTOM] = outer
    elif role is Role.WALL:
        colours[:] = look.interior_wall_color
    else:  # ramps and ladders
        colours[:] = look.ramp_color
    return colours


def _hidden_faces(box: Box, site_height_m: float) -> list[int]:
    if box.role in (Role.WALL, Role.OUTER_WALL):
        return [_TOP, _BOTTOM]  # under a slab, on a slab
    if box.role is Role.FLOOR and box.centre[1] < site_height_m:
        return [_BOTTOM]  # the foundation's underside (an upper slab's is a ceiling)
    return []


def _covered_faces(boxes: list[Box], centres: np.ndarray, extents: np.ndarray) -> np.ndarray:
    """(boxes, 6) whether each face of an unrotated box lies against another unrotated box that
    goes on beyond it (a wall's end against the next wall, a slab's edge against the next slab):
    no one sees it. A face flush with another's (both facing the same way) is kept."""
    plain = np.array([box.rotation == (0.0, 0.0, 0.0) for box in boxes])
    low, high = centres - extents, centres + extents
    eps = 1e-6
    covered = np.zeros((len(boxes), 6), bool)
    for face, normal in enumerate(_FACE_NORMALS):
        axis = int(np.argmax(np.abs(normal)))
        others = [a for a in range(3) if a != axis]
        # The face's plane, and whether each other box holds it with material beyond it.
        plane = (high if normal[axis] > 0 else low)[:, axis]
        if normal[axis] > 0:
            beyond = (low[None, :, axis] <= plane[:, None] + eps) & (high[None, :, axis] > plane[:, None] + eps)
        else:
            beyond = (high[None, :, axis] >= plane[:, None] - eps) & (low[None, :, axis] < plane[:, None] - eps)
        within = np.ones_like(beyond)
        for a in others:
            within &= (low[None, :, a] <= low[:, None, a] + eps) & (high[None, :, a] >= high[:, None, a] - eps)
        holds = beyond & within & plain[None, :] & plain[:, None]
        np.fill_diagonal(holds, False)
        covered[:, face] = holds.any(axis=1)
    return covered


def building_mesh(building: Building, boxes: list[Box], lighting: Lighting) -> dict:
    """One vertex-coloured mesh of every visible box's faces (all boxes at once)."""
    boxes = [box for box in boxes if box.role not in INVISIBLE]
    rotations = np.array([rotation_matrix(box.rotation) for box in boxes])
    centres = np.array([box.centre for box in boxes], np.float64)
    extents = np.array([box.extents for box in boxes], np.float64)
    corners = centres[:, None, :] + np.einsum("nij,nkj->nki", rotations, _CORNERS[None] * extents[:, None, :])
    normals = np.einsum("nij,fj->nfi", rotations, _FACE_NORMALS)
    quads = corners[:, _FACES]  # (boxes, 6 faces, 4 corners, xyz)
    outside = _outside(building, (quads.mean(axis=2) + normals * 0.5).reshape(-1, 3)).reshape(-1, 6)
    albedo = np.array([_albedos(building, box, outside[i]) for i, box in enumerate(boxes)])
    lit = lit_colors(albedo, normals, lighting)
    shown = ~_covered_faces(boxes, centres, extents)
    for i, box in enumerate(boxes):
        shown[i, _hidden_faces(box, building.origin[1])] = False
    faces = quads[shown]  # (faces, 4, xyz)
    base = np.arange(len(faces))[:, None] * 4
    # Godot's front faces are clockwise: each counter-clockwise quad's corners reversed.
    return {
        "vertices": marshal.vector3_array(faces.reshape(-1, 3)),
        "colors": marshal.color_array(np.repeat(lit[shown], 4, axis=0)),
        "indices": marshal.int_array((base + np.array([0, 2, 1, 0, 3, 2])).reshape(-1)),
    }


def _box_set(boxes: list[Box]) -> dict:
    return {
        "centres": marshal.vector3_array(np.array([box.centre for box in boxes], np.float64).reshape(-1, 3)),
        "extents": marshal.vector3_array(np.array([box.extents for box in boxes], np.float64).reshape(-1, 3)),
        "rotations": marshal.vector3_array(np.array([box.rotation for box in boxes], np.float64).reshape(-1, 3)),
    }


def _is_climbable(building: Building, box: Box) -> bool:
    return box.role is Role.LADDER_GRIP or (building.climbable_exterior and box.role in OUTER_ROLES)


def building_entry(building: Building, lighting: Lighting) -> dict:
    """One building's mesh and colliders."""
    boxes = building_boxes(building)
    colliding = [box for box in boxes if box.role not in NOT_COLLIDING]
    return {
        "mesh": building_mesh(building, boxes, lighting),
        "solid": _box_set([box for box in colliding if not _is_climbable(building, box)]),
        "climbable": _box_set([box for box in colliding if _is_climbable(building, box)]),
    }


def buildings_data(buildings, lighting: Lighting) -> dict:
    """Everything ``godot/world/buildings.gd`` needs, as a dict for :func:`marshal.store_var`."""
    return {
        "format_version": BUILDINGS_FORMAT_VERSION,
        "buildings": [building_entry(building, lighting) for building in buildings],
    }
