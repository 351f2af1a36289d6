"""Physical constants of the embodied agent: sizes, speed and reach limits, gravity.

The single place these numbers live. ``avalon.codegen`` copies them into
``godot/generated/protocol.gd``, so the Godot side uses exactly these values.
A continuous action of 1.0 moves a part at its maximum rate for one step (``STEP_SECONDS``).
"""

from __future__ import annotations

import math

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
