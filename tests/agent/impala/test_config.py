"""IMPALA's settings, its row in the registry and ``avalon train impala``'s bad input."""

import pytest
import torch

from avalon.agent import registry
from avalon.agent.common.checkpoint import checkpoint_path, save_checkpoint
from avalon.agent.common.device import resolve_device
from avalon.agent.common.presets import choose_settings
from avalon.agent.impala.config import IMPALAConfig
from avalon.agent.impala.pool import make_actor_pool
from avalon.agent.impala.trainer import train_impala
from avalon.app.main import build_parser, main
from avalon.env.config import EnvConfig
from avalon.training.curriculum import Curriculum


def test_defaults_are_table_7_except_the_batch():
    config = IMPALAConfig()
    assert (config.learning_rate, config.rmsprop_alpha, config.rmsprop_epsilon, config.max_grad_norm) == (1.5e-4, 0.95, 0.005, 200)
    assert (config.baseline_cost, config.entropy_cost, config.discount, config.unroll_steps) == (2, 5e-3, 0.998, 100)
    assert config.batch_size(2) == 200 and IMPALAConfig(batch_unrolls=32).batch_size(2) == 3200
    assert IMPALAConfig(envs_per_actor=2).num_actors(4) == 2 and IMPALAConfig().num_actors(4) == 1
    assert IMPALAConfig.from_dict(IMPALAConfig(batch_unrolls=4).to_dict()) == IMPALAConfig(batch_unrolls=4)


def test_the_registry_row_gives_impala_its_curriculum_step_and_its_actors():
    row = registry.get_algorithm("impala")
    assert row.difficulty_step == 5e-3 and registry.get_algorithm("ppo").difficulty_step == 3e-4
    assert row.envs_function() is make_actor_pool
    parser = build_parser()
    impala = parser.parse_args(["train", "impala"])
    assert (impala.preset, impala.difficulty_step, impala.device) == (None, None, "auto")  # the preset's, for the device's
    table_7 = choose_settings(row, "gpu", "cpu", {"difficulty_step": None}, {})
    assert table_7.run["difficulty_step"] == 5e-3 and table_7.config["batch_unrolls"] == 32
    given = parser.parse_args(["train", "impala", "--envs-per-actor", "2", "--batch-unrolls", "32", "--ray", "ray://head:10001"])
    assert (given.envs_per_actor, given.batch_unrolls, given.ray) == (2, 32, "ray://head:10001")


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"envs_per_actor": 0}, "envs_per_actor=0"),
        ({"batch_unrolls": 3, "envs_per_actor": 2}, "batch_unrolls=3 must be a multiple of envs_per_actor=2"),
        ({"rmsprop_alpha": 1.5}, "rmsprop_alpha"),
        ({"ray_address": ""}, "ray_address='' must be 'local' or a Ray cluster address"),
        ({"min_std": 0.5}, "min_std=0.5 must be below initial_std=0.3"),
    ],
)
def test_bad_settings_are_refused_by_name(arguments, message):
    with pytest.raises(ValueError, match=message):
        IMPALAConfig(**arguments)


def test_simulators_that_do_not_split_into_actors_are_refused():
    with pytest.raises(ValueError, match=r"3 simulators \(--envs\) do not split into actors of envs_per_actor=2"):
        make_actor_pool(EnvConfig(resolution=32), Curriculum(("eat",)), 3, seed=0, config=IMPALAConfig(envs_per_actor=2))
    with pytest.raises(ValueError, match="batch_unrolls=3 must be a multiple of the 2 simulators of an actor"):
        IMPALAConfig(batch_unrolls=3).check_batch(2)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_devices_that_do_not_exist_are_refused_by_name(tmp_path, capsys):
    with pytest.raises(ValueError, match="device 'cuda' asked for, but torch sees no CUDA GPU"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match="device 'tpu' is not one of 'cpu', 'cuda', 'cuda:N'"):
        resolve_device("tpu")
    assert resolve_device("cpu") == torch.device("cpu")
    # Before any simulator or Ray starts, for every algorithm.
    for algorithm in ("ppo", "impala"):
        assert main(["train", algorithm, "--device", "cuda", "--out", str(tmp_path / algorithm), "--steps", "10"]) == 2
        assert "device 'cuda' asked for" in capsys.readouterr().err
        assert not (tmp_path / algorithm).exists()


def test_resuming_another_algorithms_run_is_refused_naming_both(tmp_path):
    save_checkpoint(checkpoint_path(tmp_path, 100), {"env_steps": 100}, "ppo")
    pool = make_actor_pool(EnvConfig(resolution=32), Curriculum(("eat",)), 2, seed=0, config=IMPALAConfig())
    with pytest.raises(ValueError, match="step-000000000100.pt is a checkpoint of ppo, not of impala"):
        train_impala(pool, tmp_path, 200, resume=True, progress=False)
    pool.close()  # nothing started: no Ray to stop


def test_an_option_of_another_algorithm_is_an_error(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["train", "ppo", "--ray", "local"])
    assert "unrecognized arguments: --ray local" in capsys.readouterr().err


def test_the_learning_rate_falls_to_its_end_over_the_run_as_ppos_does():
    assert IMPALAConfig().learning_rate_end is None and IMPALAConfig().learning_rate_at(50_000, 80_000) == 1.5e-4  # Table 7
    falling = IMPALAConfig(learning_rate=2e-3, learning_rate_end=0.0)
    assert [falling.learning_rate_at(steps, 60_000) for steps in (0, 30_000, 60_000, 90_000)] == pytest.approx([2e-3, 1e-3, 0.0, 0.0])
    with pytest.raises(ValueError, match="learning_rate_end=-0.001 must be"):
        IMPALAConfig(learning_rate_end=-1e-3)
    args = build_parser().parse_args(["train", "impala", "--lr", "1e-3", "--lr-end", "1e-4"])
    assert (args.lr, args.lr_end) == (1e-3, 1e-4)
