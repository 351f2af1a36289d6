"""The lock-step protocol between Python and the Godot simulator: the single source of truth.

Everything both sides must agree on lives here: message ids, byte layouts, action fields, the
observed features and their order, and the depth encoding. ``avalon.dev.codegen`` writes
``godot/generated/protocol.gd`` from this module; a test fails when that file is stale.

Wire format (little-endian, over one loopback TCP connection that Godot opens to Python):

    frame   = type:u8  length:u32  payload:length bytes
    HELLO        Godot→Python  magic:4s  version:u32  secret:32s  engine_version:utf8
    RESET        Python→Godot  seed:u64  time_limit_frames:u32  movement_coefficient:f32  world_dir:utf8
    STEP         Python→Godot  tag:u32 (=22)  count:u32  action:float32[count]
    CLOSE        Python→Godot  (empty)
    RENDER       Python→Godot  size:u32
    OBSERVATION  Godot→Python  frame:u32  features:float32[FEATURE_COUNT]  rgbd:u8[res*res*4]
    PICTURE      Godot→Python  frame:u32  size:u32  rgbd:u8[size*size*4]
    ERROR        Godot→Python  message:utf8   (the simulator stays usable; send RESET again)

Lock-step: every RESET and STEP is answered by exactly one OBSERVATION or ERROR, every RENDER by
one PICTURE or ERROR. RENDER draws the current state (the last OBSERVATION's) from the agent's
camera into a square of ``size`` pixels, in a second viewport drawn only then: it changes nothing,
and an episode's observations are the same bytes with or without RENDERs between its steps.
Rows of both frames come bottom-up, as OpenGL reads them; the decoders flip them.
A STEP's payload is laid out as Godot marshals a PoolRealArray (``var2bytes``), so the simulator
decodes it with one native ``bytes2var`` call instead of a call per value.
"""

from __future__ import annotations

import enum
import struct
from typing import NamedTuple, Sequence

import numpy as np

from avalon.rules.animals import ANIMAL_KINDS, ANIMAL_STATE_FIELDS, MAX_REPORTED_ANIMALS, PREDATOR_KINDS
from avalon.rules.foods import FOOD_KINDS

PROTOCOL_VERSION = 5
MAGIC = b"AVLN"
SECRET_SIZE = 32
HEADER = struct.Struct("<BI")
HELLO_FIXED = struct.Struct("<4sI32s")
RESET_FIXED = struct.Struct("<QIf")
STEP_FIXED = struct.Struct("<II")
GODOT_POOL_REAL_ARRAY_TAG = 22  # Variant::POOL_REAL_ARRAY in Godot 3's marshalling
OBSERVATION_FIXED = struct.Struct("<I")
RENDER_FIXED = struct.Struct("<I")
MAX_RENDER_SIZE_PX = 4096  # the simulator refuses larger RENDERs
PICTURE_FIXED = struct.Struct("<II")
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024
#: Episode seeds are in [0, SEED_LIMIT) and time limits in [1, MAX_TIME_LIMIT_FRAMES]: what
#: RESET's u64 and u32 carry.
SEED_LIMIT = 2**64
MAX_TIME_LIMIT_FRAMES = 2**32 - 1


class MessageType(enum.IntEnum):
    """Message ids; Python→Godot below 100, Godot→Python from 100."""

    RESET = 1
    STEP = 2
    CLOSE = 3
    RENDER = 4
    HELLO = 100
    OBSERVATION = 101
    ERROR = 102
    PICTURE = 103


class ActionField(NamedTuple):
    """One named part of an action: ``size`` float32 values on the wire.

    ``kind`` is ``"continuous"`` (values in [low, high], a fraction of the maximum rate the
    simulator allows per step) or ``"binary"`` (0 or 1 on the wire). ``components`` describes
    each value of a vector field.
    """

    name: str
    size: int
    kind: str
    low: float
    high: float
    doc: str
    components: tuple[str, ...] = ()


def _continuous(name: str, doc: str, components: tuple[str, ...] = (), low: float = -1.0) -> ActionField:
    return ActionField(name, max(1, len(components)), "continuous", low, 1.0, doc, components)


def _binary(name: str, doc: str) -> ActionField:
    return ActionField(name, 1, "binary", 0.0, 1.0, doc)


