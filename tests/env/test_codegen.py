"""The GDScript constants and docs/spaces.md are generated from the protocol: never stale."""

from avalon.env import codegen, mechanics, protocol


def test_generated_files_are_up_to_date():
    for path, expected in codegen.generated_files().items():
        assert path.is_file(), f"{path} is missing: run `make generate`"
        assert path.read_text() == expected, f"{path} is stale: run `make generate` (python -m avalon.env.codegen)"


def test_generated_gdscript_carries_every_id_offset_and_constant():
    text = codegen.generate()
    for message in protocol.MessageType:
        assert f"const MSG_{message.name} = {message.value}\n" in text
    for name, offset in protocol.feature_offsets().items():
        assert f"const F_{name.upper()} = {offset}\n" in text
    assert f"const VR_JUMP = 20" in text
    assert f"const MAX_WALK_SPEED_M_PER_S = {mechanics.MAX_WALK_SPEED_M_PER_S!r}\n" in text
    assert "const LEFT_HAND_REST_M = Vector3(-0.3, 1.2, -0.6)\n" in text
