"""The Godot binary encoding: byte layouts, and a real Godot decoding what Python wrote."""

import json
import shutil
import subprocess

import numpy as np
import pytest

from avalon.datagen.export import marshal


def test_layouts_match_what_godot_3_2_writes():
    # Reference bytes printed by Godot 3.2.3's var2bytes.
    assert marshal.encode(7).hex() == "0200000007000000"
    assert marshal.encode(5_000_000_000).hex() == "0200010000f2052a01000000"
    assert marshal.encode(1.5).hex() == "030000000000c03f"
    assert marshal.encode("abc").hex() == "040000000300000061626300"
    assert marshal.encode({"a": 1}).hex() == "12000000010000000400000001000000610000000200000001000000"
    assert marshal.encode([1, "x"]).hex() == "13000000020000000200000001000000040000000100000078000000"
    assert marshal.encode(marshal.byte_array([1, 2, 3])).hex() == "140000000300000001020300"
    assert marshal.encode(marshal.int_array([1, -2])).hex() == "150000000200000001000000feffffff"
    assert marshal.encode(marshal.real_array([0.5])).hex() == "16000000010000000000003f"
    assert marshal.encode(marshal.vector3_array([[1, 2, 3]])).hex() == "19000000010000000000803f0000004000004040"
    assert marshal.encode(marshal.color_array([[0.25, 0.5, 0.75]])).hex() == "1a000000010000000000803e0000003f0000403f0000803f"
    assert marshal.encode(True).hex() == "0100000001000000"
    with pytest.raises(TypeError, match="cannot encode"):
        marshal.encode(object())


_READER = """extends SceneTree
func _init():
	var file = File.new()
	file.open(OS.get_environment("MARSHAL_FILE"), File.READ)
	var data = file.get_var()
	var summary = {"keys": data.keys(), "ints": Array(data.ints), "sum": 0.0, "colors": data.colors.size(),
		"v3": [data.v3[1].x, data.v3[1].y, data.v3[1].z], "bytes": data.bytes.size(), "name": data.name,
		"nested": data.nested[1].depth, "big": data.big}
	for v in data.reals:
		summary.sum += v
	print("DECODED " + to_json(summary))
	quit()
"""


@pytest.mark.godot
def test_godot_decodes_what_python_stores(tmp_path):
    server = shutil.which("godot3-server")
    assert server, "godot3-server is missing: run `make setup`"
    data = {
        "name": "ünïcode",
        "ints": marshal.int_array([3, -4, 5]),
        "reals": marshal.real_array(np.linspace(0, 1, 101)),
        "v3": marshal.vector3_array([[0, 0, 0], [1.5, -2, 3.25]]),
        "colors": marshal.color_array(np.zeros((7, 3))),
        "bytes": marshal.byte_array(np.ones(5)),
        "nested": [1, {"depth": 2}],
        "big": 2**40,
    }
    path = tmp_path / "data.bin"
    marshal.store_var(path, data)
    script = tmp_path / "reader.gd"
    script.write_text(_READER)
    output = subprocess.run(
        [server, "--no-window", "-s", str(script)], env={"MARSHAL_FILE": str(path), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=60, cwd=tmp_path,  # Godot writes logs/ into its cwd
    ).stdout
    line = next(line for line in output.splitlines() if line.startswith("DECODED "))
    summary = json.loads(line[len("DECODED "):])
    assert summary["keys"] == list(data)
    assert summary["ints"] == [3, -4, 5] and summary["colors"] == 7 and summary["bytes"] == 5
    assert summary["sum"] == pytest.approx(50.5, abs=1e-3)
    assert summary["v3"] == [1.5, -2, 3.25] and summary["name"] == "ünïcode"
    assert summary["nested"] == 2 and summary["big"] == 2**40
