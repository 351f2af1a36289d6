"""Checks a ``world.tscn`` against what :mod:`avalon.datagen.export.scene_text` can write.

Godot runs whatever a scene file asks for when it loads it: a ``[sub_resource type="GDScript"]``
with ``script/source`` set as a node's ``script`` executes at reset, an ``[ext_resource]`` may
name any script or scene, a ``[connection]`` calls methods. So a world folder from elsewhere is
data, and its scene must be exactly of the form the exporter writes before Godot sees it:

- sections: one ``[gd_scene load_steps=N format=2]`` first, then ``[ext_resource]``,
  ``[sub_resource]`` and ``[node]`` headers with the attributes the exporter writes; any other
  section (``[connection]``, ``[editable]``, ...) is refused;
- ext_resources: only the project's own scenes the exporter instances (:data:`ENTITY_SCENES`,
  :data:`SKY_DOME_SCENE`, :data:`TERRAIN_SCENE`, :data:`BUILDINGS_SCENE`), as ``PackedScene``;
  never a script;
- sub_resources: only the types the exporter writes, each with only the properties it writes
  (:data:`SUB_RESOURCE_PROPERTIES`);
- nodes: the tree the exporter writes, each name with its type or scene (:data:`NODE_LAYOUT`;
  the simulator finds nodes by name and calls their methods), built-in types with only the
  properties the exporter writes (:data:`NODE_PROPERTIES`), groups only where it gives them;
- instanced nodes (entities, sky, terrain): any property name but ``script`` (entity params are
  open-ended) and the placements other than ``transform`` (:data:`scene_ranges.PLACEMENT_ALIASES`),
  with plain values only: numbers, booleans, strings, vectors, colours, transforms, colour and
  string arrays. No ``Object(``, ``Resource(``, ``NodePath(``, ``ExtResource(`` values;
- every number within what the simulator can hold (:mod:`avalon.datagen.export.scene_ranges`:
  transforms are rotations with an origin within reach, colours in [0, 1], coordinates, lengths,
  scales and other numbers bounded);
- a door (an instance of a door scene, :data:`scene_text.DOOR_SCENES`) exactly as the exporter
  writes it: its properties, their ranges and locks its mechanism can hold
  (:mod:`avalon.datagen.export.door_rows`), refused naming the node;
- ``data_file`` (the only exported property any instanced script uses as a path: the terrain's
  and the buildings') is the bare name of the one data file that node reads,
  :data:`DATA_FILE_SCENES`.

Everything else is refused with :class:`~avalon.errors.WorldLoadError` naming the file, the
line and the reason.
"""

from __future__ import annotations

import math
import re

import attr

from avalon.datagen.export.door_rows import DOOR_SCENE_MECHANISMS, door_row_error
from avalon.datagen.export.scene_ranges import PLACEMENT_ALIASES, range_error
from avalon.datagen.export.scene_text import (
    BUILDINGS_DATA_FILE,
    BUILDINGS_SCENE,
    ENTITY_SCENES,
    GROUND_GROUP,
    SKY_DOME_SCENE,
    TERRAIN_DATA_FILE,
    TERRAIN_SCENE,
)
from avalon.errors import WorldLoadError

#: The scenes a world may instance: exactly those the exporter uses.
ENTITY_SCENE_PATHS: frozenset[str] = frozenset(ENTITY_SCENES.values()) | frozenset(DOOR_SCENE_MECHANISMS)
ALLOWED_SCENES: frozenset[str] = ENTITY_SCENE_PATHS | {SKY_DOME_SCENE, TERRAIN_SCENE, BUILDINGS_SCENE}
#: Instanced scenes whose ``data_file`` property names a file in the folder, and that file's name.
DATA_FILE_SCENES: dict[str, str] = {TERRAIN_SCENE: TERRAIN_DATA_FILE, BUILDINGS_SCENE: BUILDINGS_DATA_FILE}
#: Data files a world folder may hold beside world.tscn and world.json.
DATA_FILES: frozenset[str] = frozenset(DATA_FILE_SCENES.values())
DATA_FILE_PROPERTY = "data_file"

