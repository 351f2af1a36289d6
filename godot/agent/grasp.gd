extends Reference
# What a closing hand can hold: the nearest graspable item (a RigidBody in group "graspable" or
# "food") or climbable surface (terrain where it is climbable, tree trunks, boxes in group
# "climbable") within GRASP_REACH_M of the hand's surface. Unclimbable surfaces cannot be held.

const Protocol = preload("res://generated/protocol.gd")

const MAX_CANDIDATES = 16


# Returns {"item": RigidBody} or {"surface": node}, or {} when nothing within reach can be held.
# `query` holds a sphere of radius HAND_RADIUS_M + GRASP_REACH_M and the bodies to exclude.
static func find_target(space, query, hand_position):
	query.transform = Transform(Basis(), hand_position)
	var best_item = null
	var best_distance = INF
	var surface = null
	for hit in space.intersect_shape(query, MAX_CANDIDATES):
		var collider = hit.collider
		if collider == null:
			continue
		if collider is RigidBody and (collider.is_in_group("graspable") or collider.is_in_group("food")):
			if collider.mass > Protocol.MAX_LIFT_MASS_KG:
				continue  # too heavy to lift: it can only be pushed
			if collider.has_method("can_grasp_at") and not collider.can_grasp_at(hand_position):
				continue
			var distance = collider.global_transform.origin.distance_to(hand_position)
			if distance < best_distance:
				best_distance = distance
				best_item = collider
		elif surface == null and is_climbable(collider, hand_position):
			surface = collider
	if best_item != null:
		return {"item": best_item}
	if surface != null:
		return {"surface": surface}
	return {}


static func is_climbable(collider, position):
	if collider.is_in_group("climbable") or collider.is_in_group("trees"):
		return true
	if collider.is_in_group("terrain"):
		var terrain = collider.get_parent()
		while terrain != null and not terrain.has_method("is_climbable"):
			terrain = terrain.get_parent()
		return terrain != null and terrain.is_climbable(position.x, position.z)
	return false
