"""Crossing a chasm on a log laid across it (the ``bridge`` task).

The route of a bridge world (``task_route("bridge", d, seed)``, the certificate's) walks to the
log's outer end, jumps onto it, walks along its top, steps off beyond its inner end and walks to
the food. Two things differ from a terrain route:

- the agent's ground must know the log: :func:`bridged_world` is the World spec with a static
  box where the log lies, so :class:`~avalon.agent.scripted.ground.Ground` sees its top (the world
  the simulator runs is unchanged);
- the jump onto the log is :class:`MountLog`, not a running jump: walking or flying into the log's
  end would shove it off its place (docs/items.md, "A log bridges a gap"), so the agent jumps
  straight up and moves forward only once its feet are above the log's top
  (``tests/env/test_tools_in_use.py`` does the same).

:class:`LogBridgeFollower` is a :class:`~avalon.agent.scripted.follower.RouteFollower` with both.
Fetching a log that lies elsewhere and laying it across is not scripted yet (docs/tasks.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Optional

import attr

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action, turn_rate
from avalon.agent.scripted.follower import RouteFollower, route_primitives
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.datagen.world import Entity, World
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks.kit.route import Route
from avalon.validation import float_triple

#: The feet are over the log's top once this far above it, metres.
CLEARANCE_M = 0.05
#: Steps in the air before giving up on landing on the log.
AIR_STEPS = 25
#: A landing within this of the log's top is on it, metres.
ON_TOP_M = 0.1


def log_box(log: Entity) -> Entity:
    """A static ``box`` entity of the log's size where it lies (for the agent's ground only)."""
    scale = float(log.param("safe_scale", 1.0) or 1.0)
    size = tuple(v * scale for v in TOOL_SIZE_M["log"])
    return Entity(kind="box", name=f"{log.name}-as-ground", position=log.position, yaw_rad=log.yaw_rad,
                  params={"size": size})


def bridged_world(world: World, logs: Optional[Sequence[Entity]] = None) -> World:
    """``world`` as the agent walks it: every log (default: the world's logs) also a static box."""
    logs = [entity for entity in world.entities if entity.kind == "log"] if logs is None else list(logs)
    return attr.evolve(world, entities=world.entities + tuple(log_box(log) for log in logs))


@attr.s(auto_attribs=True)
class MountLog(Primitive):
    """From beside a log's end, get onto its top at ``target`` (x, top, z): face the target, jump
    straight up, and move forward once the feet are above the top; then walk to the target."""

    target: tuple[float, float, float] = attr.ib(converter=float_triple)
    name = "mount"

    def budget_steps(self, situation: Situation) -> int:
        return int(4 * situation.body.horizontal_distance_m(self.target) / WALK_PER_STEP_M) + AIR_STEPS + 40

    def actions(self, situation: Situation) -> Iterator[Action]:
        for _ in range(40):  # face the target on the spot
            error = situation.body.yaw_error_rad(self.target)
            if abs(error) < 0.02:
                break
            yield action(head_yaw=turn_rate(error))
        take_off = situation.body.feet_y_m
        yield action(jump=1.0)
        if situation.body.feet_y_m < take_off + 0.1:
            raise PrimitiveFailed(f"the jump onto the log did not leave the ground ({describe(situation.body)})")
        previous = None
        for _ in range(AIR_STEPS):
            body = situation.body
            above = body.feet_y_m > self.target[1] + CLEARANCE_M
            on_top = abs(body.feet_y_m - self.target[1]) < ON_TOP_M and previous is not None and \
                abs(body.feet_y_m - previous) < 0.02
            distance = body.horizontal_distance_m(self.target)
            if on_top and distance < 0.5:
                return
            if body.feet_y_m < take_off + 0.05 and previous is not None and body.feet_y_m < previous:
                raise PrimitiveFailed(f"came down short of the log's top {self.target[1]:.2f} m ({describe(body)})")
            previous = body.feet_y_m
            ahead = distance * math.cos(body.yaw_error_rad(self.target))
            forward = float(max(-1.0, min(1.0, ahead / WALK_PER_STEP_M))) if (above or on_top) else 0.0
            yield action(move_forward=forward)
        raise PrimitiveFailed(f"not on the log's top after {AIR_STEPS} steps ({describe(situation.body)})")


def bridge_primitives(route: Route) -> list[Primitive]:
    """The primitives of a bridge route: :func:`route_primitives`, the jump onto the log a :class:`MountLog`."""
    primitives = route_primitives(route)
    return [MountLog(primitive.target) if primitive.name == "jump" else primitive for primitive in primitives]


class LogBridgeFollower(RouteFollower):
    """Follows a bridge route over the logs of ``world`` (see the module doc), then eats the food."""

    def __init__(self, world: World, route: Route) -> None:
        super().__init__(bridged_world(world), route, foods=world.food)
        self._primitives = bridge_primitives(route) + self._primitives[len(route_primitives(route)):]
