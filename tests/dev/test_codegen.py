"""Generated files (GDScript constants, docs/spaces.md, the animal, food and tool scenes, the items.md
tables, the native interface) match their Python sources: never stale."""

import importlib
import re

import pytest

from avalon.dev import codegen
from avalon.rules import animals, foods, mechanics, tools
from avalon.sim import native_interface, protocol
from avalon.tasks import TASKS
from avalon.tasks.kit.curves import knob_rows


def test_generated_files_are_up_to_date():
    for path, expected in codegen.generated_files().items():
        assert path.is_file(), f"{path} is missing: run `make generate`"
        assert path.read_text() == expected, f"{path} is stale: run `make generate` (python -m avalon.dev.codegen)"


def test_generated_gdscript_carries_every_id_offset_and_constant():
    text = codegen.generate()
    for message in protocol.MessageType:
        assert f"const MSG_{message.name} = {message.value}\n" in text
    for name, offset in protocol.feature_offsets().items():
        assert f"const F_{name.upper()} = {offset}\n" in text
    assert "const VR_JUMP = 20" in text
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


def _scene_properties(text):
    """The root node's properties of a generated item scene, as Python values."""
    root = text.split('type="RigidBody"]\n', 1)[1].split("\n\n", 1)[0]
    values = {}
    for line in root.splitlines():
        key, value = line.split(" = ", 1)
        if value.startswith(("Color(", "Vector3(")):
            numbers = tuple(float(v) for v in value[value.index("(") + 1:value.rindex(")")].split(","))
            values[key] = numbers[:3]
        elif value in ("true", "false"):
            values[key] = value == "true"
        elif value.startswith('"'):
            values[key] = value[1:-1]
        elif value.startswith("ExtResource("):
            values[key] = value
        else:
            values[key] = float(value) if "." in value else int(value)
    return values


def test_every_food_and_tool_scene_holds_its_row_to_the_last_bit():
    for directory, table, script in ((codegen.FOOD_SCENES_RELATIVE_DIR, foods.FOODS, codegen.FOOD_SCRIPT),
                                     (codegen.TOOL_SCENES_RELATIVE_DIR, tools.TOOLS, codegen.TOOL_SCRIPT)):
        scenes = {path.stem for path in (codegen.godot_project_dir() / directory).glob("*.tscn")}
        assert scenes == set(table), f"{directory}: a scene for each row and no other"
        for kind, spec in table.items():
            path = codegen.godot_project_dir() / directory / f"{kind}.tscn"
            assert path in codegen.generated_files()
            text = path.read_text()
            assert f'[ext_resource path="{script}" type="Script" id=1]' in text
            values = _scene_properties(text)
            assert values.pop("script") == "ExtResource( 1 )"
            assert values.pop("mass") == spec.mass_kg
            expected = {key: (tuple(float(v) for v in value) if isinstance(value, tuple) else value)
                        for key, value in spec.properties().items()}
            assert values == expected, kind
    # The avocado's opening speed is irrational: written to the last bit, not rounded.
    avocado = _scene_properties((codegen.godot_project_dir() / codegen.FOOD_SCENES_RELATIVE_DIR / "avocado.tscn").read_text())
    assert avocado["open_speed_m_per_s"] == foods.FOODS["avocado"].open_speed_m_per_s


def test_the_items_doc_tables_are_generated_between_their_markers_only():
    doc = (codegen.repository_dir() / codegen.ITEMS_DOC_RELATIVE_PATH).read_text()
    for kind in foods.FOOD_KINDS + tools.TOOL_KINDS:
        assert f"\n| {kind} | " in doc
    edited = doc.replace(codegen.DOC_TABLE_END % "foods", "")
    with pytest.raises(ValueError, match="end of the generated foods table"):
        codegen.items_doc(edited)
    # Text around the tables is kept as it is.
    assert codegen.items_doc("intro\n" + doc + "outro\n") == "intro\n" + doc + "outro\n"


def test_the_tasks_index_lists_every_registered_tasks_time_limits():
    doc = (codegen.repository_dir() / codegen.TASKS_INDEX_RELATIVE_PATH).read_text()
    for task in TASKS:
        assert f"\n| {task} | " in doc
    assert "| eat | 20 s | 30 s | 40 s | 5 min | yes |" in doc


def test_each_tasks_page_holds_its_knobs_at_three_difficulties():
    pages = codegen.repository_dir() / codegen.TASKS_DOC_RELATIVE_DIR
    doc = "\n".join((pages / f"{name}.md").read_text() for name in TASKS if TASKS[name].in_evaluation_sets)
    tables = codegen.knob_tables()
    assert {"eat knobs", "move knobs"} <= set(tables)
    for name, table in tables.items():
        module = importlib.import_module(f"avalon.tasks.{name.removesuffix(' knobs')}")
        rows = knob_rows(module.KNOBS, progress=getattr(module, "KNOB_PROGRESS", None))
        assert len(table) == 2 + len(rows) and all(f"| `{row.name}` | " in doc for row in rows)
        assert "\n".join(table) in doc
    assert "| `ground_distance_m` | 1.8–2.4 m | 1.8–3.45 m | 1.8–4.5 m | Food on the ground:" in doc
    assert "| `causeway_width_m` | — | 4.13 m | 1.25 m |" in doc  # over the chasm's progress, from 0.35 on
    move = (pages / "move.md").read_text()
    assert codegen.task_doc("move", move) == move
    edited = move.replace(codegen.DOC_TABLE_BEGIN % "move knobs", "")
    with pytest.raises(ValueError, match="from the move knobs table"):
        codegen.task_doc("move", edited)


def test_the_animals_doc_table_has_a_row_per_species_from_the_table():
    doc = (codegen.repository_dir() / codegen.ANIMALS_DOC_RELATIVE_PATH).read_text()
    for species in animals.ANIMALS:
        assert f"\n| {species} | " in doc
    assert "| bee | air, flies 1.5 m up | radius (5) | outside radius, KO (7.5) | territory-bound fast random (3) | 6 | " in doc


def _animal_call_keys(method):
    """The names animal.gd passes AnimalBody.<method> (the keys of its Dictionary)."""
    text = (codegen.godot_project_dir() / "entities" / "animals" / "animal.gd").read_text()
    call = text.split(f'_native_call("{method}", Protocol.ANIMAL_{method.upper()}_ARGUMENTS, {{', 1)[1].split("})", 1)[0]
    return re.findall(r'^\s*"(\w+)":', call, re.M)


@pytest.mark.parametrize("method", sorted(native_interface.METHOD_ARGUMENTS))
def test_the_set_up_arguments_have_one_order_written_for_both_sides(method):
    names = [name for name, _ in native_interface.METHOD_ARGUMENTS[method]]
    gdscript, header = codegen.generate(), codegen.native_interface_header()
    assert f"const ANIMAL_{method.upper()}_ARGUMENTS = [{', '.join(repr(n).replace(chr(39), chr(34)) for n in names)}]\n" in gdscript
    for index, (name, kind) in enumerate(native_interface.METHOD_ARGUMENTS[method]):
        reader = native_interface.ARGUMENT_TYPES[kind][1]
        assert f"\tout->{name} = {reader}(a[{index}]);\n" in header
    assert f"\tif (count != {len(names)})\n" in header
    # animal.gd passes each by name, once, and nothing else.
    keys = _animal_call_keys(method)
    assert sorted(keys) == sorted(names) and len(keys) == len(set(keys))
