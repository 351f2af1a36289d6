"""Obstacles as pieces: one interface for every obstacle that can stand between an agent and its goal.

A task whose obstacle can stand in the agent's way (move, jump, climb, descend, scramble, push,
stack, bridge, fight, avoid) declares an :data:`ObstacleFunction` in its ``TaskSpec.obstacle``:

``obstacle(draft, streams, difficulty, constraint) -> ObstaclePlan``

- ``draft``: the world being built (:class:`Draft`): the island and what earlier obstacles did to
  it, before biomes, scenery and food;
- ``streams``: the world's random streams (:class:`~avalon.tasks.kit.assembly.Streams`): a piece
  draws its choices from ``streams.sites`` and the noise of its terrain from ``streams.rings``;
- ``difficulty`` in [0, 1], turned into the piece's factors by its task's knobs;
- ``constraint`` (:class:`Constraint`): the band between two radii round a centre, the path the
  agent will take across it, and whether heights are inverted (the goal lies outside the band).

The function makes the piece's cheap choices and checks (its random draws among them) and returns
an :class:`ObstaclePlan`, or raises :class:`~avalon.tasks.kit.ImpossibleWorldError` naming why the
piece cannot stand there. ``plan.build(draft)`` does the costly terrain work and returns the
:class:`Obstacle`: the draft with the piece in it, the :class:`Crossing` (where the agent takes
the obstacle, and the :class:`Requirement` the solvability certificate asks of every route
across) and the piece's items, placed once biomes have eroded the ground. Planning and building
are apart so that a caller can try many sites cheaply and build only where everything fits, with
the random draws in the same order whether or not a site is taken.

A task's own generator is its obstacle placed round the food: the constraint's centre is the
food's site, the path comes in from the spawn, and the task puts its spawn and food by the
crossing. A compositional world places several pieces in sequence, each in the next band along
its path, and the world's certificate is the route through every crossing.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.obstacles import RingOutline
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity
from avalon.rules import mechanics
from avalon.tasks.kit.geometry import XZ, KeepClear
from avalon.tasks.kit.route import SKILLS


def _xz(value) -> XZ:
    x, z = (float(v) for v in value)
    if not (math.isfinite(x) and math.isfinite(z)):
        raise ValueError(f"point {value!r}: expected two finite numbers (x, z), metres")
    return x, z


def _path(value) -> tuple[XZ, ...]:
    points = tuple(_xz(p) for p in value)
    if len(points) < 2:
        raise ValueError(f"Constraint.path={value!r}: expected at least two points (from the start to the goal)")
    return points


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Constraint:
    """Where an obstacle piece must stand: the band between two radii round a centre, crossed by
    the agent's path. Metres in the world's (x, z) plane."""

    #: The centre the band rings: the goal's site (a single task; heights not inverted) or the
    #: start's (a ring round the spawn; heights inverted).
    centre: XZ = attr.ib(converter=_xz)
    #: The piece stays outside this radius...
    inner_radius_m: float = attr.ib(validator=check.non_negative())
    #: ...and inside this one.
    outer_radius_m: float = attr.ib(validator=check.positive())
    #: The way the agent will take, from where it comes to where it goes; it crosses the band.
    #: The piece puts its crossing where the path crosses the band at d = 0; where its task hides
    #: the crossing with difficulty (jump's stretch, a cliff's climbable strip) it may lie off the
    #: path, inside the band, and the returned :class:`Crossing` says where.
    path: tuple[XZ, ...] = attr.ib(converter=_path)
    #: False: the goal lies inside the band (what the piece raises, such as a cliff's top, is the
    #: inside). True: the goal lies outside (a ring round the start): the heights are inverted, so
    #: what the piece would raise round its goal rises outside the band.
    heights_inverted: bool = attr.ib(default=False, validator=attr.validators.instance_of(bool))
    #: The direction (radians from +x towards +z), seen from the centre, that the path crosses the
    #: band in, exactly as the caller drew it when the path was built from it
    #: (:meth:`round_goal`); None: :meth:`path_angle_rad` computes it from the path. (An angle
    #: recomputed from the path's points can differ from the drawn one in its last bit, and a
    #: piece's worlds would then differ.)
    approach_rad: Optional[float] = attr.ib(default=None, validator=attr.validators.optional(check.finite()))

    def __attrs_post_init__(self) -> None:
        if self.outer_radius_m <= self.inner_radius_m:
            raise ValueError(f"Constraint: outer_radius_m={self.outer_radius_m!r} must exceed "
                             f"inner_radius_m={self.inner_radius_m!r}")

    @property
    def width_m(self) -> float:
        """The band's radial width."""
        return self.outer_radius_m - self.inner_radius_m

    def path_angle_rad(self) -> float:
        """The direction, seen from the centre, of the point where the path crosses the band's middle
        radius (the path's first point farthest out when it never does); :attr:`approach_rad` when given."""
        if self.approach_rad is not None:
            return float(self.approach_rad)
        middle = (self.inner_radius_m + self.outer_radius_m) / 2.0
        points = np.asarray(self.path, dtype=np.float64) - np.asarray(self.centre)
        radii = np.hypot(points[:, 0], points[:, 1])
        for a, b, ra, rb in zip(points[:-1], points[1:], radii[:-1], radii[1:]):
            if (ra - middle) * (rb - middle) <= 0.0 and ra != rb:
                t = (middle - ra) / (rb - ra)
                x, z = a + t * (b - a)
                return math.atan2(z, x)
        x, z = points[int(np.argmax(radii))]
        return math.atan2(z, x)

    @classmethod
    def round_goal(cls, centre: XZ, inner_radius_m: float, outer_radius_m: float, path_angle_rad: float) -> "Constraint":
        """The constraint of a single task: the band rings the goal at ``centre`` and the path comes
        straight in from the direction ``path_angle_rad`` (seen from the centre)."""
        far = outer_radius_m + 1.0
        start = (centre[0] + far * math.cos(path_angle_rad), centre[1] + far * math.sin(path_angle_rad))
        return cls(centre=centre, inner_radius_m=inner_radius_m, outer_radius_m=outer_radius_m, path=(start, centre),
                   approach_rad=path_angle_rad)