# Value kinds. "plain" is any of the plain forms (an instanced node's property).
NUMBER, BOOL, STRING, VECTOR2, VECTOR3, COLOR, TRANSFORM = "number", "bool", "string", "Vector2", "Vector3", "Color", "Transform"
COLOR_ARRAY, STRING_ARRAY = "PoolColorArray", "PoolStringArray"
PLAIN_KINDS = frozenset({NUMBER, BOOL, STRING, VECTOR2, VECTOR3, COLOR, TRANSFORM, COLOR_ARRAY, STRING_ARRAY})


def _sub(type_name: str) -> str:
    """The kind of a ``SubResource( id )`` value whose resource has type ``type_name``."""
    return f"SubResource:{type_name}"


#: Sub-resource type → its properties and their kinds (written by scene_text's world_scene_text
#: and _flat_ground).
SUB_RESOURCE_PROPERTIES: dict[str, dict[str, str]] = {
    "Environment": {
        "background_mode": NUMBER, "background_color": COLOR, "ambient_light_color": COLOR,
        "ambient_light_energy": NUMBER, "fog_enabled": BOOL, "fog_color": COLOR, "fog_depth_begin": NUMBER,
        "fog_depth_end": NUMBER,
    },
    "PlaneMesh": {"size": VECTOR2},
    "SpatialMaterial": {"flags_unshaded": BOOL, "albedo_color": COLOR},
    "BoxShape": {"extents": VECTOR3},
}
#: Built-in node type → its properties and their kinds.
NODE_PROPERTIES: dict[str, dict[str, str]] = {
    "Spatial": {},
    "WorldEnvironment": {"environment": _sub("Environment")},
    "DirectionalLight": {"transform": TRANSFORM, "light_color": COLOR, "light_energy": NUMBER},
    "StaticBody": {},
    "MeshInstance": {"mesh": _sub("PlaneMesh"), "material_override": _sub("SpatialMaterial"), "cast_shadow": NUMBER},
    "CollisionShape": {"transform": TRANSFORM, "shape": _sub("BoxShape")},
    "Position3D": {"transform": TRANSFORM},
}
#: The node tree world_scene_text writes: parent path → child name → node type or instanced scene.
#: The simulator finds some of these by name (Environment, SkyDome, Terrain, SpawnPoint) and
#: calls their methods, so a name must always come with its type.
ROOT_NODE_TYPE = "Spatial"
ENTITY_PARENT = "Entities"
NODE_LAYOUT: dict[str, dict[str, str]] = {
    ".": {
        "Environment": "WorldEnvironment", "Sun": "DirectionalLight", "SkyDome": SKY_DOME_SCENE,
        "Ground": "StaticBody", "Terrain": TERRAIN_SCENE, "Buildings": BUILDINGS_SCENE, ENTITY_PARENT: "Spatial",
        "SpawnPoint": "Position3D",
    },
    "Ground": {"Mesh": "MeshInstance", "Shape": "CollisionShape"},
}
REQUIRED_NODES = frozenset({"SpawnPoint"})
#: The groups a node may join (the simulator treats group members by their group's rules).
NODE_GROUPS: dict[str, frozenset[str]] = {"Ground": frozenset({GROUND_GROUP})}
#: Properties no node may set: a script runs code.
REFUSED_PROPERTIES = frozenset({"script"})

