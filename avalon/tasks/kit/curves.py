"""The entries of a task's table of difficulty curves: straight lines in the difficulty.

Each task module starts with one frozen table (``KNOBS``) of every factor its difficulty d in
[0, 1] sets, built from these, so ``docs/tasks.md`` can quote it and nothing else in the module
holds a number that moves with difficulty. A :class:`Ramp` is evaluated as
``start + rise * d`` in exactly that order of floating-point operations, so a table reproduces
the worlds of the hand-written formulas it replaced bit for bit.
"""

from __future__ import annotations

import attr

from avalon.validation import finite

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
