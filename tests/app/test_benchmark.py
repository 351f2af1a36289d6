"""``avalon benchmark [NAME]``: every benchmark of the developer layer by name, each with its own options."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import avalon.dev.bench
from avalon.app.benchmark import BENCHMARKS, DEFAULT
from avalon.app.main import main

BENCH = Path(avalon.dev.bench.__file__).parent


def _has_main(path: Path) -> bool:
    return any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in ast.parse(path.read_text()).body)


def test_every_benchmark_module_has_a_row_and_every_row_names_one():
    runnable = {f"avalon.dev.bench.{path.stem}" for path in BENCH.glob("*.py") if _has_main(path)}
    assert {benchmark.module for benchmark in BENCHMARKS.values()} == runnable
    assert DEFAULT in BENCHMARKS


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_each_benchmark_parses_its_own_options(name, capsys):
    with pytest.raises(SystemExit) as done:
        main(["benchmark", name, "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: avalon benchmark {name} ")
    assert importlib.import_module(BENCHMARKS[name].module).main.__code__.co_varnames[:2] == ("argv", "prog")


def test_plain_benchmark_runs_the_default_and_its_help_lists_the_others(capsys):
    with pytest.raises(SystemExit):
        main(["benchmark", "--help"])
    printed = capsys.readouterr().out
    assert printed.startswith("usage: avalon benchmark [-h] [--renderers RENDERERS]")
    assert all(f"  {name} " in printed for name in BENCHMARKS)


def test_an_unknown_benchmark_or_option_is_refused(capsys):
    assert main(["benchmark", "vectr"]) == 2
    assert "unknown benchmark 'vectr'; the benchmarks are: steps, worlds" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        main(["benchmark", "--no-such-option"])
    assert done.value.code == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
