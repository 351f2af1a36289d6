"""The difficulty curriculum of the paper's Appendix I, training protocols (section 5.2) and
training time limits (Appendix B.1).

Per task the curriculum keeps a maximum difficulty ``d_t`` (starting at ``initial_difficulty``,
0 in the paper). Each new world of task ``t`` gets a difficulty drawn from ``U[0, d_t]``; when the
agent succeeds at a world (eats all its food) ``d_t`` rises by ``H_t`` (``step_size``), when it
fails ``d_t`` falls by ``H_t``, clamped to [0, 1]. Without the curriculum (``enabled=False``, the
paper's "no curriculum" ablation) difficulties are drawn from ``U[0, 1]`` and never change.

One :class:`Curriculum` is shared by every environment of a training run (they run in threads of
one process), so every episode moves the same ``d_t``; it is thread-safe.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence

import attr
import numpy as np

from avalon.errors import number_field
from avalon.tasks import TASKS, check_difficulty, check_task
from avalon.tasks.kit.spec import PAPER_TASK_COUNTS, TASK_GROUPS

#: Training protocols of section 5.2: name -> (the task groups it trains on, the groups it
#: evaluates on), groups as ``TaskSpec.group`` names them; None: the tasks given on the command
#: line (single task: exactly one of them).
PROTOCOLS: dict[str, tuple[tuple[str, ...], tuple[str, ...]] | None] = {
    "ST-B": None,  # train and evaluate on one basic task
    "single-task": None,  # train and evaluate on one task of any group (or a test world)
    "multi-task": None,  # train and evaluate on the tasks given
    "MT-TB": (("basic",), TASK_GROUPS),  # train on the 16 basic tasks, evaluate on all 20
    "MT-TA": (TASK_GROUPS, TASK_GROUPS),  # train and evaluate on all 20
    "MT-TC": (("compositional",), TASK_GROUPS),  # train on the 4 compositional tasks, evaluate on all 20
}


#: The protocols that train on exactly one task given on the command line.
SINGLE_TASK_PROTOCOLS = ("ST-B", "single-task")


def group_tasks(groups: Sequence[str]) -> tuple[str, ...]:
    """The registered tasks of ``groups`` (``TaskSpec.group``), in the order of the paper's Table 1."""
    specs = [spec for spec in TASKS.values() if spec.group in groups]
    return tuple(spec.name for spec in sorted(specs, key=lambda spec: spec.table_row))


def _missing_tasks(protocol: str, groups: Sequence[str]) -> list[str]:
    """What the paper's ``groups`` hold that this registry lacks, one phrase per group."""
    missing = []
    for group in groups:
        have = group_tasks((group,))
        if len(have) < PAPER_TASK_COUNTS[group]:
            missing.append(f"{PAPER_TASK_COUNTS[group] - len(have)} of the paper's {PAPER_TASK_COUNTS[group]} {group} tasks "
                           f"(implemented: {', '.join(have) or 'none'})")
    return missing


def protocol_tasks(protocol: str, tasks: Sequence[str] = ()) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(training tasks, evaluation tasks) of ``protocol``.

    ``single-task`` needs exactly one task in ``tasks``, ``multi-task`` one or more; the paper's
    MT-* protocols take their tasks from the task specs' groups, and raise a ``ValueError`` saying
    how many of each group's tasks are not implemented yet until every one exists.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown training protocol {protocol!r}; the protocols are: {', '.join(PROTOCOLS)}")
    groups = PROTOCOLS[protocol]
    if groups is None:
        tasks = tuple(tasks)
        if not tasks:
            raise ValueError(f"protocol {protocol!r} needs at least one task (e.g. --tasks {group_tasks(('basic',))[0]})")
        if protocol in SINGLE_TASK_PROTOCOLS and len(tasks) != 1:
            raise ValueError(f"protocol {protocol!r} trains on exactly one task, got {len(tasks)}: {', '.join(tasks)}")
        if len(set(tasks)) != len(tasks):
            raise ValueError(f"tasks {', '.join(tasks)} name a task twice")
        for task in tasks:
            check_task(task)
        if protocol == "ST-B" and TASKS[tasks[0]].group != "basic":
            raise ValueError(f"protocol 'ST-B' trains on one basic task; {tasks[0]!r} is not one (the basic tasks: "
                             f"{', '.join(group_tasks(('basic',)))})")
        return tasks, tasks
    train_groups, evaluation_groups = groups
    train = group_tasks(train_groups)
    if tasks and tuple(tasks) != train:
        raise ValueError(f"protocol {protocol!r} fixes its own tasks; do not pass tasks ({', '.join(tasks)})")
    missing = _missing_tasks(protocol, tuple(dict.fromkeys((*train_groups, *evaluation_groups))))
    if missing:
        raise ValueError(f"protocol {protocol!r} needs tasks that are not implemented yet: {'; '.join(missing)}")
    return train, group_tasks(evaluation_groups)


