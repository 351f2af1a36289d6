"""The kit every task leans on, one responsibility per module (see ``docs/tasks/``):

- :mod:`~avalon.tasks.kit.spec`: :class:`TaskSpec`, what a task module declares for the registry;
- :mod:`~avalon.tasks.kit.curves`: :class:`Ramp` and :class:`Band`, the entries of each task's
  table of difficulty curves;
- :mod:`~avalon.tasks.kit.geometry`: distances, headings and ground queries on the terrain's
  triangle mesh (height, slope, walkability, reachability);
- :mod:`~avalon.tasks.kit.sight`: what can be seen from the spawn (terrain and plant occluders);
- :mod:`~avalon.tasks.kit.sites`: where things may go, and the one loop that tries random sites
  until one fits;
- :mod:`~avalon.tasks.kit.assembly`: the outdoor task config, random streams, the island, and
  building the ``World`` (fruit tree, scenery, food, spawn, lighting) with its guarantees;
- :mod:`~avalon.tasks.kit.altar`: food on a stone altar in front of the agent;
- :mod:`~avalon.tasks.kit.chasm`, :mod:`~avalon.tasks.kit.log`, :mod:`~avalon.tasks.kit.causeway`:
  the chasm piece's geometry (jump, bridge, move), a log laid across it (bridge, carry), and a
  causeway across it (move);
- :mod:`~avalon.tasks.kit.carrying`: what carry's variants share (``CarryVariant``, the items'
  footprints and checks); :mod:`~avalon.tasks.kit.carried_log`,
  :mod:`~avalon.tasks.kit.carried_stones`, :mod:`~avalon.tasks.kit.carried_tools`: the variants
  each base task's spec names (``TaskSpec.carry_variant``).

:class:`ImpossibleWorldError` is the one error a generator raises to ask the registry for another
seed. Every module of ``avalon/tasks`` outside this package is a task.
"""


class ImpossibleWorldError(Exception):
    """The random draws gave a world that cannot keep the task's guarantees; retry with another seed."""
