"""``avalon train ppo`` and ``avalon eval --checkpoint`` end to end with the real simulator:
curriculum, world supply, parallel simulators, PPO, checkpoints, resume, crash recovery."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

from avalon.cli import main
from tests.processes import descendants, is_alive, our_godot_pids

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SMALL = ["--resolution", "32", "--unroll", "50", "--envs", "2", "--tasks", "eat,move"]


def test_train_writes_checkpoints_and_logs_resumes_and_its_checkpoint_evaluates(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["train", "ppo", *SMALL, "--steps", "300", "--out", str(out), "--eval-episodes", "1",
                 "--eval-time-limits", "training", "--difficulty-step", "0.01", "--minibatches", "2",
                 "--initial-std", "0.8"])
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


def test_a_simulator_killed_during_training_is_restarted_and_the_run_finishes(tmp_path, capsys):
    killed: list[int] = []

    def kill_one_simulator_mid_run():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            pids = our_godot_pids()
            if len(pids) == 2:
                time.sleep(0.3)  # into the run: 4000 steps take seconds even on a fast machine
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
                return
            time.sleep(0.1)

    killer = threading.Thread(target=kill_one_simulator_mid_run, daemon=True)
    killer.start()
    out = tmp_path / "run"
    code = main(["train", "ppo", *SMALL, "--steps", "4000", "--out", str(out), "--eval-episodes", "0"])
    killer.join()
    assert code == 0 and killed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["env_steps"] == 4000
    assert summary["simulator_crashes"] >= 1


def test_bad_training_settings_are_named(tmp_path, capsys):
    assert main(["train", "ppo", "--tasks", "swim", "--out", str(tmp_path / "a")]) == 2
    assert "unknown task 'swim'" in capsys.readouterr().err
    assert main(["train", "ppo", "--protocol", "MT-TB", "--tasks", "", "--out", str(tmp_path / "b")]) == 2
    assert "not implemented yet" in capsys.readouterr().err
    assert main(["train", "ppo", "--difficulty-step", "-1", "--out", str(tmp_path / "c")]) == 2
    assert "step_size=-1" in capsys.readouterr().err
    assert main(["train", "ppo", "--steps", "0", "--out", str(tmp_path / "d")]) == 2
    assert "total_steps=0" in capsys.readouterr().err
    assert main(["train", "ppo", *SMALL, "--minibatches", "3", "--out", str(tmp_path / "e")]) == 2
    assert "minibatches=3 does not divide the batch of 100" in capsys.readouterr().err


def test_sigterm_stops_a_training_run_cleanly(tmp_path):
    """``kill PID`` of a training run ends it with 143 and leaves no process and no temporary folder."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    environment = {**os.environ, "TMPDIR": str(scratch)}
    command = [sys.executable, "-m", "avalon.cli", "train", "ppo", *SMALL, "--steps", "100000",
               "--out", str(tmp_path / "run"), "--eval-episodes", "0"]
    process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        started: dict[int, str] = {}
        while time.monotonic() < deadline and process.poll() is None:
            started = descendants(process.pid)
            if sum(name.startswith("godot") for name in started.values()) == 2:
                break
            time.sleep(0.2)
        assert sum(name.startswith("godot") for name in started.values()) == 2, "the run did not start its simulators"
        assert any(scratch.iterdir()), "the run made no temporary folder (is TMPDIR honoured?)"
        time.sleep(2.0)  # into the training loop
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + signal.SIGTERM, errors.decode()[-2000:]
    assert [pid for pid in started if is_alive(pid)] == []
    # (torch may leave its own compile cache there; ours all start with "avalon-")
    assert sorted(path.name for path in scratch.iterdir() if path.name.startswith("avalon")) == []
