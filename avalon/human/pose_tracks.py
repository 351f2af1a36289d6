"""Head-and-hands pose tracks: the file format a VR headset or motion-capture rig records.

A pose track is a JSON Lines file (``vr_data/README.md`` documents it field by field). Its first
line is a header, ``{"format": "avalon-pose-track", "version": 1}`` with an optional
``standing_head_height_m`` (the player's eye height standing; every position is scaled so it
becomes the agent's :data:`~avalon.rules.mechanics.HEAD_DEFAULT_HEIGHT_M`). Each further line is one
tracking sample::

    {"t": 0.011,
     "head": {"position": [x, y, z], "rotation": [qx, qy, qz, qw]},
     "left":  {"position": [...], "rotation": [...], "grip": 0.0, "trigger": 0.0,
               "stick": [x, y], "primary": false, "secondary": false},
     "right": {...}}

in the tracking space's own frame: metres and seconds, y up, the floor at y = 0, -z forward at
the start, right-handed (Godot's and OpenXR's convention); rotations are unit quaternions
``(x, y, z, w)``. ``stick`` is the controller's thumbstick (x right, y forward, each in [-1, 1]),
``primary`` and ``secondary`` its two face buttons (A/B on the right controller, X/Y on the
left).

:func:`load_pose_track` reads and checks a file: anything malformed, a missing field, NaN or an
infinity, a quaternion whose length is not 1, times that do not increase, a gap longer than
:data:`MAX_SAMPLE_GAP_S` (missing frames) or a head or hand moving faster than a tracked body part
can (:data:`MAX_TRACKED_HEAD_SPEED_M_PER_S`, :data:`MAX_TRACKED_HAND_SPEED_M_PER_S`: a tracking
glitch) is a :class:`PoseTrackError` naming the file, the line and the reason. Speeds above the
agent's own maxima but below those are not errors: the conversion to actions
(:mod:`avalon.human.pose_actions`) clamps them as the simulator clamps an agent.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import attr
import numpy as np

from avalon.rules.mechanics import HEAD_DEFAULT_HEIGHT_M

FORMAT_NAME = "avalon-pose-track"
FORMAT_VERSION = 1
#: Longest time between two samples; a longer gap means lost frames (headsets track at 60-120 Hz).
MAX_SAMPLE_GAP_S = 0.25
#: Fastest a tracked head moves horizontally (a person running in a room is far slower); faster is a glitch.
MAX_TRACKED_HEAD_SPEED_M_PER_S = 10.0
#: Fastest a tracked hand moves (a hard throw is about 25 m/s); faster is a tracking glitch.
MAX_TRACKED_HAND_SPEED_M_PER_S = 40.0
#: A rotation's quaternion may differ from unit length by this much (float rounding in files).
QUATERNION_NORM_TOLERANCE = 1e-3
HANDS = ("left", "right")
_HAND_FIELDS = ("position", "rotation", "grip", "trigger", "stick", "primary", "secondary")


class PoseTrackError(ValueError):
    """A pose track that cannot be used: names the file, the line (1-based) and the reason."""

    def __init__(self, path: str | os.PathLike, line: int | None, reason: str) -> None:
        where = f"{path}" if line is None else f"{path}, line {line}"
        super().__init__(f"{where}: {reason}")
        self.path, self.line, self.reason = str(path), line, reason


@attr.s(frozen=True, auto_attribs=True, eq=False)
class PoseTrack:
    """A checked pose track, scaled to the agent's size; arrays have one row per sample.

    ``hand_*`` arrays have a leading axis of 2 (left, right); positions are metres in tracking
    space, rotations unit quaternions ``(x, y, z, w)``, times seconds.
    """

    times_s: np.ndarray  # (n,)
    head_position: np.ndarray  # (n, 3)
    head_rotation: np.ndarray  # (n, 4)
    hand_position: np.ndarray  # (2, n, 3)
    hand_rotation: np.ndarray  # (2, n, 4)
    grip: np.ndarray  # (2, n) in [0, 1]
    trigger: np.ndarray  # (2, n) in [0, 1]
    stick: np.ndarray  # (2, n, 2) in [-1, 1]
    primary: np.ndarray  # (2, n) bool
    secondary: np.ndarray  # (2, n) bool

    @property
    def samples(self) -> int:
        return int(self.times_s.shape[0])


def load_pose_track(path: str | os.PathLike) -> PoseTrack:
    """Reads and checks a pose track file (see the module doc); raises :class:`PoseTrackError`."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise PoseTrackError(path, None, f"cannot be read ({error})") from None
    records = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            records.append((number, json.loads(text)))
        except json.JSONDecodeError as error:
            raise PoseTrackError(path, number, f"is not JSON ({error.msg})") from None
    if not records:
        raise PoseTrackError(path, None, "is empty: a header line and at least two samples were expected")
    scale = _header_scale(path, *records[0])
    columns = _Columns()
    for number, record in records[1:]:
        columns.add(path, number, record)
    if len(records) < 3:
        raise PoseTrackError(path, None, f"has {len(records) - 1} sample(s): at least two are needed")
    track = columns.track(scale)
    _check_motion(path, track, [number for number, _ in records[1:]], scale)
    return track


