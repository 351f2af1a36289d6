"""The follower of ``carry`` worlds: its base task's reference agent, told the base task's layout.

A carry world is a base task's world whose items lie away from their place of use
(:mod:`avalon.tasks.carry`); its route is the base certificate's. Its follower is the base task
spec's ``reference_agent``; one that takes the keyword ``layout`` is given the base layout (where
the base task uses the items). So a bridge world's
:class:`~avalon.agent.scripted.bridge.LogBridgeFollower`, told where the log goes across the trench,
fetches the log from where carry put it along the ring, lays it across and crosses; a throw
world's :class:`~avalon.agent.scripted.throw.ThrowFollower` reads the rocks where carry put them
from the World spec, carries the nearest to its throwing spot and throws; a fight world's
:class:`~avalon.agent.scripted.avoid.AvoidFollower` walks round the guards and eats, and does not
carry (nor use) the tools; a stack world's :func:`~avalon.agent.scripted.stack.stack_follower`
finds no stone standing in the staircase's places (carry moved them) and fails at once: it does not
lift stack's 35 kg stones (docs/tasks/stack.md).
"""

from __future__ import annotations

import inspect
from typing import Optional

from avalon.agent.scripted.follower import RouteFollower
from avalon.datagen.world import World
from avalon.tasks import carry as carry_task
from avalon.tasks.kit.route import Route
from avalon.tasks.kit.spec import resolve_reference


def carry_follower(world: World, route: Route, layout: Optional[carry_task.CarryLayout] = None) -> RouteFollower:
    """The follower of ``route`` in the carry ``world`` (``layout``: default ``carry.layout_of(world)``):
    the base task's reference agent, given the base layout where it takes one (``layout=``)."""
    layout = carry_task.layout_of(world) if layout is None else layout
    base = layout.base_task.spec
    if base.reference_agent is None:
        raise ValueError(f"carry_follower: the base task {base.name!r} has no reference agent")
    make = resolve_reference(base.reference_agent)
    if "layout" in inspect.signature(make).parameters:
        return make(world, route, layout=layout.base)
    return make(world, route)
