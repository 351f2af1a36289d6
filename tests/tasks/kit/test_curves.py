"""The entries of the difficulty tables: ramps and bands, exact to the bit."""

from __future__ import annotations

import math

import attr
import numpy as np
import pytest

from avalon.tasks.kit.curves import Band, Ramp, knob_rows


def test_a_ramp_is_start_plus_rise_times_difficulty_in_that_order():
    difficulties = np.random.default_rng(0).uniform(0.0, 1.0, 1000).tolist() + [0.0, 0.35, 0.5, 1.0]
    for start, rise in ((2.4, 2.1), (1.4, -1.0), (0.0, 60.0), (8.0, -2.5), (1.0, -1.0)):
        ramp = Ramp(start, rise)
        # The hand-written formulas the task tables replaced, bit for bit.
        assert all(ramp.at(d) == start + rise * d for d in difficulties)
    assert all(Ramp(1.0, -1.0).at(d) == 1.0 - d for d in difficulties)
    assert all(Ramp(0.0, 60.0).at(d) == 60.0 * d for d in difficulties)
    assert Ramp(1.8).at(0.7) == 1.8


def test_a_band_gives_both_ends():
    band = Band(Ramp(2.0, 28.0), Ramp(4.0, 36.0))
    assert band.at(0.0) == (2.0, 4.0) and band.at(1.0) == (30.0, 40.0)


@pytest.mark.parametrize("start, rise", [(math.nan, 0.0), (1.0, math.inf), ("1", 0.0), (True, 0.0)])
def test_non_finite_ramps_are_refused_by_name(start, rise):
    with pytest.raises(ValueError, match=r"Ramp\.(start|rise)"):
        Ramp(start, rise)


def test_a_band_needs_ramps():
    with pytest.raises(TypeError, match="low"):
        Band(1.0, Ramp(2.0))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class _Inner:
    #: Width of the inner thing, metres.
    width_m: Band = Band(Ramp(1.0), Ramp(1.0, 2.0))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class _Knobs:
    #: Distance to the food, metres...
    #: ...over two lines.
    distance_m: Ramp = Ramp(2.0, 8.0)
    turn_deg: Ramp = Ramp(10.0, 20.0)
    #: A constant.
    added_at: tuple[float, ...] = (0.55, 0.8)
    inner: _Inner = _Inner()
    count: int = 3


def test_knob_rows_evaluate_every_knob_of_a_table_at_the_tables_difficulties():
    rows = {row.name: row for row in knob_rows(_Knobs())}
    assert list(rows) == ["distance_m", "turn_deg", "added_at", "inner.width_m", "count"]
    assert rows["distance_m"].values == ("2 m", "6 m", "10 m")
    assert rows["distance_m"].meaning == "Distance to the food, metres... ...over two lines."
    assert rows["turn_deg"].values == ("10°", "20°", "30°") and rows["turn_deg"].meaning == ""
    assert rows["added_at"].values == ("0.55, 0.8",) * 3
    assert rows["inner.width_m"].values == ("1 m", "1–2 m", "1–3 m")
    assert rows["inner.width_m"].meaning == "Width of the inner thing, metres."
    assert rows["count"].values == ("3",) * 3


def test_knob_rows_evaluate_a_ramp_over_its_own_progress_and_mark_where_it_does_not_apply():
    progress = {"distance_m": lambda d: None if d < 0.5 else (d - 0.5) / 0.5, "inner": lambda d: 1.0}
    rows = {row.name: row for row in knob_rows(_Knobs(), (0.0, 0.5, 0.75, 1.0), progress)}
    assert rows["distance_m"].values == ("—", "2 m", "6 m", "10 m")
    assert rows["inner.width_m"].values == ("1–3 m",) * 4
    with pytest.raises(ValueError, match=r"progress names \['speed'\], which are not knobs of _Knobs"):
        knob_rows(_Knobs(), progress={"speed": lambda d: d})
    with pytest.raises(TypeError, match="float is not an attrs table"):
        knob_rows(3.0)
