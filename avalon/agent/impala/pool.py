"""The IMPALA actors seen from the driver: Ray's lifecycle, requests, results and restarts.

:class:`ActorPool` is the env pool ``run_training`` builds for IMPALA (the registry row's
``make_envs``, :func:`make_actor_pool`) and the training loop resets and closes. It holds
``num_envs / envs_per_actor`` Ray actors (default: one) (:class:`~avalon.agent.impala.actor.UnrollActor`, one CPU
each), keeps the requests outstanding and hands back each unroll as its actor finishes it.

Ray: ``ray_address="local"`` starts a Ray on this machine sized for the run (one CPU per actor)
at the first :meth:`ActorPool.reset` and shuts it down in :meth:`ActorPool.close`, which
``run_training`` calls however training ends; any other address joins that cluster (its nodes
need this package installed) and leaves it running. A Ray already initialised in this process is
used as it is and left running.

An actor process that dies (killed, out of memory, a crash in native code) loses its unroll in
progress: :meth:`ActorPool.next_result` reports it as dropped and starts a new actor in its place
(new worlds: its seed counts the restarts). Its simulators die with it: Godot quits when its
connection closes, the world generator when its pipe does, Xvfb with its last client.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from avalon.agent.common.loop import ExternalEnvs
from avalon.agent.impala.actor import ActorSpec, UnrollActor
from avalon.agent.impala.config import IMPALAConfig
from avalon.env.config import EnvConfig
from avalon.env.spaces import action_space, observation_space
from avalon.training.curriculum import Curriculum, training_time_limit_frames
from avalon.training.ray_cluster import import_ray, start_ray

log = logging.getLogger(__name__)

#: Seconds :meth:`ActorPool.close` waits for an actor to close its simulators before killing it.
CLOSE_TIMEOUT_S = 60.0


def make_actor_pool(
    env_config: EnvConfig, curriculum: Curriculum, num_envs: int, *, seed: int, config: IMPALAConfig,
    time_limit_frames: Callable[[str, float], int] | None = training_time_limit_frames,
) -> "ActorPool":
    """The registry's ``make_envs`` for IMPALA: ``num_envs`` simulators on Ray actors (nothing
    starts before ``reset``); ``time_limit_frames`` as :func:`~avalon.training.envs.make_training_envs`'s."""
    return ActorPool(env_config, curriculum, num_envs, seed=seed, config=config, time_limit_frames=time_limit_frames)


