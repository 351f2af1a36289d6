"""Every observation of random-action episodes lies inside the (now partly finite) observation space."""

import numpy as np
import pytest

from avalon import AvalonEnv
from avalon.tasks import generate_world

pytestmark = [pytest.mark.godot, pytest.mark.slow]


def outside(space, observation) -> list[str]:
    """The keys whose values are outside their part of the space, with the values."""
    return [f"{key}={value.tolist() if key != 'rgbd' else '...'}" for key, value in observation.items()
            if not space[key].contains(value)]


@pytest.mark.parametrize("action_space", ["vr", "mouse_keyboard"])
def test_random_action_episodes_stay_inside_the_observation_space(action_space, long_trivial_world_dir, tmp_path):
    # The trivial world (walls to push the hands against) and an eat world (terrain, food, animals).
    worlds = [str(long_trivial_world_dir), str(generate_world("eat", 1.0, 3, tmp_path / "eat"))]
    env = AvalonEnv(renderer="GLES2", resolution=32, action_space=action_space)
    try:
        env.action_space.seed(7)
        seen = {key: [] for key in env.observation_space.spaces}
        for index, world in enumerate(worlds):
            observation, _ = env.reset(seed=index, options={"world_dir": world, "time_limit_frames": 400})
            assert not outside(env.observation_space, observation)
            for step in range(400):
                observation, _, terminated, truncated, _ = env.step(env.action_space.sample())
                assert not outside(env.observation_space, observation), f"step {step}: {outside(env.observation_space, observation)}"
                for key, value in observation.items():
                    if key != "rgbd":
                        seen[key].append(value)
                if terminated or truncated:
                    break
        # The bounded features really move within their bounds (the test would notice wrong signs).
        head = np.array(seen["head_relative_rotation"])
        assert head[:, 0].max() > 0.5 and head[:, 0].min() < -0.5
        assert np.abs(np.array(seen["body_delta_rotation"])[:, 1]).max() > 0.1
    finally:
        env.close()
