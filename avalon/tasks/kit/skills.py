"""The skills a route may use and a certificate may require or allow: one vocabulary for the
reachability search, routes, certificates and the scripted agents. Some share a task's name
(``jump``, ``climb``, ``push``); code names them through these constants."""

#: The skills a route step may use. ``walk``: over ground the body can walk on; ``jump``: a running
#: jump across a gap or up onto a ledge; ``climb``: hand over hand up (or down) a climbable surface;
#: ``fall``: stepping off an edge and falling (within the safe fall height, unless a task allows damage);
#: ``push``: pushing the item nearest the feet (one too heavy to lift) until it stands at ``target``
#: (the ground under its centre); the searches do not use it, object tasks' routes do.
SKILLS = ("walk", "jump", "climb", "fall", "push")
#: The skills by name, for code that requires or allows one (some share a task's name).
WALK, JUMP, CLIMB, FALL, PUSH = SKILLS
