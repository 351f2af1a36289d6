extends Reference
# The agent's game mechanics (Appendix B of the paper): grasping, carrying, throwing and
# climbing with the hands; eating; fall landings; the movement work of equations 3-5; and the
# achievements. The player (agent/player.gd) moves the body and hands; this follows them.
# Documented in docs/mechanics.md; every constant comes from avalon/rules/mechanics.py.

const Protocol = preload("res://generated/protocol.gd")
const Grasp = preload("res://agent/grasp.gd")

const HIT_VELOCITY_CHANGE_FRACTION = 0.5  # a thrown item whose velocity changes this much (beyond gravity) hit something
const REST_SPEED_M_PER_S = 0.05  # a released item slower than this has come to rest
const SETTLE_FRAMES = 3  # ...after this many frames (Bullet applies no gravity for a step or two after a release)
const WATCH_FRAMES = 100  # released items are watched this long for hits and stacking
const PUSH_SPEED_M_PER_S = 0.05  # the body or a hand moving into an unheld item this fast pushes it
const PUSH_MAX_NORMAL_Y = 0.7  # contacts steeper than this (about 45 degrees) are the body resting on the item
const RELEASE_GRACE_FRAMES = 5  # an item the agent let go of is not "pushed" by it this soon after
const MK_CLIMB_PULL_TO_Y_M = -0.2  # mouse and keyboard: a climbing pull brings the hold this far below the feet
const SLIP_MARGIN_M = 0.2  # a hold beyond arm's reach by more than this slips
const MASSES = [Protocol.BODY_MASS_KG, Protocol.HEAD_MASS_KG, Protocol.HAND_MASS_KG, Protocol.HAND_MASS_KG]

var player
var held = [null, null]  # per hand: {"item": RigidBody or null (a climbing hold), "anchor", "offset", "start"}
var hand_velocity = [Vector3.ZERO, Vector3.ZERO]  # world frame, over the last step
var previous_hand_origin = [Vector3.ZERO, Vector3.ZERO]
var achievements = {}  # name -> true, for the episode
var achievements_version = 0  # counts unlocks, so the features are rewritten only after one
var landing_speed_squared = 0.0  # vertical landing speed squared this step (0 when no landing)
var eaten = []  # foods eaten this step: [{"kind", "energy"}]
var airborne = false
var apex = 0.0  # highest body height since last supported (exact for jumps: see on_jump)
var last_standing_y = 0.0
var watched = []  # released items: [{"item", "velocity", "frames"}]
var work = 0.0  # equations 3-5 this step, before C_move
var work_positions = []
var work_velocities = []
var grasp_query = PhysicsShapeQueryParameters.new()  # reused: a new shape per query costs Bullet an allocation
var grasp_shape = SphereShape.new()


func _init(owner):
	player = owner
	grasp_shape.radius = Protocol.HAND_RADIUS_M + Protocol.GRASP_REACH_M
	grasp_query.set_shape(grasp_shape)


func on_spawn():
	var y = player.body.global_transform.origin.y
	apex = y
	last_standing_y = y
	airborne = false
	for i in range(2):
		previous_hand_origin[i] = player.hands[i].global_transform.origin
	work_positions = _work_positions()
	work_velocities = [Vector3.ZERO, Vector3.ZERO, Vector3.ZERO, Vector3.ZERO]


func unlock(name):
	if not achievements.has(name):
		achievements[name] = true
		achievements_version += 1


func is_grasping(i):
	return held[i] != null


func is_anchored(i):
	return held[i] != null and held[i].item == null


func is_hanging():
	return is_anchored(0) or is_anchored(1)


func begin_step():
	landing_speed_squared = 0.0
	eaten = []


# ---- Falls ------------------------------------------------------------------------------------

func on_jump(speed):
	unlock("jump")
	apex = player.body.global_transform.origin.y + speed * speed / (2.0 * Protocol.GRAVITY_M_PER_S2)
	airborne = true


# After the body moved: a landing's vertical speed follows exactly from free fall,
# v^2 = 2 g (apex - landing height), so 10 Hz stepping does not quantise the fall damage.
func after_body_motion(on_floor):
	var y = player.body.global_transform.origin.y
	if on_floor:
		if airborne:
			landing_speed_squared = 2.0 * Protocol.GRAVITY_M_PER_S2 * max(0.0, apex - y)
		airborne = false
		apex = y
		last_standing_y = y
	else:
		airborne = true
		apex = max(apex, y)


