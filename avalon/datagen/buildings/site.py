"""Placing a building on the ground: the site's height, and levelling a ``Terrain`` under it.

A building stands on flat ground: :func:`level_site` sets every grid point under the footprint
and a margin round it to the building's site height, and blends the ground back to its own
height over a further band, so the entrance is reached on foot from outside.
"""

from __future__ import annotations

import attr
import numpy as np

from avalon.datagen.buildings.spec import Building
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import FlatGround, Terrain, World
from avalon.errors import BuildingFitError

#: Flat ground round the footprint, and the band beyond it over which the ground returns to its
#: own height, metres.
SITE_MARGIN_M = 2.0
BLEND_M = 4.0


def _footprint_distance(heightmap: HeightMap, building: Building) -> np.ndarray:
    """Horizontal distance of every grid point from the building's grid rectangle, metres."""
    width, length = building.size_m
    x0, z0 = building.origin[0], building.origin[2]
    xs, zs = heightmap.x_coords_m, heightmap.z_coords_m
    dx = np.maximum(np.maximum(x0 - xs, xs - (x0 + width)), 0.0)
    dz = np.maximum(np.maximum(z0 - zs, zs - (z0 + length)), 0.0)
    return np.hypot(dz[:, None], dx[None, :])


def site_height(ground, x: float, z: float, width_m: float, length_m: float) -> float:
    """The height to build at: the median ground height under a ``width_m`` x ``length_m``
    rectangle centred at (x, z) (0 on flat ground), metres."""
    if isinstance(ground, FlatGround):
        return 0.0
    heightmap = ground.heightmap
    xs, zs = heightmap.x_coords_m, heightmap.z_coords_m
    inside_x = np.abs(xs - x) <= width_m / 2.0
    inside_z = np.abs(zs - z) <= length_m / 2.0
    if not inside_x.any() or not inside_z.any():
        raise BuildingFitError(f"a site at x={x:.2f}, z={z:.2f} m lies off the island's {heightmap.size_m:.0f} m grid")
    return float(np.median(heightmap.heights[np.ix_(inside_z, inside_x)]))


def check_fits(ground, building: Building, margin_m: float = SITE_MARGIN_M) -> None:
    """Raises :class:`BuildingFitError` naming why ``building`` cannot stand on ``ground``: off
    its edge (with the margin), or its site under water."""
    width, length = building.size_m
    x0, y, z0 = building.origin
    half = ground.size_m / 2.0
    if x0 - margin_m < -half or z0 - margin_m < -half or x0 + width + margin_m > half or z0 + length + margin_m > half:
        raise BuildingFitError(
            f"building {building.name!r} ({width:.0f} x {length:.0f} m at x={x0:.2f}, z={z0:.2f} m, with a {margin_m} m "
            f"margin) reaches beyond the ground's edge at +-{half:.1f} m"
        )
    if isinstance(ground, Terrain) and y <= ground.heightmap.water_height_m:
        raise BuildingFitError(
            f"building {building.name!r}'s site at height {y:.2f} m is under the water at {ground.heightmap.water_height_m:.2f} m"
        )


def level_site(ground, building: Building, margin_m: float = SITE_MARGIN_M, blend_m: float = BLEND_M):
    """``ground`` with the site levelled: a ``Terrain`` whose height map is flat at the building's
    site height (``origin``'s y) within ``margin_m`` of its footprint and blended back over
    ``blend_m``; ``FlatGround`` unchanged (its building must stand at y = 0)."""
    check_fits(ground, building, margin_m)
    if isinstance(ground, FlatGround):
        if building.origin[1] != 0.0:
            raise BuildingFitError(f"building {building.name!r} stands at y={building.origin[1]} m; flat ground is at 0 m")
        return ground
    levelled = levelled_heightmap(ground.heightmap, building, margin_m, blend_m)
    return attr.evolve(ground, biome_map=attr.evolve(ground.biome_map, heightmap=levelled))


def levelled_heightmap(heightmap: HeightMap, building: Building, margin_m: float = SITE_MARGIN_M,
                       blend_m: float = BLEND_M) -> HeightMap:
    """``heightmap`` flat at the building's site height (``origin``'s y) within ``margin_m`` of its
    footprint, blended back to its own height over ``blend_m`` (what :func:`level_site` does to a
    terrain; an obstacle piece levels a draft's height map with it)."""
    distance = _footprint_distance(heightmap, building)
    weight = np.clip((distance - margin_m) / blend_m, 0.0, 1.0)
    weight = weight * weight * (3.0 - 2.0 * weight)  # smooth at both ends of the band
    heights = building.origin[1] * (1.0 - weight) + heightmap.heights * weight
    return HeightMap(heights=heights, size_m=heightmap.size_m, water_height_m=heightmap.water_height_m)


def add_building(world: World, building: Building, margin_m: float = SITE_MARGIN_M) -> World:
    """``world`` with ``building`` standing in it: the ground levelled under it (:func:`level_site`)
    and the plants on the levelled or blended ground removed (within ``margin_m + BLEND_M`` of
    its grid; entities are the caller's to place). Raises :class:`BuildingFitError` if
    it does not fit, or overlaps another building of the world (with the margins)."""
    width, length = building.size_m
    x0, _, z0 = building.origin
    for other in world.buildings:
        ow, ol = other.size_m
        ox, _, oz = other.origin
        if x0 - margin_m < ox + ow + margin_m and ox - margin_m < x0 + width + margin_m and \
                z0 - margin_m < oz + ol + margin_m and oz - margin_m < z0 + length + margin_m:
            raise BuildingFitError(f"building {building.name!r} overlaps building {other.name!r} (with {margin_m} m margins)")
    if any(other.name == building.name for other in world.buildings):
        raise BuildingFitError(f"the world already has a building named {building.name!r}")
    ground = level_site(world.ground, building, margin_m)
    reach = margin_m + BLEND_M
    scenery = [plant for plant in world.scenery
               if not (x0 - reach <= plant.position[0] <= x0 + width + reach and z0 - reach <= plant.position[2] <= z0 + length + reach)]
    return attr.evolve(world, ground=ground, scenery=scenery, buildings=world.buildings + (building,))
