extends Reference
# Collision layer bits beyond Godot's default layer 1 (bit 0), which every body keeps so that
# collisions are unchanged. Extra bits only let shape queries skip what they do not look for.

const MOVABLE_ITEM_BIT = 1  # food and tools: the bodies the agent can push, carry or throw
const MOVABLE_ITEM_MASK = 1 << MOVABLE_ITEM_BIT
