extends Reference
# What each hand holds (Appendix B of the paper): grasping an item or a climbable surface (what a
# closing hand can take: agent/grasp.gd), carrying an item with the hand, letting it go (a throw
# when the hand moves fast enough), keeping a climbing hold, eating a food held to the mouth, and
# a held item swung into something. Documented in docs/mechanics.md; every constant comes from
# avalon/rules/mechanics.py. A door's parts (entities/doors/door_part.gd: anything with
# follow_hand) are mechanisms, not items: held, they move themselves toward the hand within their
# joint, collide with the body as before, and are never carried, thrown or eaten (docs/doors.md).

const Protocol = preload("res://generated/protocol.gd")
const Grasp = preload("res://agent/grasp.gd")

const SLIP_MARGIN_M = 0.2  # a hold beyond arm's reach by more than this slips

var player
var achievements  # agent/achievements.gd
var loose_items  # agent/loose_items.gd: watches what a hand lets go of
var held = [null, null]  # per hand: {"item": RigidBody or null (a climbing hold), "anchor", "offset", "start"}
var hand_velocity = [Vector3.ZERO, Vector3.ZERO]  # world frame, over the last step
var previous_hand_origin = [Vector3.ZERO, Vector3.ZERO]
var eaten = []  # foods eaten this step: [{"kind", "energy"}]
var grasp_query = PhysicsShapeQueryParameters.new()  # reused: a new shape per query costs Bullet an allocation
var grasp_shape = SphereShape.new()


func _init(owner, episode_achievements, items):
	player = owner
	achievements = episode_achievements
	loose_items = items
	grasp_shape.radius = Protocol.HAND_RADIUS_M + Protocol.GRASP_REACH_M
	grasp_query.set_shape(grasp_shape)


func on_spawn():
	for i in range(2):
		previous_hand_origin[i] = player.hands[i].global_transform.origin


func begin_step():
	eaten = []


func is_grasping(i):
	return held[i] != null


func is_anchored(i):
	return held[i] != null and held[i].item == null


func is_hanging():
	return is_anchored(0) or is_anchored(1)


# A hand holding a climbable surface stays at its world anchor (agent/mechanics.gd: hang moves the
# body instead).
func keep_anchored(i):
	var hand = player.hands[i]
	var anchor = held[i].anchor
	hand.global_transform.origin = anchor
	player.hand_positions[i] = player.body.global_transform.xform_inv(anchor)
	player.hand_colliding[i] = true
	if player.reach_clamped(i, player.hand_positions[i]).distance_to(player.hand_positions[i]) > SLIP_MARGIN_M:
		held[i] = null  # the body was blocked while the hand kept pulling: the hold slips


# After the hands moved: each held item follows its hand; open hands let go, closing hands take
# hold of what is within reach; a food held to the mouth is eaten.
func end_step(closed, dt):
	for i in range(2):
		var origin = player.hands[i].global_transform.origin
		hand_velocity[i] = (origin - previous_hand_origin[i]) / dt
		previous_hand_origin[i] = origin
		var hold = held[i]
		if hold != null and hold.item != null:
			if not is_instance_valid(hold.item):
				held[i] = null
				continue
			if hold.item.has_method("follow_hand"):
				if not hold.item.follow_hand(origin, _hand_rids()):
					release(i)  # held back (a limit, a lock, something in its way): the hand slips off
				continue
			hold.item.global_transform = player.hands[i].global_transform * hold.offset
			if hold.item.global_transform.origin.distance_to(hold.start) >= Protocol.CARRY_ACHIEVEMENT_M:
				achievements.unlock("carry_20m")
	for i in range(2):
		if not closed[i] and held[i] != null:
			release(i)
	for i in range(2):
		if closed[i] and held[i] == null:
			_try_grasp(i)
	_eat()


# The agent's bodies and the items it holds.
func agent_and_held_rids():
	var rids = player.own_rids()  # shared: copied before anything is added
	for hold in held:
		if hold != null and hold.item != null and is_instance_valid(hold.item):
			if rids == player.own_rids():
				rids = rids.duplicate()
			rids.append(hold.item.get_rid())
	return rids


func is_held(node):
	for hold in held:
		if hold != null and hold.item == node:
			return true
	return false


