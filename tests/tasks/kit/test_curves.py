"""The entries of the difficulty tables: ramps and bands, exact to the bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.tasks.kit.curves import Band, Ramp


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