def _header_scale(path: Path, number: int, header: Any) -> float:
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise PoseTrackError(path, number, f'the first line must be the header {{"format": "{FORMAT_NAME}", "version": {FORMAT_VERSION}}}')
    if header.get("version") != FORMAT_VERSION:
        raise PoseTrackError(path, number, f"format version {header.get('version')!r} is not supported (expected {FORMAT_VERSION})")
    height = header.get("standing_head_height_m", HEAD_DEFAULT_HEIGHT_M)
    if not _finite_number(height) or not 0.5 <= height <= 2.5:
        raise PoseTrackError(path, number, f"standing_head_height_m {height!r} is not a height in [0.5, 2.5] metres")
    return HEAD_DEFAULT_HEIGHT_M / float(height)


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class _Columns:
    def __init__(self) -> None:
        self.times: list[float] = []
        self.head: list[tuple[list[float], list[float]]] = []
        self.hands: dict[str, list[dict[str, Any]]] = {hand: [] for hand in HANDS}

    def add(self, path: Path, number: int, record: Any) -> None:
        if not isinstance(record, dict):
            raise PoseTrackError(path, number, "a sample must be a JSON object")
        missing = [key for key in ("t", "head", *HANDS) if key not in record]
        if missing:
            raise PoseTrackError(path, number, f"missing field(s) {', '.join(missing)}")
        time = record["t"]
        if not _finite_number(time):
            raise PoseTrackError(path, number, f"t = {time!r} is not a finite number of seconds")
        if self.times and time <= self.times[-1]:
            raise PoseTrackError(path, number, f"t = {time} does not come after the previous sample's {self.times[-1]}")
        if self.times and time - self.times[-1] > MAX_SAMPLE_GAP_S:
            raise PoseTrackError(
                path, number, f"missing frames: {time - self.times[-1]:.3f} s since the previous sample (at most {MAX_SAMPLE_GAP_S} s)"
            )
        self.times.append(float(time))
        self.head.append(_pose(path, number, "head", record["head"]))
        for hand in HANDS:
            self.hands[hand].append(_hand(path, number, hand, record[hand]))

    def track(self, scale: float) -> PoseTrack:
        def hands(key: str, dtype: Any = np.float64) -> np.ndarray:
            return np.array([[sample[key] for sample in self.hands[hand]] for hand in HANDS], dtype=dtype)

        return PoseTrack(
            times_s=np.array(self.times),
            head_position=np.array([position for position, _ in self.head]) * scale,
            head_rotation=_unit(np.array([rotation for _, rotation in self.head])),
            hand_position=hands("position") * scale,
            hand_rotation=_unit(hands("rotation")),
            grip=hands("grip"),
            trigger=hands("trigger"),
            stick=hands("stick"),
            primary=hands("primary", bool),
            secondary=hands("secondary", bool),
        )


def _unit(quaternions: np.ndarray) -> np.ndarray:
    return quaternions / np.linalg.norm(quaternions, axis=-1, keepdims=True)


def _vector(path: Path, number: int, name: str, value: Any, size: int) -> list[float]:
    if not isinstance(value, list) or len(value) != size or not all(_finite_number(v) for v in value):
        raise PoseTrackError(path, number, f"{name} = {value!r} is not a list of {size} finite numbers")
    return [float(v) for v in value]


