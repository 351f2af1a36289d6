"""No task's name is spelled in ``avalon/evaluation/`` or in ``avalon eval``'s and ``avalon
evalset``'s modules: which tasks a set holds, which have a reference agent, which succeed on energy
and which is evaluated by default are read from the ``TaskSpec``s (data files such as the sets'
manifests aside)."""

from __future__ import annotations

from pathlib import Path

import avalon.app
import avalon.evaluation
from tests.agent.scripted.test_no_task_names import task_names_spelled

PACKAGE = Path(avalon.evaluation.__file__).parent
APP = Path(avalon.app.__file__).parent


def test_no_task_name_is_spelled_in_evaluation_or_its_commands():
    modules = sorted(PACKAGE.rglob("*.py")) + sorted(APP.glob("eval*.py"))
    assert len(modules) > 20
    found = []
    for path in modules:
        found += task_names_spelled(path.read_text(), str(path.relative_to(PACKAGE.parent)).removesuffix(".py"))
    assert not found, "task names spelled (read them from the TaskSpec):\n" + "\n".join(found)
