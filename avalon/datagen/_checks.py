"""Moved to :mod:`avalon.validation`; this name stays only until ``avalon/tasks`` imports the
world-generation validators from there (issue 18: the task kit is being split on another branch)."""

from avalon.validation import (  # noqa: F401
    Validator,
    between,
    finite,
    float_pair,
    float_triple,
    int_between,
    non_negative,
    ordered_pair,
    positive,
    rgb,
)
