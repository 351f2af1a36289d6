extends Reference
# The episode's achievements (the names of res://generated/protocol.gd's ACHIEVEMENTS): what the
# agent has done at least once. Every part of the agent's mechanics, the animals and the energy
# account unlock them; the simulation rewrites their feature only after an unlock.

var unlocked = {}  # name -> true
var version = 0  # counts unlocks


func unlock(name):
	if not unlocked.has(name):
		unlocked[name] = true
		version += 1


func has(name):
	return unlocked.has(name)
