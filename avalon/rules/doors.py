"""Doors and their locks (the paper's Appendix A.4 and the **open** task of F.1): the single source
of how each door moves, how it latches, which locks it may hold, and their sizes, masses and looks.

A door fills a doorway: an opening of a given width and height in a wall of a given thickness,
placed by the bottom centre of the opening (on the floor, in the middle of the wall) and a yaw. In
the door's own frame x runs across the opening, y up, and the **front** faces +z: the side its
locks and its button are on, the side the agent comes from. ``avalon.dev.codegen`` writes one Godot
scene per mechanism (``godot/entities/doors/<mechanism>.tscn``, the script ``door.gd`` with every
number of its row) and one per lock (``godot/entities/doors/<lock>.tscn``), and these constants
into ``godot/generated/protocol.gd``. ``docs/doors.md`` describes the behaviour.

- **Mechanisms** (:data:`MECHANISMS`): hinged doors swing about a vertical hinge at one side of the
  opening, away from the front (push), toward it (pull) or both ways; sliding doors are dragged
  aside along the wall's front face.
- **Latches** (:data:`LATCHES`): ``"none"``, the door moves freely (a hinged door is walked
  through by pushing it); ``"once"``, latched until a hand first grasps its handle;
  ``"always"``, latched again each time the handle is let go (where the door then stands). A
  latched door moves only by the hand that holds its handle.
- **Locks** (:data:`LOCKS`): a **bolt** slid aside along the door, a **bar** rotated up about its
  pivot, and a **button** beside the door that, touched, unlocks it for
  :data:`BUTTON_UNLOCK_S` seconds. While any lock is engaged the door does not move and its
  handles cannot be grasped. A door holds zero to three locks, each kind at most once, and only
  those its mechanism allows (``MechanismSpec.lock_kinds``).
"""

from __future__ import annotations

import math

import attr

from avalon.rules import mechanics

Vector3 = tuple[float, float, float]
Color = tuple[float, float, float]

