"""``avalon train <algorithm> --device cuda``: each trainer learns on a GPU where one exists; the
device chooses the default preset. Without a GPU the training test is skipped, saying why."""

import json

import pytest
import torch

from avalon.agent import load_policy
from avalon.agent.common.presets import AUTO_DEVICE, run_device
from avalon.app.main import main

NO_GPU = "no CUDA GPU here (torch.cuda.is_available() is False): --device cuda is exercised on a machine with one"


def test_the_auto_device_is_the_gpu_where_torch_sees_one():
    assert run_device(AUTO_DEVICE) == ("cuda" if torch.cuda.is_available() else "cpu")
    assert run_device("cpu") == "cpu"


@pytest.mark.godot
@pytest.mark.slow
@pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_GPU)
@pytest.mark.parametrize("algorithm, steps", [("ppo", 400), ("impala", 400), ("dreamer", 300)])
def test_each_trainer_learns_on_the_gpu_and_its_checkpoint_acts_on_the_cpu(algorithm, steps, tmp_path, capsys):
    out = tmp_path / algorithm
    small = {
        "ppo": ["--unroll", "100"],
        "impala": ["--unroll", "50", "--batch-unrolls", "2"],
        "dreamer": ["--prefill", "100", "--collect-steps", "10"],
    }
    code = main([
        "train", algorithm, "--device", "cuda", "--tasks", "eat", "--envs", "2", "--resolution", "32", "--steps", str(steps),
        *small[algorithm], "--out", str(out), "--eval-episodes", "1", "--eval-time-limits", "training",
    ])
    assert code == 0
    printed = capsys.readouterr().out
    settings = json.loads((out / "settings.json").read_text())
    assert settings["device"] == "cuda" and settings["preset"] == "gpu" and not settings["preset_given"]
    assert "preset gpu (" in printed and "chosen for the device cuda" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["env_steps"] >= steps and summary["evaluation"]["per_task"]["eat"]["episodes"] == 1
    policy = load_policy(summary["checkpoint"], seed=0)  # a GPU-trained checkpoint loads and acts on the CPU
    assert policy.resolution == 32