_NUMBER = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?"
_NUMBER_RE = re.compile(_NUMBER + r"\Z")
# A string as scene_text writes it: only \\ and \" are escaped; no line breaks.
_STRING = r'"(?:[^"\\\n\r]|\\[\\"])*"'
_STRING_RE = re.compile(_STRING + r"\Z")
_IDENTIFIER_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_PROPERTY_RE = re.compile(r"([^=\s]+) = (.*)\Z")
_CONSTRUCTOR_RE = re.compile(r"([A-Za-z][A-Za-z0-9]*)\( (.*) \)\Z")
_HEADER_RE = re.compile(r"\[([a-z_]+)((?: .*)?)\]\Z")
_ATTRIBUTE_RE = re.compile(r' ([a-z_]+)=(' + _STRING + r'|\d+|ExtResource\( \d+ \)|\[ ' + _STRING + r'(?:, ' + _STRING + r')* \])')
# Node names as the exporter writes them: no quote, backslash or Godot path characters.
_NODE_NAME_RE = re.compile(r'[^"\\/:@.%\x00-\x1f]+\Z')
# Constructor → (kind, number of numeric arguments).
_VECTORS: dict[str, tuple[str, int]] = {"Vector2": (VECTOR2, 2), "Vector3": (VECTOR3, 3), "Color": (COLOR, 4), "Transform": (TRANSFORM, 12)}
_HEADER_ATTRIBUTES = {
    "gd_scene": ({"load_steps", "format"}, {"load_steps", "format"}),
    "ext_resource": ({"path", "type", "id"}, {"path", "type", "id"}),
    "sub_resource": ({"type", "id"}, {"type", "id"}),
    "node": ({"name", "type", "parent", "instance", "groups"}, {"name"}),
}


@attr.s(frozen=True, auto_attribs=True)
class SceneSummary:
    """What a checked scene uses: its instanced scenes and the data files it names."""

    scenes: frozenset[str]
    data_files: frozenset[str]


class _Refusal(Exception):
    """A reason to refuse the line being read (turned into a WorldLoadError with file and line)."""


def check_scene_text(text: str, where: str) -> SceneSummary:
    """Checks ``text`` (a world.tscn) against what the exporter can write; ``where`` names the file
    in errors. Returns what it uses; raises :class:`WorldLoadError` naming the file, the line and
    the reason."""
    checker = _SceneChecker()
    lines = text.split("\n")
    if lines[-1] != "":
        raise WorldLoadError(f"{where}: does not end with a line break as exported scenes do (truncated?)")
    for number, line in enumerate(lines[:-1], start=1):
        try:
            checker.line(line)
        except _Refusal as refusal:
            raise WorldLoadError(f"{where}: line {number}: {refusal} (refused: world folders are data, see docs/security.md)") from None
    try:
        return checker.finish()
    except _Refusal as refusal:
        raise WorldLoadError(f"{where}: {refusal} (refused: world folders are data, see docs/security.md)") from None


