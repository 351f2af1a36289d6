"""The entries of a task's table of difficulty curves: straight lines in the difficulty.

Each task module starts with one frozen table (``KNOBS``) of every factor its difficulty d in
[0, 1] sets, built from these, so ``docs/tasks/`` can quote it and nothing else in the module
holds a number that moves with difficulty. A :class:`Ramp` is evaluated as
``start + rise * d`` in exactly that order of floating-point operations, so a table reproduces
the worlds of the hand-written formulas it replaced bit for bit. :func:`knob_rows` evaluates a
whole table at the difficulties the docs show (``python -m avalon.dev.codegen`` writes each task's
table into ``docs/tasks/``).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Optional

import attr

from avalon.errors import finite

_finite = finite()


@attr.s(frozen=True, auto_attribs=True)
class Ramp:
    """A factor that moves linearly with difficulty: ``start`` at d = 0, ``start + rise`` at d = 1
    (in the factor's unit, named by the table field that holds it)."""

    start: float = attr.ib(validator=_finite)
    rise: float = attr.ib(default=0.0, validator=_finite)

    def at(self, difficulty: float) -> float:
        """The factor at ``difficulty`` (or at any progress in [0, 1] the table names)."""
        return self.start + self.rise * difficulty


@attr.s(frozen=True, auto_attribs=True)
class Band:
    """The range a factor is drawn from (uniformly, unless the table says otherwise), each end a
    :class:`Ramp`."""

    low: Ramp = attr.ib(validator=attr.validators.instance_of(Ramp))
    high: Ramp = attr.ib(validator=attr.validators.instance_of(Ramp))

    def at(self, difficulty: float) -> tuple[float, float]:
        """(low, high) at ``difficulty``."""
        return self.low.at(difficulty), self.high.at(difficulty)


@attr.s(frozen=True, auto_attribs=True)
class DifficultySplit:
    """The difficulty range [0, 1] cut at ``at`` into two phases, each with ramps of its own (move's
    open walks and chasms, descend's platforms and tall cliffs): the first phase's ramps run over
    ``d / at``, the second's over ``(d - at) / (1 - at)``, each from 0 to 1."""

    at: float = attr.ib(validator=attr.validators.and_(attr.validators.gt(0.0), attr.validators.lt(1.0)))

    def in_first(self, difficulty: float) -> bool:
        """Whether ``difficulty`` lies in the first phase (below ``at``)."""
        return difficulty < self.at

    def first_progress(self, difficulty: float) -> float:
        """What the first phase's ramps run over at ``difficulty``: 0 at d = 0, 1 from ``at`` on."""
        return min(1.0, difficulty / self.at)

    def second_progress(self, difficulty: float) -> float:
        """What the second phase's ramps run over at ``difficulty``: 0 up to ``at``, 1 at d = 1."""
        return min(1.0, max(0.0, (difficulty - self.at) / (1.0 - self.at)))

    def knob_progress(self, first: Sequence[str], second: Sequence[str]) -> dict[str, Progress]:
        """A task's ``KNOB_PROGRESS`` (see :func:`knob_rows`): the knobs named in ``first`` run over
        the first phase's progress, those in ``second`` over the second's; None in the other phase."""
        return {**{name: lambda d: self.first_progress(d) if self.in_first(d) else None for name in first},
                **{name: lambda d: None if self.in_first(d) else self.second_progress(d) for name in second}}


# --- the table as the docs show it ---------------------------------------------------------------

#: The difficulties a task's knob table is shown at (docs/tasks/).
TABLE_DIFFICULTIES = (0.0, 0.5, 1.0)
#: Units read from the end of a knob's name (the house rule puts the unit there).
_UNITS = (("_m_per_s", " m/s"), ("_m", " m"), ("_deg", "°"), ("_rad", " rad"), ("_s", " s"), ("_frames", " frames"))
#: What a ramp runs over when not the difficulty itself: ``progress(d)``, or None where the knob
#: does not apply at difficulty d.
Progress = Callable[[float], Optional[float]]


@attr.s(frozen=True, auto_attribs=True)
class KnobRow:
    """One knob of a task's table: its name (nested tables dotted: ``altar.top_width_m``), its
    value at each of the table's difficulties as text with its unit, and its comment."""

    name: str
    values: tuple[str, ...]
    meaning: str


def knob_rows(knobs: object, difficulties: Sequence[float] = TABLE_DIFFICULTIES,
              progress: Optional[Mapping[str, Progress]] = None) -> list[KnobRow]:
    """Every knob of ``knobs`` (a frozen attrs table of :class:`Ramp`, :class:`Band`, constants and
    nested tables) at each of ``difficulties``: a ramp at the difficulty, or at ``progress[name](d)``
    for the knobs that run over another progress ("—" where that is None); a band as "low–high";
    a constant as it is. Each row's meaning is the ``#:`` comment above the field."""
    if not attr.has(type(knobs)):
        raise TypeError(f"knob_rows: {type(knobs).__name__} is not an attrs table of knobs")
    progress = dict(progress or {})
    unknown = sorted(set(progress) - {field.name for field in attr.fields(type(knobs))})
    if unknown:
        raise ValueError(f"knob_rows: progress names {unknown}, which are not knobs of {type(knobs).__name__}")
    rows: list[KnobRow] = []
    _add_rows(rows, knobs, "", None, difficulties, progress)
    return rows


def _add_rows(rows: list, knobs: object, prefix: str, over: Optional[Progress], difficulties, progress) -> None:
    comments = field_comments(type(knobs))
    for field in attr.fields(type(knobs)):
        value = getattr(knobs, field.name)
        name = prefix + field.name
        runs_over = progress.get(field.name, over) if not prefix else over
        if attr.has(type(value)) and not isinstance(value, (Ramp, Band)):
            _add_rows(rows, value, name + ".", runs_over, difficulties, progress)
            continue
        cells = []
        for difficulty in difficulties:
            at = difficulty if runs_over is None else runs_over(difficulty)
            cells.append("—" if at is None else _format(value, at, field.name))
        rows.append(KnobRow(name=name, values=tuple(cells), meaning=comments.get(field.name, "")))


def _unit(name: str) -> str:
    for suffix, unit in _UNITS:
        if name.endswith(suffix):
            return unit
    return ""


def _number(value: float) -> str:
    return f"{value:.3g}"


def _format(value: object, at: float, name: str) -> str:
    unit = _unit(name)
    if isinstance(value, Ramp):
        return _number(value.at(at)) + unit
    if isinstance(value, Band):
        low, high = (_number(v) for v in value.at(at))
        return f"{low}{unit}" if low == high else f"{low}–{high}{unit}"
    if isinstance(value, tuple):
        return ", ".join(_number(v) if isinstance(v, float) else str(v) for v in value) + unit
    if isinstance(value, float):
        return _number(value) + unit
    # Flags and names print as they are; only counts take the field's unit.
    return str(value) + (unit if type(value) is int else "")


def field_comments(table: type) -> dict[str, str]:
    """The ``#:`` comment lines above each field of the class ``table``, joined, by field name."""
    try:
        source = textwrap.dedent(inspect.getsource(table))
    except (OSError, TypeError):
        return {}
    lines = source.splitlines()
    comments = {}
    for node in ast.parse(source).body[0].body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            above = []
            row = node.lineno - 2
            while row >= 0 and lines[row].strip().startswith("#:"):
                above.insert(0, lines[row].strip()[2:].strip())
                row -= 1
            comments[node.target.id] = " ".join(above)
    return comments