# ---- Pushing ----------------------------------------------------------------------------------

# The body walked into loose items (the slide collisions of its last move): each is shoved.
func push_items(walk_velocity):
	var body = player.body
	for i in range(body.get_slide_count()):
		var collision = body.get_slide_collision(i)
		shove(collision.collider, collision.normal, walk_velocity)


# The body or a hand moving at `velocity` (world frame) ran into `item` (contact `normal`, pointing
# out of the item): a loose item is shoved horizontally so that it moves away at least as fast as
# the part was moving into it, whatever its mass (the agent pushes as if of infinite inertia, but
# only sideways: from above, items bear the agent's weight, and a hand pressing down on an item
# does not drive it into the ground).
func shove(item, normal, velocity):
	if not item is RigidBody or item.mode != RigidBody.MODE_RIGID or abs(normal.y) > PUSH_MAX_NORMAL_Y:
		return
	var direction = Vector3(-normal.x, 0.0, -normal.z).normalized()
	var shortfall = velocity.dot(direction) - item.linear_velocity.dot(direction)
	if shortfall > 0.0:
		item.sleeping = false
		item.apply_central_impulse(direction * shortfall * item.mass)
	if velocity.dot(direction) >= PUSH_SPEED_M_PER_S and not _just_released(item):
		unlock("push")  # (not the hand that just let it go, drawing back from it)


# ---- Climbing ---------------------------------------------------------------------------------

# While a hand holds a climbable surface it stays at its world anchor and its commanded motion
# moves the body the opposite way (gravity is suspended while hanging).
func hang(hand_rates, dt):
	var body = player.body
	var origin = body.global_transform.origin
	var basis = body.global_transform.basis
	var target = Vector3.ZERO
	var count = 0
	for i in range(2):
		if is_anchored(i):
			var local = player.reach_clamped(i, player.hand_positions[i] + hand_rates[i] * Protocol.MAX_HAND_SPEED_M_PER_S * dt)
			target += held[i].anchor - basis.xform(local)
			count += 1
	target /= count
	player.vertical_speed = 0.0
	body.move_and_slide((target - origin) / dt, Vector3.UP, true)
	var y = body.global_transform.origin.y
	if body.is_on_floor():
		last_standing_y = y
	airborne = true  # a fall after letting go starts here
	apex = y
	if y - last_standing_y >= Protocol.CLIMB_ACHIEVEMENT_M:
		unlock("climb_2m")


func keep_anchored(i):
	var hand = player.hands[i]
	var anchor = held[i].anchor
	hand.global_transform.origin = anchor
	player.hand_positions[i] = player.body.global_transform.xform_inv(anchor)
	player.hand_colliding[i] = true
	if player.reach_clamped(i, player.hand_positions[i]).distance_to(player.hand_positions[i]) > SLIP_MARGIN_M:
		held[i] = null  # the body was blocked while the hand kept pulling: the hold slips


# ---- Grasping, carrying, throwing, eating ----------------------------------------------------

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
			hold.item.global_transform = player.hands[i].global_transform * hold.offset
			if hold.item.global_transform.origin.distance_to(hold.start) >= Protocol.CARRY_ACHIEVEMENT_M:
				unlock("carry_20m")
	for i in range(2):
		if not closed[i] and held[i] != null:
			release(i)
	for i in range(2):
		if closed[i] and held[i] == null:
			_try_grasp(i)
	_eat()
	work = _movement_work(dt)


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
		unlock("hit")  # swung (or carried at a run) into something: it stops the item short of overlapping
	return fraction


func _try_grasp(i):
	var hand = player.hands[i]
	var space = hand.get_world().direct_space_state
	grasp_query.exclude = agent_and_held_rids()  # not from the other hand
	var target = Grasp.find_target(space, grasp_query, hand.global_transform.origin)
	if target.has("item"):
		var item = target.item
		item.mode = RigidBody.MODE_KINEMATIC
		_set_exceptions(item, true)
		held[i] = {"item": item, "anchor": Vector3.ZERO, "start": item.global_transform.origin,
				"offset": hand.global_transform.affine_inverse() * item.global_transform}
		for w in watched:
			if w.item == item:
				watched.erase(w)
				break
		if item.has_method("on_grasped"):
			item.on_grasped()
		unlock("grasp")
	elif target.has("surface"):
		held[i] = {"item": null, "anchor": hand.global_transform.origin, "start": Vector3.ZERO, "offset": Transform()}
		unlock("grasp")


