"""Checks shared by the predator tasks' tests (avoid, fight), computed independently of the kit's
placement and route code where they can be."""

from __future__ import annotations

import math

import numpy as np

from avalon.datagen.world import World
from avalon.rules.animals import ANIMALS
from avalon.tasks.kit.route import Route
from tests.tasks.helpers import surface_height


def activation_radius_m(animal) -> float:
    value = animal.param("activation_radius_m", None)
    return ANIMALS[animal.kind].activation_radius_m if value is None else float(value)


def horizontal(a, b) -> float:
    return math.hypot(a[0] - b[0], a[2] - b[2])


def route_points(route: Route, step_m: float = 0.1) -> np.ndarray:
    """(x, z) every ``step_m`` along the route's straight walks, its start and ends included."""
    points = [route.start] + [step.target for step in route.steps]
    out = [np.array([[route.start[0], route.start[2]]])]
    for a, b in zip(points, points[1:]):
        n = max(2, int(math.ceil(horizontal(a, b) / step_m)) + 1)
        t = np.linspace(0.0, 1.0, n)[:, None]
        out.append(np.array([a[0], a[2]]) * (1 - t) + np.array([b[0], b[2]]) * t)
    return np.concatenate(out)


def nearest_approach_m(world: World, route: Route) -> float:
    """The least (horizontal distance from a route point to a predator's home, less its activation radius)."""
    points = route_points(route)
    gaps = [float(np.min(np.hypot(points[:, 0] - a.position[0], points[:, 1] - a.position[2]))) - activation_radius_m(a)
            for a in world.animals]
    return min(gaps)


def animal_rests_on_its_ground(world: World, animal) -> bool:
    """A ground animal's box bottom is the highest terrain under its footprint (within 1 cm), an
    air animal's its flying height above that."""
    spec = ANIMALS[animal.kind]
    x, y, z = animal.position
    reach = max(spec.size_m[0], spec.size_m[2]) / 2.0
    angles = np.linspace(0.0, 2.0 * math.pi, 8, endpoint=False)
    heights = [surface_height(world.ground.heightmap, x, z)] + [
        surface_height(world.ground.heightmap, x + reach * math.cos(a), z + reach * math.sin(a)) for a in angles]
    bottom = y - spec.size_m[1] / 2.0 - (spec.fly_height_m if spec.domain == "air" else 0.0)
    return abs(bottom - max(heights)) < 0.01
