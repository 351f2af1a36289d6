"""``avalon run``'s picture: rendered at the render resolution, not enlarged observations."""

import numpy as np
import pytest
from PIL import Image

from avalon import AvalonEnv, EnvConfig
from avalon.app.main import main
from avalon.app.run import run_random_episode

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
