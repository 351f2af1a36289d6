"""The move task: determinism, distance and path width against difficulty, the chasm and its
causeway, and the guarantees of every world."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial import cKDTree

from avalon.datagen.scenery import SceneryKind
from avalon.tasks import build_world, move
from avalon.tasks.kit.causeway import reachable_without
from avalon.tasks.kit.certificate import certify
from avalon.tasks.kit.geometry import (
    BLOCKING_SLOPE_DEG,
    component_labels,
    triangle_centroids,
    triangle_index,
    walkable_grid,
)
from tests.tasks import chasm_pieces
from tests.tasks.helpers import check_basic_guarantees, layout, surface_height, world_digest

SEEDS = range(6)
OPEN_DIFFICULTIES = (0.0, 0.15, 0.3)
CHASM_DIFFICULTIES = (0.4, 0.6, 0.8, 1.0)

GOLDEN = {
    (0.5, 3): "ab6160249127359a598b7f6195e1fe7ee72cd636f8c9a5b5c4eec553add76ab3",
    (1.0, 7): "316aa0d1804ca21bb3a8b10f5ce0f3e5d2a269ab01cc7b7a78ce311dfc6628d3",
}


def _distance(world) -> float:
    sx, _, sz = world.spawn_position
    fx, _, fz = world.food[0].position
    return math.hypot(fx - sx, fz - sz)


# --- determinism -------------------------------------------------------------------------------


def test_same_seed_same_world_and_different_seeds_differ():
    first = build_world("move", 0.9, 2)
    assert world_digest(build_world("move", 0.9, 2)) == world_digest(first)
    assert world_digest(build_world("move", 0.9, 3)) != world_digest(first)
    assert world_digest(build_world("move", 0.1, 4)) != world_digest(build_world("move", 0.1, 5))


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digests (and say so in the commit).
    assert world_digest(build_world("move", difficulty, seed)) == GOLDEN[(difficulty, seed)]


# --- difficulty --------------------------------------------------------------------------------


def test_food_gets_farther_with_difficulty():
    for seed in SEEDS:
        assert 2.0 - 1e-6 <= _distance(layout("move", 0.0, seed).world) <= 4.0 + 1e-6
        assert 30.0 - 1e-6 <= _distance(layout("move", 1.0, seed).world) <= 40.0 + 1e-6
    means = [np.mean([_distance(layout("move", d, s).world) for s in SEEDS]) for d in (0.0, 0.15, 0.3, 0.6, 1.0)]
    assert means == sorted(means) and len(set(means)) == len(means)


def test_spawn_faces_the_food_at_zero_and_may_face_away_at_one():
    def offset(world):
        sx, _, sz = world.spawn_position
        fx, _, fz = world.food[0].position
        yaw = math.atan2(-(fx - sx), -(fz - sz))
        return abs(math.degrees((yaw - world.spawn_yaw_rad + math.pi) % (2 * math.pi) - math.pi))

    assert all(offset(layout("move", 0.0, s).world) < 1e-6 for s in SEEDS)
    assert max(offset(layout("move", 1.0, s).world) for s in SEEDS) > 30.0


def _corridor_clearance(world) -> float:
    """Distance from the spawn-to-food segment to the nearest tree trunk (other than the fruit tree)."""
    sx, _, sz = world.spawn_position
    fx, _, fz = world.food[0].position
    d = np.array([fx - sx, fz - sz])
    best = math.inf
    for plant in world.scenery:
        if plant.kind.is_tree and plant.kind is not SceneryKind.FRUIT_TREE:
            p = np.array([plant.position[0] - sx, plant.position[2] - sz])
            t = np.clip(p @ d / (d @ d), 0.0, 1.0)
            best = min(best, float(np.linalg.norm(p - t * d)))
    return best


def test_open_worlds_keep_a_corridor_that_narrows():
    widths = [move.path_width_m(d) for d in OPEN_DIFFICULTIES]
    assert widths == sorted(widths, reverse=True) and widths[0] > widths[-1]
    for difficulty, width in zip(OPEN_DIFFICULTIES, widths):
        for seed in SEEDS:
            lay = layout("move", difficulty, seed)
            assert lay.crossing is None and lay.path_width_m == width
            assert _corridor_clearance(lay.world) >= 0.96 * width / 2.0


def _measured_top_widths(lay) -> list[float]:
    """Widths of the causeway's top measured on the terrain, across each segment where both sides
    fall into the chasm: the stretch around the centre line no more than 0.4 m below it."""
    heightmap = lay.outdoor.heightmap
    causeway = lay.crossing.causeway
    half = causeway.width_m / 2.0
    widths = []
    for a, b in zip(causeway.points[:-1], causeway.points[1:]):
        u = np.subtract(b, a) / math.dist(a, b)
        n = np.array([-u[1], u[0]])
        for t in (0.3, 0.5, 0.7):
            m = np.add(a, t * np.subtract(b, a))
            top = surface_height(heightmap, *m)
            sides = [surface_height(heightmap, *(m + s * (half + 2.5) * n)) for s in (-1, 1)]
            if max(sides) > top - 3.0:
                continue  # not over the chasm here
            offsets = np.arange(-(half + 2.0), half + 2.0, 0.02)
            high = np.array([surface_height(heightmap, *(m + s * n)) >= top - 0.4 for s in offsets])
            centre = len(offsets) // 2
            left = centre
            while left > 0 and high[left - 1]:
                left -= 1
            right = centre
            while right < len(offsets) - 1 and high[right + 1]:
                right += 1
            widths.append(offsets[right] - offsets[left])
    return widths


def test_causeway_narrows_with_difficulty_as_measured_on_the_terrain():
    measured = {}
    for difficulty in CHASM_DIFFICULTIES:
        widths = [w for seed in SEEDS for w in _measured_top_widths(layout("move", difficulty, seed))]
        assert len(widths) >= len(SEEDS), "every causeway crosses the chasm"
        measured[difficulty] = float(np.mean(widths))
        nominal = move.path_width_m(difficulty)
        assert abs(measured[difficulty] - nominal) <= 0.75, (difficulty, measured[difficulty], nominal)
    means = [measured[d] for d in CHASM_DIFFICULTIES]
    assert means == sorted(means, reverse=True)
    assert 0.9 <= measured[1.0] <= 1.8  # about 1 to 1.5 m at the top difficulty


def test_the_causeway_gains_angled_segments_at_high_difficulty():
    assert [move.causeway_shape(d).segment_count for d in (0.4, 0.6, 0.8, 1.0)] == [1, 2, 3, 3]
    for seed in SEEDS:
        causeway = layout("move", 1.0, seed).crossing.causeway
        assert causeway.segment_count == 3
        assert all(angle >= 30.0 for angle in causeway.turn_angles_deg())
        assert min(math.dist(a, b) for a, b in zip(causeway.points[:-1], causeway.points[1:])) >= 3.0


# --- the chasm ---------------------------------------------------------------------------------


def _blocked_regions(lay):
    """Triangles reachable from the spawn and from the food once the causeway is blocked, on a
    generous walkability (up to BLOCKING_SLOPE_DEG, wading allowed)."""
    heightmap = lay.outdoor.heightmap
    causeway = lay.crossing.causeway
    x, z = triangle_centroids(heightmap)
    on_causeway = causeway.distance_m(x, z) <= causeway.width_m / 2.0 + heightmap.cell_size_m
    band = lay.crossing.band  # grid points the chasm ring cut (before the causeway restored its strip)
    in_band = np.stack(
        [band[:-1, :-1] | band[:-1, 1:] | band[1:, :-1], band[:-1, 1:] | band[1:, 1:] | band[1:, :-1]], axis=-1
    )
    blocked = on_causeway & in_band
    assert blocked.sum() >= 10
    labels = component_labels(walkable_grid(heightmap, BLOCKING_SLOPE_DEG, allow_water=True) & ~blocked)
    sx, _, sz = lay.world.spawn_position
    fx, _, fz = lay.world.food[0].position
    spawn_label = labels[triangle_index(heightmap, sx, sz)]
    food_label = labels[triangle_index(heightmap, fx, fz)]
    return labels, spawn_label, food_label, (x, z)


@pytest.mark.parametrize("difficulty", CHASM_DIFFICULTIES)
def test_without_the_causeway_the_food_is_out_of_reach_and_out_of_jumping_range(difficulty):
    for seed in SEEDS:
        lay = layout("move", difficulty, seed)
        labels, spawn_label, food_label, (x, z) = _blocked_regions(lay)
        assert spawn_label >= 0 and food_label >= 0
        assert spawn_label != food_label, "the chasm must cut every other way to the food"
        # Too wide to jump: the nearest ground on the two sides is farther apart than a running
        # jump carries the agent (5 m/s for 1 s: 5 m on the level, under 6 m dropping a metre).
        near = cKDTree(np.stack([x[labels == spawn_label], z[labels == spawn_label]], axis=1))
        far = np.stack([x[labels == food_label], z[labels == food_label]], axis=1)
        gap = near.query(far)[0].min()
        assert gap > 6.0, f"seed {seed}: the chasm is only {gap:.2f} m across"


def test_the_straight_line_to_the_food_drops_into_the_chasm():
    for seed in SEEDS:
        lay = layout("move", 1.0, seed)
        heightmap = lay.outdoor.heightmap
        (sx, _, sz), (fx, fy, fz) = lay.world.spawn_position, lay.world.food[0].position
        line = [surface_height(heightmap, sx + t * (fx - sx), sz + t * (fz - sz)) for t in np.linspace(0, 1, 400)]
        food_ground = fy - 0.15
        assert min(line) < food_ground - 3.0


def test_the_chasm_walls_are_unclimbable_and_bare_of_plants():
    for seed in SEEDS[:3]:
        lay = layout("move", 1.0, seed)
        shaped = lay.crossing.result
        biomes = lay.outdoor.biome_map
        assert shaped.unclimbable.any() and not (biomes.climbable & shaped.unclimbable).any()
        for plant in lay.world.scenery:
            row, col = lay.outdoor.heightmap.nearest_index(plant.position[0], plant.position[2])
            assert not shaped.wall[row, col]


def test_the_certified_route_crosses_the_chasm_on_the_causeway():
    for difficulty in CHASM_DIFFICULTIES:
        for seed in SEEDS[:3]:
            lay = layout("move", difficulty, seed)
            certificate = certify(lay.world, lay.world.food[0], frozenset(), frozenset({"walk"}))
            assert certificate.ok and certificate.route.skills() == {"walk"}
            # Surely over the trench: this far from the ring's centre, whatever its noise.
            ring = lay.crossing.ring
            inner, outer = ring.inner_radius_m + ring.noise_amplitude_m, ring.inner_radius_m + ring.width_m - ring.noise_amplitude_m
            points = [certificate.route.start] + [step.target for step in certificate.route.steps]
            over = 0
            for (ax, _, az), (bx, _, bz) in zip(points[:-1], points[1:]):
                t = np.linspace(0.0, 1.0, max(2, int(math.hypot(bx - ax, bz - az) / 0.1)))
                x, z = ax + t * (bx - ax), az + t * (bz - az)
                radius = np.hypot(x - ring.centre_x_m, z - ring.centre_z_m)
                trench = (radius >= inner) & (radius <= outer)
                over += int(trench.sum())
                off_centre = lay.crossing.causeway.distance_m(x[trench], z[trench])
                assert (off_centre <= lay.crossing.causeway.width_m / 2 + 0.1).all()  # (triangles may cut a turn)
            assert over > 0, "the route crosses the chasm"


# --- every world -------------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", OPEN_DIFFICULTIES + CHASM_DIFFICULTIES)
def test_every_world_keeps_the_guarantees(difficulty):
    for seed in SEEDS:
        lay = layout("move", difficulty, seed)
        check_basic_guarantees(lay.world)
        assert [f.kind for f in lay.world.food] == ["apple"]
        assert lay.world.task == "move" and lay.world.time_limit_frames == 3000
        trees = [s for s in lay.world.scenery if s.kind == SceneryKind.FRUIT_TREE]
        assert len(trees) == 1
        food = lay.world.food[0].position
        assert math.hypot(food[0] - trees[0].position[0], food[2] - trees[0].position[2]) <= 3.0 * trees[0].scale
        # Big enough: Small island for short walks, Medium for the chasm.
        assert lay.world.ground.size_m == (64.0 if difficulty < move.KNOBS.chasm_start_difficulty else 128.0)


def test_the_reference_route_walks_along_the_causeway():
    assert move.TASK.reference_route is move.reference_route
    open_world = build_world("move", 0.0, 0)
    assert move.reference_route(open_world).steps == () and move.reference_route(open_world).start == open_world.spawn_position
    world, points = build_world("move", 0.6, 1), layout("move", 0.6, 1).crossing.causeway.points
    route = move.reference_route(world)
    assert route.start == world.spawn_position and [step.skill for step in route.steps] == ["walk"] * len(points)
    for step, (x, z) in zip(route.steps, points):
        assert step.target == (x, pytest.approx(surface_height(world.ground.heightmap, x, z)), z)
    with pytest.raises(ValueError, match=r"move.reference_route: a 'eat' world, expected a 'move' world"):
        move.reference_route(build_world("eat", 0.0, 0))


# --- the piece in other bands --------------------------------------------------------------------


@pytest.mark.parametrize("inverted", (False, True))
def test_the_chasm_piece_stands_in_a_band_round_another_point(inverted):
    # A band 12-30 m round a point that is not the food, the path coming in at 35 degrees (out with
    # the goal outside): the chasm and its causeway stand in the band, the terrain beyond it is the
    # island's, and a world with the spawn at the crossing's start (the causeway's end on the
    # agent's side) and an apple at its end is walked across, and not without the causeway.
    island = chasm_pieces.raised_island(2, 8.0, points_per_m=2.0)
    band = chasm_pieces.band((0.0, 0.0), 12.0, 30.0, 35.0, inverted)
    piece, streams = chasm_pieces.built_piece(move.obstacle, island, band, 0.6, seed=2)
    start, end = (chasm_pieces.radius_m(band, point) for point in (piece.crossing.start, piece.crossing.end))
    assert 12.0 < min(start, end) and max(start, end) < 30.0 and (start < end) == inverted
    assert chasm_pieces.unchanged_outside(island, piece, band, margin_m=0.0)
    world = chasm_pieces.assembled(piece, streams, 0.6)  # the piece's items check: no way round the causeway
    need = piece.crossing.requirement
    assert need.allowed == frozenset({"walk"})
    certificate = certify(world, world.food[0], need.skills, need.allowed, max_fall_m=need.max_fall_m)
    assert certificate.ok, certificate.reason
    blocked = piece.detail.crossing_triangles(world.ground.heightmap)
    assert not reachable_without(world.ground.heightmap, blocked, piece.crossing.start, piece.crossing.end)


def test_the_open_piece_is_a_corridor_along_the_path_through_its_band():
    island = chasm_pieces.raised_island(0, 4.0)
    band = chasm_pieces.band((10.0, -5.0), 5.0, 15.0, 35.0, False)
    piece, streams = chasm_pieces.built_piece(move.obstacle, island, band, 0.2)
    assert piece.draft.heightmap is island  # nothing to cross
    direction, centre = np.array([math.cos(math.radians(35.0)), math.sin(math.radians(35.0))]), np.array(band.centre)
    assert piece.crossing.start == pytest.approx(tuple(centre + 15.0 * direction)) and \
        piece.crossing.end == pytest.approx(tuple(centre + 5.0 * direction))
    discs = np.array(piece.draft.keep_clear)
    assert (discs[:, 2] == move.path_width_m(0.2) / 2.0).all()
    discs[:, :2] -= centre
    along = discs[:, :2] @ direction
    assert along.min() == pytest.approx(5.0) and along.max() == pytest.approx(15.0)
    assert np.abs(discs[:, :2] @ np.array([-direction[1], direction[0]])).max() < 1e-9
    world = chasm_pieces.assembled(piece, streams, 0.2)
    need = piece.crossing.requirement
    assert certify(world, world.food[0], need.skills, need.allowed, max_fall_m=need.max_fall_m).ok
