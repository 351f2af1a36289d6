"""Forced worlds: generator options that pin one of a task's random choices (say eat's food kind).

An evaluation set must hold every kind of entity a task can make (paper, Appendix G.1: every food
for eat, every prey for hunt, every predator for avoid), which random draws do not guarantee. A
task declares the choices it lets a caller pin (:class:`Forcing` in ``TaskSpec.forcing``: the
option's name and the values it takes); a request carries the pinned values as
:class:`ForcedOptions` (``{"food_kind": "fig"}``), and the registry hands them to the task's
generator as its ``forced`` keyword. A forced world makes every draw an unforced one makes (the
pinned choice is still drawn, then overridden), so only what follows from the pinned value changes.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable, Iterator, Mapping, Union

import attr

from avalon.errors import check_non_empty_str, refuse


def _values_or_their_source(values: Any) -> Any:
    return values if callable(values) else tuple(values)


def _checked_values(option: str, values: tuple[str, ...]) -> tuple[str, ...]:
    if not values or not all(isinstance(value, str) and value for value in values):
        refuse(f"Forcing({option!r}).values", values, "a non-empty tuple of non-empty strings")
    return values


@attr.s(frozen=True, eq=False, repr=False)
class Forcing:
    """A choice of a task's generator that may be pinned: ``option`` takes one of ``values``.

    ``values`` may also be a function of no arguments that returns them, called when they are
    first read: values read from the registry (carry's base tasks, the tasks declaring a carry
    variant), which a task module cannot read while the registry imports it."""

    option: str = attr.ib(validator=lambda _, __, value: check_non_empty_str(value, "Forcing.option"))
    _values: Union[tuple[str, ...], Callable[[], Iterable[str]]] = attr.ib(converter=_values_or_their_source)

    def __attrs_post_init__(self) -> None:
        if not callable(self._values):
            _checked_values(self.option, self._values)

    @functools.cached_property
    def values(self) -> tuple[str, ...]:
        """The values ``option`` takes."""
        return _checked_values(self.option, tuple(self._values()) if callable(self._values) else self._values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Forcing):
            return NotImplemented
        return (self.option, self.values) == (other.option, other.values)

    def __hash__(self) -> int:
        return hash((self.option, self.values))

    def __repr__(self) -> str:
        values = f"<{self._values.__qualname__}>" if callable(self._values) else repr(self._values)
        return f"Forcing({self.option!r}, {values})"


class ForcedOptions(Mapping[str, str]):
    """Immutable, hashable ``{option: value}`` of a forced world (empty: nothing forced), in name order."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, str] | None = None) -> None:
        pairs = dict(items or {})
        for name, value in pairs.items():
            if not isinstance(name, str) or not name or not isinstance(value, str) or not value:
                refuse("forced", pairs, "a mapping of option names to values, both non-empty strings")
        self._items: tuple[tuple[str, str], ...] = tuple(sorted(pairs.items()))

    @classmethod
    def of(cls, value: Any) -> "ForcedOptions":
        """``value`` as forced options: None, a mapping, or pairs such as JSON gives back."""
        if isinstance(value, ForcedOptions):
            return value
        if value is None:
            return cls()
        if isinstance(value, Mapping):
            return cls(value)
        try:
            return cls(dict(value))
        except (TypeError, ValueError):
            refuse("forced", value, "None, a mapping of option names to values, or (name, value) pairs")

    def __getitem__(self, name: str) -> str:
        for key, value in self._items:
            if key == name:
                return value
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._items) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"ForcedOptions({dict(self._items)!r})"


def parse_forced(pairs: Iterable[str] | None) -> dict[str, str]:
    """Command-line ``OPTION=VALUE`` arguments (``--force prey_kind=rabbit``) as ``{option: value}``;
    ``ValueError`` naming a malformed or repeated one. The task checks names and values
    (:func:`check_forced`)."""
    forced: dict[str, str] = {}
    for pair in pairs or ():
        option, equals, value = pair.partition("=")
        if not equals or not option.strip() or not value.strip():
            raise ValueError(f"--force {pair!r}: expected OPTION=VALUE, for example --force prey_kind=rabbit")
        if option.strip() in forced:
            raise ValueError(f"--force {pair!r}: {option.strip()} is forced twice")
        forced[option.strip()] = value.strip()
    return forced


def check_forced(task: str, forcing: tuple[Forcing, ...], forced: Any) -> ForcedOptions:
    """``forced`` as :class:`ForcedOptions`, every option one that ``task`` declares in ``forcing``
    with one of its values; ``ValueError`` naming the option or value and what the task accepts."""
    options = ForcedOptions.of(forced)
    declared = {entry.option: entry.values for entry in forcing}
    for name, value in options.items():
        if name not in declared:
            accepted = ", ".join(sorted(declared)) or "none"
            raise ValueError(f"task {task!r} cannot force {name!r}: the options it can force are: {accepted}")
        if value not in declared[name]:
            raise ValueError(f"task {task!r}: forced {name}={value!r} is not one of {', '.join(declared[name])}")
    return options