def _grid_mask(value) -> np.ndarray:
    mask = np.asarray(value)
    if mask.dtype != bool or mask.ndim != 2:
        raise ValueError(f"Draft: a mask must be a 2-D bool grid, got {mask.dtype} of shape {mask.shape}")
    return mask


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class Draft:
    """A world being built, before biomes, scenery and food: the island and what the obstacles
    placed so far did to it. Every mask is a bool grid of the height map's shape."""

    #: The island as generated, before any obstacle.
    natural: HeightMap = attr.ib(repr=False)
    #: The island with every obstacle placed so far.
    heightmap: HeightMap = attr.ib(repr=False)
    #: Grid points the biomes must make climbable (a climbable wall)...
    climbable: np.ndarray = attr.ib(converter=_grid_mask, repr=False)
    #: ...and those they must not (an unclimbable wall).
    unclimbable: np.ndarray = attr.ib(converter=_grid_mask, repr=False)
    #: Grid points no plant may stand on (walls, pads, the obstacle's own ground).
    no_scenery: np.ndarray = attr.ib(converter=_grid_mask, repr=False)
    #: Discs (x, z, radius in metres) kept free of plants: ways to and across the obstacles.
    keep_clear: tuple[KeepClear, ...] = attr.ib(default=(), converter=tuple)
    #: The realised outlines of the rings cut so far (drawn by previews).
    ring_outlines: tuple[RingOutline, ...] = attr.ib(default=(), converter=tuple)

    @classmethod
    def of_island(cls, natural: HeightMap) -> "Draft":
        """The draft of a bare island: no obstacle yet."""
        empty = np.zeros(natural.shape, dtype=bool)
        return cls(natural=natural, heightmap=natural, climbable=empty, unclimbable=empty, no_scenery=empty)

    def with_piece(
        self,
        heightmap: HeightMap,
        *,
        climbable: Optional[np.ndarray] = None,
        unclimbable: Optional[np.ndarray] = None,
        no_scenery: Optional[np.ndarray] = None,
        keep_clear: Sequence[KeepClear] = (),
        ring_outlines: Sequence[RingOutline] = (),
    ) -> "Draft":
        """This draft with one more piece: its terrain, its masks added to the draft's (a grid point
        forced climbable by the piece stops being unclimbable, and the other way round), its discs
        and outlines appended."""
        if heightmap.shape != self.natural.shape:
            raise ValueError(f"Draft.with_piece: a height map of shape {heightmap.shape}, expected {self.natural.shape}")
        up, down, bare = self.climbable, self.unclimbable, self.no_scenery
        if climbable is not None:
            climbable = _grid_mask(climbable)
            up, down = up | climbable, down & ~climbable
        if unclimbable is not None:
            unclimbable = _grid_mask(unclimbable)
            up, down = up & ~unclimbable, down | unclimbable
        if no_scenery is not None:
            bare = bare | _grid_mask(no_scenery)
        return attr.evolve(self, heightmap=heightmap, climbable=up, unclimbable=down, no_scenery=bare,
                           keep_clear=(*self.keep_clear, *keep_clear), ring_outlines=(*self.ring_outlines, *ring_outlines))


