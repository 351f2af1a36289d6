"""No task's name is spelled in the package's Python outside the task's own modules: whatever the
rest of the system needs of a task (its follower, route, groups, sets, carry variant, the defaults
of the commands) is read from its ``TaskSpec``, so a new task touches its module alone.

A task's own modules: ``avalon/tasks/<task>.py`` and, elsewhere, modules named ``<task>.py`` or
``<task>_*.py`` (its previews, its benchmark) and the module of its reference agent.

Allowed, because the words name something else that happens to share a task's name:

- the two vocabularies, defined once: the actions and achievements (``avalon/sim/protocol.py``) and
  the route skills (``avalon/tasks/kit/skills.py``);
- a primitive's ``name`` in a class body (``name = "climb"``), a string compared with a ``.skill``
  or ``.name``, the keys of a dict whose keys are all skills or actions, an action's key in a
  subscript (``offsets["jump"]``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import avalon
from avalon.sim.protocol import ACTION_SPACES
from avalon.tasks import TASKS
from avalon.tasks.kit.skills import SKILLS

PACKAGE = Path(avalon.__file__).parent
#: Modules that define a vocabulary sharing words with the task names (see the docstring).
VOCABULARIES = ("sim/protocol.py", "tasks/kit/skills.py")
ACTION_KEYS = frozenset(field.name for fields in ACTION_SPACES.values() for field in fields)
_WORDS = frozenset(SKILLS) | ACTION_KEYS


def owners(module: str) -> frozenset[str]:
    """The tasks whose own module ``module`` (dotted, under the package) is."""
    stem = module.rsplit(".", 1)[-1]
    owned = {task for task in TASKS if stem == task or stem.startswith(f"{task}_")}
    owned |= {task for task, spec in TASKS.items() if (spec.reference_agent or "").split(":")[0] == module}
    return frozenset(owned)


def _allowed_constants(tree: ast.AST) -> set[int]:
    """ids of the string constants that name a primitive, a skill or an action (see the docstring)."""
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
            if all(isinstance(key, ast.Constant) and key.value in _WORDS for key in node.keys):
                allowed.update(id(key) for key in node.keys)
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value in ACTION_KEYS:
            if getattr(node.value, "id", None) != "TASKS":
                allowed.add(id(node.slice))
    return allowed


def _imported_tasks(node: ast.AST) -> list[str]:
    if isinstance(node, ast.ImportFrom) and node.module == "avalon.tasks":
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("avalon.tasks."):
        return [node.module.split(".")[2]]
    if isinstance(node, ast.Import):
        return [alias.name.split(".")[2] for alias in node.names if alias.name.startswith("avalon.tasks.")]
    return []


def task_names_spelled(source: str, module: str) -> list[str]:
    """Where ``source`` (the dotted ``module``) spells another task's name: string constants equal
    to one, and imports of a task's module."""
    tree = ast.parse(source)
    allowed = _allowed_constants(tree)
    own = owners(module)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in TASKS and node.value not in own and id(node) not in allowed:
            found.append((node.lineno, node.col_offset, f"{module}:{node.lineno}: the string {node.value!r}"))
        for task in _imported_tasks(node):
            if task in TASKS and task not in own:
                found.append((node.lineno, node.col_offset, f"{module}:{node.lineno}: an import of the {task} task's module"))
    return [text for *_, text in sorted(found)]


def _modules() -> list[tuple[Path, str]]:
    paths = [path for path in sorted(PACKAGE.rglob("*.py")) if str(path.relative_to(PACKAGE)) not in VOCABULARIES]
    return [(path, ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)) for path in paths]


def test_no_task_name_is_spelled_outside_its_own_modules():
    modules = _modules()
    assert len(modules) > 150
    found = [line for path, module in modules for line in task_names_spelled(path.read_text(), module)]
    assert not found, "task names spelled outside their tasks' modules (read them from the TaskSpec):\n" + "\n".join(found)


def test_the_check_finds_lists_comparisons_defaults_and_imports_of_task_names():
    source = '''
from avalon.tasks import bridge, check_task
import avalon.tasks.fight
FOLLOWERS = {"bridge": 1, "avoid": 2}
WALKING = ("eat", "move")
parser.add_argument("--task", default="trivial")

def pick(world, step, primitive, offsets):
    if world.task == "throw" or step.skill == "jump" or primitive.name == "climb":
        return {"walk": 1, "push": 2}, offsets["jump"], TASKS["stack"]

class Jump:
    name = "jump"
    kind = "hunt"
'''
    found = task_names_spelled(source, "avalon.app.example")
    assert [line.split(": ", 1)[1] for line in found] == [
        "an import of the bridge task's module", "an import of the fight task's module", "the string 'bridge'",
        "the string 'avoid'", "the string 'eat'", "the string 'move'", "the string 'trivial'", "the string 'throw'",
        "the string 'stack'", "the string 'hunt'"]
    # A task's own modules may spell its name and import its module: bridge's reference agent reads
    # the bridge layout; a module named for the task (its previews, its benchmark) may too.
    for module in ("avalon.agent.scripted.bridge", "avalon.dev.bridge_previews"):
        spelled = " ".join(task_names_spelled(source, module))
        assert "'bridge'" not in spelled and "the bridge task's module" not in spelled and "'avoid'" in spelled
