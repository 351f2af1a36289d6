"""The tools and movable items of the paper's Appendix A.1/E.5: the single source of their sizes,
masses, shapes and looks.

Each is a :class:`ToolSpec` row of :data:`TOOLS`. ``avalon.dev.codegen`` writes one Godot scene per
kind (``godot/entities/tools/<kind>.tscn``) that sets every property of its row on the shared
script ``godot/entities/tools/tool.gd``, which builds the shape and mesh from them (it branches on
the shape kind, never on the tool's name). A world may override ``safe_scale`` (uniform scale of
shape and mesh), ``base_color`` and ``mass`` per instance (entity params).
"""

from __future__ import annotations

import math

import attr

Vector3 = tuple[float, float, float]
Color = tuple[float, float, float]

#: How a tool is built (``tool.gd``): ``"box"``, a box (flat faces, so it stacks) drawn as a
#: four-sided prism; ``"beam"``, a prism lying along z on one of its faces that collides as a box
#: of its size (Bullet at 10 steps/s lets cylinders and thin hulls sink into the ground);
#: ``"lump"``, an irregular prism with a flat base that collides as its convex hull.
SHAPES = ("box", "beam", "lump")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ToolSpec:
    """One tool or movable item. Sizes in metres, masses in kilograms, colours RGB in [0, 1]."""

    kind: str
    #: What it is for (the paper's words, for the docs).
    use: str
    #: Bounding box at ``safe_scale`` 1 (x, y, z; sticks and logs lie along z); its centre rests half
    #: the height above the ground.
    size_m: Vector3
    mass_kg: float
    color: Color
    shape: str
    #: Sides of its prism mesh.
    mesh_sides: int
    #: Continuous collision detection: small fast items (thrown, swung) that would pass through
    #: thin things between two physics steps.
    continuous_collision: bool = False
    #: A box in the lower half of its hull to stand on: a heavy lump pushed over the ground would
    #: otherwise rock and sink into it (Bullet gives a hull one new contact point per step).
    support_box: bool = False

    def __attrs_post_init__(self) -> None:
        kind = self.kind
        if len(self.size_m) != 3 or not all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in self.size_m):
            raise ValueError(f"{kind}: size_m {self.size_m!r} must be three finite numbers > 0")
        if not (isinstance(self.mass_kg, (int, float)) and math.isfinite(self.mass_kg) and self.mass_kg > 0):
            raise ValueError(f"{kind}: mass_kg {self.mass_kg!r} must be a finite number > 0")
        if len(self.color) != 3 or not all(isinstance(c, (int, float)) and 0.0 <= c <= 1.0 for c in self.color):
            raise ValueError(f"{kind}: color {self.color!r} must be three numbers in [0, 1] (red, green, blue)")
        if self.shape not in SHAPES:
            raise ValueError(f"{kind}: shape {self.shape!r} is not one of {SHAPES}")
        if not (isinstance(self.mesh_sides, int) and self.mesh_sides >= 3) or (self.shape == "box" and self.mesh_sides != 4):
            raise ValueError(f"{kind}: mesh_sides {self.mesh_sides!r} must be an integer >= 3 (4 for a box)")
        if self.support_box and self.shape != "lump":
            raise ValueError(f"{kind}: support_box is for lumps, not a {self.shape!r}")

    def properties(self) -> dict[str, object]:
        """The properties its scene sets (names as in ``tool.gd``; ``mass`` is the RigidBody's)."""
        return {
            "kind": self.kind,
            "size": self.size_m,
            "base_color": self.color,
            "shape_kind": self.shape,
            "mesh_sides": self.mesh_sides,
            "continuous_collision": self.continuous_collision,
            "support_box": self.support_box,
        }


TOOLS: dict[str, ToolSpec] = {tool.kind: tool for tool in (
    ToolSpec(kind="rock", use="fist-sized, thrown; damages what it hits: opens oranges", size_m=(0.2, 0.14, 0.18),
             mass_kg=0.7, color=(0.45, 0.45, 0.47), shape="lump", mesh_sides=5, continuous_collision=True),
    ToolSpec(kind="stick", use="melee", size_m=(0.05, 0.05, 1.0), mass_kg=1.0, color=(0.45, 0.3, 0.15), shape="beam",
             mesh_sides=5, continuous_collision=True),
    ToolSpec(kind="stone", use="stackable", size_m=(0.4, 0.3, 0.4), mass_kg=10.0, color=(0.6, 0.58, 0.55), shape="box",
             mesh_sides=4),
    ToolSpec(kind="boulder", use="too heavy to lift (over MAX_LIFT_MASS_KG): pushed", size_m=(1.2, 0.9, 1.1),
             mass_kg=200.0, color=(0.5, 0.48, 0.45), shape="lump", mesh_sides=7, support_box=True),
    ToolSpec(kind="log", use="carried (under MAX_LIFT_MASS_KG) to bridge gaps", size_m=(0.3, 0.3, 3.0), mass_kg=30.0,
             color=(0.4, 0.26, 0.12), shape="beam", mesh_sides=7),
)}
TOOL_KINDS: tuple[str, ...] = tuple(TOOLS)
#: Each tool's size and mass (``ToolSpec.size_m``, ``ToolSpec.mass_kg``), for callers that need only those.
TOOL_SIZE_M: dict[str, Vector3] = {kind: tool.size_m for kind, tool in TOOLS.items()}
TOOL_MASS_KG: dict[str, float] = {kind: tool.mass_kg for kind, tool in TOOLS.items()}


def tool_spec(kind: str) -> ToolSpec:
    """The row of ``kind``; a clear error for an unknown name."""
    try:
        return TOOLS[kind]
    except KeyError:
        raise ValueError(f"unknown tool kind {kind!r}; known: {TOOL_KINDS}") from None
