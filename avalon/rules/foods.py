"""The foods of the paper's Appendix A.3 (Table 2): what exists in the game, as data."""

from __future__ import annotations

#: Every food of the paper's Appendix A.3 (Table 2) and its size: the radius, in metres, of the
#: sphere that bounds it (its centre rests this high above the ground). The apple is canonical.
FOOD_RADIUS_M: dict[str, float] = {
    "apple": 0.15,
    "banana": 0.17,  # long and thin
    "cherry": 0.09,  # dark, long stem, always several
    "mulberry": 0.08,  # smaller than the others
    "fig": 0.13,
    "orange": 0.15,
    "avocado": 0.14,
    "coconut": 0.2,
    "honeycomb": 0.16,
    "carrot": 0.2,  # mostly in the ground; pulled out by its leaves
}
FOOD_KINDS = tuple(FOOD_RADIUS_M)

#: Food hanging in a fruit tree (``hanging_food_entity``) has its lowest point this far above the
#: ground below it, metres: above the agent's 2 m body, so walking under it does not touch it, and
#: within a standing agent's reach (a hand's centre reaches 2.45 m: shoulder 1.45 m + arm 1 m; it
#: grasps what lies within 0.25 m of its centre). Dropped from there, food lands at about 6.5 m/s:
#: a fig splatters, a coconut and an avocado open, a honeycomb gets dirty.
HANGING_FOOD_CLEARANCE_M = 2.1
#: The stalk a hanging food is drawn on is at least this long, metres.
MIN_HANGING_STALK_M = 0.05
