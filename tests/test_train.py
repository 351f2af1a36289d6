"""``avalon train ppo`` and ``avalon eval --checkpoint`` end to end with the real simulator:
curriculum, world supply, parallel simulators, PPO, checkpoints, resume, crash recovery."""

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
import torch

from avalon.cli import main

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SMALL = ["--resolution", "32", "--unroll", "50", "--envs", "2", "--tasks", "eat,move"]


def our_godot_pids() -> list[int]:
    """Godot processes started by this Python process."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and name.startswith("godot"):
            pids.append(int(entry.name))
    return pids


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
