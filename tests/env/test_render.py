"""render(): a larger picture of the agent's view for videos, drawn only when asked (RENDER ->
PICTURE), from the same camera and world; the observations stay the same bytes."""

import numpy as np
import pytest

from avalon import AvalonEnv
from avalon.env.vector import ThreadedVectorEnv
from avalon.episodes.recording import observation_digest
from avalon.errors import SimulatorError
from avalon.sim.protocol import depth_to_metres
from tests.conftest import zero_action

pytestmark = pytest.mark.godot


def scripted_actions(count: int, seed: int) -> list[dict]:
    """Walking and turning with the hands moving: the view changes every step."""
    rng = np.random.default_rng(seed)
    actions = []
    for _ in range(count):
        action = zero_action(head_position=[0, 0, -0.6], head_rotation=rng.uniform(-0.5, 0.5, 3))
        action["left_hand_position"] = rng.uniform(-1, 1, 3).astype(np.float32)
        actions.append(action)
    return actions


def pool(picture: np.ndarray, factor: int) -> np.ndarray:
    size = picture.shape[0] // factor
    return picture.reshape(size, factor, size, factor, -1).astype(np.float64).mean(axis=(1, 3))


@pytest.mark.parametrize("renderer", ["GLES2", "GLES3"])
def test_render_draws_the_observation_view_larger(renderer, long_trivial_world_dir):
    env = AvalonEnv(renderer=renderer, world_dir=str(long_trivial_world_dir), render_mode="rgb_array", render_resolution=192)
    try:
        observation, _ = env.reset(seed=0)
        previous = observation["rgbd"]
        for step, action in enumerate(scripted_actions(12, seed=1)):
            observation, *_ = env.step(action)
            picture, rgbd = env.render(), env.render_rgbd()
            assert picture.shape == (192, 192, 3) and picture.dtype == np.uint8 and picture.flags.c_contiguous
            assert np.array_equal(picture, rgbd[..., :3])  # nothing moved between the two renders
            # The same view at twice the pixels: pooled 2x2, it is the observation up to edge pixels,
            # and much nearer to it than to the previous step's observation.
            now = np.abs(pool(rgbd, 2) - observation["rgbd"]).mean()
            before = np.abs(pool(rgbd, 2) - previous).mean()
            assert now < 3.0 and now < before / 2, (step, now, before)
            assert np.abs(pool(rgbd, 2)[..., 3] - observation["rgbd"][..., 3]).mean() < 3.0  # depth too
            sky = np.isinf(depth_to_metres(rgbd[..., 3]))  # where depth says nothing is, in both
            assert abs(sky.mean() - np.isinf(depth_to_metres(observation["rgbd"][..., 3])).mean()) < 0.02
            previous = observation["rgbd"]
        # At the observation's own size the simulator's picture is the observation, up to rounding
        # at a few edge pixels: the same camera pose, field of view and world.
        picture = env._simulator.render(96)
        assert picture.frame == 12
        differ = np.abs(picture.rgbd.astype(int) - observation["rgbd"]).max(axis=2)
        assert differ.max() <= 1 and (differ > 0).mean() < 0.005
    finally:
        env.close()


@pytest.mark.parametrize("renderer", ["GLES2", "GLES3"])
def test_observations_are_the_same_bytes_with_or_without_renders_between_steps(renderer, long_trivial_world_dir):
    def digests(render_sizes):
        env = AvalonEnv(renderer=renderer, world_dir=str(long_trivial_world_dir), render_mode="rgb_array")
        try:
            observation, _ = env.reset(seed=3)
            result = [observation_digest(observation)]
            for step, action in enumerate(scripted_actions(40, seed=2)):
                for size in render_sizes(step):  # several sizes: the picture viewport is made again
                    assert env._simulator.render(size).rgbd.shape == (size, size, 4)
                observation, *_ = env.step(action)
                result.append(observation_digest(observation))
            return result
        finally:
            env.close()

    plain = digests(lambda step: [])
    rendered = digests(lambda step: [256, 256] if step % 3 else [64, 256, 17])
    assert len(set(plain)) > 30 and rendered == plain


def test_render_before_reset_after_the_end_and_without_render_mode(tmp_path, trivial_world_dir):
    env = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir), render_mode="rgb_array", render_resolution=64)
    quiet = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir), render_resolution=64)
    try:
        assert env.render() is None
        with pytest.raises(RuntimeError, match="nothing to render: call reset"):
            env.render_rgbd()
        env.reset(seed=0, options={"time_limit_frames": 2})
        env.step(zero_action())
        assert env.step(zero_action())[3]  # truncated: the final state can still be drawn (a video's last frame)
        assert env.render().shape == (64, 64, 3)
        quiet.reset(seed=0)
        assert quiet.render() is None and quiet.render_rgbd().shape == (64, 64, 4)  # for videos, whatever render_mode
    finally:
        env.close()
        quiet.close()


def test_the_simulator_refuses_a_bad_render_size_and_stays_usable(long_trivial_world_dir):
    env = AvalonEnv(renderer="GLES2", world_dir=str(long_trivial_world_dir))
    try:
        env.reset(seed=0)
        for size in (0, 5000):
            with pytest.raises(SimulatorError, match=f"RENDER size {size} is outside 1 to 4096 pixels"):
                env._simulator.render(size)
        _, _, _, _, info = env.step(zero_action())
        assert info["frame"] == 1 and env._simulator.render(32).frame == 1
    finally:
        env.close()


def test_vector_env_renders_every_environment(long_trivial_world_dir):
    def make():
        return AvalonEnv(renderer="GLES2", world_dir=str(long_trivial_world_dir), render_mode="rgb_array", render_resolution=48)

    envs = ThreadedVectorEnv([make, make])
    try:
        envs.reset(seed=0)
        pictures = envs.render()
        assert [picture.shape for picture in pictures] == [(48, 48, 3), (48, 48, 3)]
    finally:
        envs.close()
