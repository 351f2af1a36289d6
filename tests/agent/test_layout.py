"""Inside ``avalon/agent``: ``common`` is shared by every algorithm, so it imports none of them
(nor the registry, which imports them); an algorithm's package imports no other algorithm."""

import ast
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
