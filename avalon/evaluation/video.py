"""The video of an evaluation: which episode it shows (``VIDEO_CHOICES``) and the animated GIF of
RGB beside depth."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Sequence

import numpy as np
from PIL import Image

#: Which episode the video shows: the first world's; the first episode to succeed; or the
#: successful episode of the latest world in the requests (evaluation worlds come in order of
#: difficulty, so the hardest success). The last two fall back on the first world's.
VIDEO_CHOICES = ("first", "first_success", "hardest_success")


class EpisodeVideo:
    """Chooses the recorded episode (see ``VIDEO_CHOICES``). Slots ask it whether to record an
    episode and offer it the frames of those they finish."""

    def __init__(self, choice: str) -> None:
        self.choice = choice
        self._lock = threading.Lock()
        self._first_world: list[np.ndarray] | None = None
        self._first_world_success = False
        self._success: tuple[int, list[np.ndarray]] | None = None

    def wants(self, index: int) -> bool:
        """Whether the episode of world ``index`` starting now may become the video."""
        with self._lock:
            if self.choice == "first_success":
                return index == 0 or self._success is None
            if self.choice == "hardest_success":
                return index == 0 or self._success is None or index > self._success[0]
            return index == 0

    def offer(self, index: int, success: bool, frames: list[np.ndarray]) -> None:
        with self._lock:
            if index == 0:
                self._first_world, self._first_world_success = frames, success
            if not success or self.choice == "first":
                return
            if self._success is None or (self.choice == "hardest_success" and index > self._success[0]):
                self._success = (index, frames)

    def chosen(self) -> tuple[list[np.ndarray], tuple[int, bool]] | None:
        """The frames of the chosen episode and (its world's index, whether it succeeded)."""
        if self._success is not None:
            return self._success[1], (self._success[0], True)
        if self._first_world is not None:
            return self._first_world, (0, self._first_world_success)
        return None


#: GIF frames are enlarged (nearest neighbour) by a whole factor until they are this tall.
GIF_MIN_HEIGHT_PX = 192


def write_episode_gif(frames: Sequence[np.ndarray], path: Path, scale: int | None = None, fps: int = 10) -> Path:
    """An animated GIF of RGBD frames: RGB on the left, depth (near = bright) on the right.

    ``scale`` enlarges each pixel to a square of that side; None picks the smallest factor that
    makes the frames at least ``GIF_MIN_HEIGHT_PX`` tall.
    """
    if not frames:
        raise ValueError("no frames to write")
    if scale is None:
        scale = max(1, -(-GIF_MIN_HEIGHT_PX // frames[0].shape[0]))
    path.parent.mkdir(parents=True, exist_ok=True)
    images = []
    for frame in frames:
        rgb = frame[..., :3]
        depth = np.repeat(frame[..., 3:4], 3, axis=2)  # the encoding is already near = bright
        both = np.concatenate([rgb, depth], axis=1)
        image = Image.fromarray(both)
        if scale != 1:
            image = image.resize((image.width * scale, image.height * scale), Image.NEAREST)
        images.append(image.convert("P", palette=Image.ADAPTIVE, colors=255))
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return path
