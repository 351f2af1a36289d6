"""What a TaskSpec checks of its facts, and the lazy references it holds."""

from __future__ import annotations

import attr
import pytest

from avalon.tasks import TASKS
from avalon.tasks.kit.spec import PAPER_TASK_COUNTS, resolve_reference


def test_the_registered_tasks_have_distinct_table_rows_within_their_group():
    rows = [spec.table_row for spec in TASKS.values() if spec.group is not None]
    assert len(rows) == len(set(rows)), rows
    for spec in TASKS.values():
        if spec.group == "basic":
            assert 1 <= spec.table_row <= PAPER_TASK_COUNTS["basic"]
        elif spec.group == "compositional":  # Table 1's rows after the basic tasks'
            assert PAPER_TASK_COUNTS["basic"] < spec.table_row <= sum(PAPER_TASK_COUNTS.values())
        else:
            assert spec.group is None and spec.table_row is None and not spec.in_evaluation_sets


def test_every_reference_a_spec_holds_resolves_to_a_callable():
    for spec in TASKS.values():
        for reference in (spec.reference_agent, spec.carry_variant):
            if reference is not None:
                assert resolve_reference(reference) is not None


def test_bad_spec_facts_are_refused_naming_the_field_and_value():
    spec = TASKS["jump"]
    with pytest.raises(ValueError, match=r"TaskSpec.group='hard': expected None \(a test world\) or one of"):
        attr.evolve(spec, group="hard")
    with pytest.raises(ValueError, match=r"TaskSpec.table_row=21: expected None or the task's row"):
        attr.evolve(spec, table_row=21)
    with pytest.raises(ValueError, match=r"TaskSpec.reference_agent='follower': expected None or a 'module:attribute'"):
        attr.evolve(spec, reference_agent="follower")
    with pytest.raises(ValueError, match=r"reference 'avalon.nowhere:Follower': no module 'avalon.nowhere'"):
        resolve_reference("avalon.nowhere:Follower")
    with pytest.raises(ValueError, match=r"module 'avalon.tasks.jump' has no attribute 'Follower'"):
        resolve_reference("avalon.tasks.jump:Follower")
