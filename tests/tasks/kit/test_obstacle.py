"""The obstacle interface's own types: the constraint a piece is given and the draft it builds into."""

from __future__ import annotations

import math

import attr
import numpy as np
import pytest

from avalon.tasks.kit.assembly import build_island
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Requirement


def test_the_path_angle_is_where_the_path_crosses_the_bands_middle():
    band = Constraint(centre=(10.0, 0.0), inner_radius_m=4.0, outer_radius_m=8.0, path=((10.0, 20.0), (10.0, 0.0)))
    assert band.path_angle_rad() == pytest.approx(math.pi / 2)
    bent = Constraint(centre=(0.0, 0.0), inner_radius_m=2.0, outer_radius_m=4.0,
                      path=((-10.0, 0.0), (-3.0, 0.0), (0.0, 3.0), (0.0, 0.0)))
    assert bent.path_angle_rad() == pytest.approx(math.pi)  # the first crossing, on the way in
    goal = Constraint.round_goal((1.0, 2.0), 3.0, 9.0, 0.25)
    assert goal.path_angle_rad() == 0.25 and not goal.heights_inverted and goal.width_m == 6.0
    # The drawn angle, exactly: recomputed from the path's points it can differ in its last bit.
    angles = np.random.default_rng(0).uniform(-math.pi, math.pi, 2000)
    assert all(Constraint.round_goal((3.7, -1.1), 0.0, 14.3, a).path_angle_rad() == a for a in angles)
    assert any(attr.evolve(Constraint.round_goal((3.7, -1.1), 0.0, 14.3, a), approach_rad=None).path_angle_rad() != a
               for a in angles)


def test_a_constraint_refuses_an_empty_band_and_a_path_of_one_point():
    with pytest.raises(ValueError, match=r"outer_radius_m=3.0 must exceed inner_radius_m=3.0"):
        Constraint(centre=(0, 0), inner_radius_m=3.0, outer_radius_m=3.0, path=((5, 0), (0, 0)))
    with pytest.raises(ValueError, match=r"Constraint.path=\(\(5, 0\),\): expected at least two points"):
        Constraint(centre=(0, 0), inner_radius_m=1.0, outer_radius_m=3.0, path=((5, 0),))
    with pytest.raises(ValueError, match=r"point \(nan, 0\): expected two finite numbers"):
        Constraint(centre=(float("nan"), 0), inner_radius_m=1.0, outer_radius_m=3.0, path=((5, 0), (0, 0)))


def test_a_draft_adds_each_pieces_masks_and_the_later_piece_decides_climbability():
    island = build_island(np.random.default_rng(0), "small", 1.0)
    draft = Draft.of_island(island)
    assert draft.heightmap is island and not draft.climbable.any() and not draft.no_scenery.any()
    wall = np.zeros(island.shape, dtype=bool)
    wall[10:12, :] = True
    first = draft.with_piece(island, unclimbable=wall, no_scenery=wall, keep_clear=[(0.0, 0.0, 1.0)])
    strip = np.zeros(island.shape, dtype=bool)
    strip[11, :5] = True
    second = first.with_piece(island, climbable=strip, keep_clear=[(1.0, 1.0, 2.0)])
    assert second.climbable[11, :5].all() and not second.unclimbable[11, :5].any()
    assert second.unclimbable[10].all() and second.unclimbable[11, 5:].all() and second.no_scenery[10:12].all()
    assert second.keep_clear == ((0.0, 0.0, 1.0), (1.0, 1.0, 2.0))
    with pytest.raises(ValueError, match=r"a mask must be a 2-D bool grid"):
        first.with_piece(island, climbable=np.zeros(island.shape))


def test_a_requirement_names_unknown_skills_and_skills_it_does_not_allow():
    crossing = Crossing(start=(0, 0), end=(1, 1), requirement=Requirement(skills={"jump"}))
    assert crossing.requirement.skills == frozenset({"jump"}) and "climb" in crossing.requirement.allowed
    with pytest.raises(ValueError, match=r"unknown skills \['fly'\]"):
        Requirement(skills={"fly"})
    with pytest.raises(ValueError, match=r"skills \['jump'\] must be among the allowed \['walk'\]"):
        Requirement(skills={"jump"}, allowed={"walk"})
