"""Checkpoint files: naming, pruning, RNG round trips and what a curriculum state may hold."""

import random

import numpy as np
import pytest
import torch

from avalon.agent import load_checkpoint
from avalon.agent.common.checkpoint import (
    check_plain,
    checkpoint_path,
    latest_checkpoint,
    list_checkpoints,
    prune_checkpoints,
    restore_rng_states,
    rng_states,
    save_checkpoint,
)


def test_names_order_prune_and_load(tmp_path):
    for steps in (3200, 100, 64000):
        save_checkpoint(checkpoint_path(tmp_path, steps), {"env_steps": steps}, "ppo")
    assert [path.name for path in list_checkpoints(tmp_path)] == [
        "step-000000000100.pt", "step-000000003200.pt", "step-000000064000.pt"
    ]
    assert load_checkpoint(latest_checkpoint(tmp_path))["env_steps"] == 64000
    prune_checkpoints(tmp_path, keep=2)
    assert [path.name for path in list_checkpoints(tmp_path)] == ["step-000000003200.pt", "step-000000064000.pt"]
    assert latest_checkpoint(tmp_path / "nothing") is None


def test_foreign_files_are_refused_by_name(tmp_path):
    torch.save({"weights": torch.zeros(2)}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="other.pt is not an avalon-ppo or avalon-impala or avalon-dreamer checkpoint"):
        load_checkpoint(tmp_path / "other.pt")
    (tmp_path / "broken.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="broken.pt is not a readable checkpoint"):
        load_checkpoint(tmp_path / "broken.pt")
    with pytest.raises(FileNotFoundError):
        load_checkpoint(tmp_path / "missing.pt")


def test_rng_states_survive_a_checkpoint(tmp_path):
    sampler = torch.Generator().manual_seed(7)
    random.seed(1), np.random.seed(2), torch.manual_seed(3)
    path = save_checkpoint(checkpoint_path(tmp_path, 1), {"rng": rng_states(sampler)}, "ppo")
    expected = (random.random(), np.random.random(), torch.rand(1).item(), torch.rand(1, generator=sampler).item())
    random.seed(9), np.random.seed(9), torch.manual_seed(9), sampler.manual_seed(9)
    restore_rng_states(load_checkpoint(path)["rng"], sampler)
    assert (random.random(), np.random.random(), torch.rand(1).item(), torch.rand(1, generator=sampler).item()) == expected


def test_curriculum_states_must_be_plain():
    check_plain({"difficulties": {"eat": 0.5}, "history": [1, 2.0, None, (True, "x")], "t": torch.zeros(2)})
    with pytest.raises(ValueError, match=r"curriculum\['difficulties'\]\['eat'\] is a float64"):
        check_plain({"difficulties": {"eat": np.float64(0.5)}}, "curriculum")
    with pytest.raises(ValueError, match=r"state\['a'\]\[1\] is a ndarray"):
        check_plain({"a": [1, np.zeros(2)]})
