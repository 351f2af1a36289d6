"""Physical constants of the embodied agent: sizes, speed and reach limits, gravity.

The single place these numbers live. ``avalon.dev.codegen`` copies them into
``godot/generated/protocol.gd``, so the Godot side uses exactly these values.
A continuous action of 1.0 moves a part at its maximum rate for one step (``STEP_SECONDS``).
"""

from __future__ import annotations

import math
from types import MappingProxyType

STEPS_PER_SECOND = 10
STEP_SECONDS = 1.0 / STEPS_PER_SECOND
GRAVITY_M_PER_S2 = 10.0

# Body: a capsule standing on the ground; its origin is at the feet.
BODY_HEIGHT_M = 2.0
BODY_RADIUS_M = 0.4
BODY_MASS_KG = 60.0
MAX_WALK_SPEED_M_PER_S = 5.0
JUMP_SPEED_M_PER_S = 5.0  # apex 1.25 m at g = 10

# Head: moves vertically relative to the body (crouching), pitches and rolls relative to it.
HEAD_MASS_KG = 4.8
HEAD_DEFAULT_HEIGHT_M = 1.7
HEAD_MIN_HEIGHT_M = 0.9
HEAD_MAX_HEIGHT_M = 1.8
MAX_HEAD_VERTICAL_SPEED_M_PER_S = 2.0
MAX_HEAD_TURN_SPEED_RAD_PER_S = math.radians(180.0)  # pitch, yaw and roll
HEAD_MAX_PITCH_RAD = math.radians(80.0)
HEAD_MAX_ROLL_RAD = math.radians(45.0)

# Hands: spheres that move and turn relative to the body within arm's reach of the shoulder.
HAND_MASS_KG = 3.0
HAND_RADIUS_M = 0.1
SHOULDER_HEIGHT_M = 1.45
SHOULDER_HALF_WIDTH_M = 0.3
ARM_REACH_M = 1.0
MAX_HAND_SPEED_M_PER_S = 2.0
MAX_HAND_TURN_SPEED_RAD_PER_S = math.radians(360.0)
HAND_MAX_ANGLE_RAD = math.radians(90.0)  # per axis, relative to the body
# Rest pose of each hand in the body frame (x right, y up, z back): in front, within view.
LEFT_HAND_REST_M = (-0.3, 1.2, -0.6)
RIGHT_HAND_REST_M = (0.3, 1.2, -0.6)

# Camera: the vertical field of view of the egocentric view.
CAMERA_FOV_DEG = 90.0

# Energy and reward (Appendix B, Table 5).
INITIAL_ENERGY = 1.0
FRAME_PENALTY = 1e-4  # per frame, in training and evaluation; also the score's frame bonus
FALL_DAMAGE_COEFFICIENT = 0.000026  # C_fall of equation 2, energy per kg per (m/s)^2
FALL_SAFE_SPEED_M_PER_S = 10.0  # v_threshold of equation 2: landing slower than this does no damage
MOVEMENT_COEFFICIENT = 1e-8  # C_move of equation 3 in training (the env sends 0 in evaluation mode)
KINETIC_COEFFICIENT = 0.0  # C_K of equation 4, for body and hands
POTENTIAL_COEFFICIENT = 1.0  # C_P of equation 5, for body, head and hands
EAT_DISTANCE_M = 0.5  # held food this close to the head (its centre to the head's) is eaten
FRAMES_AFTER_LAST_FOOD = 10  # the episode ends this many frames after the last food is eaten

# Grasping, throwing, climbing and the achievements that measure them.
GRASP_REACH_M = 0.15  # a hand grasps what lies within this distance of its surface
MAX_LIFT_MASS_KG = 40.0  # heavier items (boulders) cannot be lifted, only pushed
THROW_MIN_SPEED_M_PER_S = 1.5  # a release at least this fast counts as a throw (below MAX_HAND_SPEED_M_PER_S)
HIT_MIN_SPEED_M_PER_S = 3.0  # an item striking something this fast counts as a hit
CARRY_ACHIEVEMENT_M = 20.0
CLIMB_ACHIEVEMENT_M = 2.0

# Food hanging in a fruit tree stays put until a hand grasps it or something strikes it at least
# this fast (a thrown item, a swung tool, an animal): a stick swung at a hand's full speed (2 m/s)
# while standing does; the agent's body and empty hands never knock it down. Impact speed is the
# relative speed of the two bodies along the contact normal just before the physics step in which
# they touched (godot/entities/impacts.gd, docs/items.md). Each food's own rules and each tool's
# size and mass are rows of avalon/rules/foods.py and avalon/rules/tools.py.
HANGING_FOOD_KNOCK_SPEED_M_PER_S = 1.5

# ---- Measured capabilities --------------------------------------------------------------------
# What the body can do in the simulator, measured there on purpose-built worlds (docs/mechanics.md,
# "Measured capabilities"). The solvability certificates (avalon/tasks/kit/certificate.py) build on
# them, with margins. Each names the test that shows it holds and that a little beyond it does not
# (in tests/game/agent/test_capabilities.py unless another file is named). Slopes are of the terrain's
# height-map triangles, in degrees from horizontal; heights and widths in metres.

