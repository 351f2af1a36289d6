"""``bin/random_agent_success.py``: a random agent's success rate on any task, at several difficulties."""

from __future__ import annotations

import importlib.util
import json

import pytest

from avalon.sim.paths import repository_dir


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("random_agent_success", repository_dir() / "bin" / "random_agent_success.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rate_must_never_rise_with_difficulty(script):
    results = [{"difficulty": 1.0, "rate": 0.0}, {"difficulty": 0.0, "rate": 0.3}, {"difficulty": 0.5, "rate": 0.1}]
    assert script.falls_with_difficulty(results)
    results[0]["rate"] = 0.2
    assert not script.falls_with_difficulty(results)
    assert script.trend_text(results) == "RISES somewhere with difficulty"


def test_a_rate_that_stays_the_same_does_not_fall(script):
    # 0 / 50 at every difficulty never rises, but says nothing about difficulty.
    results = [{"difficulty": d, "rate": 0.0} for d in (0.0, 0.5, 1.0)]
    assert not script.falls_with_difficulty(results)
    assert script.trend_text(results) == "stays at 0.0 % at every difficulty (it does not fall)"
    results[0]["rate"] = 0.04
    assert script.falls_with_difficulty(results) and script.trend_text(results) == "falls with difficulty"


def test_bad_arguments_are_refused_by_name(script, capsys):
    for argv, message in ((["--task", "fly"], "unknown task 'fly'"), (["--difficulties", "0,2"], "difficulty 2.0 must be"),
                          (["--frames", "soon"], "--frames 'soon'"), (["--episodes", "0"], "--episodes 0"),
                          (["--repeat", "0"], "--repeat 0")):
        with pytest.raises(SystemExit):
            script.parse_args(argv)
        assert message in capsys.readouterr().err
    args = script.parse_args(["--task", "move", "--difficulties", "0,0.5,1", "--frames", "training"])
    assert args.difficulties == (0.0, 0.5, 1.0)
    assert script.frame_limit(args.frames, "move", 0.5) == 500 and script.frame_limit("world", "move", 0.5) is None


@pytest.mark.godot
def test_a_short_run_over_two_difficulties_writes_its_figures(script, tmp_path, capsys):
    out = tmp_path / "random.json"
    script.main(["--task", "eat", "--difficulties", "0,1", "--episodes", "2", "--frames", "20",
                 "--spaces", "mouse_keyboard", "--repeat", "3", "--json", str(out)])
    figures = json.loads(out.read_text())
    assert figures["task"] == "eat" and figures["difficulties"] == [0.0, 1.0] and figures["repeat"] == 3
    assert [(r["difficulty"], r["episodes"], r["mean_frames"] <= 20) for r in figures["results"]] == [(0.0, 2, True), (1.0, 2, True)]
    assert set(figures["falls_with_difficulty"]) == {"mouse_keyboard"}
    assert "eat d=1 mouse_keyboard:" in capsys.readouterr().out
