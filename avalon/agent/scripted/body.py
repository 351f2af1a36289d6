"""What a scripted agent knows about its own body after a step: read from ``info`` (the world
position and yaw of the feet, achievements, food eaten) and the proprioceptive observation (head
height and pitch, the hands), with the geometry a primitive needs (where a world point is in the
body frame, which way and how far to turn to face or look at it).

Geometry is Godot's: metres, x right, y up, z back; yaw 0 faces -z and positive yaw turns left. The
body frame has its origin at the feet, x to the right and z backwards; the head sits on its vertical
axis, ``head_height_m`` above the feet, and carries the camera.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import attr
import numpy as np

#: The hands in the order of the action and observation names (left, then right).
HANDS = ("left", "right")


def wrap_angle(angle_rad: float) -> float:
    """An angle in [-pi, pi)."""
    return (angle_rad + math.pi) % (2.0 * math.pi) - math.pi


def yaw_towards(from_xz: tuple[float, float], to_xz: tuple[float, float]) -> float:
    """The yaw (radians) that faces from one horizontal point towards another."""
    return math.atan2(-(to_xz[0] - from_xz[0]), -(to_xz[1] - from_xz[1]))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Body:
    """The agent after one step (or the reset): positions in metres, angles in radians."""

    #: The feet (the body's origin) in the world.
    position: tuple[float, float, float]
    #: The body's yaw in the world.
    yaw_rad: float
    #: The head (and camera) above the feet; 1.7 m standing, down to 0.9 m crouching.
    head_height_m: float
    #: The head's pitch relative to the body (positive looks up).
    head_pitch_rad: float
    #: Each hand's centre in the body frame, (left, right).
    hand_positions: tuple[tuple[float, float, float], tuple[float, float, float]]
    #: Whether each hand holds something (an item or a climbable surface), (left, right).
    grasping: tuple[bool, bool]
    #: Whether each hand touches anything, (left, right).
    colliding: tuple[bool, bool]
    energy: float
    food_eaten: int
    food_total: int
    success: bool
    achievements: frozenset[str]
    #: Frames since the reset.
    frame: int

    @classmethod
    def read(cls, observation: Mapping[str, Any], info: Mapping[str, Any]) -> "Body":
        """The body as one step's (or the reset's) observation and ``info`` report it."""

        def vector(name: str) -> tuple[float, float, float]:
            x, y, z = (float(v) for v in observation[name])
            return (x, y, z)

        def flag(name: str) -> bool:
            return float(observation[name][0]) > 0.5

        x, y, z = (float(v) for v in info["world_body_position"])
        return cls(
            position=(x, y, z),
            yaw_rad=float(info["world_body_yaw"]),
            head_height_m=float(observation["head_relative_position"][1]),
            head_pitch_rad=float(observation["head_relative_rotation"][0]),
            hand_positions=(vector("left_hand_relative_position"), vector("right_hand_relative_position")),
            grasping=(flag("left_hand_is_grasping"), flag("right_hand_is_grasping")),
            colliding=(flag("left_hand_is_colliding"), flag("right_hand_is_colliding")),
            energy=float(info["energy"]),
            food_eaten=int(info["food_eaten"]),
            food_total=int(info["food_total"]),
            success=bool(info["success"]),
            achievements=frozenset(info["achievements"]),
            frame=int(info["frame"]),
        )

    @property
    def xz(self) -> tuple[float, float]:
        return (self.position[0], self.position[2])

    @property
    def feet_y_m(self) -> float:
        return self.position[1]

    @property
    def eye(self) -> tuple[float, float, float]:
        """The camera's position in the world."""
        x, y, z = self.position
        return (x, y + self.head_height_m, z)

    @property
    def facing(self) -> tuple[float, float]:
        """Unit (x, z) direction the body faces."""
        return (-math.sin(self.yaw_rad), -math.cos(self.yaw_rad))

    @property
    def is_hanging(self) -> bool:
        """Whether a hand holds on (to an item or, when climbing, a surface)."""
        return any(self.grasping)

    def horizontal_distance_m(self, point) -> float:
        """Horizontal distance from the feet to a world point (x, y, z) or (x, z)."""
        px, pz = (point[0], point[-1])
        return math.hypot(px - self.position[0], pz - self.position[2])

    def to_body_frame(self, point) -> np.ndarray:
        """A world point (x, y, z) in the body frame (x right, y up from the feet, z back)."""
        dx, dy, dz = np.asarray(point, dtype=float) - np.asarray(self.position)
        c, s = math.cos(self.yaw_rad), math.sin(self.yaw_rad)
        return np.array([c * dx - s * dz, dy, s * dx + c * dz])

    def yaw_error_rad(self, point) -> float:
        """How far to turn (positive: left) to face a world point (x, y, z) or (x, z)."""
        if self.horizontal_distance_m(point) < 1e-6:
            return 0.0
        return wrap_angle(yaw_towards(self.xz, (point[0], point[-1])) - self.yaw_rad)

    def pitch_to_rad(self, point) -> float:
        """The head pitch that looks from the eye at a world point (x, y, z)."""
        ex, ey, ez = self.eye
        return math.atan2(float(point[1]) - ey, math.hypot(float(point[0]) - ex, float(point[2]) - ez))