# ---------------------------------------------------------------------------------- time limits


def training_time_limit_frames(task: str, difficulty: float) -> int:
    """Frames after which a training episode of ``task`` at ``difficulty`` is truncated: the task's
    own limit (``TaskSpec.training_time_limit_s``, linear in difficulty; paper, Appendix B.1).
    Evaluation uses the world's own limit instead (Appendix G.3)."""
    spec = check_task(task)
    return spec.training_time_limit_frames(check_difficulty(difficulty))


# ---------------------------------------------------------------------------------- curriculum


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class CurriculumConfig:
    """How the per-task maximum difficulty moves (Appendix I)."""

    #: H_t: change of d_t per success (+) or failure (-). Table 7: PPO 3e-4, IMPALA 5e-3, Dreamer 6e-4.
    step_size: float = number_field(3e-4, low=0, high=1)
    #: d_t of every task at the start of training (the paper starts at 0).
    initial_difficulty: float = number_field(0.0, low=0, high=1)
    #: False: every world's difficulty is drawn from U[0, 1] and d_t never moves (the ablation).
    enabled: bool = True


class Curriculum:
    """Per-task maximum difficulties ``d_t``, sampled and updated as in the paper's Appendix I."""

    def __init__(self, tasks: Iterable[str], config: CurriculumConfig | None = None) -> None:
        self.config = config if config is not None else CurriculumConfig()
        tasks = tuple(tasks)
        if not tasks:
            raise ValueError("a curriculum needs at least one task")
        for task in tasks:
            check_task(task)
        start = self.config.initial_difficulty if self.config.enabled else 1.0
        self._max: dict[str, float] = {task: start for task in tasks}
        self._successes = {task: 0 for task in tasks}
        self._failures = {task: 0 for task in tasks}
        self._lock = threading.Lock()

    @property
    def tasks(self) -> tuple[str, ...]:
        return tuple(self._max)

    def max_difficulty(self, task: str) -> float:
        """d_t: the largest difficulty the next world of ``task`` can have."""
        with self._lock:
            return self._max[self._known(task)]

    def difficulties(self) -> dict[str, float]:
        """d_t of every task."""
        with self._lock:
            return dict(self._max)

    def sample(self, task: str, rng: np.random.Generator) -> float:
        """A difficulty from U[0, d_t] for the next world of ``task``."""
        return float(rng.uniform(0.0, 1.0)) * self.max_difficulty(task)

    def update(self, task: str, success: bool) -> float:
        """Moves d_t by +H_t on success, -H_t on failure (clamped to [0, 1]); returns the new d_t."""
        with self._lock:
            task = self._known(task)
            if success:
                self._successes[task] += 1
            else:
                self._failures[task] += 1
            if self.config.enabled:
                step = self.config.step_size if success else -self.config.step_size
                self._max[task] = min(1.0, max(0.0, self._max[task] + step))
            return self._max[task]

    def state_dict(self) -> dict:
        """Everything needed to continue this curriculum (checkpoints)."""
        with self._lock:
            return {
                "config": attr.asdict(self.config),
                "max_difficulty": dict(self._max),
                "successes": dict(self._successes),
                "failures": dict(self._failures),
            }

    def load_state_dict(self, state: Mapping) -> None:
        """Restores :meth:`state_dict` output; tasks this curriculum does not train keep their d_t."""
        with self._lock:
            for task, value in state["max_difficulty"].items():
                if task in self._max:
                    self._max[task] = float(value)
                    self._successes[task] = int(state.get("successes", {}).get(task, 0))
                    self._failures[task] = int(state.get("failures", {}).get(task, 0))

    def counts(self) -> dict[str, tuple[int, int]]:
        """(successes, failures) recorded per task."""
        with self._lock:
            return {task: (self._successes[task], self._failures[task]) for task in self._max}

    def _known(self, task: str) -> str:
        if task not in self._max:
            raise ValueError(f"task {task!r} is not in this curriculum ({', '.join(self._max)})")
        return task
