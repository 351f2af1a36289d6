"""The bridge codec, without Godot."""

import numpy as np
import pytest

from avalon.sim import protocol


def _split(frame: bytes):
    message_type, length = protocol.decode_header(frame[: protocol.HEADER.size])
    payload = frame[protocol.HEADER.size :]
    assert len(payload) == length
    return message_type, payload


def test_hello_round_trip():
    secret = b"s" * protocol.SECRET_SIZE
    message_type, payload = _split(protocol.encode_hello(secret, "3.2.3"))
    assert message_type == protocol.MessageType.HELLO
    hello = protocol.decode_hello(payload)
    assert hello == protocol.Hello(protocol.MAGIC, protocol.PROTOCOL_VERSION, secret, "3.2.3")


def test_reset_round_trip_with_unicode_path():
    message_type, payload = _split(protocol.encode_reset(2**62 + 5, 1234, "/tmp/wörld folder", 0.25))
    assert message_type == protocol.MessageType.RESET
    assert protocol.decode_reset(payload) == protocol.Reset(2**62 + 5, 1234, 0.25, "/tmp/wörld folder")


def test_step_is_a_godot_pool_real_array_of_little_endian_float32():
    action = np.arange(21, dtype=np.float64) / 7
    message_type, payload = _split(protocol.encode_step(action))
    assert message_type == protocol.MessageType.STEP
    assert payload[:8] == bytes([22, 0, 0, 0, 21, 0, 0, 0])  # what Godot's var2bytes writes
    np.testing.assert_array_equal(protocol.decode_step(payload), action.astype(np.float32))
    with pytest.raises(protocol.ProtocolError, match="malformed"):
        protocol.decode_step(payload[:-1])


def test_observation_round_trip_flips_rows_to_top_down():
    resolution = 8
    features = np.linspace(-3, 3, protocol.FEATURE_COUNT).astype(np.float32)
    bottom_up = np.random.default_rng(0).integers(0, 256, (resolution, resolution, 4), dtype=np.uint8)
    message_type, payload = _split(protocol.encode_observation(17, features, bottom_up))
    assert message_type == protocol.MessageType.OBSERVATION
    assert len(payload) == protocol.observation_payload_size(resolution)
    observation = protocol.decode_observation(payload, resolution)
    assert observation.frame == 17
    np.testing.assert_array_equal(observation.features, features)
    np.testing.assert_array_equal(observation.rgbd, bottom_up[::-1])
    assert observation.rgbd.flags.c_contiguous and observation.rgbd.flags.writeable


def test_observation_of_wrong_size_is_rejected():
    payload = b"\0" * (protocol.observation_payload_size(8) - 1)
    with pytest.raises(protocol.ProtocolError, match="expected"):
        protocol.decode_observation(payload, 8)


def test_unknown_message_type_and_oversized_payload_are_rejected():
    with pytest.raises(protocol.ProtocolError, match="unknown message type 77"):
        protocol.decode_header(protocol.HEADER.pack(77, 0))
    with pytest.raises(protocol.ProtocolError, match="exceeds"):
        protocol.decode_header(protocol.HEADER.pack(protocol.MessageType.OBSERVATION, protocol.MAX_PAYLOAD_BYTES + 1))


def test_error_round_trip():
    message_type, payload = _split(protocol.encode_error("world folder /x has no world.tscn"))
    assert message_type == protocol.MessageType.ERROR
    assert payload.decode() == "world folder /x has no world.tscn"


def test_features_match_the_papers_23_proprioceptive_variables():
    observed = protocol.OBSERVED_FEATURES
    assert len(observed) == 23
    assert sum(f.size == 3 for f in observed) == 14  # 4x2 deltas + 3x2 relative poses
    assert sum(f.unit == "bool" for f in observed) == 4
    assert [f.name for f in observed][-1] == "frames_remaining"
    offsets = protocol.feature_offsets()
    assert offsets[protocol.FEATURES[-1].name] + protocol.FEATURES[-1].size == protocol.FEATURE_COUNT


def test_action_sizes_match_appendix_d():
    assert protocol.action_size("vr") == 21
    assert protocol.action_size("mouse_keyboard") == 9


def test_depth_encoding_round_trips_within_its_step():
    metres = np.array([0.1, 0.5, 1.0, 3.5, 7.5, 15.0, 100.0, 400.0])  # 0 is reserved for beyond range
    decoded = protocol.depth_to_metres(protocol.metres_to_depth(metres))
    step = (protocol.DEPTH_FAR_M / protocol.DEPTH_NEAR_M) ** (1 / 255)  # relative size of one step
    assert np.all(np.abs(np.log(decoded / metres)) <= np.log(step) / 2 + 1e-9)
    assert protocol.metres_to_depth(np.array([0.01]))[0] == 255  # nearer than the range: brightest
    assert protocol.metres_to_depth(np.array([1e6]))[0] == 0
    assert np.isinf(protocol.depth_to_metres(np.array([0]))[0])  # 0 means sky / beyond range
    assert np.all(np.diff(protocol.metres_to_depth(metres).astype(int)) <= 0)  # nearer = larger


def test_render_and_picture_round_trip_and_picture_rows_flip_to_top_down():
    message_type, payload = _split(protocol.encode_render(256))
    assert message_type == protocol.MessageType.RENDER and protocol.decode_render(payload) == 256
    bottom_up = np.random.default_rng(1).integers(0, 256, (5, 5, 4), dtype=np.uint8)
    message_type, payload = _split(protocol.encode_picture(9, bottom_up))
    assert message_type == protocol.MessageType.PICTURE
    picture = protocol.decode_picture(payload, 5)
    assert picture.frame == 9 and np.array_equal(picture.rgbd, bottom_up[::-1]) and picture.rgbd.flags.writeable
    with pytest.raises(protocol.ProtocolError, match="PICTURE of 108 bytes, expected 72 for size 4"):
        protocol.decode_picture(payload, 4)
    with pytest.raises(protocol.ProtocolError, match="PICTURE of size 5, expected 6"):
        protocol.decode_picture(payload[:8] + bytes(6 * 6 * 4), 6)
