"""Adding a task touches only its module: a sixteenth toy task, written into a copy of the
package, is registered, generated and exported, put in the paper's protocols and in the next
evaluation set's plan, listed with its knobs, and played to success by its reference agent in the
real simulator, with no edit anywhere else."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import avalon
from avalon.sim.paths import godot_project_dir
from avalon.tasks import TASKS

#: The set version the toy enters: the one after every registered task's.
NEXT_VERSION = 1 + max(spec.in_sets_from_version for spec in TASKS.values() if spec.in_evaluation_sets)

#: The whole task: its knobs, its generator and its spec (Table 1's free row 15, the next set version,
#: written in for NEXT_VERSION).
TOY_MODULE = '''
"""The toy task: an apple ahead on flat ground, farther with difficulty."""

from __future__ import annotations

import attr
import numpy as np

from avalon.datagen.world import Entity, FlatGround, World
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.route import Route, RouteStep
from avalon.tasks.kit.skills import WALK
from avalon.tasks.kit.spec import TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ToyKnobs:
    """Every factor of a toy world that the difficulty sets."""

    #: How far ahead of the spawn the apple lies, metres.
    food_distance_m: Ramp = Ramp(2.0, 4.0)
    #: Training episodes are truncated after this many seconds.
    training_time_limit_s: Ramp = Ramp(20.0, 10.0)


KNOBS = ToyKnobs()


def generate(rng: np.random.Generator, difficulty: float, config: object | None = None) -> World:
    distance = KNOBS.food_distance_m.at(difficulty) + float(rng.uniform(0.0, 0.5))
    apple = Entity(kind="apple", name="food_0", position=(0.0, 0.15, -distance), params={"radius": 0.15})
    return World(task="toy", difficulty=difficulty, seed=0, ground=FlatGround(size_m=60.0), entities=(apple,),
                 spawn_position=(0.0, 0.0, 0.0), spawn_yaw_rad=0.0, time_limit_frames=600)


def walk_to_the_apple(world: World) -> Route:
    food = world.food[0].position
    return Route(start=world.spawn_position, steps=(RouteStep(WALK, (food[0], 0.0, food[2] + 0.6)),))


TASK = TaskSpec(name="toy", generate=generate, knobs=KNOBS, food_visible_from_spawn=True, food_reachable_on_foot=True,
                table_row=15, in_sets_from_version=NEXT_VERSION, reference_agent="avalon.agent.scripted.follower:RouteFollower",
                reference_route=walk_to_the_apple)
'''

#: What runs in the copy: every part of the system that lists or reads tasks.
CHECKS = '''
import json, sys, tempfile
from pathlib import Path
import avalon
from avalon.agent.scripted.actions import ACTION_SPACE
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.policy import follower_for
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.world_folder import read_world_info
from avalon.dev.codegen import knob_tables
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.evaluation.sets.recipe import RECIPES, plan_worlds
from avalon.tasks import TASKS, generate_world
from avalon.training.curriculum import group_tasks, protocol_tasks

out = {"package": avalon.__file__, "registered": "toy" in TASKS}
folder = generate_world("toy", 0.5, 3, Path(tempfile.mkdtemp()) / "toy")
out["folder"] = read_world_info(folder).task
out["basic"] = list(group_tasks(("basic",)))
out["single"] = [list(tasks) for tasks in protocol_tasks("single-task", ["toy"])]
out["planned"] = sorted({world.task for world in plan_worlds(RECIPES["vNEXT_VERSION"])})
out["previous"] = sorted({world.task for world in plan_worlds(RECIPES["vPREVIOUS_VERSION"])})
out["row_15"] = sorted(name for name, spec in TASKS.items() if spec.table_row == 15 and name != "toy")
out["knobs"] = "toy knobs" in knob_tables()
world, route = task_route("toy", 1.0, 5)
follower = follower_for(world, route)
out["follower"] = type(follower).__name__
env = AvalonEnv(EnvConfig(task="toy", difficulty=1.0, seed=5, action_space=ACTION_SPACE, is_training=False))
try:
    out["success"] = run_episode(env, follower, seed=5).success
finally:
    env.close()
print(json.dumps(out))
'''


@pytest.mark.godot
@pytest.mark.slow
def test_a_new_task_needs_no_edit_outside_its_module(tmp_path):
    copy = tmp_path / "avalon"
    shutil.copytree(Path(avalon.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "tasks" / "toy.py").write_text(TOY_MODULE.replace("NEXT_VERSION", str(NEXT_VERSION)))
    # The copy has no Godot project beside it: it runs this repository's.
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "AVALON_GODOT_PROJECT": str(godot_project_dir())}
    checks = CHECKS.replace("NEXT_VERSION", str(NEXT_VERSION)).replace("PREVIOUS_VERSION", str(NEXT_VERSION - 1))
    result = subprocess.run([sys.executable, "-c", checks], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["package"].startswith(str(tmp_path)) and out["registered"] and out["folder"] == "toy"
    # Table 1's row 15, between 14 and 16 (after a task of the package that holds row 15 too)
    assert out["basic"].index("toy") == out["basic"].index("explore") + 1 + len(out["row_15"])
    assert out["single"] == [["toy"], ["toy"]]
    assert "toy" in out["planned"] and set(out["planned"]) - {"toy"} == set(out["previous"]) and "toy" not in out["previous"]
    assert out["knobs"] and out["follower"] == "RouteFollower" and out["success"] is True