# Opening the hand: an item keeps the hand's velocity (a throw when fast enough).
func release(i):
	var hold = held[i]
	held[i] = null
	if hold == null or hold.item == null or not is_instance_valid(hold.item):
		return
	var item = hold.item
	_set_exceptions(item, false)
	item.mode = RigidBody.MODE_RIGID
	item.sleeping = false
	item.linear_velocity = hand_velocity[i]
	item.angular_velocity = Vector3.ZERO
	if item.has_method("on_released"):
		item.on_released()
	var thrown = hand_velocity[i].length() >= Protocol.THROW_MIN_SPEED_M_PER_S
	if thrown:
		unlock("throw")
	watched.append({"item": item, "velocity": hand_velocity[i], "frames": 0, "thrown": thrown})


func _set_exceptions(item, add):
	for node in [player.body, player.hands[0], player.hands[1]]:
		if add:
			node.add_collision_exception_with(item)
			item.add_collision_exception_with(node)
		else:
			node.remove_collision_exception_with(item)
			item.remove_collision_exception_with(node)


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
		unlock("eat")
		unlock("eat_" + kind)


# ---- After the physics step: hits, stacking ----------------------------------------------------

func after_physics(dt):
	var gravity_step = Vector3(0.0, -Protocol.GRAVITY_M_PER_S2 * dt, 0.0)
	var still_watched = []
	for w in watched:
		var item = w.item
		if not is_instance_valid(item) or item.mode != RigidBody.MODE_RIGID:
			continue
		var velocity = item.linear_velocity
		var speed_before = w.velocity.length()
		if w.thrown and speed_before >= Protocol.HIT_MIN_SPEED_M_PER_S and (velocity - (w.velocity + gravity_step)).length() > HIT_VELOCITY_CHANGE_FRACTION * speed_before:
			unlock("hit")
		w.velocity = velocity
		w.frames += 1
		if w.frames > SETTLE_FRAMES and velocity.length() < REST_SPEED_M_PER_S:
			if item.is_in_group("stone") and _rests_on_stone(item):
				unlock("stack")
			continue
		if w.frames < WATCH_FRAMES:
			still_watched.append(w)
	watched = still_watched
	if not achievements.has("hit"):
		_detect_held_hit()
	if not achievements.has("open_food") and player.get_tree().has_group("opened_food"):
		unlock("open_food")  # a food that must be opened was (entities/food.gd)


# A held item swung (or carried at a run) into something at HIT_MIN_SPEED_M_PER_S or more.
func _detect_held_hit():
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
					unlock("hit")
					return


func _just_released(item):
	for w in watched:
		if w.item == item:
			return w.frames < RELEASE_GRACE_FRAMES
	return false


func _rests_on_stone(item):
	var origin = item.global_transform.origin
	var space = item.get_world().direct_space_state
	var hit = space.intersect_ray(origin, origin + Vector3(0.0, -2.0, 0.0), [item.get_rid()])
	return not hit.empty() and hit.collider != null and hit.collider.is_in_group("stone")


# ---- Movement work (equations 3-5 of Appendix B) ---------------------------------------------

# Body in the world frame; head and hands relative to the body (the head pays only potential).
func _work_positions():
	var body_transform = player.body.global_transform
	var inverse = body_transform.affine_inverse()
	return [body_transform.origin, inverse.xform(player.head.global_transform.origin),
			inverse.xform(player.hands[0].global_transform.origin), inverse.xform(player.hands[1].global_transform.origin)]


func _movement_work(dt):
	var now = _work_positions()
	var total = 0.0
	for part in range(4):
		var velocity = (now[part] - work_positions[part]) / dt  # mean velocity over the last step
		var velocity_change = velocity - work_velocities[part]
		var height_change = now[part].y - work_positions[part].y
		if part != 1:
			total += Protocol.KINETIC_COEFFICIENT * MASSES[part] * max(0.0, velocity.dot(velocity_change))
		total += Protocol.POTENTIAL_COEFFICIENT * MASSES[part] * Protocol.GRAVITY_M_PER_S2 * max(0.0, height_change)
		work_velocities[part] = velocity
	work_positions = now
	return total


