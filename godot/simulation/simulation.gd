extends Node
# One episode at a time: owns the render viewport, the loaded world and the player.
# Each episode gets a fresh World resource, so physics and rendering state never carry over
# between episodes (determinism, and constant memory across resets).

const Protocol = preload("res://generated/protocol.gd")
const PlayerScript = preload("res://agent/player.gd")
const WorldLoader = preload("res://world/world_loader.gd")
const Animals = preload("res://entities/animals/animals.gd")
const RgbdCamera = preload("res://render/rgbd_camera.gd")

const ACTION_SIZES = {"vr": Protocol.VR_ACTION_SIZE, "mouse_keyboard": Protocol.MOUSE_KEYBOARD_ACTION_SIZE}

var viewport
var picture_viewport = null  # RENDER's: drawn only when asked, sharing the episode's World
var picture_camera = null
var resolution = 0
var action_space = "vr"
var world_root = null
var player = null
var frame = 0
var time_limit_frames = 0
var energy = Protocol.INITIAL_ENERGY
var food_total = 0
var food_eaten = 0
var last_food_frame = -1  # frame on which the last food was eaten
var energy_lost_to_falls = 0.0  # this frame
var energy_gained_from_eating = 0.0  # this frame
var energy_lost_to_attacks = 0.0  # this frame
var animals = Animals.new()  # the episode's animals
var movement_work = 0.0  # this frame, equations 3-5 before C_move
var movement_coefficient = 0.0  # C_move of Appendix B for this episode (0 in evaluation mode)
var physics_paused = false
var features = []
var written_achievements_version = -1  # the achievement flags in `features` are this version's
var terrain = null  # the world's terrain node, if it has one (levels of detail follow the player)


func setup(resolution_px, space):
	resolution = resolution_px
	action_space = space
	features.resize(Protocol.FEATURE_COUNT)
	viewport = _rgbd_viewport(resolution, Viewport.UPDATE_ALWAYS)
	viewport.world = World.new()
	add_child(viewport)


func _rgbd_viewport(size, update_mode):
	var rgbd = Viewport.new()
	rgbd.size = Vector2(size, size)
	rgbd.render_target_update_mode = update_mode
	rgbd.render_target_v_flip = false
	# Transparent background: the depth quad multiplies its encoded depth into the alpha channel,
	# which is 1 wherever geometry was drawn (the sky is a dome mesh, see world/sky_dome.gd).
	rgbd.transparent_bg = true
	rgbd.hdr = false
	rgbd.msaa = Viewport.MSAA_DISABLED
	rgbd.shadow_atlas_size = 0
	return rgbd


func action_size():
	return ACTION_SIZES[action_space]


func reset(seed_value, time_limit, movement_coefficient_value, world_dir):
	_clear_episode()
	var loaded = WorldLoader.load_world(world_dir)
	if loaded.error != "":
		return loaded.error
	seed(seed_value)
	viewport.world = World.new()
	if picture_viewport != null:
		picture_viewport.world = viewport.world  # (lets the last episode's World go)
	world_root = loaded.scene
	viewport.add_child(world_root)
	player = PlayerScript.new()
	player.name = "Player"
	viewport.add_child(player)
	player.spawn(loaded.spawn)
	var sky = world_root.get_node_or_null("SkyDome")
	if sky != null:
		sky.attach_to(player.body)
	terrain = world_root.get_node_or_null("Terrain")
	if terrain != null:
		terrain.update_lod(player.body.global_transform.origin, true)
	var animals_error = animals.setup(world_root, terrain, player, features)
	if animals_error != "":
		return animals_error
	frame = 0
	written_achievements_version = -1
	time_limit_frames = time_limit
	energy = Protocol.INITIAL_ENERGY
	# Each prey animal counts as a piece of food: once knocked out it is eaten like one.
	food_total = get_tree().get_nodes_in_group("food").size() + animals.prey_count()
	food_eaten = 0
	last_food_frame = -1
	energy_lost_to_falls = 0.0
	energy_gained_from_eating = 0.0
	energy_lost_to_attacks = 0.0
	movement_work = 0.0
	movement_coefficient = movement_coefficient_value
	# The reset frame is rendered without a physics step, so frame 0 shows the spawn state.
	PhysicsServer.set_active(false)
	physics_paused = true
	return ""


func resume_physics():
	if physics_paused:
		PhysicsServer.set_active(true)
		physics_paused = false


func step(action):
	if player == null:
		return "no world is loaded: send RESET first"
	if action == null:
		return "STEP carries the wrong number of values for action space %s" % action_space
	if typeof(action) == TYPE_STRING:  # link.decode_action refused a value
		return action
	player.apply_action(action, action_space)
	animals.step(player, Protocol.STEP_SECONDS)
	if terrain != null:
		terrain.update_lod(player.body.global_transform.origin)
	frame += 1
	_account_energy(player.mechanics)
	return ""