# Frames: "body frame" is the agent body's yaw-only frame, Godot's convention: x right, y up,
# z backwards (forward is -z). Rotations are (pitch about x, yaw about y, roll about z), radians.
_TRANSLATION = ("right (+) / left (-)", "up (+) / down (-)", "backwards (+) / forwards (-)")
_ROTATION = ("pitch: up (+) / down (-)", "yaw: left (+) / right (-)", "roll: tilt left (+) / right (-)")

VR_ACTION_FIELDS: tuple[ActionField, ...] = (
    _continuous("head_position", "head translation rate in the body frame; x and z walk the whole agent, "
                "y raises the head or crouches", ("strafe right (+) / left (-)", "raise head (+) / crouch (-)",
                                                  "walk backwards (+) / forwards (-)")),
    _continuous("head_rotation", "head rotation rate; yaw turns the whole agent, pitch and roll only the head",
                ("pitch: look up (+) / down (-)", "yaw: turn left (+) / right (-)", "roll: tilt head left (+) / right (-)")),
    _continuous("left_hand_position", "left hand translation rate relative to the body", _TRANSLATION),
    _continuous("left_hand_rotation", "left hand rotation rate relative to the body", _ROTATION),
    _continuous("right_hand_position", "right hand translation rate relative to the body", _TRANSLATION),
    _continuous("right_hand_rotation", "right hand rotation rate relative to the body", _ROTATION),
    _binary("left_grasp", "1 closes the left hand (grasps), 0 opens it"),
    _binary("right_grasp", "1 closes the right hand (grasps), 0 opens it"),
    _binary("jump", "1 jumps when the body stands on something"),
)

MOUSE_KEYBOARD_ACTION_FIELDS: tuple[ActionField, ...] = (
    _continuous("move_forward", "walk along the facing direction (+) or backwards (-)"),
    _continuous("head_pitch", "look up (+) or down (-)"),
    _continuous("head_yaw", "turn left (+) or right (-); turns the whole agent"),
    _binary("left_grasp", "1 closes the left hand (grasps), 0 opens it"),
    _binary("right_grasp", "1 closes the right hand (grasps), 0 opens it"),
    _continuous("jump", "jump strength; 0.5 and above jumps (continuous, as in the paper's Appendix D)", low=0.0),
    _binary("eat", "1 brings a held food item to the mouth"),
    _binary("left_throw", "1 throws what the left hand holds"),
    _binary("right_throw", "1 throws what the right hand holds"),
)

ACTION_SPACES: dict[str, tuple[ActionField, ...]] = {
    "vr": VR_ACTION_FIELDS,
    "mouse_keyboard": MOUSE_KEYBOARD_ACTION_FIELDS,
}


def action_size(action_space: str) -> int:
    """Number of float32 values a STEP carries for ``action_space``."""
    return sum(field.size for field in ACTION_SPACES[action_space])


class Feature(NamedTuple):
    """One named float32 vector the simulator reports every frame.

    ``observed`` features are the 23 proprioceptive variables of the paper's Appendix C and go
    into the observation dict; the others are ground truth for ``info`` (never shown to agents).
    """

    name: str
    size: int
    observed: bool
    unit: str
    doc: str


def _vec(name: str, unit: str, doc: str, observed: bool = True) -> Feature:
    return Feature(name, 3, observed, unit, doc)


def _scalar(name: str, unit: str, doc: str, observed: bool = True) -> Feature:
    return Feature(name, 1, observed, unit, doc)


#: Achievements (an idea from Crafter): things the agent did at least once this episode. The
#: simulator sets the flag of each in the ``achievements`` feature, in this order.
ACHIEVEMENTS: tuple[str, ...] = (
    "grasp",  # held something (an item or a climbable surface)
    "carry_20m",  # moved a held item 20 m from where it was grasped
    "throw",  # released a held item faster than THROW_MIN_SPEED_M_PER_S
    "hit",  # an item the agent threw or swung struck something at HIT_MIN_SPEED_M_PER_S or more
    "jump",
    "climb_2m",  # raised the body 2 m above where it last stood by climbing
    "push",  # moved an item the agent does not hold by walking into it or touching it
    "stack",  # released a stone so that it came to rest on another stone
    "open_food",  # opened a food that must be opened (coconut, orange, avocado)
    "eat",
    *(f"eat_{kind}" for kind in FOOD_KINDS),
    # Animals (avalon/rules/animals.py, docs/animals.md).
    *(f"hit_{species}" for species in ANIMAL_KINDS),  # a rock or stick struck it hard enough to count as a hit
    *(f"kill_{species}" for species in ANIMAL_KINDS),  # knocked it out (the hit that reached its hits_to_ko)
    "eat_prey",  # ate a knocked-out prey animal
    *(f"escaped_{species}" for species in PREDATOR_KINDS),  # an active predator gave up the chase (not KO'd)
)