def _skills(value) -> frozenset[str]:
    skills = frozenset(value)
    unknown = sorted(skills - set(SKILLS))
    if unknown:
        raise ValueError(f"Requirement: unknown skills {unknown}; the skills are {SKILLS}")
    return skills


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Requirement:
    """What the solvability certificate asks of a crossing (the arguments of
    :func:`~avalon.tasks.kit.certificate.certify`): every route across uses each of ``skills``; a route
    may use ``allowed`` skills and falls up to ``max_fall_m``; no route without ``skills`` crosses,
    even with falls up to ``bypass_max_fall_m`` (None: ``max_fall_m``)."""

    skills: frozenset[str] = attr.ib(converter=_skills)
    allowed: frozenset[str] = attr.ib(default=frozenset(SKILLS), converter=_skills)
    max_fall_m: float = attr.ib(default=mechanics.SAFE_FALL_M, validator=check.positive())
    bypass_max_fall_m: Optional[float] = attr.ib(default=None, validator=attr.validators.optional(check.positive()))
    #: Discs (x, z, radius in metres) every route keeps out of (predators' reach, trunks).
    keep_out: tuple[KeepClear, ...] = attr.ib(default=(), converter=tuple)

    def __attrs_post_init__(self) -> None:
        if not self.skills <= self.allowed:
            raise ValueError(f"Requirement: skills {sorted(self.skills)} must be among the allowed {sorted(self.allowed)}")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Crossing:
    """Where the agent takes an obstacle: from ``start`` on its side to ``end`` past it (standing
    points, metres), and what the certificate asks of every route across."""

    start: XZ = attr.ib(converter=_xz)
    end: XZ = attr.ib(converter=_xz)
    requirement: Requirement = attr.ib(validator=attr.validators.instance_of(Requirement))


def no_items(ground: HeightMap) -> tuple[Entity, ...]:
    """The items of a piece that has none."""
    return ()


def no_blocks(ground: HeightMap) -> tuple:
    """The solved blocks of a piece whose crossing the terrain alone certifies."""
    return ()


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class Obstacle:
    """A piece built into a draft."""

    #: The draft with the piece in it.
    draft: Draft
    crossing: Crossing
    #: The piece's items (a boulder, stones, a log, predators, tools) placed on the final ground,
    #: the draft's height map once the biomes have eroded it. It may also check the piece's
    #: guarantees on that ground (erosion can open a way round the obstacle) and raise
    #: :class:`~avalon.tasks.kit.ImpossibleWorldError` naming what broke.
    items: Callable[[HeightMap], tuple[Entity, ...]] = attr.ib(default=no_items, validator=attr.validators.is_callable())
    #: ``solved_blocks(ground) -> (Block, ...)``: its items in their solved places on the final
    #: ground (:class:`~avalon.tasks.kit.solved.Block`: a log across its trench, a boulder at its
    #: ledge's foot, a staircase's stones), and the static boxes they stand on or for. A composed
    #: certificate burns them into the height map for its route search, leaves them out of the
    #: crossing's bypass search (the items, not a skill, are the crossing's answer) and leaves out
    #: the world's static boxes they cover. No blocks (:func:`no_blocks`) for a piece the terrain
    #: alone certifies.
    solved_blocks: Callable[[HeightMap], tuple] = attr.ib(default=no_blocks, validator=attr.validators.is_callable())
    #: What its task built, in the task's own terms (its chasm, its cliff, its causeway...).
    detail: Any = None


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class ObstaclePlan:
    """A piece chosen for a constraint, not built yet."""

    constraint: Constraint
    #: ``build(draft) -> Obstacle``: the terrain work (it draws from ``streams.rings``); may raise
    #: :class:`~avalon.tasks.kit.ImpossibleWorldError` when the built piece breaks a guarantee.
    build: Callable[[Draft], Obstacle] = attr.ib(validator=attr.validators.is_callable())
    #: What was drawn, in the task's own terms, for the caller's cheap checks.
    detail: Any = None


#: ``(draft, streams, difficulty, constraint) -> ObstaclePlan``: see the module's docstring. Raises
#: :class:`~avalon.tasks.kit.ImpossibleWorldError` naming why the piece cannot stand there.
ObstacleFunction = Callable[[Draft, Any, float, Constraint], ObstaclePlan]
