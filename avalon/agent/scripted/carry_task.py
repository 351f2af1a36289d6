"""The follower of ``carry`` worlds: its base task's follower, told where the base task uses the items.

A carry world is a base task's world whose items lie away from their place of use
(:mod:`avalon.tasks.carry`); its route is the base certificate's. For a bridge world the
:class:`~avalon.agent.scripted.bridge.LogBridgeFollower` with the base layout (where the log goes
across the trench, the chasm's centre) fetches the log from where carry put it along the ring
(:class:`~avalon.agent.scripted.bridge.LayLogAcross`), lays it across and crosses. Stack's stones
(35 kg, 1.33 m) are grasped but not carried by the scripted agent yet (docs/tasks/, stack), so a
stack world gets the plain :class:`~avalon.agent.scripted.follower.RouteFollower` of its route,
which cannot climb the staircase the stones would make. A throw world gets the
:class:`~avalon.agent.scripted.throw.ThrowFollower`, which reads the rocks where carry put them
from the World spec: it walks to the nearest, grasps it, carries it to its throwing spot short of
the prey, throws, and fetches the next if it missed. A fight world gets the
:class:`~avalon.agent.scripted.avoid.AvoidFollower`, as fight itself does at low difficulty: it
walks round the guards and eats, and does not carry (nor use) the tools.
"""

from __future__ import annotations

from typing import Optional

from avalon.agent.scripted.avoid import AvoidFollower
from avalon.agent.scripted.bridge import LogBridgeFollower
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.throw import ThrowFollower
from avalon.datagen.world import World
from avalon.tasks import carry as carry_task
from avalon.tasks.kit.route import Route


def carry_follower(world: World, route: Route, layout: Optional[carry_task.CarryLayout] = None) -> RouteFollower:
    """The follower of ``route`` in the carry ``world`` (``layout``: default ``carry.layout_of(world)``)."""
    layout = carry_task.layout_of(world) if layout is None else layout
    if layout.variant.base_task == "bridge":
        return LogBridgeFollower(world, route, layout.base)
    if layout.variant.base_task == "throw":
        return ThrowFollower(world, route)
    if layout.variant.base_task == "fight":
        return AvoidFollower(world, route)
    return RouteFollower(world, route)
