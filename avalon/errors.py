"""Every error the package raises, and the checks of arguments and config fields that raise them.

Runtime errors derive from :class:`AvalonError`, each saying what went wrong and what to do.

A bad value is a ``ValueError`` that names it, its value and what was expected; nothing is
clipped or coerced to hide it. The checks are written once for the whole package, in two
wordings, each kept as users and tests know it:

- arguments and run-time configs (``EnvConfig``, ``SimulatorSettings``, ``PPOConfig``, function
  arguments): ``resolution=8 must be an int from 16 to 1024 (pixels)``. The ``check_*``
  functions return the value as a plain Python value, so a caller writes
  ``num_envs = check_int(num_envs, "num_envs", low=1)``; the ``*_field`` makers declare an attrs
  field whose converter and validator do the same, and :func:`int_validator` and
  :func:`number_validator` judge a field without a converter as it is stored.
- world-generation configs (``avalon.datagen``, ``avalon.tasks``), which also name their class:
  ``TerrainConfig.cell_size_m=0.0: expected a finite number > 0`` (:func:`positive` and its
  neighbours at the end of this module).

Numbers: a bool is not a number here (``True`` is an ``int`` to Python). Numpy scalars are
accepted where the ``check_*`` functions and ``*_field`` makers take Python numbers, and become
Python numbers (the ``plain_*`` converters); the predicates judge plain Python values.
"""

from __future__ import annotations

import math
import os
from typing import Any, Callable, NoReturn, Sequence

import attr
import numpy as np

#: An attrs validator: ``(instance, attribute, value) -> None``, raising ``ValueError``.
Validator = Callable[[Any, Any, Any], None]

_NO_DEFAULT = object()


# ---------------------------------------------------------------------------------- errors


class AvalonError(RuntimeError):
    """Base class of this package's runtime errors."""


class SimulatorNotInstalledError(AvalonError):
    """Godot, Xvfb or the simulator's native library is missing: run ``make setup``."""


class SimulatorError(AvalonError):
    """The Godot process crashed, hung, or broke the protocol. The next ``reset()`` starts a fresh one."""


class WorldLoadError(AvalonError, ValueError):
    """A world folder is missing or corrupt; the message names the path and the problem."""


class BuildingFitError(AvalonError, ValueError):
    """A building cannot be laid out as asked or does not fit its site; the message says why. A
    task asks for another seed (``avalon.tasks.kit.ImpossibleWorldError``)."""


# ---------------------------------------------------------------------------------- predicates


