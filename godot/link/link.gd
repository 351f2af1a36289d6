extends Reference
# The link to Python: the Godot end of the lock-step TCP protocol (layouts in
# res://generated/protocol.gd; the Python end is avalon/sim/simulator.py).
# All reads block: the simulator has nothing to do until Python asks.

const Protocol = preload("res://generated/protocol.gd")

var peer = StreamPeerTCP.new()
var outgoing = StreamPeerBuffer.new()
var incoming = StreamPeerBuffer.new()
var closed = false


func connect_and_greet(port, secret, timeout_ms):
	if peer.connect_to_host("127.0.0.1", port) != OK:
		return false
	var started = OS.get_ticks_msec()
	while peer.get_status() == StreamPeerTCP.STATUS_CONNECTING:
		if OS.get_ticks_msec() - started > timeout_ms:
			return false
		OS.delay_usec(200)
	if peer.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		return false
	peer.set_no_delay(true)
	var payload = StreamPeerBuffer.new()
	payload.put_data(Protocol.MAGIC.to_ascii())
	payload.put_u32(Protocol.PROTOCOL_VERSION)
	payload.put_data(secret.to_ascii())
	payload.put_data(Engine.get_version_info().string.to_utf8())
	return _send(Protocol.MSG_HELLO, payload.data_array)


func is_closed():
	return closed


func close():
	closed = true
	peer.disconnect_from_host()


# Returns {type, payload} or null when the connection is gone.
func receive():
	var header = peer.get_data(Protocol.HEADER_SIZE)
	if header[0] != OK:
		closed = true
		return null
	incoming.data_array = header[1]
	var type = incoming.get_u8()
	var length = incoming.get_u32()
	var payload = PoolByteArray()
	if length > 0:
		var body = peer.get_data(length)
		if body[0] != OK:
			closed = true
			return null
		payload = body[1]
	return {"type": type, "payload": payload}


# The STEP payload is a marshalled PoolRealArray (see avalon/sim/protocol.py): one native decode.
# Returns the action, null when it has the wrong size, or a String naming the first value that
# is not finite (NaN or an infinity would poison the physics).
func decode_action(payload, size):
	if payload.size() != 8 + size * 4:
		return null
	var action = bytes2var(payload)
	if typeof(action) != TYPE_REAL_ARRAY or action.size() != size:
		return null
	# One sum instead of a test per value: it is finite exactly when every value is (x - x is 0
	# only for finite x; float32 values summed as doubles cannot overflow).
	var total = 0.0
	for value in action:
		total += value
	if total - total != 0.0:
		return _non_finite_value(action)
	return action


func _non_finite_value(action):
	for index in range(action.size()):
		var value = action[index]
		if value - value != 0.0:
			return "STEP value at index %d is %s; every action value must be finite" % [index, str(value)]
	return "STEP values are not all finite"


func decode_reset(payload):
	incoming.data_array = payload
	var seed_value = incoming.get_u64()
	var time_limit = incoming.get_u32()
	var movement_coefficient = incoming.get_float()
	var world_dir = payload.subarray(16, payload.size() - 1).get_string_from_utf8() if payload.size() > 16 else ""
	return {"seed": seed_value, "time_limit_frames": time_limit, "movement_coefficient": movement_coefficient, "world_dir": world_dir}


func send_observation(frame, features, rgbd):
	# One framed write, assembled with StreamPeerBuffer.put_data (one memcpy; a PoolByteArray's
	# append_array copies byte by byte, ~5 instructions a byte for the 37 KB frame).
	# var2bytes(PoolRealArray) is an 8-byte variant header followed by little-endian float32s:
	# one native call instead of a put_float per feature. Its header is written where the length
	# and frame go, then overwritten by them.
	var encoded = var2bytes(PoolRealArray(features))
	outgoing.clear()
	outgoing.put_u8(Protocol.MSG_OBSERVATION)
	outgoing.put_data(encoded)
	outgoing.seek(1)
	outgoing.put_u32(4 + 4 * features.size() + rgbd.size())
	outgoing.put_u32(frame)
	outgoing.seek(1 + encoded.size())
	outgoing.put_data(rgbd)
	return peer.put_data(outgoing.data_array) == OK


func send_error(message):
	return _send(Protocol.MSG_ERROR, message.to_utf8())


func _send(type, payload):
	outgoing.clear()
	outgoing.put_u8(type)
	outgoing.put_u32(payload.size())
	var bytes = outgoing.data_array
	bytes.append_array(payload)
	return peer.put_data(bytes) == OK


# ---- RENDER and PICTURE (see avalon/sim/protocol.py) ----------------------------------------

func decode_render(payload):
	if payload.size() != 4:
		return -1
	incoming.data_array = payload
	return incoming.get_u32()


func send_picture(frame, size, rgbd):
	outgoing.clear()
	outgoing.put_u8(Protocol.MSG_PICTURE)
	outgoing.put_u32(8 + rgbd.size())
	outgoing.put_u32(frame)
	outgoing.put_u32(size)
	outgoing.put_data(rgbd)
	return peer.put_data(outgoing.data_array) == OK
