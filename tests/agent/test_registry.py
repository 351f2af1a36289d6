"""The registry of training algorithms: ``avalon train <name>`` and ``load_policy`` come from its
rows, so a new algorithm needs its package and one row, and no edit to ``avalon/app/main.py``.

The throwaway algorithm below ("still": a policy that never learns) is a whole algorithm in
under sixty lines on the common training loop; registering it is all ``avalon train still`` needs.
"""

import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import attr
import numpy as np
import pytest
import torch

from avalon.agent import PPOConfig, load_checkpoint, load_policy, registry
from avalon.agent.common.checkpoint import checkpoint_path, save_checkpoint
from avalon.agent.common.config import NetworkConfig
from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.loop import TrainingLoop
from avalon.agent.common.network import ActorCritic
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.common.policy import ActorCriticPolicy
from avalon.agent.registry import Algorithm, ConfigOption
from avalon.app.main import build_parser, main
from avalon.env.spaces import action_space, observation_space
from tests.agent.common.test_network import random_observations

#: Written by ``train_ppo`` before checkpoints named their algorithm (commit da2a385): one env of
#: the trivial world, mouse-and-keyboard actions, 16 px, a tiny network, 20 env steps.
CHECKPOINT_BEFORE_ALGORITHM_NAMES = Path(__file__).parent / "data" / "ppo-before-issue18.pt"


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class StillConfig:
    """The throwaway algorithm's config: steps per (empty) update, and a tiny actor-critic."""

    unroll_steps: int = 10
    initial_std: float = 0.3
    min_std: float = 0.01
    network: NetworkConfig = attr.ib(
        factory=lambda: NetworkConfig(conv_layers=((4, 4, 4),), image_features=8, proprio_features=8, hidden_features=8)
    )

    def check_batch(self, num_envs: int) -> None:
        if self.unroll_steps < 1:
            raise ValueError(f"unroll_steps={self.unroll_steps} must be >= 1")

    def to_dict(self) -> dict[str, Any]:
        return attr.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> "StillConfig":
        return cls(**{**values, "network": NetworkConfig(**values["network"])})


class StillCycle:
    """Acts with the initial policy and never learns."""

    def __init__(self, loop: TrainingLoop, model: ActorCritic, config: StillConfig) -> None:
        self.model, self.config = model, config
        self.batch_size = config.unroll_steps * loop.num_envs

    def collect(self, observations, loop: TrainingLoop):
        for _ in range(self.config.unroll_steps):
            if loop.stop_requested:
                return None
            with loop.timers.act, torch.inference_mode():
                distribution, _values = self.model(loop.observation_layout.to_tensors(observations))
                actions = loop.action_layout.to_env(distribution.sample(loop.sampler).numpy())
            observations = loop.step(actions).observations
        return observations

    def learn(self, observations) -> dict[str, float]:
        return {"learnt": 0.0}

    def state(self) -> dict[str, Any]:
        return {"still_config": self.config.to_dict(), "model": self.model.state_dict()}


def train_still(envs, out_dir, total_steps, config=None, *, curriculum=None, resume=False, seed=0, progress=True,
                checkpoint_interval_steps=100_000, keep_checkpoints=3, device="cpu"):
    config = config or StillConfig()
    loop = TrainingLoop(
        envs, out_dir, total_steps, config, algorithm="still", curriculum=curriculum, resume=resume, seed=seed,
        progress=progress, checkpoint_interval_steps=checkpoint_interval_steps, keep_checkpoints=keep_checkpoints,
        act_threads=1, learn_threads=1,
    )
    model = ActorCritic(loop.observation_layout, loop.action_layout, config).eval()
    loop.resume_from_latest(lambda state, path: model.load_state_dict(state["model"]))
    return loop.run(StillCycle(loop, model, config))


def still_policy(state: dict[str, Any], seed: int | None = None) -> ActorCriticPolicy:
    config = StillConfig.from_dict(state["still_config"])
    layouts = ObservationLayout.from_dict(state["observation_layout"]), ActionLayout.from_dict(state["action_layout"])
    model = ActorCritic(*layouts, config)
    model.load_state_dict(state["model"])
    return ActorCriticPolicy(model, config, state, seed)


STILL = Algorithm(
    name="still", title="Still", summary="a policy that never learns (a test of the registry)",
    config=StillConfig, train=train_still, policy_loader=still_policy,
    options=(ConfigOption("--unroll", "unroll_steps", int, "env steps per env between updates that learn nothing"),),
)


@pytest.fixture
def with_still():
    """The registry with the throwaway algorithm registered, for this test only."""
    registry.register(STILL)
    try:
        yield STILL
    finally:
        del registry.ALGORITHMS[STILL.name]


def train_help(parser) -> str:
    commands = next(action for action in parser._actions if action.dest == "command")
    return commands.choices["train"].format_help()


def test_every_row_names_a_config_a_trainer_a_policy_loader_and_options_of_real_fields():
    assert list(registry.ALGORITHMS) == ["ppo", "impala", "dreamer"]
    for algorithm in registry.ALGORITHMS.values():
        config = algorithm.config_class()
        fields = attr.fields_dict(config)
        for option in algorithm.options:
            assert option.field in fields, f"{algorithm.name}: {option.flag} sets no field of {config.__name__}"
            default = fields[option.field].default
            if default is not None:  # None: "derived" (IMPALA's batch: one unroll per simulator)
                assert isinstance(option.type(str(default)), type(default)), option
        assert callable(algorithm.train_function()) and callable(registry.resolve(algorithm.policy_loader))
        assert callable(algorithm.envs_function()) and "device" in inspect.signature(algorithm.train_function()).parameters
        config().check_batch(2)
    assert registry.get_algorithm("ppo").config_class() is PPOConfig