def is_int(value: Any) -> bool:
    """A Python int, not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A Python int or float (numpy's float64 is one), not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_finite_number(value: Any) -> bool:
    return is_number(value) and math.isfinite(value)


def is_int_in(value: Any, low: int | None = None, high: int | None = None) -> bool:
    """A Python int (not bool) in [``low``, ``high``]; a None bound is no bound."""
    return is_int(value) and (low is None or value >= low) and (high is None or value <= high)


def is_number_in(value: Any, low: float | None = None, high: float | None = None, *, above: float | None = None) -> bool:
    """A finite Python number (not bool) ``>= low``, ``> above`` and ``<= high``; a None bound is no bound."""
    return (
        is_finite_number(value)
        and (low is None or value >= low)
        and (above is None or value > above)
        and (high is None or value <= high)
    )


# ---------------------------------------------------------------------------------- converters
# Each turns what it recognises into a plain Python value and leaves anything else for the check
# to refuse, so the error quotes what the caller passed.


def plain_int(value: Any) -> Any:
    """A numpy integer as a Python int (numpy bools are not integers)."""
    return int(value) if isinstance(value, np.integer) else value


def plain_float(value: Any) -> Any:
    """A numpy integer or float as a Python float; Python numbers stay as they are."""
    return float(value) if isinstance(value, (np.integer, np.floating)) else value


def plain_path(value: Any) -> Any:
    """An ``os.PathLike`` naming a str path as that str (bytes paths are left to be refused)."""
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        return path if isinstance(path, str) else value
    return value


# ---------------------------------------------------------------------------------- checks


def refuse(name: str, value: Any, expected: str, *, optional: bool = False, unit: str | None = None) -> NoReturn:
    """Raises ``ValueError("{name}={value!r} must be [None or ]{expected}[ ({unit})]")``."""
    none = "None or " if optional else ""
    suffix = f" ({unit})" if unit else ""
    raise ValueError(f"{name}={value!r} must be {none}{expected}{suffix}")


def int_expectation(low: int | None = None, high: int | None = None) -> str:
    """``an int from 1 to 9``, ``an int >= 1``, ``an int <= 9`` or ``an int``."""
    if low is not None and high is not None:
        return f"an int from {low} to {high}"
    if low is not None:
        return f"an int >= {low}"
    if high is not None:
        return f"an int <= {high}"
    return "an int"


def number_expectation(low: float | None = None, high: float | None = None, *, above: float | None = None) -> str:
    """``a number in [0, 1]`` (or ``(0, 1]`` with ``above``), ``a finite number >= 0``,
    ``a finite number > 0`` or ``a finite number``."""
    if high is not None and (low is not None or above is not None):
        return f"a number in ({above}, {high}]" if above is not None else f"a number in [{low}, {high}]"
    if above is not None:
        return f"a finite number > {above}"
    if low is not None:
        return f"a finite number >= {low}"
    if high is not None:
        return f"a finite number <= {high}"
    return "a finite number"


def _judge_int(value: Any, shown: Any, name: str, low: int | None, high: int | None, optional: bool,
               unit: str | None, expected: str | None) -> None:
    if not (optional and value is None) and not is_int_in(value, low, high):
        refuse(name, shown, expected or int_expectation(low, high), optional=optional, unit=unit)


def _judge_number(value: Any, shown: Any, name: str, low: float | None, high: float | None, above: float | None,
                  optional: bool, unit: str | None) -> None:
    if not (optional and value is None) and not is_number_in(value, low, high, above=above):
        refuse(name, shown, number_expectation(low, high, above=above), optional=optional, unit=unit)


def check_int(
    value: Any,
    name: str,
    *,
    low: int | None = None,
    high: int | None = None,
    optional: bool = False,
    unit: str | None = None,
    expected: str | None = None,
) -> int | None:
    """``value`` as a Python int if it is an integer (Python or numpy, not bool) in [``low``,
    ``high``] (either bound may be None), or None when ``optional``; else ``ValueError``.

    ``expected`` replaces the range's wording (e.g. ``"an int in [0, 2**64)"``).
    """
    plain = plain_int(value)
    _judge_int(plain, value, name, low, high, optional, unit, expected)
    return plain


def check_number(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    above: float | None = None,
    optional: bool = False,
    unit: str | None = None,
) -> float | None:
    """``value`` if it is a finite number (Python or numpy, not bool; numpy ones become floats)
    ``>= low``, ``> above`` and ``<= high`` (each optional), or None when ``optional``; else
    ``ValueError``. Python ints stay ints."""
    plain = plain_float(value)
    _judge_number(plain, value, name, low, high, above, optional, unit)
    return plain


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of the strings ``choices``; else ``ValueError`` listing them."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name}={value!r} is not one of {', '.join(map(repr, choices))}")
    return value


def check_bool(value: Any, name: str) -> bool:
    """``value`` if it is a bool (not 0 or 1, not a numpy bool)."""
    if not isinstance(value, bool):
        refuse(name, value, "a bool")
    return value


def check_non_empty_str(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        refuse(name, value, "a non-empty str")
    return value


def check_instance(value: Any, name: str, kind: type) -> Any:
    """``value`` if it is a ``kind``."""
    if not isinstance(value, kind):
        refuse(name, value, f"a {kind.__name__}")
    return value


def check_optional_path(value: Any, name: str) -> str | None:
    """``value`` as a str path if it is a str or an ``os.PathLike`` naming one, or None."""
    plain = plain_path(value)
    if plain is not None and not isinstance(plain, str):
        refuse(name, value, "a path (str or os.PathLike)", optional=True)
    return plain


# ---------------------------------------------------------------------------------- attrs fields


def field_check(check: Callable[..., Any], **options: Any) -> Validator:
    """An attrs validator that runs ``check(value, field name, **options)``."""

    def validate(_instance: Any, attribute: Any, value: Any) -> None:
        check(value, attribute.name, **options)

    return validate


def int_validator(
    *,
    low: int | None = None,
    high: int | None = None,
    optional: bool = False,
    unit: str | None = None,
    expected: str | None = None,
) -> Validator:
    """An attrs validator with :func:`check_int`'s rule and words, for the value as stored: a
    Python int (a field that should take numpy integers too converts them: :func:`int_field`)."""

    def validate(_instance: Any, attribute: Any, value: Any) -> None:
        _judge_int(value, value, attribute.name, low, high, optional, unit, expected)

    return validate


def number_validator(
    *,
    low: float | None = None,
    high: float | None = None,
    above: float | None = None,
    optional: bool = False,
    unit: str | None = None,
) -> Validator:
    """An attrs validator with :func:`check_number`'s rule and words, for the value as stored: a
    Python number (:func:`number_field` converts numpy ones first)."""

    def validate(_instance: Any, attribute: Any, value: Any) -> None:
        _judge_number(value, value, attribute.name, low, high, above, optional, unit)

    return validate


def _field(default: Any, converter: Callable[[Any], Any] | None, validator: Validator) -> Any:
    if default is _NO_DEFAULT:
        return attr.ib(converter=converter, validator=validator)
    return attr.ib(default=default, converter=converter, validator=validator)


def int_field(
    default: Any = _NO_DEFAULT,
    *,
    low: int | None = None,
    high: int | None = None,
    optional: bool = False,
    unit: str | None = None,
    expected: str | None = None,
) -> Any:
    """An attrs field holding a Python int (numpy integers are converted), checked as by :func:`check_int`."""
    return _field(default, plain_int, int_validator(low=low, high=high, optional=optional, unit=unit, expected=expected))


def number_field(
    default: Any = _NO_DEFAULT,
    *,
    low: float | None = None,
    high: float | None = None,
    above: float | None = None,
    optional: bool = False,
    unit: str | None = None,
) -> Any:
    """An attrs field holding a finite number (numpy ones become floats), checked as by :func:`check_number`."""
    return _field(default, plain_float, number_validator(low=low, high=high, above=above, optional=optional, unit=unit))


def choice_field(default: Any = _NO_DEFAULT, *, choices: Sequence[str]) -> Any:
    """An attrs field holding one of the strings ``choices``."""
    return _field(default, None, field_check(check_choice, choices=tuple(choices)))


def bool_field(default: Any = _NO_DEFAULT) -> Any:
    return _field(default, None, field_check(check_bool))


def non_empty_str_field(default: Any = _NO_DEFAULT) -> Any:
    return _field(default, None, field_check(check_non_empty_str))


def optional_path_field(default: Any = None) -> Any:
    """An attrs field holding None or a str path (``os.PathLike`` values are stored as str)."""
    return _field(default, plain_path, field_check(check_optional_path))


# ---------------------------------------------------------------------------------- world generation
# attrs validators of the world-generation configs; their errors name the class as well as the
# field: "TerrainConfig.cell_size_m=0.0: expected a finite number > 0". They take Python numbers
# only (the configs' values end up in world files).


def _refuse_in(instance: Any, attribute: Any, value: Any, expected: str) -> NoReturn:
    raise ValueError(f"{type(instance).__name__}.{attribute.name}={value!r}: expected {expected}")


def _number_validator(low: float | None = None, high: float | None = None, *, above: float | None = None) -> Validator:
    expected = number_expectation(low, high, above=above)

    def check(instance, attribute, value):
        if not is_number_in(value, low, high, above=above):
            _refuse_in(instance, attribute, value, expected)

    return check


def finite() -> Validator:
    return _number_validator()


def positive() -> Validator:
    return _number_validator(above=0)


def non_negative() -> Validator:
    return _number_validator(low=0)


def between(low: float, high: float, *, low_open: bool = False) -> Validator:
    """Value in [low, high] (or (low, high] when ``low_open``)."""
    return _number_validator(high=high, above=low) if low_open else _number_validator(low, high)


def int_between(low: int, high: int) -> Validator:
    def check(instance, attribute, value):
        if not is_int_in(value, low, high):
            _refuse_in(instance, attribute, value, f"an integer in [{low}, {high}]")

    return check


def ordered_pair(minimum: float = 0.0, *, strictly_above: bool = False) -> Validator:
    """A (low, high) pair of finite numbers with minimum <= low <= high."""

    def check(instance, attribute, value):
        ok = (
            isinstance(value, tuple)
            and len(value) == 2
            and all(is_finite_number(v) for v in value)
            and (value[0] > minimum if strictly_above else value[0] >= minimum)
            and value[0] <= value[1]
        )
        if not ok:
            op = ">" if strictly_above else ">="
            _refuse_in(instance, attribute, value, f"a (low, high) pair with {op} {minimum} and low <= high")

    return check


def rgb() -> Validator:
    def check(instance, attribute, value):
        ok = isinstance(value, tuple) and len(value) == 3 and all(is_finite_number(v) and 0.0 <= v <= 1.0 for v in value)
        if not ok:
            _refuse_in(instance, attribute, value, "three numbers in [0, 1] (RGB)")

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
