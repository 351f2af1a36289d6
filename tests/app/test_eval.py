"""``avalon eval`` on the command line: its options (a checkpoint's own configuration, difficulties
per task, consecutive seeds, sticky random actions, the time limits), what it prints (success by
task and difficulty, where and why the scripted agents stopped) and writes, simulators killed
during an evaluation, and bad arguments refused by name."""

import json
import os
from pathlib import Path

import pytest

from avalon.app.main import main
from avalon.evaluation.worlds import evaluation_worlds
from tests.processes import godot_that_fails_after, kill_one_godot_once_two_run

#: mouse_keyboard actions at 16 px (tests/agent/test_registry.py).
OLD_CHECKPOINT = Path(__file__).parents[1] / "agent" / "data" / "ppo-before-issue18.pt"


@pytest.mark.parametrize("argv, message", [
    (["--policy", "random", "--tasks", "fly"], "unknown task 'fly'"),
    (["--policy", "random", "--difficulties", "0,2"], "difficulty 2.0"),
    (["--policy", "random", "--difficulties", "0,hard"], "--difficulties '0,hard'"),
    (["--policy", "random", "--time-limits", "soon"], "time limits 'soon': expected 'world' (each world's own), 'training'"),
    (["--policy", "random", "--episodes", "0"], "episodes=0"),
    (["--policy", "random", "--repeat", "0"], "repeat=0"),
    (["--policy", "reference", "--repeat", "3"], "--repeat 3 holds the random agent's actions"),
    (["--policy", "random", "--set", "smoke", "--difficulties", "0,1"], "--set smoke holds its own worlds"),
    (["--policy", "random", "--tasks", "move", "--force", "food_kind=fig"], "food_kind"),
    (["--policy", "random", "--force", "food_kind"], "expected OPTION=VALUE"),
    (["--policy", "reference", "--action-space", "vr"], "the scripted reference agents act in the 'mouse_keyboard'"),
    (["--policy", "reference", "--tasks", "eat,trivial"],
     "no reference agent for task(s) trivial (TaskSpec.reference_agent is None); the tasks that have one: avoid, bridge"),
    (["--policy", "reference", "--set", "smoke", "--tasks", "hunt"], "--tasks: set smoke holds no worlds of hunt"),
    (["--policy", "random", "--protocol", "ST-B", "--tasks", "trivial"], "'ST-B' trains on one basic task; 'trivial' is not one"),
    (["--policy", "random", "--protocol", "MT-TB", "--tasks", "eat"], "protocol 'MT-TB' fixes its own tasks"),
    (["--policy", "random", "--protocol", "MT-TC", "--set", "v3"], "--protocol MT-TC: set v3 holds no worlds of open, navigate, find"),
])
def test_bad_arguments_are_refused_by_name_before_any_simulator_starts(argv, message, tmp_path, capsys):
    assert main(["eval", *argv, "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_checkpoint_is_refused_in_another_action_space_or_resolution_naming_both(capsys):
    assert main(["eval", "--checkpoint", str(OLD_CHECKPOINT), "--resolution", "96", "--tasks", "eat"]) == 2
    error = capsys.readouterr().err
    assert "was trained with resolution 16" in error and "configuration has resolution 96" in error
    assert main(["eval", "--checkpoint", str(OLD_CHECKPOINT), "--action-space", "vr", "--tasks", "eat"]) == 2
    error = capsys.readouterr().err
    assert "action_space 'mouse_keyboard'" in error and "action_space 'vr'" in error


@pytest.mark.godot
@pytest.mark.slow
def test_eval_command_writes_results_and_refuses_ambiguous_policies(tmp_path, capsys):
    out = tmp_path / "eval"
    code = main([
        "eval", "--policy", "random", "--tasks", "trivial", "--episodes", "1", "--resolution", "32",
        "--time-limits", "training", "--out", str(out),
    ])
    assert code == 0
    printed = capsys.readouterr().out
    assert "trivial" in printed and str(out / "eval.json") in printed
    saved = json.loads((out / "eval.json").read_text())
    assert saved["per_task"]["trivial"]["episodes"] == 1 and (out / "episode.gif").is_file()
    assert main(["eval", "--tasks", "eat"]) == 2
    assert "exactly one of --checkpoint PATH and --policy random" in capsys.readouterr().err


@pytest.mark.godot
@pytest.mark.slow
def test_eval_command_survives_a_simulator_killed_during_the_evaluation(tmp_path, capsys):
    # Into start-up or the first episode: a slot plays 3 worlds of 200+ steps.
    killer, killed = kill_one_godot_once_two_run(delay_s=0.2)
    out = tmp_path / "eval"
    code = main([
        "eval", "--policy", "random", "--tasks", "eat", "--episodes", "6", "--envs", "2", "--resolution", "32",
        "--time-limits", "training", "--max-difficulty", "0.1", "--out", str(out), "--no-video",
    ])
    killer.join()
    assert killed and code == 0
    saved = json.loads((out / "eval.json").read_text())
    assert len(saved["episodes"]) == 6 and saved["per_task"]["eat"]["episodes"] == 6
    assert saved["failed_worlds"] == [] and saved["restarts"] >= 1
    printed = capsys.readouterr().out
    assert f"simulator restarts: {saved['restarts']}" in printed


@pytest.mark.godot
def test_eval_command_writes_the_failed_worlds_and_exits_non_zero(tmp_path, monkeypatch, capsys):
    wrapper = godot_that_fails_after(0, tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{wrapper}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "eval"
    code = main([
        "eval", "--policy", "random", "--tasks", "eat", "--episodes", "2", "--envs", "1", "--resolution", "32",
        "--time-limits", "training", "--max-difficulty", "0.1", "--out", str(out),
    ])
    assert code == 1
    captured = capsys.readouterr()
    assert "2 of 2 evaluation worlds failed" in captured.err and "exited during start-up with code 3" in captured.err
    assert str(out / "eval.json") in captured.out
    saved = json.loads((out / "eval.json").read_text())
    assert saved["episodes"] == [] and saved["restarts"] == 6
    expected = [(r.task, r.seed) for r in evaluation_worlds(["eat"], 2, 0.0, 0.1, seed=0)]
    assert [(f["task"], f["seed"]) for f in saved["failed_worlds"]] == expected
    assert all(f["attempts"] == 3 and "code 3" in f["error"] for f in saved["failed_worlds"])
    assert "2 of 2 evaluation worlds failed" in saved["error"]


@pytest.mark.godot
def test_random_actions_at_several_difficulties_on_consecutive_seeds_are_counted_per_difficulty(tmp_path, capsys):
    out = tmp_path / "eval"
    assert main(["eval", "--policy", "random", "--tasks", "eat", "--difficulties", "0,1", "--episodes", "2", "--first-seed", "0",
                 "--time-limits", "20", "--action-space", "mouse_keyboard", "--repeat", "3", "--resolution", "32", "--no-video",
                 "--seed", "1000", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "random policy (seed 1000, each action held 3 steps)" in printed
    assert "eat d=0: 0/2 successes" in printed and "eat d=1: 0/2 successes" in printed
    assert "eat: the success rate stays at 0.0 % at every difficulty (it does not fall)" in printed
    saved = json.loads((out / "eval.json").read_text())
    # The worlds AvalonEnv(task="eat", difficulty=d) makes at reset(seed=0) and reset(seed=1).
    assert [e["key"] for e in saved["episodes"]] == ["eat-0.000000-0", "eat-0.000000-1", "eat-1.000000-0", "eat-1.000000-1"]
    assert [(row["difficulty"], row["episodes"], row["mean_length"]) for row in saved["by_difficulty"]["eat"]] == [
        (0.0, 2, 20.0), (1.0, 2, 20.0)]
    assert saved["falls_with_difficulty"] == {"eat": False} and saved["settings"]["time_limits"] == 20


@pytest.mark.godot
def test_the_scripted_agents_success_and_where_they_stopped_are_printed_per_difficulty(tmp_path, capsys):
    out = tmp_path / "eval"
    assert main(["eval", "--policy", "reference", "--tasks", "move", "--difficulties", "0,0.5", "--episodes", "1",
                 "--first-seed", "0", "--resolution", "32", "--no-video", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "move d=0: 1/1 successes" in printed and "move d=0.5: 1/1 successes" in printed
    saved = json.loads((out / "eval.json").read_text())
    assert [(e["difficulty"], e["success"], e["note"]) for e in saved["episodes"]] == [(0.0, True, ""), (0.5, True, "")]
    # Too short a time limit: the agent is still on its way, and says so.
    assert main(["eval", "--policy", "reference", "--tasks", "move", "--difficulties", "0.5", "--episodes", "1",
                 "--first-seed", "0", "--time-limits", "10", "--resolution", "32", "--no-video", "--out", str(tmp_path / "short")]) == 0
    assert "move d=0.5: 0/1 successes" in capsys.readouterr().out
    [episode] = json.loads((tmp_path / "short" / "eval.json").read_text())["episodes"]
    assert (episode["success"], episode["episode_length"]) == (False, 10)
    assert episode["note"] == "still going | certificate: none (move declares no certificate): the gap is unexamined"


def test_a_protocol_chooses_the_tasks_it_evaluates_on():
    from argparse import Namespace

    from avalon.app.eval import _requested_tasks
    from avalon.training.curriculum import group_tasks

    every = group_tasks(("basic",)) + group_tasks(("compositional",))
    assert len(every) == 20
    assert _requested_tasks(Namespace(protocol="MT-TC", tasks=None)) == every
    assert _requested_tasks(Namespace(protocol="ST-B", tasks="move")) == ("move",)
    assert _requested_tasks(Namespace(protocol=None, tasks="eat,move")) == ("eat", "move")
    assert _requested_tasks(Namespace(protocol=None, tasks=None)) == ()
