"""The jump edges' terrain sampling (avalon/tasks/kit/reachability/jumps.py): per offset, tables over
the grid's lines and per-triangle terms, and bounds that decide most flights, must give exactly
what sampling ``surface_heights`` at every point of every flight gives (certificates, and so the
worlds of the evaluation sets, depend on the last bit)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.tasks.kit.capabilities import (
    BYPASS_CAPABILITIES,
    ROUTE_CAPABILITIES,
    terrain_jump_rise_m,
)
from avalon.tasks.kit.reachability.ground import make_ground, surface_heights
from avalon.tasks.kit.reachability.jumps import (
    TERRAIN_JUMP_SLACK_M,
    _flight_clear,
    _Flights,
    _ray_offsets,
    allowed_above_take_off,
    flight_fractions,
)
from tests.tasks.kit.maps import height_map


def _terrain(seed: int, n: int = 41, size_m: float = 20.0, capabilities=ROUTE_CAPABILITIES):
    """Rolling ground, terraced on its left half (heights rounded to 0.5 m: level cells, sheer
    steps), with a raised block; 30 m up, so heights round differently from fractions."""
    rng = np.random.default_rng(seed)
    heights = 30.0 + _bilinear(rng.normal(0.0, 1.5, (6, 6)), n) + rng.uniform(-0.05, 0.05, (n, n))
    heights[:, : n // 2] = np.round(heights[:, : n // 2] * 2.0) / 2.0
    r, c = rng.integers(5, n - 12, 2)
    heights[r:r + 6, c:c + 6] += rng.uniform(2.0, 8.0)
    return make_ground(height_map(heights, size_m, water=-100.0), np.zeros((n, n), bool), np.zeros((n, n), bool),
                       capabilities)


def _bilinear(coarse: np.ndarray, n: int) -> np.ndarray:
    """``coarse`` stretched bilinearly over n x n points."""
    k = coarse.shape[0] - 1
    t = np.linspace(0, k, n)
    i = np.minimum(np.floor(t).astype(int), k - 1)
    f = t - i
    rows = coarse[i] * (1 - f)[:, None] + coarse[i + 1] * f[:, None]
    return rows[:, i] * (1 - f)[None, :] + rows[:, i + 1] * f[None, :]


def _reference_flight_clear(ground, sources, dr, dc, rise, distance):
    """The flight test as it was written first: ``surface_heights`` and the triangles' slopes at
    every sample of every flight, all in full arrays."""
    caps, n = ground.capabilities, ground.n
    fractions = flight_fractions(dr, dc)
    rows0, cols0 = np.divmod(sources, n)
    rows = rows0[:, None] + fractions[None, :] * dr
    cols = cols0[:, None] + fractions[None, :] * dc
    above = surface_heights(ground, rows, cols) - ground.heights[rows0, cols0][:, None]
    if caps.jump_clearance_m is None:
        r0 = np.minimum(np.floor(rows).astype(np.int64), n - 2)
        c0 = np.minimum(np.floor(cols).astype(np.int64), n - 2)
        second = (rows - r0) + (cols - c0) > 1.0
        steepest = ground.triangle_slope_deg[r0, c0, second.astype(np.int64)].max(axis=1)
        ceiling = np.full(sources.size, caps.jump_rise_m)
        if caps.terrain_jump:
            ceiling = np.maximum(ceiling, terrain_jump_rise_m(steepest) + TERRAIN_JUMP_SLACK_M)
        return (rise <= ceiling) & (above.max(axis=1) <= ceiling)
    allowed = allowed_above_take_off(caps.jump_clearance_m, fractions, distance, rise)
    return (above <= allowed).all(axis=1) & (rise <= caps.jump_rise_m)


def _flights_from_everywhere(ground, dr, dc):
    """Every interior point whose point (dr, dc) away is on the grid, and the rise to it."""
    n = ground.n
    rows, cols = np.meshgrid(np.arange(1, n - 1), np.arange(1, n - 1), indexing="ij")
    keep = (rows + dr >= 0) & (rows + dr < n) & (cols + dc >= 0) & (cols + dc < n)
    sources = (rows * n + cols)[keep]
    heights = ground.heights.ravel()
    return sources, heights[sources + dr * n + dc] - heights[sources]


OFFSETS = _ray_offsets(9.0)


@pytest.mark.parametrize("seed", range(3))
def test_samples_are_surface_heights_bit_for_bit_and_within_their_bounds(seed):
    ground = _terrain(seed)
    flights = _Flights(ground)
    n = ground.n
    for dr, dc in OFFSETS[seed::3]:
        sources, _rise = _flights_from_everywhere(ground, dr, dc)
        fractions = flight_fractions(dr, dc)
        rows0, cols0 = np.divmod(sources, n)
        lines = flights.lines(dr, dc, fractions)
        triangle, second, fr, fc = flights.samples(lines, rows0, cols0, slice(None))
        terrain = flights.heights(triangle, second, fr, fc)
        rows = rows0[:, None] + fractions[None, :] * dr
        cols = cols0[:, None] + fractions[None, :] * dc
        expected = surface_heights(ground, rows, cols)
        assert terrain.tobytes() == expected.tobytes(), (dr, dc)
        # A few samples picked one by one give the same as the whole table.
        flight_of, k = np.divmod(np.arange(0, terrain.size, 7), fractions.size)
        picked = flights.heights(*flights.samples(lines, rows0[flight_of], cols0[flight_of], k))
        assert picked.tobytes() == terrain[flight_of, k].tobytes()
        r0 = np.minimum(np.floor(rows).astype(np.int64), n - 2)
        c0 = np.minimum(np.floor(cols).astype(np.int64), n - 2)
        assert np.array_equal(triangle, ((r0 * (n - 1) + c0) * 2 + second))
        assert np.array_equal(flights.cells(lines, rows0, cols0), triangle // 2)
        # The bounds the flight test trusts: a cell's top, a box's highest corner and steepest face.
        assert (flights.cell_top[triangle // 2] >= terrain).all()
        highest, steepest = flights.box(rows0, cols0, dr, dc)
        assert (highest[:, None] + flights.margin_m >= terrain).all()
        assert (steepest[:, None] >= flights.slope_deg[triangle]).all()


@pytest.mark.parametrize("capabilities", [ROUTE_CAPABILITIES, BYPASS_CAPABILITIES], ids=["route", "bypass"])
@pytest.mark.parametrize("seed", range(3))
def test_flight_clear_decides_as_sampling_every_flight_does(capabilities, seed):
    ground = _terrain(seed, capabilities=capabilities)
    flights = _Flights(ground)
    decided = 0
    for dr, dc in OFFSETS:
        sources, rise = _flights_from_everywhere(ground, dr, dc)
        distance = ground.cell_m * math.hypot(dr, dc)
        clear = _flight_clear(ground, flights, sources, dr, dc, rise, distance)
        expected = _reference_flight_clear(ground, sources, dr, dc, rise, distance)
        assert np.array_equal(clear, expected), (dr, dc)
        decided += clear.sum()
    assert 0 < decided < sum(_flights_from_everywhere(ground, dr, dc)[0].size for dr, dc in OFFSETS)
