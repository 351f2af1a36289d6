"""A route from the spawn to a food: what a solvability certificate finds and a scripted agent follows.

A :class:`Route` is a sequence of :class:`RouteStep`: each moves the agent's feet from where the
previous step ended to ``target`` (world metres, y up) with one skill. The certificate
(:mod:`avalon.tasks.kit.routes`) finds one in a World spec from the agent's measured capabilities
(:mod:`avalon.rules.mechanics`); a scripted agent (:mod:`avalon.agent.scripted`) turns each step
into actions.
"""

from __future__ import annotations

import attr

from avalon.errors import float_triple

#: The skills a route step may use. ``walk``: over ground the body can walk on; ``jump``: a running
#: jump across a gap or up onto a ledge; ``climb``: hand over hand up (or down) a climbable surface;
#: ``fall``: stepping off an edge and falling (within the safe fall height, unless a task allows damage);
#: ``push``: pushing the item nearest the feet (one too heavy to lift) until it stands at ``target``
#: (the ground under its centre); the searches do not use it, object tasks' routes do.
SKILLS = ("walk", "jump", "climb", "fall", "push")


def _check_skill(instance, attribute, value) -> None:
    if value not in SKILLS:
        raise ValueError(f"RouteStep.skill={value!r}: expected one of {SKILLS}")


@attr.s(frozen=True, auto_attribs=True)
class RouteStep:
    """Move the feet to ``target`` (x, y, z metres) using ``skill``."""

    skill: str = attr.ib(validator=_check_skill)
    target: tuple[float, float, float] = attr.ib(converter=float_triple)


@attr.s(frozen=True, auto_attribs=True)
class Route:
    """Steps from ``start`` (the spawn's feet) to the last step's target (beside the food)."""

    start: tuple[float, float, float] = attr.ib(converter=float_triple)
    steps: tuple[RouteStep, ...] = attr.ib(converter=tuple)

    def skills(self) -> frozenset[str]:
        """The skills the route uses."""
        return frozenset(step.skill for step in self.steps)
