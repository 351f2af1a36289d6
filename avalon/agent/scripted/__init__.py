"""Scripted agents: reference policies that solve a world from its World spec.

They act in the mouse-and-keyboard space, read ``info`` (the body's world position and yaw,
food eaten, success) and the proprioceptive observation, and are given the World spec (the
ground, food, boxes, trees) and a :class:`~avalon.tasks.kit.route.Route` (steps of ``walk``,
``jump``, ``climb``, ``fall``, each with a target for the feet). Each skill is a primitive
(:mod:`~avalon.agent.scripted.primitive`: actions step by step, success or a failure that says
why, a step budget): :class:`LookAt`, :class:`TurnToFace`, :class:`WalkTo`, :class:`JumpTo`,
:class:`ClimbTo`, :class:`FallTo`, :class:`EatFood`. :class:`RouteFollower` runs one per route
step, then eats, and reports the step it failed at; :class:`ScriptedPolicy` does that episode
after episode; :func:`run_episode` drives an env with one. :func:`follower_for` and
:func:`route_for` read a world's follower and route from its task's spec (``reference_agent``,
``reference_route`` or the certificate's); :func:`task_route` builds a task's world with its route.
See docs/agent.md, "Scripted agents".

This package imports the env and the tasks, never training, evaluation or the learning code.
"""

from avalon.agent.scripted.climb import ClimbTo
from avalon.agent.scripted.eat import EatFood
from avalon.agent.scripted.episode import ScriptedEpisode, run_episode
from avalon.agent.scripted.fall import FallTo
from avalon.agent.scripted.follower import FollowResult, RouteFollower
from avalon.agent.scripted.jump import JumpTo
from avalon.agent.scripted.look import LookAt, TurnToFace
from avalon.agent.scripted.policy import ScriptedPolicy, follower_for
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, PrimitiveResult, Situation
from avalon.agent.scripted.push import JumpOnto, PushTo
from avalon.agent.scripted.task_routes import route_for, task_route, walk_route
from avalon.agent.scripted.walk import WalkTo

__all__ = [
    "ClimbTo",
    "EatFood",
    "FallTo",
    "FollowResult",
    "JumpOnto",
    "JumpTo",
    "LookAt",
    "Primitive",
    "PrimitiveFailed",
    "PrimitiveResult",
    "PushTo",
    "RouteFollower",
    "ScriptedEpisode",
    "ScriptedPolicy",
    "Situation",
    "TurnToFace",
    "WalkTo",
    "follower_for",
    "route_for",
    "run_episode",
    "task_route",
    "walk_route",
]
