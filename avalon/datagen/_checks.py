"""attrs validators for world-generation configs: each error names the field, the value and what was expected.

Nothing is clipped silently: a bad value is a ``ValueError`` at construction time.
"""

from __future__ import annotations

import math
from typing import Any, Callable

Validator = Callable[[Any, Any, Any], None]


def _where(instance: Any, attribute: Any) -> str:
    return f"{type(instance).__name__}.{attribute.name}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def finite() -> Validator:
    def check(instance, attribute, value):
        if not _is_number(value):
            raise ValueError(f"{_where(instance, attribute)}={value!r}: expected a finite number")

    return check


def positive() -> Validator:
    def check(instance, attribute, value):
        if not _is_number(value) or value <= 0:
            raise ValueError(f"{_where(instance, attribute)}={value!r}: expected a finite number > 0")

    return check


def non_negative() -> Validator:
    def check(instance, attribute, value):
        if not _is_number(value) or value < 0:
            raise ValueError(f"{_where(instance, attribute)}={value!r}: expected a finite number >= 0")

    return check


def between(low: float, high: float, *, low_open: bool = False) -> Validator:
    """Value in [low, high] (or (low, high] when ``low_open``)."""

    def check(instance, attribute, value):
        ok = _is_number(value) and (value > low if low_open else value >= low) and value <= high
        if not ok:
            bracket = "(" if low_open else "["
            raise ValueError(f"{_where(instance, attribute)}={value!r}: expected a number in {bracket}{low}, {high}]")

    return check


def int_between(low: int, high: int) -> Validator:
    def check(instance, attribute, value):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"{_where(instance, attribute)}={value!r}: expected an integer in [{low}, {high}]")

    return check


def ordered_pair(minimum: float = 0.0, *, strictly_above: bool = False) -> Validator:
    """A (low, high) pair of finite numbers with minimum <= low <= high."""

    def check(instance, attribute, value):
        ok = (
            isinstance(value, tuple)
            and len(value) == 2
            and all(_is_number(v) for v in value)
            and (value[0] > minimum if strictly_above else value[0] >= minimum)
            and value[0] <= value[1]
        )
        if not ok:
            op = ">" if strictly_above else ">="
            raise ValueError(
                f"{_where(instance, attribute)}={value!r}: expected a (low, high) pair with {op} {minimum} and low <= high"
            )

    return check


def rgb() -> Validator:
    def check(instance, attribute, value):
        ok = isinstance(value, tuple) and len(value) == 3 and all(_is_number(v) and 0.0 <= v <= 1.0 for v in value)
        if not ok:
            raise ValueError(f"{_where(instance, attribute)}={value!r}: expected three numbers in [0, 1] (RGB)")

    return check


def float_pair(value: Any) -> tuple[float, float]:
    """Converter: any two-item sequence to a tuple of floats (validation happens in ``ordered_pair``)."""
    try:
        low, high = value
        return (float(low), float(high))
    except (TypeError, ValueError):
        return value


def float_triple(value: Any) -> tuple[float, float, float]:
    try:
        a, b, c = value
        return (float(a), float(b), float(c))
    except (TypeError, ValueError):
        return value
