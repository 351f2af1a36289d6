"""Baked diffuse lighting for static geometry.

The sun does not move within an episode, so the diffuse light on anything static (ground,
terrain, boxes, trees) is computed once here and exported as unshaded colours. The simulator
then shades static geometry in one cheap pass; only moving things (food, hands, animals) are lit
by Godot every frame. The model is per-vertex Lambert, the paper's "basic" setting:

    colour = albedo * exposure * (ambient_colour * ambient_energy + sun_colour * sun_energy * max(0, n . l))

with ``l`` the direction towards the sun, all in sRGB and clamped to [0, 1].
"""

from __future__ import annotations

import math

import numpy as np

from avalon.datagen.world import Lighting


def sun_direction(lighting: Lighting) -> np.ndarray:
    """Unit vector the sunlight travels along (the DirectionalLight's -z after yaw, then pitch)."""
    yaw, pitch = math.radians(lighting.sun_yaw_deg), math.radians(lighting.sun_pitch_deg)
    return np.array([-math.sin(yaw) * math.cos(pitch), math.sin(pitch), -math.cos(yaw) * math.cos(pitch)])


def lit_colors(albedo: np.ndarray, normals: np.ndarray, lighting: Lighting) -> np.ndarray:
    """Lit colours for albedos (..., 3) in [0, 1] at unit world-space normals (..., 3)."""
    towards_sun = -sun_direction(lighting)
    diffuse = np.clip(np.asarray(normals, np.float64) @ towards_sun, 0.0, None)[..., None]
    light = np.asarray(lighting.ambient_color) * lighting.ambient_energy + np.asarray(lighting.sun_color) * lighting.sun_energy * diffuse
    return np.clip(np.asarray(albedo, np.float64) * light * lighting.exposure, 0.0, 1.0)


#: Box faces in the order the Godot box scene reads ``face_colors``: +x, -x, +y, -y, +z, -z.
BOX_FACE_NORMALS = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], np.float64)


def box_face_colors(albedo, yaw_rad: float, lighting: Lighting) -> np.ndarray:
    """Lit colour of each face of a box turned by ``yaw_rad`` about +y, in BOX_FACE_NORMALS order."""
    c, s = math.cos(yaw_rad), math.sin(yaw_rad)
    rotation = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return lit_colors(np.broadcast_to(albedo, (6, 3)), BOX_FACE_NORMALS @ rotation.T, lighting)
