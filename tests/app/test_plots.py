"""The learning curve of a training run, from its episode log."""

import numpy as np
import pytest
from PIL import Image

from avalon.app.plots import plot_learning_curve, success_curve


def _rows(successes_per_bin, per_bin=10, bin_steps=1000):
    rows = []
    for index, successes in enumerate(successes_per_bin):
        for episode in range(per_bin):
            rows.append({"env_steps": (index + 1) * bin_steps, "task": "eat", "difficulty": 0.01 * index,
                         "success": episode < successes, "score": 0.0, "episode_return": 0.0, "length": 10})
    return rows


def test_the_curve_is_the_success_rate_and_mean_difficulty_per_bin_of_env_steps():
    curve = success_curve(_rows([0, 2, 5, 9]), bins=4)
    assert curve["steps"].tolist() == [1000, 2000, 3000, 4000]
    assert curve["success_rate"] == pytest.approx([0.0, 0.2, 0.5, 0.9])
    assert curve["difficulty"] == pytest.approx([0.0, 0.01, 0.02, 0.03])
    assert curve["episodes"].tolist() == [10, 10, 10, 10]


def test_bins_without_episodes_are_left_out():
    curve = success_curve(_rows([1, 0, 0, 4]) [:10] + _rows([0, 0, 0, 4])[30:], bins=4)
    assert curve["steps"].tolist() == [1000, 4000]
    assert curve["success_rate"] == pytest.approx([0.1, 0.4])


def test_no_episodes_or_bad_bins_are_named():
    with pytest.raises(ValueError, match="no finished episodes"):
        success_curve([])
    with pytest.raises(ValueError, match="bins=0"):
        success_curve(_rows([1]), bins=0)


def test_the_learning_curve_is_written_as_a_png_with_its_reference_lines(tmp_path):
    path = plot_learning_curve(_rows([0, 3, 6, 9]), tmp_path / "curve.png", "eat", {"trained": 0.7, "random": 0.0})
    image = Image.open(path)
    assert image.format == "PNG" and image.size[0] > 400 and image.size[1] > 300
    pixels = np.asarray(image.convert("RGB"))
    assert (pixels.std(axis=(0, 1)) > 10).all()  # something is drawn