_DELTA = "change since the previous frame, world displacement expressed in the current body frame"
_DROT = "change since the previous frame of world (pitch, yaw, roll), wrapped to [-pi, pi]"

FEATURES: tuple[Feature, ...] = (
    _vec("body_delta_position", "m", "body " + _DELTA),
    _vec("body_delta_rotation", "rad", "body " + _DROT),
    _vec("head_delta_position", "m", "head " + _DELTA),
    _vec("head_delta_rotation", "rad", "head " + _DROT),
    _vec("left_hand_delta_position", "m", "left hand " + _DELTA),
    _vec("left_hand_delta_rotation", "rad", "left hand " + _DROT),
    _vec("right_hand_delta_position", "m", "right hand " + _DELTA),
    _vec("right_hand_delta_rotation", "rad", "right hand " + _DROT),
    _vec("head_relative_position", "m", "head position in the body frame (origin at the feet)"),
    _vec("head_relative_rotation", "rad", "head (pitch, yaw, roll) relative to the body"),
    _vec("left_hand_relative_position", "m", "left hand position in the body frame"),
    _vec("left_hand_relative_rotation", "rad", "left hand (pitch, yaw, roll) relative to the body"),
    _vec("right_hand_relative_position", "m", "right hand position in the body frame"),
    _vec("right_hand_relative_rotation", "rad", "right hand (pitch, yaw, roll) relative to the body"),
    _scalar("left_hand_is_colliding", "bool", "1 when the left hand touches anything"),
    _scalar("right_hand_is_colliding", "bool", "1 when the right hand touches anything"),
    _scalar("left_hand_is_grasping", "bool", "1 when the left hand holds something"),
    _scalar("right_hand_is_grasping", "bool", "1 when the right hand holds something"),
    _scalar("energy_spent_on_movement", "energy", "movement penalty this frame: C_move times equations 3-5 of "
            "Appendix B (0 in evaluation mode); it lowers the reward, not the energy"),
    _scalar("energy_lost_to_attacks", "energy", "energy lost to predator attacks this frame"),
    _scalar("energy_gained_from_eating", "energy", "energy gained by eating this frame"),
    _scalar("energy", "energy", "current energy (starts at 1; the episode ends at 0)"),
    _scalar("frames_remaining", "frames", "frames left before the time limit truncates the episode"),
    # Ground truth for info; not observed.
    _vec("world_body_position", "m", "body position (feet) in world coordinates", observed=False),
    _scalar("world_body_yaw", "rad", "body yaw in world coordinates", observed=False),
    _scalar("is_terminated", "bool", "1 when the episode has ended by the game's rules", observed=False),
    _scalar("energy_lost_to_falls", "energy", "fall damage this frame (equation 2 of Appendix B)", observed=False),
    _scalar("movement_work", "J", "equations 3-5 of Appendix B this frame before C_move: the summed kinetic "
            "and potential energy increases of body, head and hands", observed=False),
    _scalar("food_total", "count", "pieces of food in the world when the episode began", observed=False),
    _scalar("food_eaten", "count", "pieces of food eaten so far this episode", observed=False),
    Feature("achievements", len(ACHIEVEMENTS), False, "bool", "one flag per name of ACHIEVEMENTS: 1 once unlocked this episode"),
    Feature("animals", MAX_REPORTED_ANIMALS * len(ANIMAL_STATE_FIELDS), False, "mixed",
            f"the first {MAX_REPORTED_ANIMALS} animals in scene order, {len(ANIMAL_STATE_FIELDS)} values each: "
            "world position x, y, z (m), state (animals.STATE_*: 0 idle, 1 backing away, 2 active, 3 respite, "
            "4 knocked out, 5 eaten; -1 no animal in the slot) and hits taken"),
)

FEATURE_COUNT = sum(feature.size for feature in FEATURES)
OBSERVED_FEATURES = tuple(feature for feature in FEATURES if feature.observed)
INFO_FEATURES = tuple(feature for feature in FEATURES if not feature.observed)