# Appendix B: fall damage (equation 2), predator attacks (Table 3) and eating change the energy;
# the movement work (equations 3-5) is reported, and only lowers the reward (by C_move times it).
func _account_energy(mechanics):
	var speed_squared = mechanics.landing_speed_squared
	var threshold_squared = Protocol.FALL_SAFE_SPEED_M_PER_S * Protocol.FALL_SAFE_SPEED_M_PER_S
	energy_lost_to_falls = Protocol.FALL_DAMAGE_COEFFICIENT * Protocol.BODY_MASS_KG * max(0.0, speed_squared - threshold_squared)
	energy_gained_from_eating = 0.0
	energy_lost_to_attacks = animals.attack_damage
	for food in mechanics.holds.eaten:
		energy_gained_from_eating += food.energy
		food_eaten += 1
		if Protocol.PREY_KINDS.has(food.kind):
			mechanics.achievements.unlock("eat_prey")
		if food_total > 0 and food_eaten >= food_total:
			last_food_frame = frame
	energy = max(0.0, energy - energy_lost_to_falls - energy_lost_to_attacks) + energy_gained_from_eating
	movement_work = mechanics.work


func is_terminated():
	if energy <= 0.0:
		return true
	return last_food_frame >= 0 and frame - last_food_frame >= Protocol.FRAMES_AFTER_LAST_FOOD


func collect_features():
	player.mechanics.after_physics(Protocol.STEP_SECONDS)
	animals.after_physics(player.mechanics.achievements)
	player.write_features(features)
	animals.write_features()
	features[Protocol.F_ENERGY_SPENT_ON_MOVEMENT] = movement_coefficient * movement_work
	features[Protocol.F_ENERGY_LOST_TO_ATTACKS] = energy_lost_to_attacks
	features[Protocol.F_ENERGY_GAINED_FROM_EATING] = energy_gained_from_eating
	features[Protocol.F_ENERGY] = energy
	features[Protocol.F_FRAMES_REMAINING] = float(max(0, time_limit_frames - frame))
	features[Protocol.F_IS_TERMINATED] = 1.0 if is_terminated() else 0.0
	features[Protocol.F_ENERGY_LOST_TO_FALLS] = energy_lost_to_falls
	features[Protocol.F_MOVEMENT_WORK] = movement_work
	features[Protocol.F_FOOD_TOTAL] = food_total
	features[Protocol.F_FOOD_EATEN] = food_eaten
	var achievements = player.mechanics.achievements
	if written_achievements_version != achievements.version:
		var unlocked = achievements.unlocked
		for i in range(Protocol.ACHIEVEMENTS.size()):
			features[Protocol.F_ACHIEVEMENTS + i] = 1.0 if unlocked.has(Protocol.ACHIEVEMENTS[i]) else 0.0
		written_achievements_version = achievements.version
	return features


func read_rgbd():
	return _read(viewport)


func _read(rgbd_viewport):
	var image = rgbd_viewport.get_texture().get_data()
	if image.get_format() != Image.FORMAT_RGBA8:
		image.convert(Image.FORMAT_RGBA8)
	return image.get_data()


# RENDER: the current state (the last observation's) drawn from the agent's camera, the same
# pose, field of view and World, into a square of `size` pixels. Returns the RGBD bytes (rows
# bottom-up) or an error string. Only the picture viewport is drawn (the observation's is off for
# that draw, and the shaders' time does not advance), so the observations never change; the
# picture viewport is drawn at no other time, so steps pay nothing for it.
func render_picture(size):
	if player == null:
		return "no world is loaded: send RESET first"
	if size < 1 or size > Protocol.MAX_RENDER_SIZE_PX:
		return "RENDER size %d is outside 1 to %d pixels" % [size, Protocol.MAX_RENDER_SIZE_PX]
	if picture_viewport == null or int(picture_viewport.size.x) != size:
		_make_picture_viewport(size)
	picture_viewport.world = viewport.world
	# The scene tree passes transforms to the VisualServer only once a frame: set the camera's
	# there too, or this draw would use its last one.
	var eye = player.head.get_node("Camera").global_transform
	picture_camera.global_transform = eye
	VisualServer.camera_set_transform(picture_camera.get_camera_rid(), eye)
	viewport.render_target_update_mode = Viewport.UPDATE_DISABLED
	picture_viewport.render_target_update_mode = Viewport.UPDATE_ALWAYS
	VisualServer.force_draw(false, 0.0)
	picture_viewport.render_target_update_mode = Viewport.UPDATE_DISABLED
	viewport.render_target_update_mode = Viewport.UPDATE_ALWAYS
	return _read(picture_viewport)


func _make_picture_viewport(size):
	if picture_viewport != null:
		remove_child(picture_viewport)
		picture_viewport.free()
	picture_viewport = _rgbd_viewport(size, Viewport.UPDATE_DISABLED)
	picture_camera = RgbdCamera.new(RgbdCamera.PICTURE_QUAD_LAYER)
	picture_viewport.add_child(picture_camera)
	picture_viewport.world = viewport.world
	add_child(picture_viewport)


func _clear_episode():
	terrain = null
	animals = Animals.new()
	if world_root != null:
		viewport.remove_child(world_root)
		world_root.free()
		world_root = null
	if player != null:
		viewport.remove_child(player)
		player.free()
		player = null