#: A running jump taken 0.5 m before the edge clears a gap this wide between level platforms...
#: (test_mechanics.py::test_a_running_jump_clears_a_gap_of_the_documented_width_only, and
#: test_a_running_jump_clears_the_measured_gap_and_no_wider)
JUMP_GAP_CLEARED_M = 5.25
#: ...and falls into one this wide. Landing lower carries the body farther: the feet follow
#: x = MAX_WALK_SPEED_M_PER_S t, y = (JUMP_SPEED_M_PER_S + GRAVITY_M_PER_S2 STEP_SECONDS / 2) t
#: - GRAVITY_M_PER_S2 t^2 / 2 (the 10 Hz steps' path), and the capsule lands once its feet are
#: within JUMP_LANDING_CATCH_M of the far edge (gaps landing 1, 2 and 4 m lower: 6.0, 6.5 and 7.5 m
#: cleared, 0.5 m more not; test_a_running_jump_down_clears_the_modelled_gap_and_no_wider).
JUMP_GAP_MISSED_M = 5.5
#: How far short of a landing's edge the feet may come down and the body still lands on it (the
#: capsule's rounded bottom catches the edge): the measured gaps fit 0.25 to 0.5 m.
JUMP_LANDING_CATCH_M = 0.25
#: A running jump lands on a box ledge this high (taken 0.5 to 2 m before it)...
#: (test_a_running_jump_reaches_a_ledge_of_the_measured_height_and_no_higher)
JUMP_LEDGE_M = 1.9
#: ...but not on one this high.
JUMP_LEDGE_MISSED_M = 1.95
#: Steep terrain lets a jump rise higher than onto a box: a body pressed into a face steeper than
#: WALK_UP_MAX_SLOPE_DEG slides up it with the jump's speed. The highest rise (feet above the
#: take-off) over take-offs 0.4 to 3 m before the face's foot, by the face's slope (degrees);
#: between the rows it changes smoothly. (test_a_jump_into_steep_terrain_rises_the_measured_height)
TERRAIN_JUMP_RISE_M = MappingProxyType(
    {79.0: 9.9, 80.0: 7.6, 81.0: 5.7, 82.0: 4.6, 83.0: 3.8, 84.0: 3.2, 85.0: 2.8, 86.0: 2.4, 87.0: 2.15, 88.0: 1.95,
     89.0: 1.8, 90.0: 1.8}
)
#: Walking at full speed, the body gets over a box step this high without jumping...
#: (test_walking_gets_over_a_step_of_the_measured_height_and_no_higher)
STEP_UP_M = 0.35
#: ...but not over one this high (walking slower, it manages less: 0.1 m at 1 m/s).
STEP_UP_BLOCKED_M = 0.37
#: The body stands on ground up to this steep (Godot's floor angle, godot/agent/player.gd). Walking
#: down steeper ground is a fall from its top (fall damage counts the whole drop):
#: (test_walking_down_a_slope_is_a_fall_only_beyond_the_floor_angle: 44 degrees no, 46 yes).
FLOOR_MAX_SLOPE_DEG = 45.0
#: Walking at full speed up terrain, the body gets up slopes to about this steep, however high:
#: walking into a face steeper than the floor angle, Godot's move_and_slide slides the body up it
#: (an upward speed that outlasts gravity below atan(MAX_WALK_SPEED_M_PER_S / (GRAVITY_M_PER_S2
#: STEP_SECONDS)) = 78.7 degrees; slower walking gives up at gentler slopes).
#: (test_walking_up_terrain_gets_up_the_measured_slope_and_no_steeper: 78 degrees yes, 80 no)
WALK_UP_MAX_SLOPE_DEG = 78.0
#: A slope this steep is not walked up (the measured bound's other side).
WALK_UP_BLOCKED_SLOPE_DEG = 80.0
#: Falls up to this high do no damage: v_threshold^2 / 2g (equation 2).
#: (test_mechanics.py::test_fall_damage_follows_equation_2, test_a_fall_just_above_the_safe_height_hurts)
SAFE_FALL_M = FALL_SAFE_SPEED_M_PER_S**2 / (2.0 * GRAVITY_M_PER_S2)
#: A fall from this high takes all of a full energy (1.0): the agent dies (37.05 m).
#: (test_mechanics.py::test_fall_damage_follows_equation_2, test_a_fall_just_below_the_lethal_height_is_survived)
LETHAL_FALL_M = (INITIAL_ENERGY / (FALL_DAMAGE_COEFFICIENT * BODY_MASS_KG) + FALL_SAFE_SPEED_M_PER_S**2) / (2.0 * GRAVITY_M_PER_S2)
# Climbing: a hand holds terrain where the biome map's climbable grid says so (bare mountain;
# avalon/datagen/biomes.py's UNCLIMBABLE_MOUNTAIN never), tree trunks and climbable boxes; no
# steepness limit (a vertical face is climbed) and no height limit: gravity is suspended while a
# hand holds on, so the agent climbs as high as holds go (test_climbing_a_tall_bare_mountain_face_has_no_height_limit,
# test_mechanics.py's climbing tests).
