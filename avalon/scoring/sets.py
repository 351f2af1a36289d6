"""The one way scoring reaches the evaluation sets (``avalon.evalsets``), imported only when a set
is asked for, so scoring works on any list of ``WorldRequest`` without it."""

from __future__ import annotations

from avalon.training.world_supply import WorldRequest


def set_requests(name: str) -> list[WorldRequest]:
    """The worlds of evaluation set ``name``, in the set's order. ``ValueError`` for an unknown set
    (listing the sets) or when this installation has no evaluation sets."""
    try:
        from avalon import evalsets
    except ImportError as error:
        raise ValueError(f"--set {name!r}: the evaluation sets (avalon.evalsets) are not available here ({error}); "
                         f"give --tasks and --episodes instead") from None
    try:
        return list(evalsets.load_set(name).requests())
    except ValueError as error:
        raise ValueError(f"--set {name!r}: {error}") from None
