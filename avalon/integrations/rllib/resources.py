"""What an RLlib algorithm asks Ray for, against what the cluster has: :func:`check_resources`
refuses a config whose actors can never all start, naming the fix, and :func:`build_algo` checks
before it builds.

Ray starts an actor only once a node has the CPUs and GPUs it asks for; RLlib's ``build_algo()``
then waits for every one of them. An algorithm that asks for more than the cluster has therefore
waits forever, and says nothing: APPO's default of one remote learner (``num_learners=1``, one
CPU) beside two env runners (one CPU each) on a 2-core machine is the case ``docs/rllib.md``
describes. Outside Ray Tune the driver holds no Ray resources, so the actors count: env runners
(training and evaluation), offline evaluation runners, and remote learners with their
aggregator actors (:meth:`Algorithm.default_resource_request` lists them, with the driver first).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import attr

RESOURCES = ("CPU", "GPU")


@attr.s(frozen=True, auto_attribs=True)
class ResourceRequest:
    """The CPUs and GPUs an algorithm's actors ask for, by kind, and in all."""

    #: (kind of actor, how many, CPUs each, GPUs each), e.g. ("env runner", 2, 1.0, 0.0).
    actors: tuple[tuple[str, int, float, float], ...]

    def total(self, resource: str) -> float:
        column = RESOURCES.index(resource) + 2
        return sum(row[1] * row[column] for row in self.actors)

    def describe(self) -> str:
        parts = []
        for kind, count, cpus, gpus in self.actors:
            if count:
                gpu = f" and {gpus:g} GPU" if gpus else ""
                parts.append(f"{count} {kind}{'s' if count > 1 else ''} x {cpus:g} CPU{gpu}")
        return ", ".join(parts) or "no actors"


def resource_request(config: Any) -> ResourceRequest:
    """What the actors of RLlib's ``config`` (an ``AlgorithmConfig``) ask Ray for."""
    bundles = config.algo_class.default_resource_request(config).bundles[1:]  # [0]: the driver (Tune reserves it)
    env_runners = config.num_env_runners
    learners = len(bundles) - env_runners - _evaluation_runners(config)
    kinds = (
        ("env runner", env_runners, bundles[:env_runners]),
        ("evaluation runner", len(bundles) - env_runners - learners, bundles[env_runners : len(bundles) - learners]),
        ("learner" if config.num_learners else "aggregator actor", learners, bundles[len(bundles) - learners :]),
    )
    rows = []
    for kind, count, group in kinds:
        if count:
            rows.append((kind, count, float(group[0].get("CPU", 0)), float(group[0].get("GPU", 0))))
    return ResourceRequest(tuple(rows))


def _evaluation_runners(config: Any) -> int:
    evaluation = config.get_evaluation_config_object()
    counted = config.algo_class._should_create_evaluation_env_runners(evaluation)
    offline = config.algo_class._should_create_offline_evaluation_runners(evaluation)
    return (evaluation.num_env_runners if counted else 0) + (evaluation.num_offline_eval_runners if offline else 0)


def cluster_resources() -> dict[str, float]:
    """CPUs and GPUs of the running Ray (``ray.cluster_resources()``), or, before ``ray.init``,
    of the local Ray it would start: this machine's CPUs and the GPUs torch sees."""
    import ray

    if ray.is_initialized():
        resources = ray.cluster_resources()
        return {resource: float(resources.get(resource, 0)) for resource in RESOURCES}
    try:
        import torch

        gpus = torch.cuda.device_count()
    except ImportError:
        gpus = 0
    return {"CPU": float(os.cpu_count() or 1), "GPU": float(gpus)}


def check_resources(config: Any, cluster: Mapping[str, float] | None = None) -> ResourceRequest:
    """The request of ``config``'s actors, or ``ValueError`` when it exceeds ``cluster`` (default:
    :func:`cluster_resources`) in CPUs or GPUs, naming what asks for what and the fix."""
    request = resource_request(config)
    have = dict(cluster_resources() if cluster is None else cluster)
    short = [resource for resource in RESOURCES if request.total(resource) > have.get(resource, 0.0)]
    if not short:
        return request
    asked = ", ".join(f"{request.total(resource):g} {resource}" for resource in short)
    has = ", ".join(f"{have.get(resource, 0.0):g} {resource}" for resource in short)
    raise ValueError(
        f"{type(config).__name__} asks Ray for {asked} ({request.describe()}) and the cluster has {has}: "
        f"build_algo() would wait forever for the rest. {_fix(config, short)}"
    )


def _fix(config: Any, short: list[str]) -> str:
    fixes = []
    if "CPU" in short and config.num_learners:
        fixes.append("learn in the driver with config.learners(num_learners=0)")
    if "CPU" in short and config.num_env_runners:
        fixes.append("use fewer env runners (config.env_runners(num_env_runners=...)) or fewer CPUs each (num_cpus_per_env_runner)")
    if "GPU" in short:
        fixes.append("ask for no GPU (num_gpus_per_learner=0, num_gpus_per_env_runner=0) on a machine without one")
    fixes.append("or start Ray with more resources (ray.init(num_cpus=...)) or join a larger cluster")
    return "Fix: " + "; ".join(fixes) + "."


def build_algo(config: Any) -> Any:
    """``config.build_algo()`` after :func:`check_resources`: an algorithm that could never start
    is refused at once, naming the fix, instead of waiting forever."""
    check_resources(config)
    return config.build_algo()
