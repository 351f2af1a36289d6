"""``ThreadedVectorEnv``: N environments stepped in parallel by threads of one process.

Each :class:`~avalon.env.avalon_env.AvalonEnv` spends a step almost entirely waiting on its own
Godot process (the socket read releases the GIL), so one thread per environment runs the N
simulators in parallel with no extra processes, no pickling and no shared-memory copies: the
batch is assembled straight from the arrays the simulator decoded. (Gymnasium's ``AsyncVectorEnv``
would add one Python process per environment and a pipe round trip per step; ``avalon benchmark
--vector`` measures both.)

Gymnasium's vector conventions hold, with ``AutoresetMode.SAME_STEP``: when environment ``i``'s
episode ends, the same ``step()`` resets it and returns the new episode's first observation in
``observations[i]``, the ending step's reward and flags, and the ending step's observation and
info in ``infos["final_obs"][i]`` and ``infos["final_info"]`` (mask ``infos["_final_info"]``).

Autoresets pass on the reset options that concern the time limit (``time_limit_frames``) of the
last explicit ``reset()``: ``reset(options={"time_limit_frames": 60})`` gives every following
episode 60 frames, until a ``reset()`` without it brings back the environments' own limits. The
other options (``world_dir``, ``episode_seed``) concern one episode only and are not repeated.

Infos are batched as Gymnasium batches them, one array per key with its mask ``infos["_key"]``;
an array whose shape differs between the environments (``animals``: a row per animal of each
world) is an object array holding each environment's own array.

Actions are checked for every environment before any is stepped, so a bad action (NaN, wrong
shape, out of range) raises ``ValueError`` naming the environment and the action key, and no
environment has moved.

``gymnasium.make_vec("avalon/Avalon-v0", num_envs=n, **env_kwargs)`` gives a
``ThreadedVectorEnv`` of ``n`` :class:`~avalon.env.avalon_env.AvalonEnv` (see :func:`make_vector_env`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate

from avalon.errors import check_int

#: Reset options that autoresets repeat (see the module doc).
AUTORESET_OPTIONS = ("time_limit_frames",)


def make_vector_env(num_envs: int = 1, max_episode_steps: int | None = None, **env_kwargs: Any) -> ThreadedVectorEnv:
    """``num_envs`` :class:`~avalon.env.avalon_env.AvalonEnv` in a :class:`ThreadedVectorEnv`:
    the vector entry point of ``avalon/Avalon-v0``, which ``gymnasium.make_vec`` calls.

    ``env_kwargs`` (``config``, ``render_mode`` and any :class:`~avalon.env.config.EnvConfig`
    field) configure every environment. ``max_episode_steps`` becomes their
    ``time_limit_frames`` (it wins over a ``time_limit_frames`` keyword), so the environments
    truncate themselves: no ``TimeLimit`` wrapper is needed. A ``seed`` keyword gives
    environment ``i`` the first-reset seed ``seed + i``, as ``reset(seed=seed)`` would.
    """
    from avalon.env.avalon_env import AvalonEnv  # (avalon_env does not import this module)

    num_envs = check_int(num_envs, "num_envs", low=1)
    if max_episode_steps is not None:
        env_kwargs["time_limit_frames"] = max_episode_steps
    seed = env_kwargs.pop("seed", None)
    AvalonEnv(**env_kwargs, **({} if seed is None else {"seed": seed})).close()  # bad keywords fail here, once
    factories = []
    for index in range(int(num_envs)):
        kwargs = dict(env_kwargs) if seed is None else dict(env_kwargs, seed=seed + index)
        factories.append(functools.partial(AvalonEnv, **kwargs))
    return ThreadedVectorEnv(factories)


class ThreadedVectorEnv(VectorEnv):
    """Steps ``len(env_fns)`` environments in parallel threads (see the module doc)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], copy: bool = True) -> None:
        if not env_fns:
            raise ValueError("ThreadedVectorEnv needs at least one environment factory")
        self.envs: list[gym.Env] = []
        try:
            for make in env_fns:
                self.envs.append(make())
        except BaseException:
            for env in self.envs:
                env.close()
            raise
        self.num_envs = len(self.envs)
        self.copy = copy
        first = self.envs[0]
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        for index, env in enumerate(self.envs[1:], start=1):
            if env.observation_space != first.observation_space or env.action_space != first.action_space:
                raise ValueError(f"environment {index} has different spaces from environment 0")
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = dict(first.metadata, autoreset_mode=AutoresetMode.SAME_STEP)
        self.render_mode = first.render_mode
        self._observations = create_empty_array(self.single_observation_space, n=self.num_envs, fn=np.zeros)
        self._pool = ThreadPoolExecutor(max_workers=self.num_envs, thread_name_prefix="avalon-env")
        self._check = _action_checker(self.single_action_space, self.num_envs)
        self._autoreset_options: dict[str, Any] | None = None  # see the module doc

    # ------------------------------------------------------------------ gymnasium API

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        if isinstance(seed, (bool, np.bool_)):
            raise ValueError(f"seed={seed!r} must be an int, a sequence of {self.num_envs} seeds, or None")
        if seed is None or isinstance(seed, (int, np.integer)):
            seeds = [None if seed is None else int(seed) + index for index in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} environments")
        results = self._run(lambda index: self.envs[index].reset(seed=seeds[index], options=options))
        kept = {key: options[key] for key in AUTORESET_OPTIONS if options and options.get(key) is not None}
        self._autoreset_options = kept or None
        infos: dict[str, Any] = {}
        for index, (_, info) in enumerate(results):
            infos = self._add_info(infos, info, index)
        return self._batch([observation for observation, _ in results]), infos

    def step(self, actions: Any):
        self._check(actions)
        single_actions = list(iterate(self.action_space, actions))
        results = self._run(lambda index: self._step_one(index, single_actions[index]))
        rewards = np.array([result[1] for result in results], dtype=np.float64)
        terminations = np.array([result[2] for result in results], dtype=np.bool_)
        truncations = np.array([result[3] for result in results], dtype=np.bool_)
        infos: dict[str, Any] = {}
        for index, result in enumerate(results):
            final = result[5]
            if final is not None:
                infos = self._add_info(infos, {"final_obs": final[0], "final_info": final[1]}, index)
            infos = self._add_info(infos, result[4], index)
        return self._batch([result[0] for result in results]), rewards, terminations, truncations, infos

    def render(self) -> tuple[Any, ...] | None:
        return tuple(env.render() for env in self.envs)

    def _add_info(self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int) -> dict[str, Any]:
        """Gymnasium's batching of infos, except that an array whose shape differs between the
        environments (``animals``: one row per animal, and the worlds differ) becomes an object
        array of each environment's own array instead of failing to broadcast."""
        for key, value in env_info.items():
            batched = vector_infos.get(key)
            if (isinstance(value, np.ndarray) and isinstance(batched, np.ndarray) and batched.dtype != object
                    and batched.shape[1:] != value.shape):
                ragged = np.full(self.num_envs, None, dtype=object)
                for index in np.flatnonzero(vector_infos[f"_{key}"]):
                    ragged[index] = batched[index]
                vector_infos[key] = ragged
        return super()._add_info(vector_infos, env_info, env_num)

    def close_extras(self, **kwargs: Any) -> None:
        pool, self._pool = getattr(self, "_pool", None), None
        if pool is not None:
            errors = [error for error in _gather([pool.submit(env.close) for env in self.envs]) if error is not None]
            pool.shutdown(wait=True)
        else:
            errors = []
            for env in getattr(self, "envs", []):
                env.close()
        if errors:
            raise errors[0]

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """``getattr(env, name)(*args, **kwargs)`` for every environment (or the attribute's values)."""
        values = []
        for env in self.envs:
            value = env.get_wrapper_attr(name)
            values.append(value(*args, **kwargs) if callable(value) else value)
        return tuple(values)

    # ------------------------------------------------------------------ details

    def _step_one(self, index: int, action: Any):
        env = self.envs[index]
        observation, reward, terminated, truncated, info = env.step(action)
        final = None
        if terminated or truncated:
            final = (observation, info)
            observation, info = env.reset(options=self._autoreset_options)
        return observation, reward, terminated, truncated, info, final

    def _run(self, work: Callable[[int], Any]) -> list[Any]:
        if self._pool is None:
            raise RuntimeError("this vector environment is closed")
        futures = [self._pool.submit(work, index) for index in range(self.num_envs)]
        outcomes = _gather(futures)
        for error in outcomes:
            if isinstance(error, BaseException):
                raise error
        return [future.result() for future in futures]

    def _batch(self, observations: list[Any]) -> Any:
        self._observations = concatenate(self.single_observation_space, observations, self._observations)
        if not self.copy:
            return self._observations
        return {key: value.copy() for key, value in self._observations.items()} if isinstance(
            self._observations, dict
        ) else np.copy(self._observations)


