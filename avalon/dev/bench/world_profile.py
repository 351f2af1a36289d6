"""``avalon world benchmark --profile``: where a world's step time goes.

Per world: wall-clock milliseconds per step split into the Godot process's CPU time (physics,
GDScript, our native code and llvmpipe's rendering: one thread with ``LP_NUM_THREADS=0``), this
Python process's CPU time (the env and the socket's Python end) and the rest (the transfer's
waits and other load on the machine); and what the renderer drew per frame (Godot's
``Performance`` monitors: draw calls, vertices, objects), summed by ``godot/world/terrain.gd``
while ``AVALON_PROFILE=1`` and printed to the Godot log when the world is freed (worlds without
terrain print nothing). For a function-level split of Godot's time (Bullet, GDScript, native,
llvmpipe) run ``avalon benchmark callgrind --world-dir DIR`` on one of the worlds.
"""

from __future__ import annotations

import os
import re
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import attr

from avalon.dev.bench.steps import process_cpu_s

PROFILE_VARIABLE = "AVALON_PROFILE"
_DRAWN_LINE = re.compile(r"avalon profile: frames (\d+) draw_calls (\d+) vertices (\d+) objects (\d+)")


@attr.s(frozen=True, auto_attribs=True)
class Drawn:
    """What the renderer drew, per frame (Godot's ``Performance`` monitors)."""

    draw_calls: float
    vertices: float
    objects: float


@attr.s(frozen=True, auto_attribs=True)
class StepProfile:
    """One world's step, in milliseconds per step, and what was drawn (None: not logged)."""

    wall_ms: float
    godot_cpu_ms: float
    python_cpu_ms: float
    #: Wall time neither process spent on a CPU: the socket's round trips, waits for the other
    #: process, and other load on the machine.
    other_ms: float
    drawn: Optional[Drawn] = None


@contextmanager
def profiling_simulators() -> Iterator[None]:
    """Simulators started inside sum what they draw (``AVALON_PROFILE=1`` in their environment)."""
    previous = os.environ.get(PROFILE_VARIABLE)
    os.environ[PROFILE_VARIABLE] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(PROFILE_VARIABLE, None)
        else:
            os.environ[PROFILE_VARIABLE] = previous


class StepClock:
    """Wall time and both processes' CPU time over a stretch of steps, and what Godot logged that
    it drew in the meantime."""

    def __init__(self, godot_pid: int, log_dir: Path) -> None:
        self.godot_pid = godot_pid
        self.log_dir = log_dir
        self.lines_before = len(_profile_lines(log_dir))
        self.started = (time.perf_counter(), process_cpu_s(godot_pid), time.process_time())

    def elapsed(self, steps: int) -> StepProfile:
        """The time of the ``steps`` since this clock started, per step."""
        wall, godot, python = (now - then for now, then in zip(
            (time.perf_counter(), process_cpu_s(self.godot_pid), time.process_time()), self.started))
        per_step = [1e3 * value / steps for value in (wall, godot, python)]
        return StepProfile(*per_step, other_ms=per_step[0] - per_step[1] - per_step[2])

    def with_drawn(self, profile: StepProfile) -> StepProfile:
        """``profile`` with what was drawn per frame, from the newest profile line logged since the
        clock started (the world must have been freed: reset into another world first), if any."""
        lines = _profile_lines(self.log_dir)
        match = _DRAWN_LINE.match(lines[-1]) if len(lines) > self.lines_before else None
        if match is None:
            return profile
        frames, draw_calls, vertices, objects = (int(group) for group in match.groups())
        return attr.evolve(profile, drawn=Drawn(draw_calls / frames, vertices / frames, objects / frames))


def _profile_lines(log_dir: Path) -> list[str]:
    return [line for log in sorted(log_dir.glob("godot-*.log"), key=lambda p: p.stat().st_mtime)
            for line in log.read_text(errors="replace").splitlines() if line.startswith("avalon profile:")]


def format_profiles(labelled: list[tuple[str, StepProfile]]) -> str:
    """The profile table: one line per world."""
    lines = ["\nwhere a step goes (ms per step; drawn per frame)",
             (f"{'world':14} {'wall ms':>8} {'godot cpu':>9} {'python cpu':>10} {'other':>7} "
              f"{'draw calls':>10} {'vertices':>9} {'objects':>8}")]
    for label, profile in labelled:
        drawn = (f"{profile.drawn.draw_calls:10.1f} {profile.drawn.vertices:9.0f} {profile.drawn.objects:8.1f}"
                 if profile.drawn is not None else f"{'-':>10} {'-':>9} {'-':>8}")
        lines.append(f"{label:14} {profile.wall_ms:8.3f} {profile.godot_cpu_ms:9.3f} {profile.python_cpu_ms:10.3f} "
                     f"{profile.other_ms:7.3f} {drawn}")
    return "\n".join(lines)