# ---- Mouse and keyboard ----------------------------------------------------------------------

# Translates a mouse-and-keyboard action into the equivalent VR action (docs/mechanics.md).
func mouse_keyboard_to_vr(mk):
	var vr = []
	vr.resize(Protocol.VR_ACTION_SIZE)
	for k in range(Protocol.VR_ACTION_SIZE):
		vr[k] = 0.0
	vr[Protocol.VR_HEAD_POSITION + 2] = -mk[Protocol.MOUSE_KEYBOARD_MOVE_FORWARD]  # ignored while hanging (climbing pulls instead)
	vr[Protocol.VR_HEAD_ROTATION] = mk[Protocol.MOUSE_KEYBOARD_HEAD_PITCH]
	vr[Protocol.VR_HEAD_ROTATION + 1] = mk[Protocol.MOUSE_KEYBOARD_HEAD_YAW]
	vr[Protocol.VR_JUMP] = 1.0 if mk[Protocol.MOUSE_KEYBOARD_JUMP] >= 0.5 else 0.0
	var eat = mk[Protocol.MOUSE_KEYBOARD_EAT] >= 0.5
	var crouch = false
	var look = _look_target()
	var step = Protocol.MAX_HAND_SPEED_M_PER_S * Protocol.STEP_SECONDS
	for i in range(2):
		var grasp = mk[Protocol.MOUSE_KEYBOARD_LEFT_GRASP + i] >= 0.5
		var throw = mk[Protocol.MOUSE_KEYBOARD_LEFT_THROW + i] >= 0.5
		var hold = held[i]
		var rate = Vector3.ZERO
		if throw and hold != null and hold.item != null:
			rate = Vector3(0.0, 0.5, -1.0).normalized()  # swing forward and up at full speed, then open
			grasp = false
		elif eat and hold != null and hold.item != null and hold.item.is_in_group("food"):
			rate = _rate_toward(player.hand_positions[i], Vector3(0.0, player.head_height, 0.0), step)
		elif hold != null and hold.item == null:
			# Climbing: forward pulls the holding hand down and back toward the body (crouching, so
			# the hold can pass the feet): the body rises. Backward lets the body down.
			var forward = mk[Protocol.MOUSE_KEYBOARD_MOVE_FORWARD]
			var hand = player.hand_positions[i]
			if forward > 0.0:
				rate = _rate_toward(hand, Vector3(hand.x, MK_CLIMB_PULL_TO_Y_M, 0.0), step) * forward
				crouch = true
			elif forward < 0.0:
				rate = Vector3(0.0, -forward, 0.0)
		elif hold != null:
			rate = _rate_toward(player.hand_positions[i], player.rest_position(i), step)
		elif grasp:
			rate = _rate_toward(player.hand_positions[i], look, step)
			crouch = crouch or look.y < player.shoulder_height() - 0.8 * Protocol.ARM_REACH_M
		else:
			rate = _rate_toward(player.hand_positions[i], player.rest_position(i), step)
		var offset = Protocol.VR_LEFT_HAND_POSITION if i == 0 else Protocol.VR_RIGHT_HAND_POSITION
		for k in range(3):
			vr[offset + k] = rate[k]
		vr[Protocol.VR_LEFT_GRASP + i] = 1.0 if grasp else 0.0
	var head_target = Protocol.HEAD_MIN_HEIGHT_M if crouch else Protocol.HEAD_DEFAULT_HEIGHT_M
	vr[Protocol.VR_HEAD_POSITION + 1] = clamp((head_target - player.head_height) / (Protocol.MAX_HEAD_VERTICAL_SPEED_M_PER_S * Protocol.STEP_SECONDS), -1.0, 1.0)
	return vr


static func _rate_toward(from, to, step):
	var rate = (to - from) / step
	return rate.normalized() if rate.length() > 1.0 else rate


# Where the camera looks (body frame): the first surface along its axis within arm's reach
# of the shoulders plus a step, else the point at that distance.
func _look_target():
	var camera = player.head.global_transform
	var forward = -camera.basis.z
	var distance = Protocol.ARM_REACH_M + 1.0
	var space = player.body.get_world().direct_space_state
	var hit = space.intersect_ray(camera.origin, camera.origin + forward * distance, player.own_rids())
	var point = hit.position if not hit.empty() else camera.origin + forward * distance
	return player.body.global_transform.xform_inv(point)