def _gather(futures) -> list[BaseException | None]:
    """Waits for every future; returns each one's exception (or None)."""
    return [future.exception() for future in futures]


def _action_checker(space: gym.Space, num_envs: int) -> Callable[[Any], None]:
    """A check of batched actions that names the environment and the key of the first bad value."""
    if not isinstance(space, gym.spaces.Dict):
        batched = batch_space(space, num_envs)

        def check_plain(actions: Any) -> None:
            if not batched.contains(np.asarray(actions, dtype=batched.dtype) if batched.dtype is not None else actions):
                raise ValueError(f"actions {actions!r} are not in the batched action space {batched}")

        return check_plain

    parts = dict(space.spaces)

    def check(actions: Any) -> None:
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict of batched arrays with keys {sorted(parts)}, got {type(actions).__name__}")
        missing, extra = sorted(set(parts) - set(actions)), sorted(set(actions) - set(parts))
        if missing or extra:
            raise ValueError(f"action keys: missing {missing}, unexpected {extra}; expected {sorted(parts)}")
        for key, part in parts.items():
            values = np.asarray(actions[key])
            expected = (num_envs, *part.shape)
            if values.shape != expected:
                raise ValueError(f"action {key!r} has shape {values.shape}, expected {expected} (num_envs first)")
            # As strict as each environment's own check, so that no environment steps when one would refuse.
            kinds = "biuf" if isinstance(part, gym.spaces.Discrete) else "iuf"
            if values.dtype.kind not in kinds:
                expected = "ints, bools or floats" if kinds == "biuf" else "real numbers (int or float)"
                raise ValueError(f"action {key!r} has dtype {values.dtype}, expected {expected}")
            if isinstance(part, gym.spaces.Box):
                bad = ~(np.isfinite(values) & (values >= part.low) & (values <= part.high))
            elif isinstance(part, gym.spaces.Discrete):
                bad = ~((values >= part.start) & (values < part.start + part.n) & (values == np.round(values)))
            else:
                bad = np.array([not part.contains(value) for value in values])
            if bad.any():
                env_index = int(np.argwhere(bad)[0][0])
                raise ValueError(
                    f"action {key!r} of environment {env_index} is {values[env_index]!r}, "
                    f"outside {part} (NaN, inf or out of range)"
                )

    return check
