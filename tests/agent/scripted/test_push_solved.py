"""The push task in the real simulator: the generated boulder rests where the spec puts it after the
first physics steps; the scripted agent, following ``task_route("push", d, seed)``, pushes it to
the ledge's foot (a 400 kg boulder 4-8 m at d = 1, seen there in its own frames), jumps onto it and
onto the ledge, eats the apple and gets ``success`` at d = 0 and d = 0.5, in evaluation mode.

Where the boulder is is read from the agent's frames (``tests/game/camera.py``): the test colours the
boulder magenta (its colour only; size, mass and place are the generated world's)."""

from __future__ import annotations

import math

import attr
import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.agent.scripted.actions import action, turn_rate
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks import push
from tests.game.camera import colour_mask, world_points

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SEEDS = (0, 1, 2)
MAGENTA = (0.9, 0.1, 0.9)
#: Heights read from the frames' depth are this close, metres.
DEPTH_SLACK_M = 0.15


def is_magenta(r, g, b):
    return (r > g + 40) & (b > g + 40)


@pytest.fixture(scope="module")
def camera_env():
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space="mouse_keyboard", resolution=96, is_training=False))
    yield env
    env.close()


def _magenta_boulder(world):
    return attr.evolve(world, entities=tuple(attr.evolve(e, params={**dict(e.params), "base_color": MAGENTA})
                                             if e.name == push.BOULDER_NAME else e for e in world.entities))


class Looker:
    """Steps ``env`` and reads where the magenta boulder is from the frames."""

    def __init__(self, env, world_dir, seed):
        self.env = env
        self.observation, self.info = env.reset(seed=seed, options={"world_dir": str(world_dir)})

    def step(self, act):
        self.observation, _, _, _, self.info = self.env.step(act)

    def face(self, point, pitch_rad):
        """Turn the body towards ``point`` (x, z) and pitch the head to ``pitch_rad``."""
        for _ in range(30):
            x, _, z = self.info["world_body_position"]
            yaw = math.atan2(-(point[0] - x), -(point[1] - z))
            error = math.remainder(yaw - float(self.info["world_body_yaw"]), 2 * math.pi)
            pitch_error = pitch_rad - float(self.observation["head_relative_rotation"][0])
            if abs(error) < 0.02 and abs(pitch_error) < 0.02:
                return
            self.step(action(head_yaw=turn_rate(error), head_pitch=turn_rate(pitch_error)))

    def boulder(self):
        """(mean of the seen points, the highest seen point's height), or None when it is not in view."""
        mask = colour_mask(self.observation["rgbd"], is_magenta)
        if mask.sum() < 20:
            return None
        points = world_points(self.observation, self.info, mask)
        return points.mean(axis=0), float(points[:, 1].max())


def _pitch_towards(info, point_y, horizontal_m):
    eye = float(info["world_body_position"][1]) + 1.7
    return math.atan2(point_y - eye, max(horizontal_m, 0.5))


def _solve(env, tmp_path, difficulty, seed):
    world, route = task_route("push", difficulty, seed)
    skills = [step.skill for step in route.steps]
    assert skills.count("jump") >= 2 and skills.count("push") == (0 if difficulty == 0.0 else 1)
    world_dir = export_world(world, tmp_path / f"push-{difficulty}-{seed}")
    return world, run_episode(env, RouteFollower(world, route), seed=seed, options={"world_dir": str(world_dir)})


def _check_success(world, episode, where):
    assert episode.success and episode.follow.succeeded, where
    assert not episode.truncated and episode.steps < world.time_limit_frames, where
    assert episode.info["food_eaten"] == 1 and "eat" in episode.info["achievements"], where
    # The ledge is climbed only from the boulder: the body ends 2.25 m up, on the ledge.
    ledge = world.entity(push.LEDGE_NAME)
    assert episode.info["world_body_position"][1] == pytest.approx(ledge.position[1] + ledge.param("size")[1] / 2, abs=0.05), where


def test_the_scripted_agent_jumps_onto_the_boulder_at_the_ledges_foot_and_eats_the_food(env, tmp_path):
    for seed in SEEDS:
        world, episode = _solve(env, tmp_path, 0.0, seed)
        _check_success(world, episode, f"push d=0 seed={seed}: {episode.follow.describe()}")


