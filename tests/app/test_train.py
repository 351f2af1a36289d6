"""``avalon train ppo`` and ``avalon eval --checkpoint`` end to end with the real simulator:
curriculum, world supply, parallel simulators, PPO, checkpoints, resume, crash recovery."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from PIL import Image

from avalon.agent.common.episodes import read_episode_log
from avalon.app.main import main
from avalon.evaluation.eval_file import EVAL_VERSION, read_eval_file
from tests.processes import descendants, godot_that_fails_after, is_alive, kill_one_godot_once_two_run

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SMALL = ["--resolution", "32", "--unroll", "50", "--envs", "2", "--tasks", "eat,move"]


def test_train_writes_checkpoints_and_logs_resumes_and_its_checkpoint_evaluates(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["train", "ppo", *SMALL, "--steps", "300", "--out", str(out), "--eval-episodes", "1",
                 "--eval-time-limits", "training", "--difficulty-step", "0.01", "--minibatches", "2",
                 "--initial-std", "0.8", "--baseline", "random", "--video-resolution", "48"])
    assert code == 0
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["env_steps"] == 300 and summary["updates"] == 3
    assert f"checkpoint: {summary['checkpoint']}" in printed and "tensorboard" in printed
    assert list((out / "tensorboard").iterdir())
    checkpoint = torch.load(summary["checkpoint"], weights_only=True)
    assert set(checkpoint["curriculum"]["max_difficulty"]) == {"eat", "move"}
    assert checkpoint["action_space"] == "vr" and checkpoint["resolution"] == 32
    assert (checkpoint["ppo_config"]["minibatches"], checkpoint["ppo_config"]["initial_std"]) == (2, 0.8)
    evaluation = summary["evaluation"]
    assert set(evaluation["per_task"]) == {"eat", "move"} and Path(evaluation["video"]).is_file()
    # The random policy on the same worlds, printed beside the trained one; a curve of the training episodes.
    assert set(evaluation["baseline_per_task"]) == {"eat", "move"} and Path(evaluation["baseline_results"]).is_file()
    assert "success (trained / random)" in printed and evaluation["table"] in printed
    assert Image.open(evaluation["video"]).size == (4 * 96, 4 * 48)  # 48 px pictures of 32 px observations

    # Without --resume an existing run is not overwritten; with it, training continues.
    assert main(["train", "ppo", *SMALL, "--steps", "400", "--out", str(out), "--eval-episodes", "0"]) == 2
    assert "already holds checkpoints" in capsys.readouterr().err
    assert main(["train", "ppo", *SMALL, "--steps", "400", "--out", str(out), "--eval-episodes", "0", "--resume"]) == 0
    resumed = json.loads((out / "summary.json").read_text())
    assert resumed["env_steps"] == 400 and resumed["updates"] == 4
    assert resumed["curriculum_counts"]["eat"][1] + resumed["curriculum_counts"]["move"][1] >= summary["episodes"]

    assert main(["eval", "--checkpoint", resumed["checkpoint"], "--tasks", "eat", "--episodes", "1",
                 "--time-limits", "training", "--out", str(tmp_path / "eval"), "--no-video"]) == 0
    saved = json.loads((tmp_path / "eval" / "eval.json").read_text())
    assert saved["per_task"]["eat"]["episodes"] == 1
    # Both commands write one eval.json, which one reader reads and `avalon eval compare` puts side by side.
    trained, evaluated = read_eval_file(evaluation["results"]), read_eval_file(tmp_path / "eval" / "eval.json")
    assert trained.version == evaluated.version == EVAL_VERSION and set(trained.content) == set(evaluated.content)
    assert trained.policy == f"checkpoint {Path(summary['checkpoint']).resolve()}" and len(trained.episodes) == 2
    assert set(trained.episodes[0]) == set(evaluated.episodes[0])
    assert read_eval_file(evaluation["baseline_results"]).policy == "random policy (seed 0)"
    assert main(["eval", "compare", f"trained={evaluation['results']}", f"resumed={tmp_path / 'eval' / 'eval.json'}",
                 "--out", str(tmp_path / "compare")]) == 0
    assert "| task | trained | resumed |" in capsys.readouterr().out


def test_a_simulator_killed_during_training_is_restarted_and_the_run_finishes(tmp_path, capsys):
    killer, killed = kill_one_godot_once_two_run(delay_s=0.3)  # into the run: 4000 steps take seconds even on a fast machine
    out = tmp_path / "run"
    code = main(["train", "ppo", *SMALL, "--steps", "4000", "--out", str(out), "--eval-episodes", "0"])
    killer.join()
    assert code == 0 and killed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["env_steps"] == 4000
    assert summary["simulator_crashes"] >= 1
    # Every finished episode is in the log (the crashed one too), and the curve is drawn from it.
    episodes = read_episode_log(out / "episodes.csv")
    assert len(episodes) == summary["episodes"] > 0 and all(row["env_steps"] % 100 == 0 for row in episodes)
    assert Image.open(summary["learning_curve"]).format == "PNG" and summary["learning_curve"] in capsys.readouterr().out


def test_bad_training_settings_are_named(tmp_path, capsys):
    assert main(["train", "ppo", "--tasks", "swim", "--out", str(tmp_path / "a")]) == 2
    assert "unknown task 'swim'" in capsys.readouterr().err
    assert main(["train", "ppo", "--protocol", "MT-TB", "--tasks", "eat", "--out", str(tmp_path / "b")]) == 2
    assert "protocol 'MT-TB' fixes its own tasks" in capsys.readouterr().err
    assert main(["train", "ppo", "--protocol", "ST-B", "--tasks", "eat,move", "--out", str(tmp_path / "c")]) == 2
    assert "'ST-B' trains on exactly one task, got 2" in capsys.readouterr().err
    assert main(["train", "ppo", "--difficulty-step", "-1", "--out", str(tmp_path / "c")]) == 2
    assert "step_size=-1" in capsys.readouterr().err
    assert main(["train", "ppo", "--steps", "0", "--out", str(tmp_path / "d")]) == 2
    assert "total_steps=0" in capsys.readouterr().err
    assert main(["train", "ppo", *SMALL, "--minibatches", "3", "--out", str(tmp_path / "e")]) == 2
    assert "minibatches=3 does not divide the batch of 100" in capsys.readouterr().err


def test_a_preset_is_printed_recorded_and_overridden_by_the_options_given(tmp_path, capsys):
    """Table 7 on the CPU: one warning naming the CPU preset; the preset's values printed and, with
    the options given over them, written to settings.json; the run trains with what is in force."""
    out = tmp_path / "run"
    code = main(["train", "ppo", "--preset", "gpu", "--device", "cpu", "--tasks", "eat", "--envs", "2", "--resolution", "32",
                 "--unroll", "50", "--steps", "100", "--out", str(out), "--eval-episodes", "0"])
    assert code == 0
    captured = capsys.readouterr()
    assert captured.err.count("warning: preset 'gpu' is sized for a GPU") == 1 and "--preset cpu suits a CPU" in captured.err
    printed = captured.out.splitlines()
    assert printed[1] == "preset gpu (the paper's Table 7, sized for a GPU machine):"
    assert "--envs 16, --resolution 96, --difficulty-step 0.0003, --lr 0.00025" in printed[2] and "--clip-range 0.03" in printed[2]
    assert printed[3] == "  given over it: --envs 2, --resolution 32, --unroll 50"
    settings = json.loads((out / "settings.json").read_text())
    assert (settings["preset"], settings["preset_given"], settings["device"]) == ("gpu", True, "cpu")
    assert settings["run"] == {"envs": 2, "resolution": 32, "difficulty_step": 3e-4}
    assert (settings["config"]["unroll_steps"], settings["config"]["clip_range"]) == (50, 0.03)
    checkpoint = torch.load(json.loads((out / "summary.json").read_text())["checkpoint"], weights_only=True)
    trained = checkpoint["ppo_config"]
    assert (checkpoint["resolution"], trained["unroll_steps"], trained["learning_rate"]) == (32, 50, 2.5e-4)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_a_training_run_with_a_checkpoint_and_a_summary(tmp_path, signum):
    """Ctrl-C or ``kill PID`` of a training run: exit 128 + the signal, no traceback, a checkpoint
    and summary.json marked interrupted, no process and no temporary folder left behind."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    environment = {**os.environ, "TMPDIR": str(scratch)}
    out = tmp_path / "run"
    command = [sys.executable, "-m", "avalon.app.main", "train", "ppo", *SMALL, "--steps", "100000",
               "--checkpoint-every", "100", "--out", str(out), "--eval-episodes", "1"]
    process = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 180
        started: dict[int, str] = {}
        while time.monotonic() < deadline and process.poll() is None:
            started = descendants(process.pid)
            if (out / "checkpoints").is_dir() and any((out / "checkpoints").glob("step-*.pt")):
                break  # an update has finished: the run is training
            time.sleep(0.2)
        assert sum(name.startswith("godot") for name in started.values()) == 2, "the run did not start its simulators"
        assert any(scratch.iterdir()), "the run made no temporary folder (is TMPDIR honoured?)"
        started = descendants(process.pid)
        process.send_signal(signum)
        printed, errors = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    printed, errors = printed.decode(), errors.decode()
    assert process.returncode == 128 + signum, errors[-2000:]
    assert "Traceback" not in errors, errors[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] == signal.Signals(signum).name and "evaluation" not in summary
    checkpoints = sorted((out / "checkpoints").glob("step-*.pt"))
    assert summary["checkpoint"] == str(checkpoints[-1])
    assert torch.load(checkpoints[-1], weights_only=True)["env_steps"] == summary["env_steps"] >= 100
    assert f"checkpoint: {checkpoints[-1]}" in printed and "--resume" in printed
    assert [pid for pid in started if is_alive(pid)] == []
    # (torch may leave its own compile cache there; ours all start with "avalon-")
    assert sorted(path.name for path in scratch.iterdir() if path.name.startswith("avalon")) == []