class ActorPool(ExternalEnvs):
    """``num_envs`` simulators in Ray actors of ``config.envs_per_actor`` each (None: one actor; see the module doc)."""

    def __init__(
        self, env_config: EnvConfig, curriculum: Curriculum, num_envs: int, *, seed: int, config: IMPALAConfig,
        time_limit_frames: Callable[[str, float], int] | None = training_time_limit_frames,
    ) -> None:
        if not isinstance(config, IMPALAConfig):
            raise ValueError(f"config must be an IMPALAConfig, not {type(config).__name__}")
        self.num_actors = config.num_actors(num_envs)
        self.num_envs = num_envs
        self.envs_per_actor = config.actor_size(num_envs)
        self.env_config, self.curriculum, self.config, self.seed = env_config, curriculum, config, seed
        self.time_limit_frames = time_limit_frames
        self.single_observation_space = observation_space(env_config.resolution)
        self.single_action_space = action_space(env_config.action_space)
        #: Actor processes that died and were replaced; unrolls received (dropped ones excluded).
        self.restarts = 0
        self.unrolls_received = 0
        self._ray: Any = None
        self._started_ray = False
        self._actors: list[Any] = []
        self._generations: list[int] = []
        self._pid_refs: list[Any] = []
        self._pending: dict[Any, tuple[int, float]] = {}  # request -> (actor, time submitted)
        self._round_trip_s = self._actor_s = self._env_s = self._act_s = 0.0
        self._closed_counts: list[dict[str, float]] = []
        self._run_seed = seed

    # -- lifecycle ------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[None, dict]:
        """Starts Ray (if needed) and the actors; ``seed`` seeds their worlds and sampling.

        Once the actors run, a reset keeps them, their episodes and their requests in progress
        (another train call on the same pool goes on from there; ``seed`` is then unused), and
        starts :meth:`overhead`'s figures afresh. Returns ``(None, {})``: the actors hold the
        observations, the trainer never sees them one step at a time.
        """
        if options:
            raise ValueError(f"the actors choose their worlds themselves; reset options {sorted(options)} are not accepted")
        self.unrolls_received, self._round_trip_s, self._actor_s = 0, 0.0, 0.0
        self._env_s = self._act_s = 0.0
        if self._actors:
            return None, {}
        self._run_seed = self.seed if seed is None else int(seed)
        self._start_ray()
        for index in range(self.num_actors):
            self._generations.append(0)
            self._actors.append(None)
            self._pid_refs.append(None)
            self._start_actor(index)
        return None, {}

    def _start_ray(self) -> None:
        self._ray = import_ray("avalon train impala")
        self._started_ray = start_ray(self._ray, self.config.ray_address, self.num_actors)

    def _start_actor(self, index: int) -> None:
        remote = self._ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(UnrollActor)
        spec = ActorSpec(
            env_config=self.env_config, tasks=self.curriculum.tasks, curriculum=self.curriculum.config, config=self.config,
            seed=self._run_seed, index=index, num_envs=self.envs_per_actor, generation=self._generations[index],
            time_limit_frames=self.time_limit_frames,
        )
        self._actors[index] = remote.remote(spec)
        self._pid_refs[index] = self._actors[index].pid.remote()

    def close(self) -> None:
        """Closes every actor's simulators, ends the actors, and shuts down a Ray this pool started."""
        if self._ray is None:
            return
        ray = self._ray
        try:
            closing = {actor.close.remote(): actor for actor in self._actors if actor is not None}
            if closing:
                done, _late = ray.wait(list(closing), num_returns=len(closing), timeout=CLOSE_TIMEOUT_S)
                for ref in done:
                    try:
                        self._closed_counts.append(ray.get(ref))
                    except Exception as error:  # an actor that failed still has its simulators' fate logged
                        log.warning("an IMPALA actor failed while closing: %s", error)
            for actor in closing.values():
                ray.kill(actor)
        finally:
            self._actors, self._pending = [], {}
            if self._started_ray:
                ray.shutdown()
                self._started_ray = False
            self._ray = None

    def __enter__(self) -> "ActorPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests -------------------------------------------------------------------------------

    def put_weights(self, state_dict: Mapping[str, Any]) -> Any:
        """The model's weights in Ray's object store, as numpy arrays (one copy read by every actor)."""
        return self._ray.put({name: tensor.detach().cpu().numpy() for name, tensor in state_dict.items()})

    def submit(self, index: int, weights: Any, version: int, difficulties: Mapping[str, float]) -> None:
        """Asks actor ``index`` for its next unroll with ``weights`` (from :meth:`put_weights`);
        ``ValueError`` if it has a request outstanding already (one at a time keeps the policy lag low)."""
        if index not in self.idle_actors():
            raise ValueError(f"actor {index} has a request outstanding already")
        request = self._actors[index].unroll.remote(weights, version, dict(difficulties), self.config.unroll_steps)
        self._pending[request] = (index, time.perf_counter())

    def idle_actors(self) -> list[int]:
        """The actors without a request outstanding."""
        busy = {index for index, _submitted in self._pending.values()}
        return [index for index in range(self.num_actors) if index not in busy]

    def next_result(self, timeout_s: float) -> tuple[int, dict[str, Any] | None] | None:
        """The first unroll to finish as ``(actor, unroll)``; ``(actor, None)`` when that actor's
        process died (the unroll is dropped and a new actor started: submit to it again); None
        when nothing finished within ``timeout_s``."""
        from ray.exceptions import RayActorError

        ray = self._ray
        done, _ = ray.wait(list(self._pending), num_returns=1, timeout=timeout_s)
        if not done:
            return None
        index, submitted = self._pending.pop(done[0])
        try:
            result = ray.get(done[0])
        except RayActorError as error:
            self.restarts += 1
            self._generations[index] += 1
            log.warning("IMPALA actor %d died (%s); its unroll is dropped and a new actor starts", index, type(error).__name__)
            ray.kill(self._actors[index])
            self._start_actor(index)
            return index, None
        self.unrolls_received += 1
        self._round_trip_s += time.perf_counter() - submitted
        self._actor_s += result["unroll_s"]
        self._env_s += result["env_s"]
        self._act_s += result["act_s"]
        return index, result

    def actor_pid(self, index: int) -> int:
        """The process id of actor ``index`` (waits for it to start)."""
        return int(self._ray.get(self._pid_refs[index]))

    # -- figures --------------------------------------------------------------------------------

    def overhead(self) -> dict[str, float]:
        """Mean seconds per unroll inside the actors (in all, stepping the simulators, acting) and
        from request to result on the driver.

        Requests are sent as soon as the previous result arrives, so the round trip less the
        actor's time is Ray's cost: scheduling the call, moving the weights in and the unroll out.
        """
        received = max(self.unrolls_received, 1)
        return {
            "actor_s_per_unroll": self._actor_s / received,
            "actor_env_s_per_unroll": self._env_s / received,
            "actor_act_s_per_unroll": self._act_s / received,
            "round_trip_s_per_unroll": self._round_trip_s / received,
        }

    def env_counts(self) -> dict[str, float]:
        """Simulator crashes, resets and world waits over the closed actors (lost with an actor
        process that died), ``actor_restarts``, and :meth:`overhead`."""
        counts = self._closed_counts
        return {
            "simulator_crashes": sum(c["simulator_crashes"] for c in counts),
            "resets": sum(c["resets"] for c in counts),
            "world_wait_s_total": sum(c["world_wait_s_total"] for c in counts),
            "world_wait_s_max": max((c["world_wait_s_max"] for c in counts), default=0.0),
            "actor_restarts": self.restarts,
            **self.overhead(),
        }
