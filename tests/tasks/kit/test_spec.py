"""TaskSpec: its checks, its training time limit, and how the registry collects the specs."""

from __future__ import annotations

import importlib
import sys

import pytest

from avalon.tasks import collect_tasks
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.spec import TaskSpec
from avalon.tasks.trivial import trivial_world


def _generate(rng, difficulty, config=None):
    return trivial_world()


def _spec(**changes) -> TaskSpec:
    fields = dict(name="walk", generate=_generate, training_time_limit_s=Ramp(20.0, 60.0),
                  evaluation_time_limit_frames=3000, food_visible_from_spawn=True, food_reachable_on_foot=True)
    fields.update(changes)
    return TaskSpec(**fields)


def test_the_training_time_limit_is_the_ramp_in_frames():
    spec = _spec()
    assert [spec.training_time_limit_frames(d) for d in (0.0, 0.5, 1.0)] == [200, 500, 800]


@pytest.mark.parametrize(
    "field, value",
    [("name", "Walk"), ("name", ""), ("name", "walk-far"), ("generate", "walk"),
     ("training_time_limit_s", Ramp(10.0, -10.0)), ("training_time_limit_s", (20.0, 40.0)),
     ("evaluation_time_limit_frames", 0), ("evaluation_time_limit_frames", 300.0),
     ("food_visible_from_spawn", 1), ("food_reachable_on_foot", None)],
)
def test_bad_specs_are_refused_by_field(field, value):
    with pytest.raises((ValueError, TypeError), match=field):
        _spec(**{field: value})


def _package(tmp_path, name: str, modules: dict[str, str]):
    """A real package of task modules on disk, imported."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "kit").mkdir()
    (folder / "kit" / "__init__.py").write_text("")
    for module, text in modules.items():
        (folder / f"{module}.py").write_text(text)
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


_TASK = """
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.spec import TaskSpec
from avalon.tasks.trivial import generate
TASK = TaskSpec(name={name!r}, generate=generate, training_time_limit_s=Ramp(30.0), evaluation_time_limit_frames=200,
                food_visible_from_spawn=True, food_reachable_on_foot=True)
"""


def test_the_registry_collects_every_module_but_the_kit(tmp_path):
    package = _package(tmp_path, "tasks_ok", {"swim": _TASK.format(name="swim"), "dig": _TASK.format(name="dig")})
    specs = collect_tasks(package)
    assert list(specs) == ["dig", "swim"]
    assert specs["swim"] is sys.modules["tasks_ok.swim"].TASK


@pytest.mark.parametrize("text", ["HELPER = 1\n", _TASK.format(name="other")])
def test_a_module_without_its_own_spec_is_refused_by_name(tmp_path, text):
    package = _package(tmp_path, f"tasks_bad_{len(text)}", {"swim": _TASK.format(name="swim"), "helpers": text})
    with pytest.raises(TypeError, match=r"tasks_bad_\d+\.helpers must declare TASK = TaskSpec\(name='helpers'"):
        collect_tasks(package)
