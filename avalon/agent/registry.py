"""The training algorithms by name: what ``avalon train <name>`` runs and what reads their checkpoints.

Each :class:`Algorithm` row names its config class, its train function and its policy loader
(as ``"module:attribute"``, imported on first use, so that building ``avalon``'s parser loads no
torch), and lists the config fields ``avalon train <name>`` offers as options. ``avalon.app.main``
builds one ``train`` sub-command per row and ``load_policy`` picks the row a checkpoint names:
a new algorithm is its package under ``avalon/agent/`` plus one row in :data:`ALGORITHMS`.

The functions a row names:

- ``config``: a frozen attrs class; ``config(**{field: value})`` from the options given,
  ``check_batch(num_envs)`` raising ``ValueError`` when it cannot train that many envs.
- ``train(envs, out_dir, total_steps, config, *, curriculum, resume, seed, progress,
  checkpoint_interval_steps, keep_checkpoints, device) -> TrainResult``, raising ``TrainingInterrupted``
  on SIGINT or SIGTERM (as :func:`avalon.agent.train_ppo`; the common training loop,
  :class:`avalon.agent.common.loop.TrainingLoop`, does both). Its checkpoints name the algorithm.
- ``make_envs(env_config, curriculum, num_envs, *, seed, config)``: the envs ``run_training``
  hands the train function and closes at the end (default: PPO's local simulators,
  :func:`avalon.training.envs.local_training_envs`; IMPALA's: Ray actors). Whatever it returns
  has ``env_counts()`` or is a vector env of ``CurriculumWorlds`` (the run's summary counts
  simulator crashes and resets from it).
- ``policy_loader(state, seed) -> ActorCriticPolicy``: the policy of a loaded checkpoint of the algorithm
  (``act(observations, deterministic)``, ``action_space``, ``resolution``,
  ``env_config_overrides()``; see :class:`avalon.agent.common.policy.ActorCriticPolicy`).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attr

from avalon.agent import dreamer, impala, ppo
from avalon.agent.common.presets import Preset, find_preset
from avalon.agent.dreamer.presets import PRESETS as DREAMER_PRESETS
from avalon.agent.impala.presets import PRESETS as IMPALA_PRESETS
from avalon.agent.ppo.presets import PRESETS as PPO_PRESETS
from avalon.errors import is_number_in

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_FLAG = re.compile(r"^--[a-z][a-z0-9-]*$")


def _check_name(_instance, attribute, value):
    if not isinstance(value, str) or not _NAME.match(value):
        raise ValueError(f"{attribute.name}={value!r} must be a lower-case name of letters, digits and _ (e.g. 'ppo')")


def _check_flag(_instance, attribute, value):
    if not isinstance(value, str) or not _FLAG.match(value):
        raise ValueError(f"{attribute.name}={value!r} must be a long option such as '--learning-rate'")


def _check_reference(_instance, attribute, value):
    if isinstance(value, str) and not re.match(r"^[\w.]+:\w+$", value):
        raise ValueError(f"{attribute.name}={value!r} must be 'module:attribute' or the object itself")


def resolve(reference: str | Any) -> Any:
    """The object a ``"module:attribute"`` reference names (imported now); anything else as it is."""
    if not isinstance(reference, str):
        return reference
    module, name = reference.split(":")
    return getattr(importlib.import_module(module), name)


def _check_step(attribute, value) -> None:
    if not is_number_in(value, 0, 1):
        raise ValueError(f"{attribute.name}={value!r} must be a number in [0, 1] (the curriculum's H_t)")


@attr.s(frozen=True, auto_attribs=True)
class ConfigOption:
    """One option of ``avalon train <algorithm>``: ``flag`` sets the config's ``field``.

    Given: ``type(text)`` becomes the field's value; left out: the config's default stands.
    """

    flag: str = attr.ib(validator=_check_flag)  # e.g. "--lr"
    field: str = attr.ib(validator=_check_name)  # e.g. "learning_rate"
    type: Callable[[str], Any]  # int, float, or any function of the option's text
    help: str

    @property
    def dest(self) -> str:
        """The argparse attribute the option's value lands in ("--clip-range": "clip_range")."""
        return self.flag[2:].replace("-", "_")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Algorithm:
    """One training algorithm: ``avalon train <name>``, and the checkpoints naming it."""

    #: The command (``avalon train <name>``), the ``"algorithm"`` of its checkpoints and their
    #: ``"format"`` (``"avalon-<name>"``).
    name: str = attr.ib(validator=_check_name)
    #: How people write it ("PPO"), for help texts.
    title: str
    #: One line for ``avalon train --help``.
    summary: str
    #: The config class, ``"module:attribute"`` or the class.
    config: Any = attr.ib(validator=_check_reference)
    #: The train function, ``"module:attribute"`` or the function.
    train: Any = attr.ib(validator=_check_reference)
    #: The policy loader ``(checkpoint state, seed) -> policy``, ``"module:attribute"`` or the function.
    policy_loader: Any = attr.ib(validator=_check_reference)
    #: The config fields ``avalon train <name>`` offers, in the order of its help.
    options: tuple[ConfigOption, ...] = attr.ib(default=(), converter=tuple)
    #: The curriculum's H_t this algorithm trains with (Table 7: PPO 3e-4, IMPALA 5e-3, Dreamer
    #: 6e-4): the default of ``avalon train <name> --difficulty-step``.
    difficulty_step: float = attr.ib(default=3e-4, validator=lambda _i, a, v: _check_step(a, v))
    #: Builds the envs the train function steps, ``"module:attribute"`` or the function.
    make_envs: Any = attr.ib(default="avalon.training.envs:local_training_envs", validator=_check_reference)
    #: ``avalon train <name> --preset``'s choices (``avalon.agent.common.presets``): ours have ``cpu`` and
    #: ``gpu`` (Table 7); none: the run settings' and the config's defaults.
    presets: tuple[Preset, ...] = attr.ib(default=(), converter=tuple)

    def __attrs_post_init__(self) -> None:
        for kind, what, names in (
            ("options", "flags", [option.flag for option in self.options]),
            ("options", "fields", [option.field for option in self.options]),
            ("presets", "names", [preset.name for preset in self.presets]),
        ):
            repeated = sorted({name for name in names if names.count(name) > 1})
            if repeated:
                raise ValueError(f"algorithm {self.name!r}: its {kind} repeat the {what} {repeated}")
        if not all(isinstance(preset, Preset) for preset in self.presets):
            raise ValueError(f"algorithm {self.name!r}: presets must be Preset rows, got {self.presets!r}")

    def preset(self, name: str) -> Preset:
        """The preset called ``name``; ``ValueError`` listing this algorithm's presets otherwise."""
        return find_preset(self.name, self.presets, name)

    def config_class(self) -> type:
        return resolve(self.config)

    def train_function(self) -> Callable[..., Any]:
        return resolve(self.train)

    def envs_function(self) -> Callable[..., Any]:
        return resolve(self.make_envs)

    def policy_from_checkpoint(self, state: dict[str, Any], seed: int | None = None) -> Any:
        return resolve(self.policy_loader)(state, seed)


