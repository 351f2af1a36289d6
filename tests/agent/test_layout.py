"""Inside ``avalon/agent``: ``common`` is shared by every algorithm, so it imports none of them
(nor the registry, which imports them); an algorithm's package imports no other algorithm; the
scripted agent imports the env and the tasks, never training, evaluation or torch."""

import ast
import subprocess
import sys
from pathlib import Path

import avalon.agent

AGENT = Path(avalon.agent.__file__).parent
ALGORITHM_PACKAGES = sorted(path.name for path in AGENT.iterdir() if (path / "__init__.py").is_file() and path.name != "common")


def agent_parts_imported(path: Path) -> set[str]:
    """The first names below ``avalon.agent`` that a file imports (``common``, ``ppo``, ``registry``...)."""
    parts = set()
    for node in ast.walk(ast.parse(path.read_text())):
        modules = [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        for module in modules:
            names = module.split(".")
            if names[:2] == ["avalon", "agent"]:
                parts |= {names[2]} if len(names) > 2 else {alias.name for alias in node.names}
    return parts


def test_common_imports_no_algorithm_and_no_registry():
    assert "ppo" in ALGORITHM_PACKAGES
    wrong = {
        str(path.relative_to(AGENT)): sorted(agent_parts_imported(path) & {*ALGORITHM_PACKAGES, "registry"})
        for path in sorted((AGENT / "common").rglob("*.py"))
    }
    assert {path: parts for path, parts in wrong.items() if parts} == {}


def test_an_algorithm_imports_only_common_and_itself():
    wrong = {}
    for package in ALGORITHM_PACKAGES:
        for path in sorted((AGENT / package).rglob("*.py")):
            others = agent_parts_imported(path) - {"common", package}
            if others:
                wrong[str(path.relative_to(AGENT))] = sorted(others)
    assert wrong == {}


def test_the_scripted_agent_imports_the_env_and_the_tasks_never_training_evaluation_or_learning_code():
    allowed = {"agent", "datagen", "env", "errors", "rules", "sim", "tasks", "validation"}
    wrong = {}
    for path in sorted((AGENT / "scripted").rglob("*.py")):
        tree = ast.parse(path.read_text())
        modules = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
        modules += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
        tops = {module.split(".")[1] for module in modules if module.startswith("avalon.")}
        bad = (tops - allowed) | (agent_parts_imported(path) - {"scripted"}) | {m for m in modules if m.split(".")[0] == "torch"}
        if bad:
            wrong[str(path.relative_to(AGENT))] = sorted(bad)
    assert wrong == {}
    code = ("import sys, avalon.agent.scripted\n"
            "print(sorted(m for m in ('torch', 'avalon.training', 'avalon.evaluation') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