#: How long a touched button keeps its door unlocked, seconds (100 steps at 10 steps/s); touching
#: it again while it runs starts the time again. Then its lock engages where the door stands.
BUTTON_UNLOCK_S = 10.0
#: Door leaf thickness, metres.
DOOR_THICKNESS_M = 0.075
#: Mass of a door leaf, kilograms. The leaf is moved kinematically (``docs/doors.md``), so its mass
#: only has to let a hand grasp it (at most ``mechanics.MAX_LIFT_MASS_KG``).
DOOR_MASS_KG = 30.0
#: Clearance between a hinged leaf and the opening: at the hinge side (more than half the leaf's
#: thickness, so the leaf's corners never reach the wall as it turns), at the latch side, above
#: the floor and below the lintel; metres.
HINGE_GAP_M = 0.05
LATCH_GAP_M = 0.02
FLOOR_GAP_M = 0.04
TOP_GAP_M = 0.02
#: A sliding leaf covers the opening and this much of the wall on each side; it slides along the
#: wall's front face with this gap to it; metres.
SLIDING_OVERLAP_M = 0.05
SLIDING_WALL_GAP_M = 0.02
#: Handles (on both faces of the leaf, one mesh with it): their size (x, y, z), the height of
#: their centre above the floor, their centre's distance from the leaf's latch edge (a hinged
#: leaf) or its edge away from where it slides (a sliding leaf); metres. A hand grasps the leaf
#: only within ``HANDLE_GRASP_M`` of a handle's centre.
HANDLE_SIZE_M: Vector3 = (0.05, 0.3, 0.06)
HANDLE_HEIGHT_M = 1.1
HANDLE_INSET_M = 0.12
HANDLE_GRASP_M = 0.3
#: A hand holding a door part lets go when the part is held back (a limit, a lock, something in
#: its way) this far from the hand, metres.
GRIP_SLIP_M = 0.3
#: The fastest a door turns or slides, whatever the hand does (radians and metres per second):
#: a 1.33 m leaf's edge then moves at most 0.63 m per step.
MAX_DOOR_TURN_RAD_PER_S = math.radians(270.0)
MAX_DOOR_SLIDE_M_PER_S = 3.0
#: A moving part is moved in sub-steps of at most ``SWEEP_TURN_RAD`` or ``SWEEP_SLIDE_M`` (radians,
#: metres) and stops short of any body it would overlap (the agent, an animal, an item; a leaf
#: also a wall in its swing): so it neither passes through a body between two steps nor lands
#: inside one. A leaf is swept as its box shrunk by ``SWEEP_INSET_M`` (metres) on every side, so
#: the opening it fills does not stop it (with Bullet's margins, contacts come a few cm early).
SWEEP_TURN_RAD, SWEEP_SLIDE_M, SWEEP_INSET_M = 0.05, 0.04, 0.03
#: A leaf pushed by the body or a hand turns as if pushed at this distance from its hinge, as a
#: fraction of its width.
PUSH_LEVER_FRACTION = 0.5
LEAF_COLOR: Color = (0.55, 0.36, 0.2)
HANDLE_COLOR: Color = (0.15, 0.13, 0.12)
#: The narrowest and widest opening a door fills, and its lowest and highest (metres), and the
#: wall thickness it allows (metres).
MIN_OPENING_WIDTH_M = 0.9
MAX_OPENING_WIDTH_M = 3.0
MIN_OPENING_HEIGHT_M = 2.0
MAX_OPENING_HEIGHT_M = 6.0
MIN_WALL_THICKNESS_M = 0.05
MAX_WALL_THICKNESS_M = 2.0
#: Which side of the opening (seen from the front) a hinged door turns on, or a sliding door
#: slides to.
SIDES = ("left", "right")
#: Latching modes, in order of difficulty (see the module's docstring).
LATCHES = ("none", "once", "always")
#: Most locks a door holds.
MAX_LOCKS = 3


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class MechanismSpec:
    """How a door moves. Angles in radians, lengths in metres."""

    name: str
    #: ``"hinged"`` (turns about a vertical hinge) or ``"sliding"`` (dragged along the wall).
    motion: str
    #: A hinged door's range: how far it turns away from the front (push) and toward it (pull);
    #: 0 where it cannot. A sliding door slides the opening's width plus its overlaps.
    push_rad: float = 0.0
    pull_rad: float = 0.0
    #: The lock kinds it may hold. A bolt is not put on a door that swings toward the agent (the
    #: original's rule: its slide would be pushed against the agent's arm as the door opens).
    lock_kinds: tuple[str, ...] = ()
    description: str = ""

    def __attrs_post_init__(self) -> None:
        if self.motion not in ("hinged", "sliding"):
            raise ValueError(f"{self.name}: motion {self.motion!r} must be 'hinged' or 'sliding'")
        for name in ("push_rad", "pull_rad"):
            value = getattr(self, name)
            if not (math.isfinite(value) and 0.0 <= value <= math.pi / 2):
                raise ValueError(f"{self.name}: {name} {value!r} must be in [0, pi/2]")
        if self.motion == "hinged" and self.push_rad == 0.0 and self.pull_rad == 0.0:
            raise ValueError(f"{self.name}: a hinged door must turn one way at least")
        unknown = sorted(set(self.lock_kinds) - set(LOCK_KINDS))
        if unknown:
            raise ValueError(f"{self.name}: lock kinds {unknown} are not among {LOCK_KINDS}")

    def properties(self) -> dict[str, object]:
        """The properties its scene sets on ``door.gd``."""
        return {"mechanism": self.name, "motion": self.motion, "push_rad": self.push_rad, "pull_rad": self.pull_rad}


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class LockSpec:
    """One kind of lock. Sizes in metres (x across the door, y up, z out of its front face),
    masses in kilograms, colours RGB in [0, 1]."""

    kind: str
    description: str
    size_m: Vector3
    mass_kg: float
    color: Color
    #: Its centre's height above the floor, metres. The bolt below the handles and the bar above
    #: them, each out of a hand's grasp at the handle (a hand takes the nearest part it reaches).
    height_m: float
    #: How far it moves (bolt: metres along the door toward the hinge; bar: radians up about its
    #: pivot; button: 0) and from where on it no longer locks (same unit).
    travel: float = 0.0
    unlocked_from: float = 0.0
    #: Its colour while it does not lock (the button's).
    unlocked_color: Color = (0.0, 0.0, 0.0)

    def __attrs_post_init__(self) -> None:
        kind = self.kind
        if len(self.size_m) != 3 or not all(math.isfinite(v) and v > 0 for v in self.size_m):
            raise ValueError(f"{kind}: size_m {self.size_m!r} must be three finite numbers > 0")
        if not (math.isfinite(self.mass_kg) and self.mass_kg > 0):
            raise ValueError(f"{kind}: mass_kg {self.mass_kg!r} must be a finite number > 0")
        for name in ("color", "unlocked_color"):
            rgb = getattr(self, name)
            if len(rgb) != 3 or not all(0.0 <= c <= 1.0 for c in rgb):
                raise ValueError(f"{kind}: {name} {rgb!r} must be three numbers in [0, 1]")
        if not 0.0 <= self.unlocked_from <= self.travel:
            raise ValueError(f"{kind}: unlocked_from {self.unlocked_from!r} must be in [0, travel = {self.travel!r}]")

    def properties(self) -> dict[str, object]:
        """The properties its scene sets."""
        return {"kind": self.kind, "size": self.size_m, "color": self.color, "unlocked_color": self.unlocked_color,
                "height_m": self.height_m, "travel": self.travel, "unlocked_from": self.unlocked_from}


