"""No task's name is spelled in ``avalon/agent/scripted/`` outside data: what the scripted agents
need of a task (its follower, its route) is read from its ``TaskSpec`` (``reference_agent``,
``reference_route``, ``certificate``), never from lists of task names or comparisons with one.

Allowed, because they name something else that happens to share a task's name: a primitive's
``name`` (``name = "climb"`` in a class body; reported in a follower's result), a route step's
skill or a primitive's name compared with ``.skill`` or ``.name``, the keys of a table of route
skills (``{"walk": ..., "jump": ...}``). A task's module may be imported only by the module of its
own reference agent (bridge's log layer reads the bridge layout; carry's follower the carry layout).
"""

from __future__ import annotations

import ast
from pathlib import Path

import avalon.agent.scripted
from avalon.tasks import TASKS
from avalon.tasks.kit.route import SKILLS

PACKAGE = Path(avalon.agent.scripted.__file__).parent


def _own_agent_module(task: str) -> str:
    """The module (under the package) of ``task``'s reference agent, or ''."""
    reference = TASKS[task].reference_agent or ""
    module = reference.split(":")[0]
    prefix = f"{avalon.agent.scripted.__name__}."
    return module[len(prefix):] if module.startswith(prefix) else ""


def _allowed_constants(tree: ast.AST) -> set[int]:
    """ids of the string constants that name a primitive or a skill (see the module's docstring)."""
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant)
                        and [getattr(t, "id", None) for t in statement.targets] == ["name"]):
                    allowed.add(id(statement.value))
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(side, ast.Attribute) and side.attr in ("skill", "name") for side in sides):
                allowed.update(id(side) for side in sides if isinstance(side, ast.Constant))
        elif isinstance(node, ast.Dict) and node.keys:
            if all(isinstance(key, ast.Constant) and key.value in SKILLS for key in node.keys):
                allowed.update(id(key) for key in node.keys)
    return allowed


def task_names_spelled(source: str, module: str) -> list[str]:
    """Where ``source`` (the module ``module`` of the package) spells a task's name: string
    constants equal to one, and imports of a task's module other than by its own reference agent's
    module."""
    tree = ast.parse(source)
    allowed = _allowed_constants(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in TASKS and id(node) not in allowed:
            found.append((node.lineno, node.col_offset, f"{module}.py:{node.lineno}: the string {node.value!r}"))
        imported = []
        if isinstance(node, ast.ImportFrom) and node.module == "avalon.tasks":
            imported = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("avalon.tasks."):
            imported = [node.module.split(".")[2]]
        elif isinstance(node, ast.Import):
            imported = [alias.name.split(".")[2] for alias in node.names if alias.name.startswith("avalon.tasks.")]
        for task in imported:
            if task in TASKS and module != _own_agent_module(task):
                found.append((node.lineno, node.col_offset, f"{module}.py:{node.lineno}: an import of the {task} task's module"))
    return [text for *_, text in sorted(found)]


def test_no_task_name_is_spelled_in_the_scripted_agents():
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        found += task_names_spelled(path.read_text(), path.stem)
    assert not found, "task names spelled in avalon/agent/scripted/ (read them from the TaskSpec):\n" + "\n".join(found)


def test_the_check_finds_lists_comparisons_and_imports_of_task_names():
    source = '''
from avalon.tasks import bridge, check_task
import avalon.tasks.fight
FOLLOWERS = {"bridge": 1, "avoid": 2}
WALKING = ("eat", "move")

def pick(world, step, primitive):
    if world.task == "throw" or step.skill == "jump" or primitive.name == "climb":
        return {"walk": 1, "push": 2}

class Jump:
    name = "jump"
    kind = "hunt"
'''
    found = task_names_spelled(source, "example")
    assert [line.split(": ", 1)[1] for line in found] == [
        "an import of the bridge task's module", "an import of the fight task's module", "the string 'bridge'",
        "the string 'avoid'", "the string 'eat'", "the string 'move'", "the string 'throw'", "the string 'hunt'"]
    # The module of bridge's own reference agent may read the bridge layout.
    assert "an import of the bridge task's module" not in " ".join(task_names_spelled(source, "bridge"))
