"""The package's layers: each imports only the ones below it, and the bottom ones stay light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import avalon

PACKAGE = Path(avalon.__file__).parent

#: Each top-level module or package of avalon and its layer: it may import only lower layers
#: (docs/architecture.md draws them). The application and the developer layer are on top: the
#: developer layer (benchmarks, code generation) may use the application; the application names
#: the benchmarks by module path only (avalon/app/benchmark.py), never importing them.
LAYERS: dict[str, int] = {
    "errors": 0, "registration": 0, "rules": 0,
    "datagen": 1,
    "tasks": 2,
    "sim": 3,
    "env": 4,
    "training": 5, "episodes": 5,
    "agent": 6, "human": 6,
    "evaluation": 7, "integrations": 7,
    "app": 8,
    "dev": 9,
}


#: What ``from avalon import NAME`` imports when NAME is no module: the package's lazy attributes.
ROOT_NAMES = {"AvalonEnv": "env", "EnvConfig": "env", "ENV_ID": "registration"}


def _top_level(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def _imported_top_levels(path: Path) -> set[str]:
    """The avalon top-level names a file imports, anywhere in it (functions included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.split(".")[0] == "avalon":
            parts = node.module.split(".")
            names |= {parts[1]} if len(parts) > 1 else {ROOT_NAMES.get(alias.name, alias.name) for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.name.split(".")[1] for alias in node.names if alias.name.startswith("avalon.")}
    return names


def test_every_module_has_a_layer():
    tops = {_top_level(path) for path in PACKAGE.rglob("*.py")} - {"__init__"}
    assert tops <= set(LAYERS), f"give these a layer in LAYERS: {sorted(tops - set(LAYERS))}"


def test_no_package_imports_one_of_its_own_layer_or_above():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        top = _top_level(path)
        if top == "__init__":
            continue
        for imported in _imported_top_levels(path) - {top}:
            if LAYERS.get(imported, 99) >= LAYERS[top]:
                upward.append(
                    f"{path.relative_to(PACKAGE.parent)} ({top}, layer {LAYERS[top]}) imports {imported} (layer {LAYERS.get(imported)})"
                )
    assert not upward, "\n".join(upward)


def test_world_generation_loads_neither_gymnasium_torch_nor_the_simulator():
    code = (
        "import sys, avalon.datagen.world, avalon.tasks\n"
        "print(sorted(m for m in ('gymnasium', 'torch', 'avalon.sim.simulator', 'avalon.env') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_the_env_id_is_registered_whichever_is_imported_first():
    for code in (
        "import avalon, gymnasium",
        "import gymnasium, avalon",
        "import avalon.datagen.world, gymnasium",
        "from avalon import AvalonEnv; import gymnasium",
    ):
        check = f"{code}; print(gymnasium.spec('avalon/Avalon-v0').vector_entry_point)"
        done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
        assert done.stdout.strip() == "avalon.env.vector:make_vector_env", (code, done.stderr)
