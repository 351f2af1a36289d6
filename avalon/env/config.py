"""``EnvConfig``: everything that configures an :class:`avalon.env.avalon_env.AvalonEnv`.

Every field is checked when the config is made: a bad value is a ``ValueError`` naming the field,
the value and what is expected (:mod:`avalon.errors`). Numpy scalars are accepted where Python
numbers are, and stored as Python numbers; paths may be ``os.PathLike`` and are stored as ``str``.
"""

from __future__ import annotations

from typing import Any

import attr

from avalon.errors import (
    bool_field,
    check_instance,
    check_int,
    field_check,
    int_field,
    number_field,
    optional_path_field,
    plain_float,
    refuse,
)
from avalon.rules.mechanics import MOVEMENT_COEFFICIENT
from avalon.sim.protocol import MAX_TIME_LIMIT_FRAMES, SEED_LIMIT
from avalon.sim.settings import SimulatorSettings
from avalon.tasks import check_difficulty, check_task, task_for

#: The simulator's fields, which ``EnvConfig`` takes as keywords and reads through.
SIMULATOR_FIELDS: tuple[str, ...] = tuple(field.name for field in attr.fields(SimulatorSettings))
_SEEDS = "an int in [0, 2**64)"  # what RESET's u64 carries


def check_seed(value: Any, name: str = "seed") -> int:
    """``value`` as a Python int if it is an integer in [0, 2**64) (what RESET's u64 carries),
    else ``ValueError`` naming ``name``, the value and the range."""
    return check_int(value, name, low=0, high=SEED_LIMIT - 1, expected=_SEEDS)


def check_time_limit_frames(value: Any, name: str = "time_limit_frames") -> int:
    """``value`` as a Python int if it is an integer from 1 to ``MAX_TIME_LIMIT_FRAMES`` (RESET's u32)."""
    return check_int(value, name, low=1, high=MAX_TIME_LIMIT_FRAMES, unit="frames")


def _check_task_name(value: Any, name: str) -> None:
    if not isinstance(value, str):
        refuse(name, value, "a task name (str)")
    check_task(value)


def _check_difficulty(value: Any, _name: str) -> None:
    check_difficulty(value)


@attr.s(frozen=True, auto_attribs=True, kw_only=True, init=False)
class EnvConfig:
    """Configuration of one environment. Every field has a default; override with keywords.

    The simulator's settings (``resolution``, ``render_resolution``, ``renderer``,
    ``action_space``, ``godot_binary``, the ``*_timeout_s`` deadlines, ``log_dir``,
    ``llvmpipe_threads``: see :class:`~avalon.sim.settings.SimulatorSettings`) live in one
    :class:`SimulatorSettings`, the field ``simulator``. ``EnvConfig`` takes them as keywords
    too, on top of a given ``simulator`` (``EnvConfig(renderer="GLES2", task="eat")``), and
    reads them through (``config.renderer``), so ``attr.evolve(config, renderer="GLES3")`` and
    ``AvalonEnv(renderer="GLES2")`` work as for its own fields. :meth:`keywords` lists them all.

    World source: ``world_dir`` (a world folder, used for every episode) takes precedence over
    ``task`` (a world is generated for every episode from the task, ``difficulty`` and the
    episode seed). See ``avalon.tasks.TASKS`` for the task names.

    Time limit, frames, for an episode, first of: the ``time_limit_frames`` reset option (that
    episode only); ``gymnasium.make``'s ``max_episode_steps`` (written into this field when the
    env is made); this field; the world's own (``world.json``).
    """

    #: A world folder to load for every episode (overrides ``task``).
    world_dir: str | None = optional_path_field(None)
    #: Task whose generator builds each episode's world when ``world_dir`` is None.
    task: str = attr.ib(factory=lambda: task_for("smoke"), validator=field_check(_check_task_name))
    #: Task difficulty in [0, 1].
    difficulty: float = attr.ib(default=0.0, converter=plain_float, validator=field_check(_check_difficulty))
    #: Seed of the first reset when ``reset()`` is called without one (None: from OS entropy),
    #: an int in [0, 2**64).
    seed: int | None = int_field(None, low=0, high=SEED_LIMIT - 1, optional=True, expected=_SEEDS)
    #: Every episode's time limit, frames (steps), from 1 to 2**32 - 1; None: each world's own
    #: limit from its ``world.json``. See the class doc for what overrides it.
    time_limit_frames: int | None = int_field(None, low=1, high=MAX_TIME_LIMIT_FRAMES, optional=True, unit="frames")
    #: Training mode applies the movement penalty; evaluation mode sets C_move = 0 (Appendix B).
    is_training: bool = bool_field(True)
    #: C_move of Appendix B, the movement penalty's coefficient in training mode (Table 5: 1e-8).
    movement_coefficient: float = number_field(MOVEMENT_COEFFICIENT, low=0)
    #: How to launch the simulator; the keywords named in :data:`SIMULATOR_FIELDS` override its fields.
    simulator: SimulatorSettings = attr.ib(factory=SimulatorSettings, validator=field_check(check_instance, kind=SimulatorSettings))

    def __init__(self, **keywords: Any) -> None:
        unknown = [name for name in keywords if name not in self.keywords()]
        if unknown:
            raise TypeError(f"EnvConfig.__init__() got an unexpected keyword argument {unknown[0]!r}")
        overrides = {name: keywords.pop(name) for name in SIMULATOR_FIELDS if name in keywords}
        simulator = keywords.pop("simulator", None)
        if simulator is None:
            simulator = SimulatorSettings(**overrides)
        elif overrides and isinstance(simulator, SimulatorSettings):
            simulator = attr.evolve(simulator, **overrides)
        self.__attrs_init__(simulator=simulator, **keywords)

    @classmethod
    def keywords(cls) -> tuple[str, ...]:
        """The keywords ``EnvConfig`` (and ``AvalonEnv``) take: the simulator's fields, then its own."""
        return SIMULATOR_FIELDS + tuple(field.name for field in attr.fields(cls))


def _read_through(name: str) -> property:
    def read(config: EnvConfig) -> Any:
        return getattr(config.simulator, name)

    return property(read, doc=f"``simulator.{name}`` (see :class:`~avalon.sim.settings.SimulatorSettings`).")


for _name in SIMULATOR_FIELDS:
    setattr(EnvConfig, _name, _read_through(_name))
del _name
