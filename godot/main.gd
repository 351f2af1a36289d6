extends Node
# Entry point. Connects to the Python side, then runs the lock-step loop:
# each physics frame first renders and answers the previous request, then blocks for the next
# request and applies it before this frame's physics step.

const Protocol = preload("res://generated/protocol.gd")
const Link = preload("res://link/link.gd")
const Simulation = preload("res://simulation/simulation.gd")

const CONNECT_TIMEOUT_MS = 30000
const ANSWERED = "answered"  # a request answered at once (RENDER), not an error

var link = Link.new()  # to Python: the lock-step protocol
var simulation = Simulation.new()
var reply_pending = false


func _ready():
	var port = int(OS.get_environment("AVALON_PORT"))
	var secret = OS.get_environment("AVALON_SECRET")
	var resolution = int(OS.get_environment("AVALON_RESOLUTION"))
	var action_space = OS.get_environment("AVALON_ACTION_SPACE")
	if port <= 0 or secret.length() != Protocol.SECRET_SIZE or resolution <= 0:
		_fail("launch environment incomplete: AVALON_PORT, AVALON_SECRET and AVALON_RESOLUTION are required")
		return
	if not simulation.ACTION_SIZES.has(action_space):
		_fail("unknown AVALON_ACTION_SPACE %s" % action_space)
		return
	# Observations are read from an offscreen viewport, so the window never needs to be shown:
	# the main loop does not draw; _physics_process draws each frame with force_draw(false) just
	# before reading it back, which skips the window's swap (a round trip to the X server).
	VisualServer.render_loop_enabled = false
	add_child(simulation)
	simulation.setup(resolution, action_space)
	if not link.connect_and_greet(port, secret, CONNECT_TIMEOUT_MS):
		_fail("could not connect to the Python side on port %d" % port)
		return
	print("avalon: connected; video driver %s, resolution %d, action space %s" % [
		"GLES3" if OS.get_current_video_driver() == OS.VIDEO_DRIVER_GLES3 else "GLES2",
		resolution, action_space])


func _physics_process(delta):
	if link.is_closed():
		return
	if reply_pending:
		reply_pending = false
		# The state after the last physics step, exactly what the main loop would have drawn
		# at the end of the previous frame.
		VisualServer.force_draw(false, delta)
		if not link.send_observation(simulation.frame, simulation.collect_features(), simulation.read_rgbd()):
			_fail("lost the connection while sending an observation")
			return
	simulation.resume_physics()
	while true:
		var message = link.receive()
		if message == null:
			_fail("connection closed by the Python side")
			return
		var error = ""
		match message.type:
			Protocol.MSG_STEP:
				error = simulation.step(link.decode_action(message.payload, simulation.action_size()))
			Protocol.MSG_RESET:
				var reset = link.decode_reset(message.payload)
				error = simulation.reset(reset.seed, reset.time_limit_frames, reset.movement_coefficient, reset.world_dir)
			Protocol.MSG_RENDER:
				error = _answer_render(message.payload)
				if error == "":
					error = ANSWERED
			Protocol.MSG_CLOSE:
				link.close()
				get_tree().quit()
				return
			_:
				error = "unexpected message type %d" % message.type
		if error == "":
			reply_pending = true
			return
		if error == ANSWERED:  # a RENDER: no step, wait for the next request
			if link.is_closed():
				return
			continue
		printerr("avalon: ", error)
		link.send_error(error)


# Answers a RENDER with a PICTURE of the current state; returns "" or an error for an ERROR reply.
func _answer_render(payload):
	var size = link.decode_render(payload)
	var picture = simulation.render_picture(size)
	if typeof(picture) == TYPE_STRING:
		return picture
	if not link.send_picture(simulation.frame, size, picture):
		_fail("lost the connection while sending a picture")
	return ""


func _fail(reason):
	printerr("avalon: ", reason)
	link.close()
	get_tree().quit(1)
