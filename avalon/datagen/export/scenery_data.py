"""Scenery → low-poly geometry merged into the terrain's chunk meshes, and tree colliders.

Each kind is made of parts (trunk, crown, stem, ...), each built here from a primitive at scale 1.
Every instance's parts are placed (yaw, uniform scale, position) and merged into the static mesh
of the terrain chunk it stands in, so the whole static world costs one draw call per chunk.
Crowns take the instance's colour (the generator's per-instance colour noise); trunks and stems
keep their own. Shading is baked into vertex colours, averaged over the instance's yaw, and drawn
unshaded. Trees also get a trunk collider (a cylinder) each: they collide and will be climbable;
smaller scenery does not collide.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from avalon.datagen.export import marshal
from avalon.datagen.lighting import lit_colors
from avalon.datagen.scenery import FruitTreeConfig, SceneryKind
from avalon.datagen.world import Lighting

TRUNK_COLOR = (0.42, 0.30, 0.20)
WHITE = (1.0, 1.0, 1.0)


class Part(NamedTuple):
    """One part of a scenery kind at scale 1: a primitive, its size in metres, its base colour."""

    name: str
    primitive: str  # "cylinder", "cone" or "ellipsoid"
    radius_m: float
    height_m: float
    base_y_m: float  # where the part starts above the ground
    color: tuple[float, float, float]  # WHITE: takes the instance's colour
    segments: int = 6


_FRUIT = FruitTreeConfig()
#: Every kind's parts; the fruit tree follows FruitTreeConfig (the generator places food by it).
SHAPES: dict[SceneryKind, tuple[Part, ...]] = {
    SceneryKind.MAPLE: (
        Part("trunk", "cylinder", 0.2, 2.6, 0.0, TRUNK_COLOR),
        Part("crown", "ellipsoid", 1.9, 3.4, 2.2, WHITE, 8),
    ),
    SceneryKind.ACACIA: (
        Part("trunk", "cylinder", 0.18, 3.4, 0.0, TRUNK_COLOR),
        Part("crown", "ellipsoid", 2.6, 1.1, 3.2, WHITE, 8),
    ),
    SceneryKind.FIR: (
        Part("trunk", "cylinder", 0.22, 1.6, 0.0, TRUNK_COLOR),
        Part("crown", "cone", 1.6, 5.4, 1.0, WHITE, 7),
    ),
    SceneryKind.PALM: (
        Part("trunk", "cylinder", 0.16, 5.2, 0.0, TRUNK_COLOR),
        Part("crown", "cone", 2.2, 0.9, 4.8, WHITE, 7),
    ),
    SceneryKind.BUSH: (Part("crown", "ellipsoid", 0.75, 1.1, 0.0, WHITE, 6),),
    SceneryKind.FLOWER: (
        Part("stem", "cylinder", 0.025, 0.35, 0.0, (0.25, 0.5, 0.2), 4),
        Part("crown", "ellipsoid", 0.1, 0.12, 0.33, WHITE, 5),
    ),
    SceneryKind.MUSHROOM: (
        Part("stem", "cylinder", 0.05, 0.16, 0.0, (0.9, 0.88, 0.8), 5),
        Part("crown", "ellipsoid", 0.14, 0.12, 0.12, WHITE, 6),
    ),
    SceneryKind.FRUIT_TREE: (
        Part("trunk", "cylinder", _FRUIT.trunk_radius_m, _FRUIT.canopy_bottom_m + 0.5, 0.0, TRUNK_COLOR),
        Part("crown", "ellipsoid", _FRUIT.canopy_radius_m, _FRUIT.height_m - _FRUIT.canopy_bottom_m,
             _FRUIT.canopy_bottom_m, WHITE, 10),
    ),
}
TRUNKS: dict[SceneryKind, Part] = {kind: parts[0] for kind, parts in SHAPES.items() if kind.is_tree}


def _ring(radius: float, y: float, segments: int) -> np.ndarray:
    angles = np.arange(segments) * 2 * math.pi / segments
    return np.stack([radius * np.cos(angles), np.full(segments, y), -radius * np.sin(angles)], axis=1)


def _primitive(part: Part) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat-shaded (vertices, normals, triangle indices) of a part; outward normals, and each
    triangle clockwise seen from outside (Godot's front faces)."""
    n = part.segments
    if part.primitive == "ellipsoid":
        rings = max(3, n // 2)
        lat = np.linspace(-math.pi / 2, math.pi / 2, rings + 1)
        points = [[(0.0, -1.0, 0.0)]] + [list(_ring(math.cos(a), math.sin(a), n)) for a in lat[1:-1]] + [[(0.0, 1.0, 0.0)]]
        rows = [np.array(p) for p in points]
        triangles = []
        for below, above in zip(rows[:-1], rows[1:]):
            for i in range(n):
                j = (i + 1) % n
                if len(below) == 1:
                    triangles.append((below[0], above[j], above[i]))
                elif len(above) == 1:
                    triangles.append((below[i], below[j], above[0]))
                else:
                    triangles += [(below[i], below[j], above[i]), (below[j], above[j], above[i])]
        unit = np.array(triangles)  # (t, 3, 3) on the unit sphere centred at the origin
        scale = np.array([part.radius_m, part.height_m / 2, part.radius_m])
        vertices = unit * scale + np.array([0.0, part.base_y_m + part.height_m / 2, 0.0])
    else:
        top_radius = part.radius_m if part.primitive == "cylinder" else 0.0
        bottom = _ring(part.radius_m, part.base_y_m, n)
        top = _ring(top_radius, part.base_y_m + part.height_m, n)
        centre_bottom = np.array([0.0, part.base_y_m, 0.0])
        centre_top = np.array([0.0, part.base_y_m + part.height_m, 0.0])
        triangles = []
        for i in range(n):
            j = (i + 1) % n
            triangles += [(bottom[i], bottom[j], top[i]), (bottom[j], top[j], top[i])]
            triangles += [(centre_bottom, bottom[j], bottom[i]), (centre_top, top[i], top[j])]
        vertices = np.array(triangles)
    edges_a, edges_b = vertices[:, 1] - vertices[:, 0], vertices[:, 2] - vertices[:, 0]
    face_normals = np.cross(edges_a, edges_b)
    lengths = np.linalg.norm(face_normals, axis=1, keepdims=True)
    keep = lengths[:, 0] > 1e-12  # drop degenerate triangles (a cone's collapsed tip)
    vertices, face_normals = vertices[keep], face_normals[keep] / lengths[keep]
    # Orient every triangle outwards (away from the part's centre) ...
    centre = np.array([0.0, part.base_y_m + part.height_m / 2, 0.0])
    inward = np.einsum("ij,ij->i", face_normals, vertices.mean(axis=1) - centre) < 0
    face_normals[inward] *= -1
    vertices[inward] = vertices[inward][:, ::-1]
    # ... then list it clockwise seen from outside, Godot's winding for front faces.
    vertices = vertices[:, ::-1].reshape(-1, 3)
    normals = np.repeat(face_normals, 3, axis=0)
    return vertices, normals, np.arange(len(vertices))


def _yaw_averaged_shading(normals: np.ndarray, color, lighting: Lighting, samples: int = 8) -> np.ndarray:
    """Baked colour of each vertex, averaged over the instance yaw (instances face all ways)."""
    shades = []
    for angle in np.arange(samples) * 2 * math.pi / samples:
        c, s = math.cos(angle), math.sin(angle)
        turned = normals @ np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]).T
        shades.append(lit_colors(np.broadcast_to(color, normals.shape), turned, lighting))
    return np.mean(shades, axis=0)