LOCKS: dict[str, LockSpec] = {lock.kind: lock for lock in (
    LockSpec(kind="bolt", description="a bolt on the door's front, slid aside toward the hinge",
             size_m=(0.3, 0.06, 0.05), mass_kg=2.0, color=(0.62, 0.62, 0.66), height_m=0.7, travel=0.2, unlocked_from=0.16),
    LockSpec(kind="bar", description="a bar across the latch edge, rotated up about its pivot",
             size_m=(0.45, 0.07, 0.05), mass_kg=3.0, color=(0.3, 0.2, 0.12), height_m=1.5,
             travel=math.radians(90.0), unlocked_from=math.radians(60.0)),
    LockSpec(kind="button", description=f"a button on the wall beside the latch edge: touched, it unlocks the door for "
             f"{BUTTON_UNLOCK_S:g} s", size_m=(0.16, 0.16, 0.06), mass_kg=1.0, color=(0.85, 0.1, 0.1), height_m=1.2,
             unlocked_color=(0.1, 0.8, 0.2)),
)}
LOCK_KINDS: tuple[str, ...] = ("bolt", "bar", "button")
#: How far the bar reaches past the leaf's latch edge while it locks, metres (the bolt reaches past
#: it by its ``unlocked_from``: slid that far, it is clear).
BAR_REACH_M = 0.12
#: Distance of the button's centre from the opening's latch-side edge, metres.
BUTTON_SIDE_OFFSET_M = 0.3

MECHANISMS: dict[str, MechanismSpec] = {spec.name: spec for spec in (
    MechanismSpec(name="hinged_both", motion="hinged", push_rad=math.pi / 2, pull_rad=math.pi / 2,
                  lock_kinds=("bar", "button"), description="hinged, swings both ways (pushed or pulled)"),
    MechanismSpec(name="hinged_push", motion="hinged", push_rad=math.pi / 2, lock_kinds=LOCK_KINDS,
                  description="hinged, swings away from the front only (pushed)"),
    MechanismSpec(name="hinged_pull", motion="hinged", pull_rad=math.pi / 2, lock_kinds=("bar", "button"),
                  description="hinged, swings toward the front only (pulled)"),
    MechanismSpec(name="sliding", motion="sliding", lock_kinds=LOCK_KINDS,
                  description="slides aside along the wall's front face (dragged by its handle)"),
)}
MECHANISM_NAMES: tuple[str, ...] = tuple(MECHANISMS)


def mechanism_spec(name: str) -> MechanismSpec:
    """The row of mechanism ``name``; a clear error for an unknown one."""
    try:
        return MECHANISMS[name]
    except KeyError:
        raise ValueError(f"unknown door mechanism {name!r}; expected one of {MECHANISM_NAMES}") from None


def lock_spec(kind: str) -> LockSpec:
    """The row of lock ``kind``; a clear error for an unknown one."""
    try:
        return LOCKS[kind]
    except KeyError:
        raise ValueError(f"unknown lock kind {kind!r}; expected one of {LOCK_KINDS}") from None


def locks_error(mechanism: str, locks: tuple[str, ...]) -> str | None:
    """Why a door of ``mechanism`` cannot hold ``locks``, or None when it can."""
    spec = mechanism_spec(mechanism)
    for kind in locks:
        if kind not in LOCKS:
            return f"unknown lock kind {kind!r}; expected some of {LOCK_KINDS}"
        if kind not in spec.lock_kinds:
            return f"a {mechanism} door cannot hold a {kind} (it holds {spec.lock_kinds})"
    if len(set(locks)) != len(locks):
        return f"locks {locks!r} name a kind twice"
    if len(locks) > MAX_LOCKS:
        return f"{len(locks)} locks, at most {MAX_LOCKS}"
    return None


if not DOOR_MASS_KG <= mechanics.MAX_LIFT_MASS_KG:
    raise ValueError(f"DOOR_MASS_KG {DOOR_MASS_KG} must be at most MAX_LIFT_MASS_KG {mechanics.MAX_LIFT_MASS_KG}: hands grasp its handles")
