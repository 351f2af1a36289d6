"""Importing a pose track as an ordinary episode: ``avalon human import``.

The track's ``vr`` actions (:func:`~avalon.human.pose_actions.pose_track_actions`) are played in a
simulator on the given world, and the episode is written in the project's episode format by
:class:`~avalon.episodes.recording.RecordEpisodes`, so it replays (``avalon replay``) like any other.
It goes where every human episode goes, ``ROOT/<task>__<seed>__<difficulty>/<player>/<run>/``
(``vr_data/README.md``), with ``meta.json`` beside it: the player, the source track, the task,
difficulty and seed, how the episode ended, success and score (Appendix M). Runs are numbered
``001``, ``002``, ... and a run folder is created only if it does not exist, so nothing recorded
before is overwritten.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import attr

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.spaces import ActionCodec
from avalon.episodes.recording import RecordEpisodes
from avalon.human.pose_actions import pose_track_actions
from avalon.human.pose_tracks import load_pose_track

#: A player id is a file name: letters, digits, ``-`` and ``_``, at most 64 of them.
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def check_player(player: Any) -> str:
    """``player`` if it is a valid player id, else a ``ValueError`` naming it."""
    if not isinstance(player, str) or not PLAYER_ID.fullmatch(player):
        raise ValueError(f"player id {player!r} must be 1-64 letters, digits, '-' or '_' (it names a folder)")
    return player


def world_folder_name(task: str, seed: int, difficulty: float) -> str:
    """``<task>__<seed>__<difficulty>``: the folder of one world's human episodes."""
    return f"{task}__{seed}__{difficulty:g}"


@attr.s(frozen=True, auto_attribs=True)
class ImportedEpisode:
    episode: Path
    meta: Path
    frames: int
    ending: str
    success: bool
    score: float


def new_run_folder(root: str | os.PathLike, task: str, seed: int, difficulty: float, player: str) -> Path:
    """A new, empty ``root/<task>__<seed>__<difficulty>/<player>/<run>/`` folder: runs are numbered
    001, 002, ... and only ever created, so nothing recorded before is overwritten."""
    parent = Path(root) / world_folder_name(task, seed, difficulty) / check_player(player)
    parent.mkdir(parents=True, exist_ok=True)
    if not os.access(parent, os.W_OK):
        raise PermissionError(f"{parent} is not writable")
    number = 1 + max((int(p.name) for p in parent.iterdir() if p.is_dir() and p.name.isdigit()), default=0)
    while True:
        run = parent / f"{number:03d}"
        try:
            run.mkdir()  # fails if another recording took the number meanwhile
            return run
        except FileExistsError:
            number += 1


def import_pose_track(
    track_path: str | os.PathLike,
    player: str,
    root: str | os.PathLike = "vr_data",
    *,
    world_dir: str | os.PathLike | None = None,
    task: str | None = None,
    difficulty: float = 0.0,
    seed: int = 0,
    episode_seed: int = 0,
    renderer: str = "GLES2",
    resolution: int = 96,
) -> ImportedEpisode:
    """Plays ``track_path`` on a world (``world_dir``, or the ``task`` world of ``difficulty`` and
    ``seed``) in evaluation mode and records the episode under ``root`` (see the module doc).

    Raises :class:`~avalon.human.pose_tracks.PoseTrackError` for a bad track (before anything is
    written) and ``ValueError`` for a bad player id or neither or both of ``world_dir`` and ``task``.
    """
    player = check_player(player)
    if (world_dir is None) == (task is None):
        raise ValueError("give either world_dir or task (with difficulty and seed), not both and not neither")
    track_path = Path(track_path)
    actions = pose_track_actions(load_pose_track(track_path))
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    config = EnvConfig(renderer=renderer, resolution=resolution, action_space="vr", is_training=False,
                       **({} if task is None else {"task": task, "difficulty": difficulty}))
    staging = Path(root) / ".importing" / f"{os.getpid()}-{time.monotonic_ns()}"
    env = RecordEpisodes(AvalonEnv(config), staging)
    codec = ActionCodec("vr")
    try:
        options = {"episode_seed": episode_seed} if task is None else {}
        if world_dir is not None:
            options["world_dir"] = str(world_dir)
        _, info = env.reset(seed=seed if task is not None else None, options=options)
        world = env.unwrapped.world
        frames, ending = 0, "cut_short"
        for vector in actions:
            _, _, terminated, truncated, info = env.step(codec.decode(vector))
            frames += 1
            if terminated or truncated:
                ending = "terminated" if terminated else "truncated"
                break
    finally:
        env.close()  # writes the episode file (cut short if the track ended first)
    recorded = env.last_path
    run = new_run_folder(root, world.task, world.seed, world.difficulty, player)
    episode = run / "episode.npz"
    shutil.move(str(recorded), episode)
    shutil.rmtree(staging, ignore_errors=True)
    _remove_if_empty(Path(root) / ".importing")
    meta = {
        "player": player,
        "source": {"kind": "pose_track", "file": str(track_path), "steps": int(len(actions))},
        "start_time": started,
        "end_time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "task": world.task,
        "difficulty": world.difficulty,
        "seed": world.seed,
        "world_content_hash": world.content_hash,
        "frames": frames,
        "ending": ending,
        # Ended by the game's rules, or every food eaten (the episode then ends a few frames later).
        "finished": ending != "cut_short" or bool(info["success"]),
        "success": bool(info["success"]),
        "score": float(info["score"]),
        "restarts": 0,
    }
    meta_path = run / "meta.json"
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    return ImportedEpisode(episode, meta_path, frames, ending, meta["success"], meta["score"])


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass
