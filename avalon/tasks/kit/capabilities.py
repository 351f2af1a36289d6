"""What the reachability search lets the body do: two sets of limits built on the measured ones.

The simulator's measured capabilities live in :mod:`avalon.rules.mechanics` ("Measured
capabilities"; ``docs/mechanics.md``). A solvability certificate asks two questions, and each
needs the measurements bent the opposite way:

- *can the food be reached?* must not promise what the body cannot do, so it searches with
  :data:`ROUTE_CAPABILITIES`: every limit a margin *inside* the measured one (a route a scripted
  agent can follow, with slack for its imprecision);
- *can the food be reached without the task's skill?* must not miss what the body can do, so it
  searches with :data:`BYPASS_CAPABILITIES`: every limit a margin *beyond* the measured one,
  including the ways the simulator's physics lets the body up steep terrain (walking up faces to
  78 degrees, jumps that slide up steeper ones: ``mechanics.WALK_UP_MAX_SLOPE_DEG``,
  ``mechanics.TERRAIN_JUMP_RISE_M``).

A running jump is modelled by its feet's path in the 10 Hz steps: the feet move ``v`` metres per
second horizontally (at most ``MAX_WALK_SPEED_M_PER_S``) and rise ``a t - g t^2 / 2`` with
``a = JUMP_SPEED_M_PER_S + g STEP_SECONDS / 2`` (5.5 m/s; the steps' positions lie on this curve).
The measured gaps (``mechanics.JUMP_GAP_CLEARED_M`` and the lower landings of
``tests/game/agent/test_capabilities.py``) are what this path predicts for a take-off 0.5 m before the
edge with the capsule catching the far edge ``mechanics.JUMP_LANDING_CATCH_M`` short of it.
"""

from __future__ import annotations

import math

import attr
import numpy as np

from avalon import errors as check
from avalon.rules import mechanics

#: The feet's initial rise rate on the steps' path, m/s (see the module docstring).
JUMP_PATH_RISE_SPEED_M_PER_S = mechanics.JUMP_SPEED_M_PER_S + mechanics.GRAVITY_M_PER_S2 * mechanics.STEP_SECONDS / 2
#: The highest the feet get on that path above the take-off, metres (1.51 m).
JUMP_PATH_APEX_M = JUMP_PATH_RISE_SPEED_M_PER_S**2 / (2 * mechanics.GRAVITY_M_PER_S2)
#: Fall damage counts a jump's fall from its exact apex above the take-off, metres (1.25 m).
JUMP_DAMAGE_APEX_M = mechanics.JUMP_SPEED_M_PER_S**2 / (2 * mechanics.GRAVITY_M_PER_S2)
#: Shoulders above the feet, crouching fully and standing tall, metres (0.65 and 1.55 m).
SHOULDER_SPAN_M = (
    mechanics.SHOULDER_HEIGHT_M - (mechanics.HEAD_DEFAULT_HEIGHT_M - mechanics.HEAD_MIN_HEIGHT_M),
    mechanics.SHOULDER_HEIGHT_M + (mechanics.HEAD_MAX_HEIGHT_M - mechanics.HEAD_DEFAULT_HEIGHT_M),
)
#: A closing hand takes what lies within this of its shoulder: the arm's reach, the hand's radius
#: and the grasp distance beyond its surface, metres (1.25 m; the food's radius comes on top).
GRASP_RANGE_M = mechanics.ARM_REACH_M + mechanics.HAND_RADIUS_M + mechanics.GRASP_REACH_M


def jump_flight_time_s(rise_m: float) -> float:
    """Seconds from take-off until the feet, coming down, are ``rise_m`` above the take-off
    (negative: below it); NaN when the path never gets that high."""
    a, g = JUMP_PATH_RISE_SPEED_M_PER_S, mechanics.GRAVITY_M_PER_S2
    disc = a * a - 2.0 * g * rise_m
    return (a + math.sqrt(disc)) / g if disc >= 0.0 else math.nan


def jump_reach_m(rise_m: float) -> float:
    """How far (horizontally, metres) the feet get at full running speed before coming down to
    ``rise_m`` above the take-off; NaN above the path's apex. 5.5 m on the level, 6.3 m landing
    1 m lower, 4.35 m landing 1 m higher."""
    return mechanics.MAX_WALK_SPEED_M_PER_S * jump_flight_time_s(rise_m)


def modelled_gap_m(drop_m: float, take_off_before_edge_m: float = 0.5,
                   catch_m: float = mechanics.JUMP_LANDING_CATCH_M) -> float:
    """The widest gap (metres) the path model clears, landing ``drop_m`` lower, taking off
    ``take_off_before_edge_m`` before the edge, the capsule catching the far edge ``catch_m`` short."""
    return jump_reach_m(-drop_m) - take_off_before_edge_m + catch_m


_RISE_SLOPES_DEG = np.array(sorted(mechanics.TERRAIN_JUMP_RISE_M), dtype=np.float64)
_RISES_M = np.array([mechanics.TERRAIN_JUMP_RISE_M[s] for s in sorted(mechanics.TERRAIN_JUMP_RISE_M)])


def terrain_jump_rise_m(face_slope_deg) -> np.ndarray:
    """How high (metres) a jump into a terrain face of this slope can carry the feet (measured,
    ``mechanics.TERRAIN_JUMP_RISE_M``, interpolated); unbounded (inf) where the face can be walked
    up (below ``mechanics.WALK_UP_BLOCKED_SLOPE_DEG`` the measurement's first row stands for more)."""
    slope = np.asarray(face_slope_deg, dtype=np.float64)
    rise = np.interp(slope, _RISE_SLOPES_DEG, _RISES_M)
    return np.where(slope < _RISE_SLOPES_DEG[0], np.inf, rise)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Capabilities:
    """Limits of the body for the reachability search. Heights and distances in metres, slopes
    in degrees from horizontal (of the terrain's height-map triangles)."""

    #: Triangles this steep or gentler are floor: stood on, walked up and down.
    floor_slope_deg: float = attr.ib(validator=check.between(0.0, 90.0))
    #: Moves uphill over triangles up to this steep (the body runs up faces it cannot stand on).
    walk_up_slope_deg: float = attr.ib(validator=check.between(0.0, 90.0))
    #: A triangle whose corners differ by at most this is floor, however steep (a step).
    step_m: float = attr.ib(validator=check.non_negative())
    #: Whether walking keeps to the floor's interior: both ways along triangle edges with floor
    #: on both sides (else: uphill beside any triangle it can walk up, downhill beside any floor
    #: triangle).
    interior_walking: bool = attr.ib(validator=attr.validators.instance_of(bool))
    #: Whether a fall lands only where there is floor all round (else: beside any floor triangle).
    firm_landings: bool = attr.ib(validator=attr.validators.instance_of(bool))
    #: Whether ground under the water plane counts (the simulator has no water physics: the body
    #: walks on the sea floor; routes keep out of the water).
    water_is_ground: bool = attr.ib(validator=attr.validators.instance_of(bool))
    #: Whether tree trunks and boxes block the grid points the body would overlap.
    obstacles_block: bool = attr.ib(validator=attr.validators.instance_of(bool))
    #: Added to the feet path's reach (``jump_reach_m``) for the longest jump; negative is a margin.
    jump_reach_slack_m: float = attr.ib(validator=check.finite())
    #: Highest landing above the take-off by the feet's path alone.
    jump_rise_m: float = attr.ib(validator=check.non_negative())
    #: Whether a jump over a face steeper than the walk-up slope may rise as
    #: ``terrain_jump_rise_m`` says (the body slides up it).
    terrain_jump: bool = attr.ib(validator=attr.validators.instance_of(bool))
    #: Terrain under a jump stays this far below the feet's path (None: the path's shape is not
    #: checked, only that nothing on the way is higher than the jump can rise).
    jump_clearance_m: float | None = attr.ib(validator=attr.validators.optional(check.finite()))
    #: Whether a jump may start where the body runs up a slope it cannot stand on.
    jump_from_slopes: bool = attr.ib(validator=attr.validators.instance_of(bool))
    #: Added to the task's fall limit; negative is a margin.
    fall_slack_m: float = attr.ib(validator=check.finite())
    #: Where the feet are below the hold (its grid point) when the hands let go (negative: above).
    let_go_feet_below_hold_m: float = attr.ib(validator=check.finite())
    #: Climbable grid points next to the feet are grasped from standing up to this far above them...
    grab_up_m: float = attr.ib(validator=check.non_negative())
    #: ...and this far below them.
    grab_down_m: float = attr.ib(validator=check.non_negative())
    #: From a hold, the body gets onto floor next to it up to this far above the hold...
    climb_onto_m: float = attr.ib(validator=check.finite())
    #: ...and steps off onto floor up to this far below it (deeper is a fall).
    climb_off_m: float = attr.ib(validator=check.non_negative())
    #: Whether holds connect diagonally (else only along the grid's rows and columns).
    climb_diagonal: bool = attr.ib(validator=attr.validators.instance_of(bool))
    #: The food's centre lies within this of the shoulders (anywhere from crouching to standing
    #: tall above the feet: ``SHOULDER_SPAN_M``) to count as reached.
    grasp_reach_m: float = attr.ib(validator=check.positive())
    #: Whether the food counts as reached from a hold too (within ``grasp_reach_m`` of the hold).
    grasp_while_hanging: bool = attr.ib(validator=attr.validators.instance_of(bool))


#: What a route may ask of the body: limits a margin inside the measured ones.
#:
#: - floor: 40 degrees (the floor angle is 45), steps of 0.25 m (0.35 m measured at full speed),
#:   dry, clear of trunks and boxes; the feet walk over floor triangles only, and a fall lands
#:   where there is floor all round;
#: - jumps: 1 m shorter than the feet's path reaches at full speed (level: 4.5 m from take-off to
#:   landing), at most 1.2 m up (the path's apex is 1.51 m), taking off from floor only, the feet
#:   passing 0.2 m above the terrain on the way (on the path of a run slowed to land where the
#:   jump is aimed);
#: - falls: 0.5 m less than the task allows; letting go of a hold counts from 0.2 m above it
#:   (the feet can be pulled that high);
#: - climbing: holds grasped from standing 2 m up to 0.3 m down (shoulders reach 2.55 m up),
#:   along rows and columns only, onto floor at most 0.1 m above the last hold, off onto floor at
#:   most 0.5 m below it;
#: - grasping: the food's centre within 1.15 m of the shoulders (the hand takes it within 1.25 m
#:   plus the food's radius).
ROUTE_CAPABILITIES = Capabilities(
    floor_slope_deg=mechanics.FLOOR_MAX_SLOPE_DEG - 5.0,
    walk_up_slope_deg=mechanics.FLOOR_MAX_SLOPE_DEG - 5.0,
    step_m=mechanics.STEP_UP_M - 0.1,
    interior_walking=True,
    firm_landings=True,
    water_is_ground=False,
    obstacles_block=True,
    jump_reach_slack_m=-1.0,
    jump_rise_m=1.2,
    terrain_jump=False,
    jump_clearance_m=0.2,
    jump_from_slopes=False,
    fall_slack_m=-0.5,
    let_go_feet_below_hold_m=-0.2,
    grab_up_m=2.0,
    grab_down_m=0.3,
    climb_onto_m=0.1,
    climb_off_m=0.5,
    climb_diagonal=False,
    grasp_reach_m=GRASP_RANGE_M - 0.1,
    grasp_while_hanging=False,
)

#: Everything the body might manage: limits a margin beyond the measured ones.
#:
#: - floor: 50 degrees, one floor triangle enough; uphill over faces to 79 degrees (78 measured,
#:   80 not) however high; steps of 0.45 m (0.37 m blocks); water is ground; trunks and boxes are
#:   ignored (tasks keep them away from the obstacles they certify);
#: - jumps: 0.5 m beyond the path's reach (the capsule catches an edge less than 0.5 m short),
#:   up to 2.0 m (a 1.95 m ledge is missed), or as high as ``terrain_jump_rise_m`` plus 0.2 m over
#:   a steep face, from any slope the body runs up, nothing on the way higher than that;
#: - falls: 0.5 m more than the task allows; letting go of a hold counts from 2.5 m below it (the
#:   body hangs at arm's length);
#: - climbing: holds grasped from standing 2.6 m up to 1 m down, diagonally too, onto floor 1 m
#:   above the last hold, off onto floor 1 m below it;
#: - grasping: the food's centre within 1.85 m of the shoulders (1.25 m, a shoulder 0.3 m to the
#:   side and 0.3 m for the food's radius), or of a hold.
BYPASS_CAPABILITIES = Capabilities(
    floor_slope_deg=mechanics.FLOOR_MAX_SLOPE_DEG + 5.0,
    walk_up_slope_deg=mechanics.WALK_UP_MAX_SLOPE_DEG + 1.0,
    step_m=mechanics.STEP_UP_BLOCKED_M + 0.08,
    interior_walking=False,
    firm_landings=False,
    water_is_ground=True,
    obstacles_block=False,
    jump_reach_slack_m=0.5,
    jump_rise_m=mechanics.JUMP_LEDGE_MISSED_M + 0.05,
    terrain_jump=True,
    jump_clearance_m=None,
    jump_from_slopes=True,
    fall_slack_m=0.5,
    let_go_feet_below_hold_m=2.5,
    grab_up_m=2.6,
    grab_down_m=1.0,
    climb_onto_m=1.0,
    climb_off_m=1.0,
    climb_diagonal=True,
    grasp_reach_m=GRASP_RANGE_M + 0.6,
    grasp_while_hanging=True,
)