def _pose(path: Path, number: int, name: str, part: Any) -> tuple[list[float], list[float]]:
    if not isinstance(part, dict) or "position" not in part or "rotation" not in part:
        raise PoseTrackError(path, number, f"{name} must be an object with position and rotation")
    position = _vector(path, number, f"{name}.position", part["position"], 3)
    rotation = _vector(path, number, f"{name}.rotation", part["rotation"], 4)
    norm = math.sqrt(sum(v * v for v in rotation))
    if abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE:
        raise PoseTrackError(path, number, f"{name}.rotation {rotation} is not a unit quaternion (length {norm:.6f})")
    return position, rotation


def _hand(path: Path, number: int, hand: str, part: Any) -> dict[str, Any]:
    if not isinstance(part, dict):
        raise PoseTrackError(path, number, f"{hand} must be an object")
    missing = [key for key in _HAND_FIELDS if key not in part]
    if missing:
        raise PoseTrackError(path, number, f"{hand}: missing field(s) {', '.join(missing)}")
    position, rotation = _pose(path, number, hand, part)
    sample: dict[str, Any] = {"position": position, "rotation": rotation}
    for key in ("grip", "trigger"):
        value = part[key]
        if not _finite_number(value) or not 0.0 <= value <= 1.0:
            raise PoseTrackError(path, number, f"{hand}.{key} = {value!r} is not a number in [0, 1]")
        sample[key] = float(value)
    stick = _vector(path, number, f"{hand}.stick", part["stick"], 2)
    if any(abs(v) > 1.0 for v in stick):
        raise PoseTrackError(path, number, f"{hand}.stick = {stick} is outside [-1, 1]")
    sample["stick"] = stick
    for key in ("primary", "secondary"):
        if not isinstance(part[key], bool):
            raise PoseTrackError(path, number, f"{hand}.{key} = {part[key]!r} is not true or false")
        sample[key] = part[key]
    return sample


def _check_motion(path: Path, track: PoseTrack, line_numbers: list[int], scale: float) -> None:
    """Refuses teleports: a part moving faster than any tracked person could (speeds unscaled)."""
    elapsed = np.diff(track.times_s)
    head = np.linalg.norm(np.diff(track.head_position[:, [0, 2]], axis=0), axis=1) / scale / elapsed
    hands = np.linalg.norm(np.diff(track.hand_position, axis=1), axis=2) / scale / elapsed
    for name, speeds, limit in (
        ("the head", head, MAX_TRACKED_HEAD_SPEED_M_PER_S),
        ("the left hand", hands[0], MAX_TRACKED_HAND_SPEED_M_PER_S),
        ("the right hand", hands[1], MAX_TRACKED_HAND_SPEED_M_PER_S),
    ):
        too_fast = np.flatnonzero(speeds > limit)
        if too_fast.size:
            index = int(too_fast[0])
            raise PoseTrackError(
                path, line_numbers[index + 1],
                f"{name} jumps {speeds[index] * elapsed[index]:.2f} m in {elapsed[index]:.3f} s "
                f"({speeds[index]:.1f} m/s; a tracked part moves at most {limit:g} m/s): a tracking glitch",
            )


def write_pose_track(track: PoseTrack, path: str | os.PathLike, standing_head_height_m: float = HEAD_DEFAULT_HEIGHT_M) -> Path:
    """Writes ``track`` (at the agent's scale) in the file format of the module doc."""
    path = Path(path)
    lines = [json.dumps({"format": FORMAT_NAME, "version": FORMAT_VERSION, "standing_head_height_m": standing_head_height_m})]
    unscale = standing_head_height_m / HEAD_DEFAULT_HEIGHT_M
    for i in range(track.samples):
        sample: dict[str, Any] = {
            "t": float(track.times_s[i]),
            "head": {"position": (track.head_position[i] * unscale).tolist(), "rotation": track.head_rotation[i].tolist()},
        }
        for h, hand in enumerate(HANDS):
            sample[hand] = {
                "position": (track.hand_position[h, i] * unscale).tolist(),
                "rotation": track.hand_rotation[h, i].tolist(),
                "grip": float(track.grip[h, i]),
                "trigger": float(track.trigger[h, i]),
                "stick": track.stick[h, i].tolist(),
                "primary": bool(track.primary[h, i]),
                "secondary": bool(track.secondary[h, i]),
            }
        lines.append(json.dumps(sample))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