class _SceneChecker:
    def __init__(self) -> None:
        self.section: str | None = None
        self.ext: dict[int, str] = {}  # id → res:// path
        self.sub: dict[int, str] = {}  # id → type
        self.nodes: set[str] = set()  # paths relative to the root ("." for the root)
        self.allowed: dict[str, str] | None = None  # the current section's properties → kinds (None: plain)
        self.seen: set[str] = set()  # the current section's properties so far
        self.instance: str | None = None  # the current node's instanced scene
        self.path = "."  # the current node's path
        self.door_values: dict[str, str] | None = None  # a door node's property texts so far
        self.load_steps = 0
        self.data_files: set[str] = set()
        self.needs_data_file = False

    def line(self, line: str) -> None:
        if line == "":
            return
        if line.startswith("["):
            self._close_section()
            self._header(line)
        else:
            self._property(line)

    def finish(self) -> SceneSummary:
        self._close_section()
        if self.section is None:
            raise _Refusal("holds no [gd_scene] header")
        if "." not in self.nodes:
            raise _Refusal("has no root node")
        missing = sorted(REQUIRED_NODES - self.nodes)
        if missing:
            raise _Refusal(f"lacks the node(s) {missing} every exported world has")
        if self.load_steps != len(self.ext) + len(self.sub) + 1:
            raise _Refusal(
                f"load_steps={self.load_steps} does not count its {len(self.ext)} ext_resources and {len(self.sub)} sub_resources"
            )
        return SceneSummary(frozenset(self.ext.values()), frozenset(self.data_files))

    # ------------------------------------------------------------------ sections

    def _header(self, line: str) -> None:
        match = _HEADER_RE.match(line)
        if match is None:
            raise _Refusal(f"{_quote(line)} is not a section header of the form the exporter writes")
        kind, rest = match.groups()
        if kind not in _HEADER_ATTRIBUTES:
            raise _Refusal(f"a [{kind}] section: exported scenes hold only [gd_scene], [ext_resource], [sub_resource] and [node]")
        attributes = _attributes(rest)
        names, required = _HEADER_ATTRIBUTES[kind]
        unknown = sorted(set(attributes) - names)
        if unknown:
            raise _Refusal(f"[{kind}] with attribute(s) {unknown}: the exporter writes only {sorted(names)}")
        missing = sorted(required - set(attributes))
        if missing:
            raise _Refusal(f"[{kind}] lacks {missing}")
        if (self.section is None) != (kind == "gd_scene"):
            raise _Refusal("[gd_scene] must be the first section, and the only one")
        order = ["gd_scene", "ext_resource", "sub_resource", "node"]
        if self.section is not None and order.index(kind) < order.index(self.section):
            raise _Refusal(f"[{kind}] after [{self.section}]: the exporter writes ext_resources, sub_resources, then nodes")
        self.section = kind
        getattr(self, "_" + kind)(attributes)

    def _gd_scene(self, attributes: dict[str, str]) -> None:
        if attributes["format"] != "2":
            raise _Refusal(f"format={attributes['format']}: exported scenes are format=2")
        self.load_steps = _int(attributes["load_steps"], "load_steps")
        self.allowed = {}

    def _ext_resource(self, attributes: dict[str, str]) -> None:
        path = _string(attributes["path"], "path")
        type_name = _string(attributes["type"], "type")
        if path not in ALLOWED_SCENES:
            raise _Refusal(
                f"ext_resource {_quote(path)}: a world may use only the project's own scenes the exporter places "
                f"(res://entities/..., {SKY_DOME_SCENE}, {TERRAIN_SCENE}, {BUILDINGS_SCENE}), never scripts or other files"
            )
        if type_name != "PackedScene":
            raise _Refusal(f"ext_resource {_quote(path)} of type {_quote(type_name)}: exported scenes use PackedScene only")
        self.ext[self._new_id(attributes["id"], self.ext, "ext_resource")] = path
        self.allowed = {}

    def _sub_resource(self, attributes: dict[str, str]) -> None:
        type_name = _string(attributes["type"], "type")
        if type_name not in SUB_RESOURCE_PROPERTIES:
            raise _Refusal(
                f"sub_resource of type {_quote(type_name)}: exported scenes hold only {sorted(SUB_RESOURCE_PROPERTIES)}"
            )
        self.sub[self._new_id(attributes["id"], self.sub, "sub_resource")] = type_name
        self.allowed = SUB_RESOURCE_PROPERTIES[type_name]

    def _node(self, attributes: dict[str, str]) -> None:
        name = _string(attributes["name"], "name")
        if not _NODE_NAME_RE.match(name):
            raise _Refusal(f"node name {_quote(name)} holds characters Godot node names cannot")
        if "parent" not in attributes:
            if self.nodes:
                raise _Refusal(f"node {_quote(name)} has no parent: only the first node is the root")
            parent, path = None, "."
        else:
            parent = _string(attributes["parent"], "parent")
            if parent not in self.nodes:
                raise _Refusal(f"node {_quote(name)}'s parent {_quote(parent)} is not an earlier node")
            path = name if parent == "." else f"{parent}/{name}"
            if path in self.nodes:
                raise _Refusal(f"node {_quote(path)} appears twice")
        if ("type" in attributes) == ("instance" in attributes):
            raise _Refusal(f"node {_quote(name)} needs either a type or an instance, as exported nodes have")
        if "type" in attributes:
            type_name = _string(attributes["type"], "type")
            what = type_name
        else:
            reference = re.fullmatch(r"ExtResource\( (\d+) \)", attributes["instance"])
            index = int(reference.group(1)) if reference else -1
            if index not in self.ext:
                raise _Refusal(f"node {_quote(name)} instances {attributes['instance']}, which is not an ext_resource above")
            type_name, what = None, self.ext[index]
        expected = self._expected(parent, name)
        if what not in expected:
            raise _Refusal(f"node {_quote(path)} is {_quote(what)}: the exporter writes only {sorted(expected)} there")
        groups = [_string(group, "group") for group in re.findall(_STRING, attributes.get("groups", ""))]
        refused = sorted(set(groups) - NODE_GROUPS.get(path, frozenset()))
        if refused:
            raise _Refusal(f"node {_quote(path)} joins group(s) {refused}, which the exporter never gives it")
        self.instance = None if type_name else what
        self.path = path
        self.door_values = {} if self.instance in DOOR_SCENE_MECHANISMS else None
        self.needs_data_file = self.instance in DATA_FILE_SCENES
        self.allowed = NODE_PROPERTIES[type_name] if type_name else None
        self.nodes.add(path)

    @staticmethod
    def _expected(parent: str | None, name: str) -> frozenset[str]:
        """What the node ``name`` under ``parent`` may be: node types or instanced scenes."""
        if parent is None:
            return frozenset({ROOT_NODE_TYPE})
        if parent == ENTITY_PARENT:
            return ENTITY_SCENE_PATHS
        child = NODE_LAYOUT.get(parent, {}).get(name)
        return frozenset({child}) if child else frozenset()

    def _close_section(self) -> None:
        if self.needs_data_file:
            raise _Refusal(f"a {self.instance} node without {DATA_FILE_PROPERTY} (the exporter always writes it)")
        if self.door_values is not None:
            reason = door_row_error(self.instance, self.door_values)
            self.door_values = None
            if reason is not None:
                raise _Refusal(f"door node {_quote(self.path)}: {reason}")
        self.seen = set()

    def _new_id(self, text: str, table: dict, what: str) -> int:
        index = _int(text, "id")
        if index in table:
            raise _Refusal(f"{what} id={index} appears twice")
        return index

    # ------------------------------------------------------------------ properties

    def _property(self, line: str) -> None:
        if self.section is None or self.section == "gd_scene" or self.section == "ext_resource":
            raise _Refusal(f"{_quote(line)} outside a [node] or [sub_resource] section")
        match = _PROPERTY_RE.match(line)
        if match is None:
            raise _Refusal(f"{_quote(line)} is not a 'name = value' line")
        key, value = match.groups()
        if not _IDENTIFIER_RE.match(key):
            raise _Refusal(f"property {_quote(key)}: exported property names are plain identifiers")
        if key in REFUSED_PROPERTIES:
            raise _Refusal(f"a {key!r} property: a world may not attach code to its nodes")
        if key in self.seen:
            raise _Refusal(f"property {key!r} set twice")
        self.seen.add(key)
        kind = _kind(value)
        if self.allowed is None:  # an instanced node: entity params are open-ended, values plain
            if self.door_values is None:
                self._instance_property(key, value, kind)
                return
            try:
                self._instance_property(key, value, kind)
            except _Refusal as refusal:
                raise _Refusal(f"door node {_quote(self.path)}: {refusal}") from None
            self.door_values[key] = value
            return
        if key not in self.allowed:
            known = sorted(self.allowed) or "none"
            raise _Refusal(f"property {key!r}: the exporter writes only {known} here")
        expected = self.allowed[key]
        if expected.startswith("SubResource:"):
            reference = re.fullmatch(r"SubResource\( (\d+) \)", value)
            index = int(reference.group(1)) if reference else -1
            if self.sub.get(index) != expected.split(":", 1)[1]:
                raise _Refusal(f"property {key!r} = {_short(value)}: expected a {expected.split(':', 1)[1]} sub_resource defined above")
        elif kind != expected:
            raise _Refusal(f"property {key!r} = {_short(value)}: expected a {expected}")
        else:
            _check_range(key, value, kind)

    def _instance_property(self, key: str, value: str, kind: str | None) -> None:
        if key in PLACEMENT_ALIASES:
            raise _Refusal(f"a {key!r} property: a node is placed by its transform only, as the exporter writes it")
        if kind not in PLAIN_KINDS:
            raise _Refusal(f"property {key!r} = {_short(value)}: an instanced node takes plain values only")
        if key == DATA_FILE_PROPERTY:
            self._data_file(value, kind)
        _check_range(key, value, kind)

    def _data_file(self, value: str, kind: str) -> None:
        if self.instance not in DATA_FILE_SCENES:
            raise _Refusal(f"{DATA_FILE_PROPERTY} on a {self.instance} node: only {sorted(DATA_FILE_SCENES)} read data files")
        name = _string(value, DATA_FILE_PROPERTY) if kind == STRING else None
        expected = DATA_FILE_SCENES[self.instance]
        if name != expected:
            raise _Refusal(
                f"{DATA_FILE_PROPERTY} = {_short(value)}: must be the bare name of a data file in the world folder, "
                f"one of {[expected]} (what a {self.instance} node reads)"
            )
        self.data_files.add(name)
        self.needs_data_file = False


