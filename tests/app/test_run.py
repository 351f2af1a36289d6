"""``avalon run``: one episode, its picture rendered at the render resolution (not enlarged observations)
and its recording."""

import numpy as np
import pytest
from PIL import Image

from avalon import AvalonEnv, EnvConfig
from avalon.app.main import main
from avalon.app.run import run_random_episode
from avalon.episodes.recording import Recording

pytestmark = [pytest.mark.godot, pytest.mark.slow]


def test_the_strip_shows_pictures_rendered_at_the_render_resolution(tmp_path):
    config = EnvConfig(renderer="GLES2", render_resolution=128)
    figures = run_random_episode(tmp_path / "run", config, seed=4)
    assert figures["steps"] == 200 and figures["picture_size"] == 128
    strip = np.asarray(Image.open(figures["strip"]))
    assert strip.shape == (2 * 128 * 1, 8 * 128 * 1, 3)  # 128 px frames are not enlarged
    # The first frame is the reset state drawn at 128 px: the same bytes a fresh env renders.
    env = AvalonEnv(config, world_dir=str(figures["world"]))
    try:
        env.reset(seed=4)
        first = env.render_rgbd()
    finally:
        env.close()
    assert np.array_equal(strip[:128, :128], first[..., :3])


def test_run_takes_a_render_resolution_and_refuses_a_bad_one(tmp_path, capsys):
    assert main(["run", "--renderer", "GLES2", "--render-resolution", "8", "--out", str(tmp_path / "x")]) == 2
    assert "render_resolution=8 must be None or an int from 16 to 1024" in capsys.readouterr().err


def test_run_plays_one_episode_and_writes_the_picture_and_recording(tmp_path, capsys):
    assert main(["run", "--renderer", "GLES2", "--out", str(tmp_path / "run")]) == 0
    printed = capsys.readouterr().out
    assert "steps per second" in printed and "steps: 200" in printed
    strip = Image.open(tmp_path / "run" / "frames.png")
    assert strip.size == (8 * 256, 2 * 256)  # rendered at --render-resolution's default
    assert Recording.load(tmp_path / "run" / "episode-00000.npz").actions.shape == (200, 21)
    assert main(["replay", str(tmp_path / "run" / "episode-00000.npz")]) == 0
    assert "identical: 200 steps" in capsys.readouterr().out
