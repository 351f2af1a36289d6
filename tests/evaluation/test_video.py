"""Which episode an evaluation's video shows, and the GIF of RGB beside depth."""

import numpy as np
from PIL import Image

from avalon.evaluation.video import EpisodeVideo, write_episode_gif


def test_the_video_is_the_first_success_else_the_first_worlds_episode():
    frames = {index: [np.full((4, 4, 4), index, np.uint8)] for index in range(4)}
    first = EpisodeVideo("first")
    assert first.wants(0) and not first.wants(2)
    first.offer(0, False, frames[0])
    assert first.chosen() == (frames[0], (0, False))

    video = EpisodeVideo("first_success")
    assert video.chosen() is None
    assert video.wants(0) and video.wants(3)
    video.offer(3, False, frames[3])  # a failure is not kept unless it is the first world's
    video.offer(0, False, frames[0])
    assert video.chosen() == (frames[0], (0, False))
    video.offer(2, True, frames[2])
    assert video.chosen() == (frames[2], (2, True))
    assert video.wants(0) and not video.wants(1)  # nothing else is recorded once a success is kept
    video.offer(1, True, frames[1])
    assert video.chosen()[1] == (2, True)


def test_the_hardest_success_is_the_success_in_the_latest_world():
    frames = {index: [np.full((4, 4, 4), index, np.uint8)] for index in range(5)}
    video = EpisodeVideo("hardest_success")
    video.offer(0, False, frames[0])
    assert video.chosen() == (frames[0], (0, False))
    video.offer(3, True, frames[3])
    video.offer(1, True, frames[1])  # finished later, but an easier world
    video.offer(4, False, frames[4])
    assert video.chosen() == (frames[3], (3, True))
    assert video.wants(4) and not video.wants(2)  # only later worlds can still replace it


def test_the_gif_shows_rgb_beside_depth_enlarged_to_at_least_192_pixels(tmp_path):
    frames = [np.full((32, 32, 4), value, np.uint8) for value in (0, 100, 200)]
    gif = Image.open(write_episode_gif(frames, tmp_path / "episode.gif"))
    assert gif.n_frames == 3 and gif.size == (6 * 64, 6 * 32)
