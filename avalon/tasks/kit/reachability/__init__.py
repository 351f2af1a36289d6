"""Where the feet can get on a terrain with a set of skills: a search over the height map's grid.

Every grid point is a node twice: *standing* there (index ``i = row * n + col``) and *hanging*
from a hold there (index ``N + i``, climbable points only). The edges come from
:class:`~avalon.tasks.kit.capabilities.Capabilities` and the skills allowed
(:data:`~avalon.tasks.kit.route.SKILLS`):

- ``walk``: between neighbouring points over triangles the body walks on (floor both ways, steeper
  faces uphill only up to ``walk_up_slope_deg``, steps of ``step_m`` either way);
- ``jump``: from a take-off point along 16 headings to a landing up to a jump's reach away, the
  landing's rise and the fall from the jump's apex within the limits, the terrain under the flight
  low enough (see :mod:`~avalon.tasks.kit.capabilities` for the feet's path);
- ``climb``: from standing to a climbable point within grasp, from hold to neighbouring hold at
  any height difference (holds are anywhere on the surface nearest a climbable point), from a
  hold onto floor next to it;
- ``fall``: from a point stood or hung on, sliding over ground too steep to stand on, never
  upward, to the first floor: the drop from where the fall began to the landing within the fall
  limit.

One module per part:

- :mod:`~avalon.tasks.kit.reachability.ground`: the grid (:func:`make_ground`): standing points,
  firm landings, holds, blocked and wet points, floor triangles;
- :mod:`~avalon.tasks.kit.reachability.edges`: the edge kinds and costs, walking and climbing
  edges, the fall graph;
- :mod:`~avalon.tasks.kit.reachability.jumps`: the jump edges and the terrain under their flights;
- :mod:`~avalon.tasks.kit.reachability.search`: the graph of a set of skills
  (:func:`build_graph`) and the search in rounds (:func:`search`), whose :class:`Reach` says what
  was reached, how and from where.

The certificate (:mod:`avalon.tasks.kit.certificate`) runs these searches from a World's spawn to
its food; :mod:`avalon.tasks.kit.route` turns what a search reached into a route.
"""

from avalon.tasks.kit.reachability.edges import CLIMB, EXTRA_COST_M, FALL, JUMP, START, WALK
from avalon.tasks.kit.reachability.ground import Ground, make_ground, node_point, on_floor, surface_heights
from avalon.tasks.kit.reachability.search import Graph, Reach, build_graph, search

__all__ = [
    "CLIMB",
    "EXTRA_COST_M",
    "FALL",
    "JUMP",
    "START",
    "WALK",
    "Ground",
    "make_ground",
    "node_point",
    "on_floor",
    "surface_heights",
    "Graph",
    "Reach",
    "build_graph",
    "search",
]