def test_a_registered_algorithm_gets_its_train_command_without_touching_the_cli(with_still):
    parser = build_parser()
    assert "still" in train_help(parser) and "train an agent (PPO, IMPALA, DreamerV2, Still)" in parser.format_help()
    args = parser.parse_args(["train", "still", "--unroll", "7", "--tasks", "eat"])
    assert (args.trainer, args.unroll, args.tasks, args.steps) == ("still", 7, "eat", 200_000)
    # Each algorithm has its own options: PPO's are not the throwaway's.
    assert parser.parse_args(["train", "ppo", "--lr", "0.001"]).lr == 0.001
    with pytest.raises(SystemExit):
        parser.parse_args(["train", "still", "--lr", "0.001"])


def test_avalon_agent_exports_each_name_from_its_module():
    import avalon.agent

    assert sorted(avalon.agent.__all__) == sorted(avalon.agent._EXPORTS)
    for name in avalon.agent.__all__:
        assert getattr(avalon.agent, name).__module__.startswith("avalon.agent"), name
    with pytest.raises(AttributeError, match="no attribute 'trainer'"):
        avalon.agent.trainer  # noqa: B018 (the module moved to avalon.agent.ppo.trainer)


def test_building_the_parser_loads_no_torch():
    code = "import sys, avalon.app.main; avalon.app.main.build_parser(); print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


def test_bad_rows_and_unknown_names_are_clear_errors(with_still):
    with pytest.raises(ValueError, match="already registered"):
        registry.register(STILL)
    with pytest.raises(ValueError, match="unknown algorithm 'a3c'; the algorithms are: ppo, impala, dreamer, still"):
        registry.get_algorithm("a3c")
    with pytest.raises(ValueError, match=r"repeat the flags \['--unroll'\]"):
        attr.evolve(STILL, options=STILL.options * 2)
    with pytest.raises(ValueError, match="name='Still!' must be a lower-case name"):
        attr.evolve(STILL, name="Still!")
    with pytest.raises(ValueError, match="flag='unroll' must be a long option"):
        ConfigOption("unroll", "unroll_steps", int, "no dashes")


def test_load_policy_rebuilds_the_algorithm_a_checkpoint_names(with_still, tmp_path):
    layouts = ObservationLayout.from_space(observation_space(16)), ActionLayout.from_space(action_space("vr"))
    model = ActorCritic(*layouts, StillConfig())
    state = {
        "still_config": StillConfig().to_dict(), "model": model.state_dict(), "env_steps": 30,
        "observation_layout": layouts[0].to_dict(), "action_layout": layouts[1].to_dict(), "action_space": "vr", "resolution": 16,
    }
    path = save_checkpoint(checkpoint_path(tmp_path, 30), state, "still")
    saved = load_checkpoint(path)
    assert (saved["format"], saved["algorithm"]) == ("avalon-still", "still")
    policy = load_policy(path, seed=0)
    assert policy.algorithm == "still" and isinstance(policy.config, StillConfig) and policy.env_steps == 30
    assert action_space("vr").contains({key: value[0] for key, value in policy.act(random_observations(16, 2)).items()})
    # A file of an algorithm that is not registered is refused by name.
    torch.save({"format": "avalon-a3c", "version": 1}, tmp_path / "a3c.pt")
    with pytest.raises(ValueError, match="a3c.pt is a checkpoint of a3c, not of ppo or impala or dreamer or still"):
        load_policy(tmp_path / "a3c.pt")
    torch.save({"version": 1}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="other.pt is not an avalon-ppo or avalon-impala or avalon-dreamer or avalon-still checkpoint"):
        load_policy(tmp_path / "other.pt")


def test_a_checkpoint_from_before_algorithm_names_loads_as_ppo():
    saved = load_checkpoint(CHECKPOINT_BEFORE_ALGORITHM_NAMES)
    assert saved["algorithm"] == "ppo" and saved["format"] == "avalon-ppo"
    policy = load_policy(CHECKPOINT_BEFORE_ALGORITHM_NAMES, seed=0)
    assert policy.algorithm == "ppo" and isinstance(policy.config, PPOConfig)
    assert policy.env_config_overrides() == {"resolution": 16, "action_space": "mouse_keyboard"}
    actions = policy.act(random_observations(16, 3), deterministic=True)
    assert all(action_space("mouse_keyboard").contains({key: value[i] for key, value in actions.items()}) for i in range(3))
    assert np.isfinite(policy.value(random_observations(16, 3))).all()


@pytest.mark.godot
@pytest.mark.slow
def test_avalon_train_runs_a_registered_algorithm_end_to_end(with_still, tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["train", "still", "--resolution", "32", "--envs", "1", "--tasks", "eat", "--steps", "20", "--unroll", "10",
                 "--out", str(out), "--eval-episodes", "1", "--eval-max-difficulty", "0.1", "--eval-time-limits", "training"])
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.startswith("avalon train still: multi-task on eat, 20 env steps")
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["env_steps"], summary["updates"]) == (20, 2)
    saved = load_checkpoint(summary["checkpoint"])
    assert (saved["algorithm"], saved["still_config"]["unroll_steps"], saved["resolution"]) == ("still", 10, 32)
    # The final evaluation loaded the policy through the registry, from the checkpoint alone.
    assert summary["evaluation"]["per_task"]["eat"]["episodes"] == 1
    assert (out / "episodes.csv").is_file() and list((out / "tensorboard").iterdir())


@pytest.mark.parametrize("name", list(registry.ALGORITHMS))
def test_every_algorithms_help_renders_with_each_of_its_options(name, capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["train", name, "--help"])  # argparse %-formats every help text
    printed = capsys.readouterr().out
    assert stop.value.code == 0
    assert all(option.flag in printed for option in registry.ALGORITHMS[name].options)
