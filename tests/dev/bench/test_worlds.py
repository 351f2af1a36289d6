"""``avalon world benchmark`` covers every registered task."""

from __future__ import annotations

import os

import pytest

from avalon.app.main import main
from avalon.dev.bench.worlds import WorldBenchOptions, format_rows, run_world_benchmark
from avalon.tasks import TASKS


def test_the_world_benchmark_has_a_row_for_every_registered_task_by_default():
    assert set(WorldBenchOptions().tasks) == set(TASKS) - {"trivial"}


@pytest.mark.godot
def test_a_small_world_benchmark_measures_each_row_beside_the_trivial_world():
    options = WorldBenchOptions(seeds=1, steps=30, tasks=("move",), difficulties=(0.0, 0.5), sizes=(), resolution=32)
    lines = []
    rows = run_world_benchmark(options, say=lines.append)
    assert [row.label for row in rows] == ["trivial", "move 0", "move 0.5"]
    for row in rows[1:]:
        assert 0.0 < row.generate_s < row.generate_export_s and row.export_s > 0.0
        assert row.generate_export_s == pytest.approx(row.generate_s + row.export_s)  # one world: the sum
        assert row.steps_per_second > 0.0 and row.folder_mb > 0.0
    assert rows[1].size_m == 64.0 and rows[2].size_m == 128.0  # each task at its own world size
    assert "gen+exp s" in lines[-1] and "vs trivial" in format_rows(rows, options)


def test_the_world_benchmark_command_refuses_unknown_tasks_sizes_and_difficulties(capsys):
    assert main(["world", "benchmark", "--tasks", "eat,fly"]) == 2
    assert "unknown task 'fly'" in capsys.readouterr().err
    assert main(["world", "benchmark", "--sizes", "tiny"]) == 2
    assert "unknown world size(s) ['tiny']" in capsys.readouterr().err
    assert main(["world", "benchmark", "--difficulties", "0,2"]) == 2
    assert "difficulty 2.0 must be a number in [0, 1]" in capsys.readouterr().err


@pytest.mark.godot
def test_stepping_through_more_actions_than_an_episode_lasts_restarts_it_and_times_every_step(tmp_path):
    # A world whose episodes end (here after 5 frames; in descend at d = 1 by a lethal fall) must not
    # give steps per second from the few steps before the end over all the actions.
    from avalon import AvalonEnv, EnvConfig
    from avalon.datagen.export import export_world
    from avalon.dev.bench.worlds import _step_through
    from avalon.tasks.trivial import trivial_world

    folder = export_world(trivial_world(seed=0, time_limit_frames=5), tmp_path / "short")
    env = AvalonEnv(EnvConfig(renderer="GLES2", resolution=32))
    try:
        env.action_space.seed(0)
        options = {"world_dir": str(folder)}
        env.reset(seed=0, options=options)
        frames = []
        original_step = env.step

        def counting_step(action):
            result = original_step(action)
            frames.append(result[4]["frame"])
            return result

        env.step = counting_step
        seconds = _step_through(env, [env.action_space.sample() for _ in range(12)], 0, options)
        assert len(frames) == 12 and seconds > 0.0  # every action stepped, in episodes of 5 frames
        assert max(frames) <= 5 and frames.count(1) >= 2, frames
    finally:
        env.close()


@pytest.mark.godot
def test_the_profile_says_where_each_rows_step_goes():
    options = WorldBenchOptions(seeds=1, steps=30, tasks=("eat",), difficulties=(0.0,), sizes=(), resolution=32, profile=True)
    lines = []
    rows = run_world_benchmark(options, say=lines.append)
    trivial, eat = (row.profile for row in rows)
    for profile in (trivial, eat):
        assert profile.wall_ms > 0.0 and profile.godot_cpu_ms > 0.0 and profile.python_cpu_ms > 0.0
        assert profile.other_ms == pytest.approx(profile.wall_ms - profile.godot_cpu_ms - profile.python_cpu_ms)
    assert trivial.drawn is None  # no terrain node logs what it drew
    assert eat.drawn.draw_calls >= 1 and eat.drawn.vertices > 1000 and eat.drawn.objects >= 1
    assert "where a step goes" in lines[-1] and "draw calls" in lines[-1]
    assert "AVALON_PROFILE" not in os.environ  # only the benchmark's simulators profile
