"""Human scores and the per-world human reference: ``avalon human score vr_data/``.

Every human episode under a folder (``vr_data/README.md``: ``<world>/<player>/<run>/episode.npz``
with its ``meta.json``) is replayed (:mod:`avalon.episodes.replay_folder`); its score (Appendix M)
and success are the replay's, so they come from the same code as an agent's. Episodes that do not
replay identically are left out and listed. Then, per world (task, difficulty, seed):

- an episode the player restarted (``meta.json`` ``restarts`` > 0) is set apart: counted and
  averaged on its own, not part of the reference (the paper's human scores are first attempts);
- the reference score and success rate are the **mean over players** of each player's mean over
  their episodes, so a player with many runs counts once;
- with a random baseline (``--random FILE``: per-world scores, keyed like the reference), a world
  where the humans did no better than random is reported and left out of the reference, as the
  paper did (its normalisation, random = 0 and mean human = 1, needs humans above random).

The reference file maps each world's key (``world_key``: ``task-difficulty-seed``, the key of every
per-world score file) to ``{"score", "success", "success_rate", "source", "players", "episodes",
"restarted_episodes", "restarted_mean_score"}`` (``success``: most players succeeded), so
``avalon eval --reference`` reads it as it reads the scripted agents' file.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any, Mapping, Sequence

import attr
import numpy as np

from avalon.episodes.episode_file import Recording
from avalon.episodes.replay_folder import FileReplay
from avalon.tasks import world_key


@attr.s(frozen=True, auto_attribs=True)
class HumanEpisode:
    """One replayed human episode and what its ``meta.json`` says about who played it."""

    path: Path
    key: str
    player: str
    restarts: int
    score: float
    success: bool


@attr.s(frozen=True, auto_attribs=True)
class HumanReference:
    """The reference per world, the worlds left out (key -> why) and the episodes left out (path -> why)."""

    worlds: dict[str, dict[str, Any]]
    left_out_worlds: dict[str, str]
    left_out_episodes: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return dict(sorted(self.worlds.items()))


def human_episodes(results: Sequence[FileReplay]) -> tuple[list[HumanEpisode], dict[str, str]]:
    """The identically replayed episodes with their players, and the others (path -> why)."""
    episodes, left_out = [], {}
    for result in results:
        if not result.identical:
            left_out[str(result.path)] = result.outcome
            continue
        meta_path = result.path.parent / "meta.json"
        try:
            meta = json.loads(meta_path.read_text())
            player, restarts = meta["player"], int(meta.get("restarts", 0))
        except (OSError, ValueError, KeyError) as error:
            left_out[str(result.path)] = f"no usable meta.json beside it ({type(error).__name__}: {error})"
            continue
        world = Recording.load(result.path).meta["world"]
        key = world_key(world["task"], world["difficulty"], world["seed"])
        assert result.score is not None and result.success is not None
        episodes.append(HumanEpisode(result.path, key, player, restarts, result.score, result.success))
    return episodes, left_out


def human_reference(episodes: Sequence[HumanEpisode], random_scores: Mapping[str, Mapping[str, Any]] | None = None,
                    left_out_episodes: Mapping[str, str] | None = None) -> HumanReference:
    """The per-world reference of ``episodes`` (see the module doc)."""
    by_world: dict[str, list[HumanEpisode]] = defaultdict(list)
    for episode in episodes:
        by_world[episode.key].append(episode)
    worlds, left_out = {}, {}
    for key, group in sorted(by_world.items()):
        first_attempts = [e for e in group if e.restarts == 0]
        restarted = [e for e in group if e.restarts > 0]
        if not first_attempts:
            left_out[key] = f"all {len(group)} episode(s) were restarted"
            continue
        by_player: dict[str, list[HumanEpisode]] = defaultdict(list)
        for episode in first_attempts:
            by_player[episode.player].append(episode)
        score = float(np.mean([np.mean([e.score for e in runs]) for runs in by_player.values()]))
        success = float(np.mean([np.mean([e.success for e in runs]) for runs in by_player.values()]))
        if random_scores is not None:
            if key not in random_scores:
                left_out[key] = "no random baseline score for this world"
                continue
            random_score = float(random_scores[key]["score"])
            if score <= random_score:
                left_out[key] = f"humans scored {score:.3f}, no better than random ({random_score:.3f})"
                continue
        worlds[key] = {
            "score": score,
            "success": success >= 0.5,  # most players succeeded (evaluation's score files keep a flag)
            "success_rate": success,
            "source": f"human recordings ({len(by_player)} player{'s' if len(by_player) > 1 else ''})",
            "players": len(by_player),
            "episodes": len(first_attempts),
            "restarted_episodes": len(restarted),
            "restarted_mean_score": float(np.mean([e.score for e in restarted])) if restarted else None,
        }
    return HumanReference(worlds, left_out, dict(left_out_episodes or {}))


def load_scores(path: str | os.PathLike) -> dict[str, dict[str, Any]]:
    """A per-world score file (JSON: key -> {"score": ..., ...}); ``ValueError`` naming the file if it is not one."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: not a readable JSON score file ({error})") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) and "score" in v for v in data.values()):
        raise ValueError(f'{path}: expected a JSON object of world key -> {{"score": ...}}')
    return data


def reference_report(reference: HumanReference) -> str:
    """Markdown: the reference per world, then what was left out and why."""
    lines = ["| world | human score | success | players | episodes | restarted (mean score) |", "|---|---|---|---|---|---|"]
    for key, row in sorted(reference.worlds.items()):
        restarted = f"{row['restarted_episodes']}" + (f" ({row['restarted_mean_score']:.3f})" if row["restarted_episodes"] else "")
        lines.append(f"| {key} | {row['score']:.3f} | {row['success_rate']:.0%} | {row['players']} | {row['episodes']} | {restarted} |")
    for title, items in (("worlds left out", reference.left_out_worlds), ("episodes left out", reference.left_out_episodes)):
        if items:
            lines += ["", f"{title}:"] + [f"- {name}: {why}" for name, why in sorted(items.items())]
    return "\n".join(lines)
