"""The ``world.tscn`` text of a world: Godot's text scene syntax and ``res://`` paths live here."""

from __future__ import annotations

import math

import numpy as np

from avalon.datagen.lighting import box_face_colors, lit_colors
from avalon.datagen.world import FOOD_KINDS, TOOL_KINDS, Entity, FlatGround, Lighting, World

# Entity kind → Godot scene (relative to the godot/ project) and the exported properties it takes.
ENTITY_SCENES: dict[str, str] = {
    "box": "res://entities/box.tscn",
    **{kind: f"res://entities/food/{kind}.tscn" for kind in FOOD_KINDS},
    **{kind: f"res://entities/tools/{kind}.tscn" for kind in TOOL_KINDS},
}
#: Entity params written as Godot colours (three floats in [0, 1]).
COLOR_PARAMS = frozenset({"color", "base_color"})
#: Group of the flat ground's body: what counts as "the ground" for food (a honeycomb touching it
#: gets dirty; see godot/entities/food.gd). The terrain's body is in group "terrain".
GROUND_GROUP = "ground"
# Static kinds whose diffuse lighting is baked into per-face colours (see avalon.datagen.lighting).
STATIC_LIT_KINDS = frozenset({"box"})
SKY_DOME_SCENE = "res://world/sky_dome.tscn"
TERRAIN_SCENE = "res://world/terrain.tscn"
#: Data file written beside world.tscn (read by the terrain node).
TERRAIN_DATA_FILE = "terrain.bin"


def _num(value: float) -> str:
    """Shortest round-trip text for a float; never "-0" (keeps files byte-identical)."""
    value = float(value) + 0.0
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(round(value, 6))


def _vector3(values) -> str:
    return "Vector3( %s )" % ", ".join(_num(v) for v in values)


def _color(rgb, alpha: float = 1.0) -> str:
    return "Color( %s )" % ", ".join(_num(v) for v in (*rgb, alpha))


def _transform(position, yaw_rad: float = 0.0, pitch_rad: float = 0.0) -> str:
    """Godot text form of a yaw-then-pitch rotation and a translation (basis written row by row)."""
    cy, sy, cp, sp = math.cos(yaw_rad), math.sin(yaw_rad), math.cos(pitch_rad), math.sin(pitch_rad)
    rows = (
        (cy, sy * sp, sy * cp),
        (0.0, cp, -sp),
        (-sy, cy * sp, cy * cp),
    )
    values = [v for row in rows for v in row] + list(position)
    return "Transform( %s )" % ", ".join(_num(v) for v in values)


def _property_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _num(value)
    if isinstance(value, tuple) and len(value) == 3:
        return _vector3(value)
    raise TypeError(f"cannot export property value {value!r}")


class _SceneWriter:
    """Accumulates ext_resources, sub_resources and nodes of one .tscn file."""

    def __init__(self) -> None:
        self.ext: dict[str, tuple[int, str]] = {}
        self.sub: list[str] = []
        self.nodes: list[str] = []

    def ext_resource(self, path: str, type_name: str) -> str:
        if path not in self.ext:
            self.ext[path] = (len(self.ext) + 1, type_name)
        return "ExtResource( %d )" % self.ext[path][0]

    def sub_resource(self, type_name: str, **properties: str) -> str:
        index = len(self.sub) + 1
        body = "".join(f"{key} = {value}\n" for key, value in properties.items())
        self.sub.append(f'[sub_resource type="{type_name}" id={index}]\n{body}')
        return "SubResource( %d )" % index

    def node(self, name: str, parent: str | None, type_name: str | None = None, instance: str | None = None,
             groups: tuple[str, ...] = (), **properties: str) -> None:
        header = f'[node name="{name}"'
        if type_name:
            header += f' type="{type_name}"'
        if parent is not None:
            header += f' parent="{parent}"'
        if instance:
            header += f" instance={instance}"
        if groups:
            header += " groups=[ %s ]" % ", ".join(f'"{group}"' for group in groups)
        body = "".join(f"{key} = {value}\n" for key, value in properties.items())
        self.nodes.append(f"{header}]\n{body}")

    def text(self) -> str:
        ext = [
            f'[ext_resource path="{path}" type="{type_name}" id={index}]\n'
            for path, (index, type_name) in self.ext.items()
        ]
        load_steps = len(self.ext) + len(self.sub) + 1
        parts = [f"[gd_scene load_steps={load_steps} format=2]\n"]
        parts += ["".join(ext)] if ext else []
        parts += self.sub + self.nodes
        return "\n".join(parts)