def test_a_failed_final_evaluation_keeps_the_training_summary_and_exits_non_zero(tmp_path, monkeypatch, capsys):
    # Godot starts once (the training simulator), then never again (the evaluation's).
    wrapper = godot_that_fails_after(1, tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{wrapper}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "run"
    code = main(["train", "ppo", "--resolution", "32", "--unroll", "50", "--envs", "1", "--tasks", "eat", "--steps", "50",
                 "--out", str(out), "--eval-episodes", "1", "--eval-max-difficulty", "0.1", "--eval-time-limits", "training"])
    assert code == 1
    captured = capsys.readouterr()
    assert "1 of 1 evaluation worlds failed" in captured.err and "exited during start-up with code 3" in captured.err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["env_steps"] == 50 and summary["interrupted"] is None and Path(summary["checkpoint"]).is_file()
    evaluation = summary["evaluation"]
    assert evaluation["restarts"] == 3 and evaluation["per_task"] == {}
    assert [world["attempts"] for world in evaluation["failed_worlds"]] == [3]
    assert "1 of 1 evaluation worlds failed" in evaluation["error"]
    saved = json.loads(Path(evaluation["results"]).read_text())
    assert saved["failed_worlds"] == evaluation["failed_worlds"]
    assert "simulator restarts: 3" in captured.out and f"summary: {out / 'summary.json'}" in captured.out