# The fraction of `motion` the item held by hand i can move before it touches something
# (1 when the hand holds no item).
func held_item_free_fraction(i, motion):
	var hold = held[i]
	if hold == null or hold.item == null or not is_instance_valid(hold.item) or motion.length() < 1e-6:
		return 1.0
	if hold.item.has_method("follow_hand"):
		return 1.0  # a mechanism moves itself as far as it can (follow_hand)
	var item = hold.item
	var exclude = agent_and_held_rids()
	var space = item.get_world().direct_space_state
	var fraction = 1.0
	for child in item.get_children():
		if child is CollisionShape and child.shape != null and not child.disabled:
			var query = PhysicsShapeQueryParameters.new()
			query.set_shape(child.shape)
			query.transform = child.global_transform
			query.exclude = exclude
			var result = space.cast_motion(query, motion)
			if result.size() == 2:
				fraction = min(fraction, result[0])
	if fraction < 1.0 and motion.length() >= Protocol.HIT_MIN_SPEED_M_PER_S * Protocol.STEP_SECONDS:
		achievements.unlock("hit")  # swung (or carried at a run) into something: it stops the item short of overlapping
	return fraction


func _try_grasp(i):
	var hand = player.hands[i]
	var space = hand.get_world().direct_space_state
	grasp_query.exclude = agent_and_held_rids()  # not from the other hand
	var target = Grasp.find_target(space, grasp_query, hand.global_transform.origin)
	if target.has("item") and target.item.has_method("follow_hand"):
		held[i] = {"item": target.item, "anchor": Vector3.ZERO, "start": target.item.global_transform.origin, "offset": Transform()}
		_set_exceptions(target.item, true, [hand])  # its joint moves it toward the hand, not through it
		target.item.grasp_mechanism(hand.global_transform.origin)
		achievements.unlock("grasp")
	elif target.has("item"):
		var item = target.item
		item.mode = RigidBody.MODE_KINEMATIC
		_set_exceptions(item, true)
		held[i] = {"item": item, "anchor": Vector3.ZERO, "start": item.global_transform.origin,
				"offset": hand.global_transform.affine_inverse() * item.global_transform}
		loose_items.forget(item)
		if item.has_method("on_grasped"):
			item.on_grasped()
		achievements.unlock("grasp")
	elif target.has("surface"):
		held[i] = {"item": null, "anchor": hand.global_transform.origin, "start": Vector3.ZERO, "offset": Transform()}
		achievements.unlock("grasp")


# Opening the hand: an item keeps the hand's velocity (a throw when fast enough).
func release(i):
	var hold = held[i]
	held[i] = null
	if hold == null or hold.item == null or not is_instance_valid(hold.item):
		return
	var item = hold.item
	if item.has_method("follow_hand"):
		_set_exceptions(item, false, [player.hands[i]])
		item.release_mechanism()
		return
	_set_exceptions(item, false)
	item.mode = RigidBody.MODE_RIGID
	item.sleeping = false
	item.linear_velocity = hand_velocity[i]
	item.angular_velocity = Vector3.ZERO
	if item.has_method("on_released"):
		item.on_released()
	var thrown = hand_velocity[i].length() >= Protocol.THROW_MIN_SPEED_M_PER_S
	if thrown:
		achievements.unlock("throw")
	loose_items.watch(item, hand_velocity[i], thrown)


func _set_exceptions(item, add, nodes = null):
	for node in nodes if nodes != null else [player.body, player.hands[0], player.hands[1]]:
		if add:
			node.add_collision_exception_with(item)
			item.add_collision_exception_with(node)
		else:
			node.remove_collision_exception_with(item)
			item.remove_collision_exception_with(node)


func _hand_rids():
	return [player.hands[0].get_rid(), player.hands[1].get_rid()]


func _eat():
	var mouth = player.head.global_transform.origin
	for i in range(2):
		var hold = held[i]
		if hold == null or hold.item == null:
			continue
		var food = hold.item
		if not food.is_in_group("food") or food.global_transform.origin.distance_to(mouth) > Protocol.EAT_DISTANCE_M:
			continue
		if food.has_method("is_edible") and not food.is_edible():
			continue
		var kind = food.get("kind")
		if kind == null or kind == "":
			kind = food.filename.get_file().get_basename()
		eaten.append({"kind": kind, "energy": float(food.energy)})
		held[i] = null
		_set_exceptions(food, false)
		food.get_parent().remove_child(food)
		food.queue_free()
		achievements.unlock("eat")
		achievements.unlock("eat_" + kind)


# After the physics step: a held item swung (or carried at a run) into something at
# HIT_MIN_SPEED_M_PER_S or more is a hit.
func detect_held_hit():
	for i in range(2):
		var hold = held[i]
		if hold == null or hold.item == null or not is_instance_valid(hold.item):
			continue
		if hand_velocity[i].length() < Protocol.HIT_MIN_SPEED_M_PER_S:
			continue
		var item = hold.item
		var exclude = player.own_rids().duplicate()
		exclude.append(item.get_rid())
		for child in item.get_children():
			if child is CollisionShape and child.shape != null:
				var query = PhysicsShapeQueryParameters.new()
				query.set_shape(child.shape)
				query.transform = child.global_transform
				query.exclude = exclude
				if not item.get_world().direct_space_state.intersect_shape(query, 1).empty():
					achievements.unlock("hit")
					return