def _color_array(colors) -> str:
    return "PoolColorArray( %s )" % ", ".join(_num(v) for rgb in colors for v in (*rgb, 1.0))


def _entity_properties(entity: Entity, lighting: Lighting) -> dict[str, str]:
    properties = {"transform": _transform(entity.position, entity.yaw_rad)}
    for key, value in entity.params:
        if key in COLOR_PARAMS:
            properties[key] = _color(value)
        else:
            properties[key] = _property_value(value)
    if entity.kind in STATIC_LIT_KINDS:
        properties["face_colors"] = _color_array(box_face_colors(entity.param("color"), entity.yaw_rad, lighting))
    return properties


def _flat_ground(scene: _SceneWriter, ground: FlatGround, lighting: Lighting) -> None:
    size = ground.size_m
    mesh = scene.sub_resource("PlaneMesh", size="Vector2( %s, %s )" % (_num(size), _num(size)))
    lit = lit_colors(np.array(ground.color), np.array([0.0, 1.0, 0.0]), lighting)
    material = scene.sub_resource("SpatialMaterial", flags_unshaded="true", albedo_color=_color(lit))
    shape = scene.sub_resource("BoxShape", extents=_vector3((size / 2, 1.0, size / 2)))
    scene.node("Ground", ".", "StaticBody", groups=(GROUND_GROUP,))
    scene.node("Mesh", "Ground", "MeshInstance", mesh=mesh, material_override=material, cast_shadow="0")
    scene.node("Shape", "Ground", "CollisionShape", transform=_transform((0.0, -1.0, 0.0)), shape=shape)


def world_scene_text(world: World) -> str:
    """The ``world.tscn`` text for ``world``."""
    scene = _SceneWriter()
    lighting = world.lighting
    fog = {}
    if lighting.fog_enabled:
        fog = dict(
            fog_enabled="true",
            fog_color=_color(lighting.fog_color),
            fog_depth_begin=_num(lighting.fog_depth_begin_m),
            fog_depth_end=_num(lighting.fog_depth_end_m),
        )
    environment = scene.sub_resource(
        "Environment",
        background_mode="1",
        background_color=_color(lighting.sky_horizon_color),
        ambient_light_color=_color(lighting.ambient_color),
        ambient_light_energy=_num(lighting.ambient_energy * lighting.exposure),
        **fog,
    )

    scene.node("World", None, "Spatial")
    scene.node("Environment", ".", "WorldEnvironment", environment=environment)
    scene.node(
        "Sun", ".", "DirectionalLight",
        transform=_transform((0.0, 0.0, 0.0), math.radians(lighting.sun_yaw_deg), math.radians(lighting.sun_pitch_deg)),
        light_color=_color(lighting.sun_color),
        light_energy=_num(lighting.sun_energy * lighting.exposure),
    )
    scene.node(
        "SkyDome", ".", instance=scene.ext_resource(SKY_DOME_SCENE, "PackedScene"),
        zenith_color=_color(np.clip(np.array(lighting.sky_zenith_color) * lighting.exposure, 0.0, 1.0)),
        horizon_color=_color(np.clip(np.array(lighting.sky_horizon_color) * lighting.exposure, 0.0, 1.0)),
    )
    if isinstance(world.ground, FlatGround):
        _flat_ground(scene, world.ground, lighting)
    else:
        scene.node("Terrain", ".", instance=scene.ext_resource(TERRAIN_SCENE, "PackedScene"),
                   data_file=f'"{TERRAIN_DATA_FILE}"')
    scene.node("Entities", ".", "Spatial")
    for entity in world.entities:
        if entity.kind not in ENTITY_SCENES:
            raise ValueError(f"entity {entity.name!r} has unknown kind {entity.kind!r}; known: {sorted(ENTITY_SCENES)}")
        instance = scene.ext_resource(ENTITY_SCENES[entity.kind], "PackedScene")
        scene.node(entity.name, "Entities", instance=instance, **_entity_properties(entity, lighting))
    scene.node("SpawnPoint", ".", "Position3D", transform=_transform(world.spawn_position, world.spawn_yaw_rad))
    return scene.text()