# ---------------------------------------------------------------------- values


def _kind(value: str) -> str | None:
    """The kind of a property value in the exporter's forms, or None."""
    if value in ("true", "false"):
        return BOOL
    if _NUMBER_RE.match(value):
        return NUMBER if math.isfinite(float(value)) else None
    if _STRING_RE.match(value):
        return STRING
    match = _CONSTRUCTOR_RE.match(value)
    if match is None:
        return None
    name, arguments = match.groups()
    if name == "SubResource":
        return "SubResource" if re.fullmatch(r"\d+", arguments) else None
    if name == STRING_ARRAY:
        return STRING_ARRAY if re.fullmatch(rf"(?:{_STRING}(?:, {_STRING})*)?", arguments) else None
    numbers = arguments.split(", ") if arguments else []
    if not all(_NUMBER_RE.match(n) and math.isfinite(float(n)) for n in numbers):
        return None
    if name == COLOR_ARRAY:
        return COLOR_ARRAY if len(numbers) % 4 == 0 else None
    if name in _VECTORS:
        kind, count = _VECTORS[name]
        return kind if len(numbers) == count else None
    return None


def _check_range(key: str, value: str, kind: str) -> None:
    """Refuses a value of ``kind`` (a finite one, as :func:`_kind` found it) outside what the
    simulator can hold, naming the value and the range expected."""
    if kind == NUMBER:
        numbers = [float(value)]
    elif kind in _VECTORS.keys() | {COLOR_ARRAY}:
        arguments = _CONSTRUCTOR_RE.match(value).group(2)
        numbers = [float(n) for n in arguments.split(", ")] if arguments else []
    else:
        return
    reason = range_error(key, kind, numbers)
    if reason is not None:
        raise _Refusal(f"property {key!r} = {_short(value)}: {reason} (docs/security.md)")


def _attributes(rest: str) -> dict[str, str]:
    attributes: dict[str, str] = {}
    position = 0
    for match in _ATTRIBUTE_RE.finditer(rest):
        if match.start() != position:
            break
        name, value = match.groups()
        if name in attributes:
            raise _Refusal(f"attribute {name!r} appears twice")
        attributes[name] = value
        position = match.end()
    if position != len(rest):
        raise _Refusal(f"header attributes {_quote(rest.strip())} are not of the form the exporter writes")
    return attributes


def _string(text: str, what: str) -> str:
    if not _STRING_RE.match(text):
        raise _Refusal(f"{what} {_short(text)} is not a quoted string")
    return re.sub(r"\\([\\\"])", r"\1", text[1:-1])


def _int(text: str, what: str) -> int:
    if not re.fullmatch(r"[1-9]\d{0,8}", text):
        raise _Refusal(f"{what}={_short(text)} is not a positive integer")
    return int(text)


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _quote(text: str) -> str:
    return repr(_short(text))

