extends Reference
# Impact speeds of one RigidBody, read from its physics contacts (Bullet, STEPS_PER_SECOND).
# The owner calls `contacts(state)` from `_integrate_forces` (it needs contacts_reported > 0).
#
# Impact speed: the relative speed of the two bodies along the contact normal just before the
# physics step in which they touched. The state's velocity inside `_integrate_forces` is already
# the velocity after that step (the collision is resolved), so each body remembers the velocity it
# had going into the step (`velocity_before_step`); another body that has this helper (food, tools)
# is asked for its own, any other body (static ground, boxes) counts as still.

var _frame = -1  # physics frame of the last `contacts` call
# Velocities going into the last two steps, newest first: contacts from continuous collision
# detection are reported a step late, after it has already slowed the body down to where it hit.
var _before = [Vector3.ZERO, Vector3.ZERO]
var _latest = Vector3.ZERO  # velocity the body has now (going into the next step)


# The velocity the body had going into the last physics step (age 0) or the one before (age 1).
func velocity_before_step(age = 0):
	if _frame == Engine.get_physics_frames():
		return _before[age]
	return _latest if age == 0 else _before[0]


# After a teleport or a hand release: the body starts over with `velocity`.
func reset(velocity):
	_frame = -1
	_before = [velocity, velocity]
	_latest = velocity


# [{"collider": Object, "speed": float, "own_velocity": Vector3, "normal": Vector3}] for each
# contact the state reports this physics frame; `speed` and `own_velocity` are the larger of the
# last two steps'.
func contacts(state):
	var frame = Engine.get_physics_frames()
	if frame != _frame:
		_before = [_latest, _before[0]]
		_frame = frame
	var result = []
	for i in range(state.get_contact_count()):
		var collider = state.get_contact_collider_object(i)
		var normal = state.get_contact_local_normal(i).normalized()
		var speed = 0.0
		for age in range(2):
			var other_velocity = Vector3.ZERO
			if collider is RigidBody and collider.mode == RigidBody.MODE_KINEMATIC:  # held and swung
				other_velocity = state.get_contact_collider_velocity_at_position(i)
			elif collider != null and collider.has_method("velocity_before_step"):
				other_velocity = collider.velocity_before_step(age)
			elif collider is RigidBody and collider.mode == RigidBody.MODE_RIGID:
				other_velocity = state.get_contact_collider_velocity_at_position(i)
			speed = max(speed, abs((_before[age] - other_velocity).dot(normal)))
		var own = _before[0] if _before[0].length() >= _before[1].length() else _before[1]
		result.append({"collider": collider, "speed": speed, "own_velocity": own, "normal": normal})
	_latest = state.linear_velocity
	return result
