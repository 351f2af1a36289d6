"""Running a scripted agent through one episode of an env."""

from __future__ import annotations

from typing import Any, Optional

import attr

from avalon.agent.scripted.follower import FollowResult, RouteFollower


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ScriptedEpisode:
    """One episode of a scripted agent: how it ended and how far the agent got."""

    #: The env's ``success`` (every food eaten).
    success: bool
    #: Steps taken.
    steps: int
    terminated: bool
    truncated: bool
    follow: FollowResult
    #: The last step's ``info``.
    info: dict[str, Any] = attr.ib(repr=False)


def run_episode(env, agent: RouteFollower, seed: Optional[int] = None, options: Optional[dict] = None,
                max_steps: Optional[int] = None) -> ScriptedEpisode:
    """Reset ``env`` (with ``seed`` and ``options``) and step it with ``agent``'s actions until the
    episode succeeds or ends, the agent gives up, or ``max_steps`` steps have passed."""
    observation, info = env.reset(seed=seed, options=options)
    agent.reset(observation, info)
    steps, terminated, truncated = 0, False, False
    while not (terminated or truncated or info["success"] or agent.result.finished):
        if max_steps is not None and steps >= max_steps:
            break
        observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
        steps += 1
    agent.observe(observation, info)
    return ScriptedEpisode(success=bool(info["success"]), steps=steps, terminated=terminated, truncated=truncated,
                           follow=agent.result, info=info)
