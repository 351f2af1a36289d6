extends Reference
# What the agent does to the items it does not hold (Appendix B of the paper): the body and the
# hands shove loose items they run into, and the items a hand let go of are watched for a while:
# a thrown one whose velocity changes beyond gravity hit something, a stone come to rest on a
# stone is stacked. Documented in docs/mechanics.md; every constant comes from
# avalon/rules/mechanics.py.

const Protocol = preload("res://generated/protocol.gd")

const HIT_VELOCITY_CHANGE_FRACTION = 0.5  # a thrown item whose velocity changes this much (beyond gravity) hit something
const REST_SPEED_M_PER_S = 0.05  # a released item slower than this has come to rest
const SETTLE_FRAMES = 3  # ...after this many frames (Bullet applies no gravity for a step or two after a release)
const WATCH_FRAMES = 100  # released items are watched this long for hits and stacking
const PUSH_SPEED_M_PER_S = 0.05  # the body or a hand moving into an unheld item this fast pushes it
const PUSH_MAX_NORMAL_Y = 0.7  # contacts steeper than this (about 45 degrees) are the body resting on the item
const RELEASE_GRACE_FRAMES = 5  # an item the agent let go of is not "pushed" by it this soon after

var player
var achievements  # agent/achievements.gd
var watched = []  # released items: [{"item", "velocity", "frames", "thrown"}]


func _init(owner, episode_achievements):
	player = owner
	achievements = episode_achievements


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
# does not drive it into the ground). A door's parts move themselves (pushed_by_agent).
func shove(item, normal, velocity):
	if item != null and item.has_method("pushed_by_agent"):  # a door's leaf or button (entities/doors/)
		item.pushed_by_agent(normal, velocity, [player.hands[0].get_rid(), player.hands[1].get_rid()])
		return
	if not item is RigidBody or item.mode != RigidBody.MODE_RIGID or abs(normal.y) > PUSH_MAX_NORMAL_Y:
		return
	var direction = Vector3(-normal.x, 0.0, -normal.z).normalized()
	var shortfall = velocity.dot(direction) - item.linear_velocity.dot(direction)
	if shortfall > 0.0:
		item.sleeping = false
		item.apply_central_impulse(direction * shortfall * item.mass)
	if velocity.dot(direction) >= PUSH_SPEED_M_PER_S and not _just_released(item):
		achievements.unlock("push")  # (not the hand that just let it go, drawing back from it)


# A hand let go of `item` at `velocity` (`thrown`: fast enough for a throw).
func watch(item, velocity, thrown):
	watched.append({"item": item, "velocity": velocity, "frames": 0, "thrown": thrown})


# A hand took hold of `item`: it is no longer watched.
func forget(item):
	for w in watched:
		if w.item == item:
			watched.erase(w)
			break


# After the physics step: the watched items' hits and stacking.
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
			achievements.unlock("hit")
		w.velocity = velocity
		w.frames += 1
		if w.frames > SETTLE_FRAMES and velocity.length() < REST_SPEED_M_PER_S:
			if item.is_in_group("stone") and _rests_on_stone(item):
				achievements.unlock("stack")
			continue
		if w.frames < WATCH_FRAMES:
			still_watched.append(w)
	watched = still_watched


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
