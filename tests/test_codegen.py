"""The GDScript constants and docs/spaces.md are generated from the protocol: never stale."""

import pytest

from avalon import codegen
from avalon.sim import native_interface, protocol
from avalon.rules import mechanics


def test_generated_files_are_up_to_date():
    for path, expected in codegen.generated_files().items():
        assert path.is_file(), f"{path} is missing: run `make generate`"
        assert path.read_text() == expected, f"{path} is stale: run `make generate` (python -m avalon.codegen)"


def test_generated_gdscript_carries_every_id_offset_and_constant():
    text = codegen.generate()
    for message in protocol.MessageType:
        assert f"const MSG_{message.name} = {message.value}\n" in text
    for name, offset in protocol.feature_offsets().items():
        assert f"const F_{name.upper()} = {offset}\n" in text
    assert f"const VR_JUMP = 20" in text
    assert f"const MAX_WALK_SPEED_M_PER_S = {mechanics.MAX_WALK_SPEED_M_PER_S!r}\n" in text
    assert "const LEFT_HAND_REST_M = Vector3(-0.3, 1.2, -0.6)\n" in text


def test_animal_script_and_native_body_get_the_same_bits_and_questions():
    gdscript, header = codegen.generate(), codegen.native_interface_header()
    for name, value in {**native_interface.STEP_BITS, **native_interface.QUESTIONS}.items():
        assert f"const {name} = {value}\n" in gdscript
        assert f"\t{name} = {value},\n" in header
    bits = list(native_interface.STEP_BITS.values())
    assert all(bit > 0 and bit & (bit - 1) == 0 for bit in bits) and len(set(bits)) == len(bits)  # distinct single bits


def test_two_sided_shader_differs_from_the_static_world_shader_only_in_its_cull_mode():
    one_sided = (codegen.godot_project_dir() / codegen.STATIC_WORLD_SHADER_RELATIVE_PATH).read_text()
    two_sided = codegen.two_sided_shader(one_sided)
    assert "cull_disabled" not in one_sided
    assert two_sided.count("render_mode unshaded, cull_disabled,") == 1
    assert two_sided.split("\n", 1)[1] == one_sided.replace("render_mode unshaded,", "render_mode unshaded, cull_disabled,")


def test_two_sided_shader_refuses_a_shader_without_the_expected_render_mode():
    with pytest.raises(ValueError, match="render_mode unshaded,"):
        codegen.two_sided_shader("shader_type spatial;\nrender_mode cull_back;\n")