#: Kinds drawn at each terrain level of detail (finest first): far away, small plants vanish.
KINDS_AT_LEVEL: tuple[frozenset, ...] = (
    frozenset(SHAPES),
    frozenset(kind for kind in SHAPES if kind.is_tree or kind == SceneryKind.BUSH),
    frozenset(kind for kind in SHAPES if kind.is_tree),
)

#: Segments around each part at each level of detail (finest first), as a share of its own (at
#: least MIN_SEGMENTS); and whether tree trunks are drawn: beyond the second level's distance a
#: trunk is narrower than a pixel of a 96-pixel observation.
SEGMENT_SHARE_AT_LEVEL = (1.0, 0.75, 0.5)
TRUNKS_AT_LEVEL = (True, True, False)
MIN_SEGMENTS = 4

_PART_CACHE: dict[tuple[SceneryKind, int, int, int], tuple[np.ndarray, np.ndarray]] = {}


def _part_geometry(kind: SceneryKind, index: int, lighting: Lighting, level: int) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, baked shading colours) of one part at scale 1 and a level of detail, cached per lighting."""
    key = (kind, index, hash(lighting), level)
    if key not in _PART_CACHE:
        part = SHAPES[kind][index]
        segments = max(MIN_SEGMENTS, math.ceil(part.segments * SEGMENT_SHARE_AT_LEVEL[level]))
        vertices, normals, _ = _primitive(part._replace(segments=min(part.segments, segments)))
        _PART_CACHE[key] = (vertices, _yaw_averaged_shading(normals, part.color, lighting))
    return _PART_CACHE[key]


def scenery_geometry(instances, lighting: Lighting, level: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """World-space triangle soup (vertices, colours) of ``instances`` at a level of detail
    (0: finest): three vertices a triangle."""
    vertices, colors = [np.zeros((0, 3))], [np.zeros((0, 3))]
    for item in instances:
        c, s, k = math.cos(item.yaw_rad), math.sin(item.yaw_rad), item.scale
        rotation = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]) * k
        for index, part in enumerate(SHAPES[item.kind]):
            if not TRUNKS_AT_LEVEL[level] and item.kind.is_tree and part is TRUNKS[item.kind]:
                continue
            part_vertices, shading = _part_geometry(item.kind, index, lighting, level)
            vertices.append(part_vertices @ rotation.T + np.asarray(item.position))
            tint = np.asarray(item.color) if part.color == WHITE else 1.0
            colors.append(np.clip(shading * tint, 0.0, 1.0))
    return np.concatenate(vertices), np.concatenate(colors)


def tree_colliders(scenery) -> list[dict]:
    """A trunk cylinder per tree, grouped by kind, for ``terrain.gd``."""
    colliders = []
    for kind, trunk in TRUNKS.items():
        trees = [item for item in scenery if item.kind == kind]
        if trees:
            colliders.append(
                {
                    "kind": kind.value,
                    "radius_m": trunk.radius_m,
                    "height_m": trunk.height_m,
                    "bases": marshal.vector3_array([item.position for item in trees]),
                    "scales": marshal.real_array([item.scale for item in trees]),
                }
            )
    return colliders