#: The algorithms, by name. A new one: its package, then its row here.
ALGORITHMS: dict[str, Algorithm] = {
    row.name: row
    for row in (
        Algorithm(
            name=ppo.NAME,
            title="PPO",
            summary="PPO (the paper's Table 7 hyper-parameters by default)",
            config="avalon.agent.ppo.config:PPOConfig",
            train="avalon.agent.ppo.trainer:train_ppo",
            policy_loader="avalon.agent.ppo.policy:policy_from_checkpoint",
            options=(
                ConfigOption("--unroll", "unroll_steps", int, "steps per env per update (Table 7: 200)"),
                ConfigOption("--lr", "learning_rate", float, "Adam learning rate (Table 7: 2.5e-4), at the first update"),
                ConfigOption(
                    "--lr-end", "learning_rate_end", float,
                    "learning rate at the last step, falling linearly from --lr over the run (Table 7: none, constant)",
                ),
                ConfigOption("--clip-range", "clip_range", float, "PPO clip range (Table 7: 0.03)"),
                ConfigOption("--entropy-cost", "entropy_cost", float, "entropy cost (Table 7: 1.5e-4)"),
                ConfigOption("--epochs", "epochs", int, "passes over each batch (default 2)"),
                ConfigOption("--minibatches", "minibatches", int, "Adam steps per pass over each batch (default 1)"),
                ConfigOption(
                    "--initial-std", "initial_std", float,
                    "std of the policy's continuous actions at the start (default 0.3; original Avalon: 1)",
                ),
            ),
            difficulty_step=3e-4,
            presets=PPO_PRESETS,
        ),
        Algorithm(
            name=impala.NAME,
            title="IMPALA",
            summary="IMPALA on Ray actors with V-trace (Table 7's hyper-parameters; batch: one unroll per simulator)",
            config="avalon.agent.impala.config:IMPALAConfig",
            train="avalon.agent.impala.trainer:train_impala",
            policy_loader="avalon.agent.impala.policy:policy_from_checkpoint",
            make_envs="avalon.agent.impala.pool:make_actor_pool",
            options=(
                ConfigOption(
                    "--envs-per-actor", "envs_per_actor", int,
                    "simulators per Ray actor (default: all in one, fastest on one machine): --envs / this = actors",
                ),
                ConfigOption(
                    "--ray", "ray_address", str,
                    "Ray cluster address to run the actors on (default: a local Ray started for the run, one CPU per actor)",
                ),
                ConfigOption("--unroll", "unroll_steps", int, "steps of one simulator per unroll (Table 7: 100)"),
                ConfigOption(
                    "--batch-unrolls", "batch_unrolls", int,
                    "unrolls per update (default: one per simulator, what 2 cores keep up with; Table 7: --batch-unrolls 32)",
                ),
                ConfigOption("--lr", "learning_rate", float, "RMSProp learning rate (Table 7: 1.5e-4), at the first update"),
                ConfigOption(
                    "--lr-end", "learning_rate_end", float,
                    "learning rate at the last step, falling linearly from --lr over the run (Table 7: none, constant)",
                ),
                ConfigOption(
                    "--entropy-cost", "entropy_cost", float,
                    "entropy cost (Table 7: 5e-3; on eat from scratch it held the continuous actions' std at its bound and nothing "
                    "was learned in 120k steps; 1.5e-4 with --lr 6e-4 learned it: docs/agent.md)",
                ),
                ConfigOption("--baseline-cost", "baseline_cost", float, "baseline (value) loss weight (Table 7: 2)"),
                ConfigOption("--discount", "discount", float, "discount gamma (Table 7: 0.998)"),
                ConfigOption(
                    "--initial-std", "initial_std", float,
                    "std of the policy's continuous actions at the start (default 0.3, as PPO's)",
                ),
                ConfigOption("--max-std", "max_std", float, "upper bound of that std (default 1: a Box's half-width)"),
            ),
            difficulty_step=5e-3,
            presets=IMPALA_PRESETS,
        ),
        Algorithm(
            name=dreamer.NAME,
            title="DreamerV2",
            summary="DreamerV2 with Gaussian latents (the paper's Table 7 hyper-parameters by default, sized for a GPU)",
            config="avalon.agent.dreamer.config:DreamerConfig",
            train="avalon.agent.dreamer.trainer:train_dreamer",
            policy_loader="avalon.agent.dreamer.policy:policy_from_checkpoint",
            options=(
                ConfigOption("--batch", "batch_size", int, "sequences per update (Table 7: 116; e.g. 8 on a CPU)"),
                ConfigOption("--unroll", "unroll", int, "steps per sequence (Table 7: 30)"),
                ConfigOption("--horizon", "horizon", int, "imagined steps of the actor-critic (DreamerV2: 15)"),
                ConfigOption("--model-lr", "model_learning_rate", float, "world model learning rate (Table 7: 1e-4)"),
                ConfigOption("--actor-lr", "actor_learning_rate", float, "actor learning rate (Table 7: 1e-5)"),
                ConfigOption("--critic-lr", "critic_learning_rate", float, "critic (value) learning rate (Table 7: 1e-4)"),
                ConfigOption("--entropy-cost", "entropy_cost", float, "actor entropy cost (Table 7: 2e-3)"),
                ConfigOption(
                    "--continuous-entropy-cost", "continuous_entropy_cost", float,
                    "entropy cost of the continuous actions (default: --entropy-cost; DreamerV2: 1e-4 for continuous, 1e-3 for discrete)",
                ),
                ConfigOption("--collect-steps", "collect_steps", int, "env steps per env between updates (default 5)"),
                ConfigOption(
                    "--updates-per-collect", "updates_per_collect", int,
                    "updates after each collect (default 1; with --collect-steps and --envs: the train ratio)",
                ),
                ConfigOption("--prefill", "prefill_steps", int, "env steps of random actions in the replay before learning (default 5000)"),
                ConfigOption(
                    "--replay-gb", "replay_gb", float,
                    "replay buffer size limit, GB (default 4: about 108k steps at 96 px RGBD, 37 GB per million)",
                ),
                ConfigOption("--deter", "deter_size", int, "GRU units of the world model (DreamerV2: 600; e.g. 200 on a CPU)"),
                ConfigOption("--stoch", "stoch_size", int, "Gaussian latent size (DreamerV2: 32)"),
                ConfigOption("--rssm-hidden", "rssm_hidden", int, "hidden units of the RSSM (DreamerV2: 600; e.g. 200 on a CPU)"),
                ConfigOption("--cnn-depth", "cnn_depth", int, "channels of the first convolution (DreamerV2: 48; e.g. 16 on a CPU)"),
                ConfigOption("--cnn-layers", "cnn_layers", int, "convolutions, each halving the image side (DreamerV2: 4)"),
                ConfigOption("--mlp-units", "mlp_units", int, "units of the MLP heads (DreamerV2: 400; e.g. 128 on a CPU)"),
                ConfigOption("--mlp-layers", "mlp_layers", int, "layers of the MLP heads (DreamerV2: 4; e.g. 2 on a CPU)"),
                ConfigOption("--initial-std", "initial_std", float, "std of the actor's continuous actions at the start (default 0.3)"),
            ),
            difficulty_step=6e-4,
            presets=DREAMER_PRESETS,
        ),
    )
}


