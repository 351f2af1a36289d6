"""``bin/scripted_agent_success.py``: the scripted agent's success rate over seeds and difficulties."""

from __future__ import annotations

import importlib.util
import json

import pytest

from avalon.sim.paths import repository_dir


def _script():
    spec = importlib.util.spec_from_file_location("scripted_agent_success", repository_dir() / "bin" / "scripted_agent_success.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bad_arguments_are_refused_by_name(capsys):
    for argv, message in ((["--task", "fly"], "unknown task 'fly'"), (["--difficulties", "1.5"], "difficulty 1.5 must be")):
        with pytest.raises(SystemExit):
            _script().main(argv)
        assert message in capsys.readouterr().err


@pytest.mark.godot
def test_the_script_counts_the_scripted_agents_successes(tmp_path, capsys):
    out = tmp_path / "scripted.json"
    _script().main(["--task", "move", "--difficulties", "0,0.5", "--episodes", "1", "--json", str(out)])
    figures = json.loads(out.read_text())
    assert [(f["difficulty"], f["successes"], f["failures"]) for f in figures] == [(0.0, 1, []), (0.5, 1, [])]
    assert "move d=0.5: 1/1 successes" in capsys.readouterr().out
