"""The tool table (avalon/rules/tools.py): its rows, their checks, and tool.gd reading them as data."""

from __future__ import annotations

import re

import attr
import pytest

from avalon.rules import tools
from avalon.rules.foods import FOOD_KINDS
from avalon.rules.tools import TOOL_KINDS, TOOLS, tool_spec
from avalon.sim.paths import godot_project_dir

TOOL_SCRIPT = godot_project_dir() / "entities" / "tools" / "tool.gd"


def test_the_five_tools_and_how_each_is_built():
    assert TOOL_KINDS == ("rock", "stick", "stone", "boulder", "log")
    assert {kind: (tool.shape, tool.mesh_sides) for kind, tool in TOOLS.items()} == {
        "rock": ("lump", 5), "stick": ("beam", 5), "stone": ("box", 4), "boulder": ("lump", 7), "log": ("beam", 7),
    }
    assert {kind for kind, tool in TOOLS.items() if tool.continuous_collision} == {"rock", "stick"}
    assert {kind for kind, tool in TOOLS.items() if tool.support_box} == {"boulder"}


def test_the_size_and_mass_views_are_the_tables():
    assert tools.TOOL_SIZE_M == {kind: tool.size_m for kind, tool in TOOLS.items()}
    assert tools.TOOL_MASS_KG == {kind: tool.mass_kg for kind, tool in TOOLS.items()}


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown tool kind 'pebble'.*rock"):
        tool_spec("pebble")


@pytest.mark.parametrize("change, message", [
    ({"size_m": (0.2, 0.0, 0.2)}, r"size_m \(0.2, 0.0, 0.2\) must be three finite numbers > 0"),
    ({"mass_kg": -1.0}, "mass_kg -1.0 must be a finite number > 0"),
    ({"color": (0.5, 0.5)}, r"color \(0.5, 0.5\) must be three numbers in \[0, 1\]"),
    ({"shape": "sphere"}, "shape 'sphere' is not one of"),
    ({"mesh_sides": 2}, "mesh_sides 2 must be an integer >= 3"),
    ({"shape": "box"}, r"mesh_sides 5 must be an integer >= 3 \(4 for a box\)"),
    ({"shape": "beam", "support_box": True}, "support_box is for lumps, not a 'beam'"),
])
def test_a_bad_row_is_refused_naming_the_tool_the_field_and_the_value(change, message):
    with pytest.raises(ValueError, match=f"^rock: {message}"):
        attr.evolve(TOOLS["rock"], **change)


def test_tool_gd_branches_on_shapes_never_on_a_tool_name():
    literals = set(re.findall(r'"([^"\\]*)"', TOOL_SCRIPT.read_text()))
    assert not literals & (set(TOOL_KINDS) | set(FOOD_KINDS)), "tool.gd must not name a tool: read the row's properties"
    assert set(tools.SHAPES) <= literals


def test_every_property_a_row_sets_is_exported_by_tool_gd():
    text = TOOL_SCRIPT.read_text()
    for name in TOOLS["rock"].properties():
        assert re.search(rf"^export(\([^)]*\))? var {name} = ", text, re.M), f"tool.gd exports no {name}"
