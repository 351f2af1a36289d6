"""avalon.errors: the package's errors and its argument and config checks, written once."""

import math
import re
from pathlib import Path

import attr
import numpy as np
import pytest

import avalon
from avalon import errors
from avalon.errors import (
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_non_empty_str,
    check_number,
    check_optional_path,
    int_field,
    int_validator,
    number_field,
    number_validator,
    optional_path_field,
)


@pytest.mark.parametrize("value", [0, 7, np.int64(7), np.uint64(2**64 - 1), np.int8(-3)])
def test_check_int_returns_python_ints(value):
    checked = check_int(value, "n")
    assert checked == value and type(checked) is int


@pytest.mark.parametrize(
    "value, options, message",
    [
        (True, {}, "n=True must be an int"),
        (np.bool_(True), {}, "n=np.True_ must be an int"),
        (2.0, {"low": 1}, r"n=2.0 must be an int >= 1"),
        ("3", {"low": 1}, r"n='3' must be an int >= 1"),
        (0, {"low": 1}, r"n=0 must be an int >= 1"),
        (10, {"high": 9}, r"n=10 must be an int <= 9"),
        (np.int64(8), {"low": 16, "high": 1024, "unit": "pixels"}, r"n=np.int64\(8\) must be an int from 16 to 1024 \(pixels\)"),
        (-1, {"low": 0, "optional": True, "unit": "threads"}, r"n=-1 must be None or an int >= 0 \(threads\)"),
        (2**64, {"low": 0, "high": 2**64 - 1, "expected": "an int in [0, 2**64)"},
         r"n=18446744073709551616 must be an int in \[0, 2\*\*64\)"),
    ],
)
def test_check_int_names_the_value_and_what_was_expected(value, options, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        check_int(value, "n", **options)


def test_optional_checks_let_none_through_and_others_do_not():
    assert check_int(None, "n", optional=True) is None
    assert check_number(None, "x", optional=True) is None
    assert check_optional_path(None, "p") is None
    with pytest.raises(ValueError, match="n=None must be an int"):
        check_int(None, "n")
    with pytest.raises(ValueError, match="x=None must be a finite number"):
        check_number(None, "x")


@pytest.mark.parametrize(
    "value, options, message",
    [
        (0, {"above": 0, "unit": "seconds"}, r"x=0 must be a finite number > 0 \(seconds\)"),
        (math.inf, {"above": 0}, r"x=inf must be a finite number > 0"),
        (math.nan, {"low": 0}, r"x=nan must be a finite number >= 0"),
        (-1e-08, {"low": 0}, r"x=-1e-08 must be a finite number >= 0"),
        (1.5, {"low": 0, "high": 1}, r"x=1.5 must be a number in \[0, 1\]"),
        (math.nan, {"low": 0, "high": 1}, r"x=nan must be a number in \[0, 1\]"),
        (0.0, {"above": 0, "high": 1}, r"x=0.0 must be a number in \(0, 1\]"),
        (True, {}, r"x=True must be a finite number"),
        ("1", {}, r"x='1' must be a finite number"),
    ],
)
def test_check_number_names_the_value_and_what_was_expected(value, options, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        check_number(value, "x", **options)


def test_check_number_turns_numpy_numbers_into_floats_and_keeps_python_ones():
    assert type(check_number(np.float32(0.5), "x")) is float and check_number(np.float32(0.5), "x") == 0.5
    assert type(check_number(np.int64(3), "x")) is float
    assert type(check_number(3, "x")) is int and type(check_number(0.25, "x")) is float


def test_choices_bools_strings_paths_and_kinds(tmp_path):
    assert check_choice("b", "c", ("a", "b")) == "b"
    with pytest.raises(ValueError, match=r"^c='z' is not one of 'a', 'b'$"):
        check_choice("z", "c", ("a", "b"))
    with pytest.raises(ValueError, match=r"^c=\['a'\] is not one of 'a', 'b'$"):
        check_choice(["a"], "c", ("a", "b"))
    assert check_bool(False, "flag") is False
    with pytest.raises(ValueError, match="^flag=1 must be a bool$"):
        check_bool(1, "flag")
    with pytest.raises(ValueError, match="^flag=np.False_ must be a bool$"):
        check_bool(np.bool_(False), "flag")
    assert check_non_empty_str("x", "s") == "x"
    with pytest.raises(ValueError, match="^s='' must be a non-empty str$"):
        check_non_empty_str("", "s")
    assert check_optional_path(tmp_path, "p") == str(tmp_path)
    with pytest.raises(ValueError, match=r"^p=b'/tmp' must be None or a path \(str or os.PathLike\)$"):
        check_optional_path(b"/tmp", "p")
    assert check_instance(tmp_path, "p", Path) is tmp_path
    with pytest.raises(ValueError, match="^p='x' must be a Path$"):
        check_instance("x", "p", Path)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class _Config:
    count: int = int_field(1, low=1)
    size: int | None = int_field(None, low=16, high=1024, optional=True, unit="pixels")
    rate: float = number_field(0.5, low=0, high=1)
    folder: str | None = optional_path_field()


def test_field_makers_check_like_the_functions_and_store_python_values(tmp_path):
    config = _Config(count=np.int32(4), size=np.int64(32), rate=np.float32(0.25), folder=tmp_path)
    assert (config.count, config.size, config.rate, config.folder) == (4, 32, 0.25, str(tmp_path))
    assert type(config.count) is int and type(config.size) is int and type(config.rate) is float
    with pytest.raises(ValueError, match=r"^size=8 must be None or an int from 16 to 1024 \(pixels\)$"):
        _Config(size=8)
    with pytest.raises(ValueError, match=r"^rate=1.5 must be a number in \[0, 1\]$"):
        _Config(rate=1.5)
    with pytest.raises(ValueError, match="^count=True must be an int >= 1$"):
        attr.evolve(_Config(), count=True)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class _StrictConfig:
    epochs: int = attr.ib(default=2, validator=int_validator(low=1))
    learning_rate: float = attr.ib(default=1e-3, validator=number_validator(above=0))


def test_validators_without_a_converter_judge_the_value_as_stored():
    # Such a field keeps what it is given, so a numpy scalar (which JSON cannot write) is refused.
    with pytest.raises(ValueError, match=r"^epochs=np.int64\(2\) must be an int >= 1$"):
        _StrictConfig(epochs=np.int64(2))
    with pytest.raises(ValueError, match=r"^learning_rate=np.float32\(0.001\) must be a finite number > 0$"):
        _StrictConfig(learning_rate=np.float32(1e-3))
    assert _StrictConfig(epochs=3, learning_rate=np.float64(0.5)).learning_rate == 0.5  # a float64 is a float


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class _WorldPart:
    width_m: float = attr.ib(default=1.0, validator=errors.positive())
    share: float = attr.ib(default=0.5, validator=errors.between(0.0, 1.0, low_open=True))
    octaves: int = attr.ib(default=3, validator=errors.int_between(1, 8))
    heights_m: tuple[float, float] = attr.ib(default=(0.0, 1.0), converter=errors.float_pair, validator=errors.ordered_pair())
    color: tuple[float, float, float] = attr.ib(default=(0.5, 0.5, 0.5), converter=errors.float_triple, validator=errors.rgb())


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("width_m", 0.0, "_WorldPart.width_m=0.0: expected a finite number > 0"),
        ("width_m", np.float32(1.0), "_WorldPart.width_m=np.float32(1.0): expected a finite number > 0"),
        ("share", 0.0, "_WorldPart.share=0.0: expected a number in (0.0, 1.0]"),
        ("octaves", 9, "_WorldPart.octaves=9: expected an integer in [1, 8]"),
        ("octaves", True, "_WorldPart.octaves=True: expected an integer in [1, 8]"),
        ("heights_m", [2, 1], "_WorldPart.heights_m=(2.0, 1.0): expected a (low, high) pair with >= 0.0 and low <= high"),
        ("color", (1.5, 0, 0), "_WorldPart.color=(1.5, 0.0, 0.0): expected three numbers in [0, 1] (RGB)"),
    ],
)
def test_world_generation_validators_name_the_class_too(field, value, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        _WorldPart(**{field: value})


#: Modules that still check by hand, for the coordinator of issue 18 to move onto avalon.errors
#: once the branches reshaping them have merged.
NOT_YET_MOVED: set[str] = set()


def test_no_module_writes_its_own_int_or_number_check():
    package = Path(avalon.__file__).parent
    idiom = re.compile(r"isinstance\([\w\[\]'\"]+, bool\) or not isinstance\(")  # the hand-written "an int, not a bool"
    by_hand = sorted(
        str(path.relative_to(package.parent))
        for path in package.rglob("*.py")
        if path.name != "errors.py" and idiom.search(path.read_text())
    )
    assert set(by_hand) <= NOT_YET_MOVED, f"use avalon.errors in: {sorted(set(by_hand) - NOT_YET_MOVED)}"
