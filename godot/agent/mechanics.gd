extends Reference
# The agent's game mechanics (Appendix B of the paper), one part per responsibility: what the
# hands hold (agent/holds.gd: grasping, carrying, throwing, climbing holds, eating), what the agent
# does to loose items (agent/loose_items.gd: pushing, thrown items' hits, stacking) and the
# achievements (agent/achievements.gd); here, what concerns the whole body: fall landings,
# climbing on the holds, the movement work of equations 3-5, and the order of a step. The player
# (agent/player.gd) moves the body and hands; this follows them. Documented in docs/mechanics.md;
# every constant comes from avalon/rules/mechanics.py.

const Protocol = preload("res://generated/protocol.gd")
const Achievements = preload("res://agent/achievements.gd")
const Holds = preload("res://agent/holds.gd")
const LooseItems = preload("res://agent/loose_items.gd")

const MASSES = [Protocol.BODY_MASS_KG, Protocol.HEAD_MASS_KG, Protocol.HAND_MASS_KG, Protocol.HAND_MASS_KG]

var player
var achievements = Achievements.new()
var loose_items
var holds
var landing_speed_squared = 0.0  # vertical landing speed squared this step (0 when no landing)
var airborne = false
var apex = 0.0  # highest body height since last supported (exact for jumps: see on_jump)
var last_standing_y = 0.0
var work = 0.0  # equations 3-5 this step, before C_move
var work_positions = []
var work_velocities = []


func _init(owner):
	player = owner
	loose_items = LooseItems.new(owner, achievements)
	holds = Holds.new(owner, achievements, loose_items)


func on_spawn():
	var y = player.body.global_transform.origin.y
	apex = y
	last_standing_y = y
	airborne = false
	holds.on_spawn()
	work_positions = _work_positions()
	work_velocities = [Vector3.ZERO, Vector3.ZERO, Vector3.ZERO, Vector3.ZERO]


func begin_step():
	landing_speed_squared = 0.0
	holds.begin_step()


# After the hands moved (`closed`: whether each hand is closing): the holds' step, then the
# movement work.
func end_step(closed, dt):
	holds.end_step(closed, dt)
	work = _movement_work(dt)


# After the physics step: hits and stacking of released items, a held item's hit, an opened food.
func after_physics(dt):
	loose_items.after_physics(dt)
	if not achievements.has("hit"):
		holds.detect_held_hit()
	if not achievements.has("open_food") and player.get_tree().has_group("opened_food"):
		achievements.unlock("open_food")  # a food that must be opened was (entities/food.gd)


# ---- Falls ------------------------------------------------------------------------------------

func on_jump(speed):
	achievements.unlock("jump")
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


# ---- Climbing ---------------------------------------------------------------------------------

# While a hand holds a climbable surface it stays at its world anchor (holds.keep_anchored) and its
# commanded motion moves the body the opposite way (gravity is suspended while hanging).
func hang(hand_rates, dt):
	var body = player.body
	var origin = body.global_transform.origin
	var basis = body.global_transform.basis
	var target = Vector3.ZERO
	var count = 0
	for i in range(2):
		if holds.is_anchored(i):
			var local = player.reach_clamped(i, player.hand_positions[i] + hand_rates[i] * Protocol.MAX_HAND_SPEED_M_PER_S * dt)
			target += holds.held[i].anchor - basis.xform(local)
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
		achievements.unlock("climb_2m")


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
