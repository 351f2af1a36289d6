"""The scripted agent solves open worlds in the real simulator: following the certificate's route
(``task_route("open", d, seed)``) it walks through the walk-through door at d = 0, and at d = 0.25
presses buttons and unlatches doors latched once before pushing through them, eats the apple and
gets ``success``, in evaluation mode within the world's own time limit."""

from __future__ import annotations

import pytest

from avalon.agent.scripted.doors import DoorFollower
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world

pytestmark = pytest.mark.godot

SEEDS = (0, 1, 2, 3)


@pytest.mark.parametrize("difficulty", [0.0, 0.25])
def test_the_scripted_agent_opens_the_doors_and_eats_the_food(env, tmp_path, difficulty):
    worked = set()
    for seed in SEEDS:
        world, route = task_route("open", difficulty, seed)
        world_dir = export_world(world, tmp_path / f"open-{difficulty}-{seed}")
        episode = run_episode(env, DoorFollower(world, route), seed=seed, options={"world_dir": str(world_dir)})
        where = f"open d={difficulty} seed={seed}: {episode.follow.describe()}"
        assert episode.success and episode.follow.succeeded, where
        assert not episode.truncated and episode.steps < world.time_limit_frames, where
        assert all(result.succeeded for result in episode.follow.primitives), where
        worked |= {(d.param("latch"), tuple(d.param("locks"))) for d in world.entities if d.kind == "door"}
    if difficulty > 0.0:  # the seeds include a door with a button, latched until its handle is taken
        assert ("once", ("button",)) in worked