def feature_offsets(features: Sequence[Feature] = FEATURES) -> dict[str, int]:
    """Offset (in float32 values) of each feature in an OBSERVATION's feature vector."""
    offsets, offset = {}, 0
    for feature in features:
        offsets[feature.name] = offset
        offset += feature.size
    return offsets


# Depth channel (rgbd[..., 3]): distance along the camera's viewing axis, log-encoded so that
# the relative precision is the same at every distance (about 3.4% per step). Nearer = larger:
#   metres = DEPTH_NEAR_M * (DEPTH_FAR_M / DEPTH_NEAR_M) ** (1 - value / 255)
# 255 means DEPTH_NEAR_M or nearer; 0 means DEPTH_FAR_M or farther, including the sky.
DEPTH_NEAR_M = 0.1
DEPTH_FAR_M = 500.0


def depth_to_metres(depth: np.ndarray) -> np.ndarray:
    """Decode the uint8 depth channel into metres along the viewing axis (0 → ``inf``)."""
    value = np.asarray(depth, dtype=np.float64)
    metres = DEPTH_NEAR_M * (DEPTH_FAR_M / DEPTH_NEAR_M) ** (1.0 - value / 255.0)
    return np.where(value > 0, metres, np.inf)


def metres_to_depth(metres: np.ndarray) -> np.ndarray:
    """Encode distances in metres as the simulator's uint8 depth values (inverse of the above)."""
    ratio = np.log(np.maximum(np.asarray(metres, dtype=np.float64), DEPTH_NEAR_M) / DEPTH_NEAR_M)
    value = 255.0 * (1.0 - ratio / np.log(DEPTH_FAR_M / DEPTH_NEAR_M))
    return np.clip(np.rint(value), 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------------------------------
# Codec. Encoders return bytes ready to send; decoders take a payload without its header.


class ProtocolError(RuntimeError):
    """A message broke the protocol: wrong type, size, magic or version."""


def encode_frame(message_type: MessageType, payload: bytes = b"") -> bytes:
    return HEADER.pack(message_type, len(payload)) + payload


def decode_header(header: bytes) -> tuple[MessageType, int]:
    type_id, length = HEADER.unpack(header)
    try:
        message_type = MessageType(type_id)
    except ValueError:
        raise ProtocolError(f"unknown message type {type_id}") from None
    if length > MAX_PAYLOAD_BYTES:
        raise ProtocolError(f"message of {length} bytes exceeds the {MAX_PAYLOAD_BYTES}-byte limit")
    return message_type, length


def encode_hello(secret: bytes, engine_version: str = "", version: int = PROTOCOL_VERSION) -> bytes:
    return encode_frame(MessageType.HELLO, HELLO_FIXED.pack(MAGIC, version, secret) + engine_version.encode())


class Hello(NamedTuple):
    magic: bytes
    version: int
    secret: bytes
    engine_version: str


def decode_hello(payload: bytes) -> Hello:
    if len(payload) < HELLO_FIXED.size:
        raise ProtocolError(f"HELLO of {len(payload)} bytes is shorter than {HELLO_FIXED.size}")
    magic, version, secret = HELLO_FIXED.unpack_from(payload)
    return Hello(magic, version, secret, payload[HELLO_FIXED.size:].decode("utf-8", "replace"))


def encode_reset(seed: int, time_limit_frames: int, world_dir: str, movement_coefficient: float = 0.0) -> bytes:
    fixed = RESET_FIXED.pack(seed, time_limit_frames, movement_coefficient)
    return encode_frame(MessageType.RESET, fixed + world_dir.encode())


class Reset(NamedTuple):
    seed: int
    time_limit_frames: int
    movement_coefficient: float
    world_dir: str


def decode_reset(payload: bytes) -> Reset:
    seed, time_limit, movement_coefficient = RESET_FIXED.unpack_from(payload)
    return Reset(seed, time_limit, movement_coefficient, payload[RESET_FIXED.size:].decode())


def encode_step(action: np.ndarray) -> bytes:
    values = np.ascontiguousarray(action, dtype="<f4")
    return encode_frame(MessageType.STEP, STEP_FIXED.pack(GODOT_POOL_REAL_ARRAY_TAG, values.size) + values.tobytes())


def decode_step(payload: bytes) -> np.ndarray:
    tag, count = STEP_FIXED.unpack_from(payload)
    if tag != GODOT_POOL_REAL_ARRAY_TAG or len(payload) != STEP_FIXED.size + 4 * count:
        raise ProtocolError(f"STEP payload of {len(payload)} bytes with tag {tag} and count {count} is malformed")
    return np.frombuffer(payload, "<f4", count=count, offset=STEP_FIXED.size).astype(np.float32)


def encode_close() -> bytes:
    return encode_frame(MessageType.CLOSE)


def observation_payload_size(resolution: int) -> int:
    return OBSERVATION_FIXED.size + 4 * FEATURE_COUNT + resolution * resolution * 4


def encode_observation(frame: int, features: np.ndarray, rgbd_bottom_up: np.ndarray) -> bytes:
    """What Godot sends; used by tests. ``rgbd_bottom_up`` rows come bottom-up, as OpenGL reads them."""
    features = np.ascontiguousarray(features, dtype="<f4")
    if features.shape != (FEATURE_COUNT,):
        raise ProtocolError(f"features have shape {features.shape}, expected ({FEATURE_COUNT},)")
    payload = OBSERVATION_FIXED.pack(frame) + features.tobytes() + np.ascontiguousarray(rgbd_bottom_up, np.uint8).tobytes()
    return encode_frame(MessageType.OBSERVATION, payload)


class Observation(NamedTuple):
    frame: int
    features: np.ndarray  # float32[FEATURE_COUNT], a fresh array
    rgbd: np.ndarray  # uint8[res, res, 4], rows top-down, a fresh array


def decode_observation(payload: bytes | memoryview, resolution: int) -> Observation:
    expected = observation_payload_size(resolution)
    if len(payload) != expected:
        raise ProtocolError(
            f"OBSERVATION of {len(payload)} bytes, expected {expected} for resolution {resolution}"
        )
    (frame,) = OBSERVATION_FIXED.unpack_from(payload)
    start = OBSERVATION_FIXED.size
    features = np.frombuffer(payload, dtype="<f4", count=FEATURE_COUNT, offset=start).astype(np.float32)
    pixels = np.frombuffer(payload, dtype=np.uint8, offset=start + 4 * FEATURE_COUNT)
    # OpenGL reads rows bottom-up; flip to the usual top-down image order (the copy is fresh).
    rgbd = np.ascontiguousarray(pixels.reshape(resolution, resolution, 4)[::-1])
    return Observation(frame, features, rgbd)


def encode_render(size: int) -> bytes:
    return encode_frame(MessageType.RENDER, RENDER_FIXED.pack(size))


def decode_render(payload: bytes) -> int:
    (size,) = RENDER_FIXED.unpack(payload)
    return size


def encode_picture(frame: int, rgbd_bottom_up: np.ndarray) -> bytes:
    """What Godot sends for a RENDER; used by tests. ``rgbd_bottom_up`` is square, rows bottom-up."""
    rgbd = np.ascontiguousarray(rgbd_bottom_up, np.uint8)
    if rgbd.ndim != 3 or rgbd.shape[0] != rgbd.shape[1] or rgbd.shape[2] != 4:
        raise ProtocolError(f"a picture is (size, size, 4) uint8, not {rgbd.shape}")
    return encode_frame(MessageType.PICTURE, PICTURE_FIXED.pack(frame, rgbd.shape[0]) + rgbd.tobytes())


class Picture(NamedTuple):
    frame: int  # the frame it shows: the last OBSERVATION's
    rgbd: np.ndarray  # uint8[size, size, 4], rows top-down, a fresh array


def decode_picture(payload: bytes | memoryview, size: int) -> Picture:
    """A PICTURE's payload; ``size`` is what the RENDER asked for."""
    expected = PICTURE_FIXED.size + size * size * 4
    if len(payload) != expected:
        raise ProtocolError(f"PICTURE of {len(payload)} bytes, expected {expected} for size {size}")
    frame, sent_size = PICTURE_FIXED.unpack_from(payload)
    if sent_size != size:
        raise ProtocolError(f"PICTURE of size {sent_size}, expected {size}")
    pixels = np.frombuffer(payload, dtype=np.uint8, offset=PICTURE_FIXED.size)
    return Picture(frame, np.ascontiguousarray(pixels.reshape(size, size, 4)[::-1]))


def encode_error(message: str) -> bytes:
    return encode_frame(MessageType.ERROR, message.encode())
