"""The composition kit on its own: the obstacle count's draw, pieces in bands round the spawn on a
plain island (a goal-site piece round the goal first), the spawn raised until the goal is in sight."""

from __future__ import annotations

import math
import statistics

import attr
import numpy as np
import pytest

from avalon.tasks import TASKS
from avalon.tasks.kit import ImpossibleWorldError, assembly, composition
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.obstacle import Draft
from tests.tasks.piece_checks import plain_island


def test_the_obstacle_count_rises_with_difficulty_within_its_range():
    knobs = composition.CompositionKnobs()
    rng = np.random.default_rng(0)
    easy = [knobs.draw_obstacle_count(rng, 0.0) for _ in range(400)]
    hard = [knobs.draw_obstacle_count(rng, 1.0) for _ in range(400)]
    assert set(easy) | set(hard) <= {1, 2, 3, 4}
    assert statistics.mean(easy) < 1.7 < 3.5 < statistics.mean(hard)


def test_world_size_follows_the_goal_distance():
    one, four = composition.goal_distance_m([21.0]), composition.goal_distance_m([21.0] * 4)
    assert four - one == pytest.approx(63.0)
    assert composition.world_size_m(four) - composition.world_size_m(one) == pytest.approx(126.0)


def test_pieces_stand_in_their_bands_round_the_spawn_after_a_goal_site_piece_round_the_goal():
    island = assembly.build_island(np.random.default_rng(4), 160.0, 2.0, mountain_count=0, hill_count=0, pool_count=0,
                                   initial_noise_scale_m=0.2, land_height_m=12.0, coast_distance_m=3.0,
                                   coast_ramp_m=10.0, coast_noise_m=4.0)
    streams = assembly.split_streams(np.random.default_rng(4))
    spawn, goal = (-30.0, 0.0), (28.0, 0.0)
    kinds = [kind for kind in composition.piece_kinds() if kind.task in ("jump", "descend")]
    cliff = composition.PieceKind("climb", TASKS["climb"].obstacle)
    made = composition.compose(Draft.of_island(island), streams, 0.3, kinds, spawn=spawn, goal=goal,
                               band_widths_m=[14.0, 14.0], goal_piece=cliff, goal_radius_m=9.0)
    assert [placed.kind for placed in made.pieces][-1] == "climb" and len(made.pieces) == 3
    round_goal = made.pieces[-1].constraint
    assert round_goal.centre == goal and not round_goal.heights_inverted
    for placed, (inner, outer) in zip(made.pieces, [(6.0, 20.0), (20.0, 34.0)]):
        assert placed.constraint.centre == spawn and placed.constraint.heights_inverted
        assert (placed.constraint.inner_radius_m, placed.constraint.outer_radius_m) == (inner, outer)
        assert placed.kind in ("jump", "descend")
    # The goal's plateau stands above the ground round it: a climb's tiers raise it.
    heights = made.draft.heightmap
    assert ground_height(heights, *goal) > ground_height(made.pieces[-1].obstacle.draft.natural, *goal) + 3.0


def test_the_spawn_is_raised_until_the_goal_is_in_sight_or_refused():
    island = plain_island(2, land_height_m=8.0)
    spawn, goal = (0.0, 0.0), (20.0, 0.0)
    x, z = np.meshgrid(island.x_coords_m, island.z_coords_m)
    wall = (np.abs(x - 10.0) < 1.0) & (np.abs(z) < 30.0)
    top = float(island.heights[wall].max())
    walled = attr.evolve(island, heights=np.where(wall, top + 1.0, island.heights).astype(island.heights.dtype))
    assert not composition.goal_in_sight(walled, spawn, goal)
    draft = composition.raise_spawn(Draft.of_island(walled), spawn, goal, (0.0, 0.5, 1.0, 1.5, 2.0, 3.0), 5.0)
    assert composition.goal_in_sight(draft.heightmap, spawn, goal)
    rise = composition.spawn_rise_m(walled, spawn, goal, (0.0, 0.5, 1.0, 1.5, 2.0, 3.0), 5.0)
    assert rise is not None and 0.0 < rise <= 3.0
    assert float(draft.heightmap.heights[x.shape[0] // 2, x.shape[1] // 2]) > float(walled.heights[x.shape[0] // 2, x.shape[1] // 2])
    with pytest.raises(ImpossibleWorldError, match="out of sight"):
        composition.raise_spawn(Draft.of_island(walled), spawn, goal, (0.0, 0.1), 5.0)
    assert math.isfinite(rise)
