"""What ``entities/animals/animal.gd`` and its native ``AnimalBody`` (``native/animal_mind.c``,
``native/animal_body.c``) tell each other: the bits a step returns and the questions the body asks
the script. Codegen writes them into ``godot/generated/protocol.gd`` and
``native/generated/animal_interface.h`` (one source; see docs/native.md).
"""

from __future__ import annotations

#: Bits of what an animal's step leaves to its script (``think`` and ``resume`` return them), or to
#: the body's own next stage (MOVE_REFUSED, MOVE_EYE_NEAR).
STEP_BITS: dict[str, int] = {
    "MOVE_REFUSED": 1,  # the step was refused (water, too steep): a wanderer picks a new target
    "MOVE_QUERY": 2,  # move it with move_and_slide at query_velocity(), then resume
    "MOVE_EYE_NEAR": 4,  # the eye is near enough to its origin that it may see through its mesh
    "THINK_ESCAPED": 8,  # a predator stopped chasing the agent: escaped_<species>
    "THINK_ATTACKED": 16,  # it attacked: the agent loses its attack_damage
    "THINK_KNOCK_OUT": 32,  # it dies of its own attack (a bee's sting): knock it out
    "THINK_SIDES": 64,  # it is to be drawn one-sided, or (with THINK_TWO_SIDED) two-sided
    "THINK_TWO_SIDED": 128,
}

#: What the body asks its script (``animal.gd``: ``_answer``), of what only the scene or the
#: animal's random generator knows.
QUESTIONS: dict[str, int] = {
    "ASK_SEES_ME": 1,  # does the agent see it (camera view, line of sight)?
    "ASK_SEES_AGENT": 2,  # does it see the agent (its field of view, line of sight)?
    "ASK_LINE_TO_HEAD": 3,  # is the line from it to the agent's head clear?
    "ASK_NEW_TARGET": 4,  # a wanderer's next target (Vector3)
}
