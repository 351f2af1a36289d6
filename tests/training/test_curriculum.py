"""The difficulty curriculum (Appendix I), training protocols and training time limits: pure Python."""

import threading

import numpy as np
import pytest

from avalon.tasks import task_for
from avalon.training.curriculum import Curriculum, CurriculumConfig, group_tasks, protocol_tasks, training_time_limit_frames


def test_success_raises_and_failure_lowers_the_max_difficulty_by_the_step_size():
    curriculum = Curriculum(["eat", "move"], CurriculumConfig(step_size=0.1))
    assert curriculum.difficulties() == {"eat": 0.0, "move": 0.0}
    assert curriculum.update("eat", True) == pytest.approx(0.1)
    assert curriculum.update("eat", True) == pytest.approx(0.2)
    assert curriculum.update("eat", False) == pytest.approx(0.1)
    assert curriculum.max_difficulty("move") == 0.0  # tasks move independently
    assert curriculum.counts() == {"eat": (2, 1), "move": (0, 0)}


def test_the_max_difficulty_is_clamped_to_the_unit_interval():
    curriculum = Curriculum(["eat"], CurriculumConfig(step_size=0.4, initial_difficulty=0.9))
    assert curriculum.update("eat", True) == 1.0
    assert curriculum.update("eat", True) == 1.0
    for _ in range(5):
        curriculum.update("eat", False)
    assert curriculum.max_difficulty("eat") == 0.0


def test_samples_are_uniform_between_zero_and_the_max_difficulty():
    curriculum = Curriculum(["eat"], CurriculumConfig(initial_difficulty=0.4))
    rng = np.random.default_rng(0)
    samples = np.array([curriculum.sample("eat", rng) for _ in range(4000)])
    assert samples.min() >= 0.0 and samples.max() <= 0.4
    assert samples.mean() == pytest.approx(0.2, abs=0.01)
    assert np.histogram(samples, bins=4, range=(0, 0.4))[0].min() > 900  # about 1000 per quarter
    assert Curriculum(["eat"]).sample("eat", rng) == 0.0  # d_t starts at 0 as in the paper


def test_without_the_curriculum_difficulties_span_the_whole_range_and_never_move():
    curriculum = Curriculum(["eat"], CurriculumConfig(enabled=False))
    rng = np.random.default_rng(1)
    samples = [curriculum.sample("eat", rng) for _ in range(2000)]
    assert max(samples) > 0.95 and min(samples) < 0.05
    curriculum.update("eat", False)
    assert curriculum.max_difficulty("eat") == 1.0


def test_the_paper_step_size_is_the_default():
    assert CurriculumConfig().step_size == 3e-4  # Table 7, PPO


def test_state_round_trips_through_state_dict():
    curriculum = Curriculum(["eat", "move"], CurriculumConfig(step_size=0.05))
    for success in (True, True, False, True):
        curriculum.update("move", success)
    restored = Curriculum(["eat", "move"], CurriculumConfig(step_size=0.05))
    restored.load_state_dict(curriculum.state_dict())
    assert restored.difficulties() == curriculum.difficulties()
    assert restored.counts() == curriculum.counts()


def test_updates_from_many_threads_are_not_lost():
    curriculum = Curriculum(["eat"], CurriculumConfig(step_size=1e-4))

    def succeed():
        for _ in range(1000):
            curriculum.update("eat", True)

    threads = [threading.Thread(target=succeed) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert curriculum.max_difficulty("eat") == pytest.approx(0.4)
    assert curriculum.counts()["eat"] == (4000, 0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"step_size": -0.1}, "step_size=-0.1"),
        ({"step_size": float("nan")}, "step_size=nan"),
        ({"initial_difficulty": 1.5}, "initial_difficulty=1.5"),
    ],
)
def test_bad_curriculum_settings_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        CurriculumConfig(**kwargs)


def test_unknown_tasks_are_refused_with_the_list_of_tasks():
    with pytest.raises(ValueError, match="unknown task 'swim'.*eat"):
        Curriculum(["swim"])
    with pytest.raises(ValueError, match="'move' is not in this curriculum"):
        Curriculum(["eat"]).update("move", True)
    with pytest.raises(ValueError, match="at least one task"):
        Curriculum([])


def test_protocols_name_their_tasks():
    assert protocol_tasks("single-task", ["eat"]) == (("eat",), ("eat",))
    assert protocol_tasks("multi-task", ["eat", "move"]) == (("eat", "move"), ("eat", "move"))
    assert group_tasks(("basic",))[:3] == ("eat", "move", "jump")  # the paper's Table 1 order, from the specs
    with pytest.raises(ValueError, match="exactly one task"):
        protocol_tasks("single-task", ["eat", "move"])
    # ST-B, the paper's name: one basic task.
    assert protocol_tasks("ST-B", ["move"]) == (("move",), ("move",))
    with pytest.raises(ValueError, match="'ST-B' trains on exactly one task, got 2"):
        protocol_tasks("ST-B", ["eat", "move"])
    smoke = task_for("smoke")
    with pytest.raises(ValueError, match=rf"'ST-B' trains on one basic task; '{smoke}' is not one \(the basic tasks: eat, move, "):
        protocol_tasks("ST-B", [smoke])
    with pytest.raises(ValueError, match="at least one task"):
        protocol_tasks("multi-task", [])
    with pytest.raises(ValueError, match="unknown training protocol 'MT-XX'.*MT-TB"):
        protocol_tasks("MT-XX")
    # The paper's multi-task protocols read their tasks from the specs' groups, in Table 1's order.
    basic, compositional = group_tasks(("basic",)), group_tasks(("compositional",))
    assert len(basic) == 16 and len(compositional) == 4
    assert protocol_tasks("MT-TB") == (basic, basic + compositional)
    assert protocol_tasks("MT-TA") == (basic + compositional, basic + compositional)
    assert protocol_tasks("MT-TC") == (compositional, basic + compositional)
    with pytest.raises(ValueError, match="'MT-TB' fixes its own tasks"):
        protocol_tasks("MT-TB", ["eat"])


def test_training_time_limits_grow_with_difficulty_and_default_to_five_minutes():
    assert training_time_limit_frames("eat", 0.0) == 200
    assert training_time_limit_frames("eat", 1.0) == 400
    assert training_time_limit_frames("eat", 0.5) == 300
    assert training_time_limit_frames("move", 1.0) == 800
    with pytest.raises(ValueError, match="difficulty 2"):
        training_time_limit_frames("eat", 2)
