"""The time estimate an evaluation prints before it starts: every world to its time limit at a
measured rate, plus generation."""

import pytest

from avalon.env.config import EnvConfig
from avalon.evaluation.scoring.estimate import Probe, estimated_seconds, frames_at_most, probe
from avalon.training.world_supply import WorldRequest


@pytest.mark.godot
def test_the_estimate_is_the_time_limits_at_a_measured_rate_plus_generation():
    request = WorldRequest("trivial", 0.0, 1)
    measured = probe(EnvConfig(renderer="GLES2", resolution=32), request, num_envs=2, steps=50)
    assert measured.steps_per_second > 0 and measured.generation_s > 0
    frames = frames_at_most([request, WorldRequest("eat", 0.5, 2)])
    assert frames == 200 + 3000  # trivial's and eat's evaluation time limits (TaskSpec)
    assert frames_at_most([request], "training") == 300  # trivial's training limit, 30 s
    assert frames_at_most([request, request], 120) == 240
    expected = frames / measured.steps_per_second + 2 * measured.generation_s / 2
    assert estimated_seconds(frames, 2, measured, num_envs=2) == pytest.approx(expected)
    with pytest.raises(ValueError, match="steps_per_second"):
        estimated_seconds(frames, 2, Probe(0.0, 1.0), num_envs=2)