def test_the_scripted_agent_pushes_the_boulder_to_the_ledge_and_eats_the_food_in_most_worlds(env, tmp_path):
    # At d = 0.5 the push (2-4 m) leaves the boulder off its line in some worlds (the agent does not
    # see it: it counts it to have moved as far as the body did), and the jump onto it misses
    # (docs/tasks/push.md: 15 of 20 worlds). Every push ends at the ledge; most worlds are solved.
    solved = []
    for seed in (0, 1, 2, 3):
        world, episode = _solve(env, tmp_path, 0.5, seed)
        where = f"push d=0.5 seed={seed}: {episode.follow.describe()}"
        assert episode.follow.primitives[0].name == "push" and episode.follow.primitives[0].succeeded, where
        assert "push" in episode.info["achievements"], where
        if episode.success:
            _check_success(world, episode, where)
            solved.append(seed)
        else:
            assert episode.follow.failed_skill == "jump", where
    assert len(solved) >= 2, solved


@pytest.mark.parametrize("difficulty, seed", [(0.0, 0), (0.5, 1), (1.0, 2)])
def test_the_boulder_rests_where_it_was_placed_after_the_first_physics_steps(camera_env, tmp_path, difficulty, seed):
    world = _magenta_boulder(task_route("push", difficulty, seed)[0])
    boulder = world.entity(push.BOULDER_NAME)
    top = boulder.position[1] + TOOL_SIZE_M["boulder"][1] * float(boulder.param("safe_scale")) / 2
    run = Looker(camera_env, export_world(world, tmp_path / "rest"), seed)
    x, _, z = run.info["world_body_position"]
    distance = math.hypot(boulder.position[0] - x, boulder.position[2] - z)
    run.face((boulder.position[0], boulder.position[2]), _pitch_towards(run.info, top, distance))
    for _ in range(10):  # the first physics steps (the frames of the first few also still change as the view settles)
        run.step(action())
    first = run.boulder()
    assert first is not None, "the boulder is not in view"
    for _ in range(40):
        run.step(action())
    centre, highest = run.boulder()
    # Its top where the spec puts it (neither sunk into the ground nor hanging above it: a pushed
    # boulder once sank a quarter of its height, 0.27 m here; the depth's 8-bit steps are about
    # 3.4 %, 0.1 m at 3 m), its centre about there, and still.
    assert highest == pytest.approx(top, abs=DEPTH_SLACK_M)
    assert math.hypot(centre[0] - boulder.position[0], centre[2] - boulder.position[2]) < 0.7
    assert np.linalg.norm(centre - first[0]) < 0.03 and abs(highest - first[1]) < 0.03


def test_a_400kg_boulder_is_pushed_4_to_8m_to_the_ledges_foot(camera_env, tmp_path):
    world, route = task_route("push", 1.0, 0)
    world = _magenta_boulder(world)
    boulder = world.entity(push.BOULDER_NAME)
    assert float(boulder.param("mass")) == push.MAX_PUSHED_MASS_KG
    place = push.push_place(world)
    start = (boulder.position[0], boulder.position[2])
    assert 4.0 <= math.dist(start, place) <= 8.0
    run = Looker(camera_env, export_world(world, tmp_path / "heavy"), 0)
    agent = RouteFollower(world, route)
    agent.reset(run.observation, run.info)
    for _ in range(400):  # until the push ends
        run.step(agent.act(run.observation, run.info))
        if agent.result.primitives or agent.result.finished:
            break
    assert agent.result.primitives and agent.result.primitives[0].name == "push" and agent.result.primitives[0].succeeded
    assert "push" in run.info["achievements"]
    top = boulder.position[1] + TOOL_SIZE_M["boulder"][1] * float(boulder.param("safe_scale")) / 2
    x, _, z = run.info["world_body_position"]
    run.face(place, _pitch_towards(run.info, top, math.hypot(place[0] - x, place[1] - z)))
    centre, highest = run.boulder()
    # Moved from its start to the ledge's foot (the seen points are its near side and top).
    assert math.hypot(centre[0] - place[0], centre[2] - place[1]) < 0.8, (centre, place, start)
    assert highest == pytest.approx(top, abs=DEPTH_SLACK_M)