def register(algorithm: Algorithm) -> Algorithm:
    """Adds ``algorithm`` to :data:`ALGORITHMS` (for algorithms outside this package; ours are rows there)."""
    if not isinstance(algorithm, Algorithm):
        raise TypeError(f"{algorithm!r} is not an Algorithm")
    if algorithm.name in ALGORITHMS:
        raise ValueError(f"an algorithm named {algorithm.name!r} is already registered")
    ALGORITHMS[algorithm.name] = algorithm
    return algorithm


def get_algorithm(name: str) -> Algorithm:
    """The row named ``name``; ``ValueError`` listing the algorithms otherwise."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; the algorithms are: {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name]


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """The checkpoint dict of any registered algorithm (its ``"algorithm"`` says which); ``ValueError``
    naming the file when it is not one of theirs. See :mod:`avalon.agent.common.checkpoint`."""
    from avalon.agent.common import checkpoint  # torch: loaded when a checkpoint is, not with the parser

    return checkpoint.load_checkpoint(path, tuple(ALGORITHMS))


def load_policy(checkpoint_path: str | Path, seed: int | None = None) -> Any:
    """The policy saved in a checkpoint file of any registered algorithm, rebuilt from the file
    alone by the algorithm it names (checkpoints from before algorithms were named: PPO).

    ``seed`` seeds the policy's own sampling generator (None: from OS entropy).
    """
    state = load_checkpoint(checkpoint_path)
    return get_algorithm(state["algorithm"]).policy_from_checkpoint(state, seed)
