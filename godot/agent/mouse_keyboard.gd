extends Reference
# The mouse-and-keyboard action space as the VR one (docs/mechanics.md, "Mouse and keyboard"):
# each mouse-and-keyboard action becomes the VR action a person would make for it, from what the
# hands hold (agent/holds.gd) and where the camera looks.

const Protocol = preload("res://generated/protocol.gd")

const MK_CLIMB_PULL_TO_Y_M = -0.2  # a climbing pull brings the hold this far below the feet

var player
var holds  # agent/holds.gd


func _init(owner, hand_holds):
	player = owner
	holds = hand_holds


# Translates a mouse-and-keyboard action into the equivalent VR action.
func to_vr(mk):
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
		var hold = holds.held[i]
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
