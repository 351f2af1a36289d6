"""Human episodes: a folder replayed in parallel (``avalon replay vr_data/ --jobs 2``) and the
per-world human reference (``avalon human score``), against values computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.task_routes import walk_route
from avalon.app.main import main
from avalon.datagen.export import export_world
from avalon.env.spaces import ActionCodec
from avalon.evaluation.scoring.score_files import read_score_file
from avalon.human.pose_actions import pose_track_from_episode
from avalon.human.pose_import import import_pose_track
from avalon.human.pose_tracks import write_pose_track
from avalon.human.scores import HumanEpisode, human_reference, load_scores
from avalon.tasks import world_key
from avalon.training.world_supply import WorldRequest
from tests.episodes.episode_files import members, save


def episode(key: str, player: str, score: float, success: bool = True, restarts: int = 0) -> HumanEpisode:
    return HumanEpisode(Path(f"{key}/{player}/{score}"), key, player, restarts, score, success)


def test_the_reference_is_the_mean_over_players_with_restarts_set_apart():
    a, b = world_key("eat", 0.25, 3), world_key("move", 1.0, 8)
    episodes = [
        episode(a, "ana", 0.5, True), episode(a, "ana", 0.7, False),  # ana: mean 0.6, success 0.5
        episode(a, "ben", 0.9, True),  # ben: 0.9, success 1
        episode(a, "cy", 0.1, False, restarts=2),  # restarted: set apart
        episode(b, "ana", 0.2, False),
        episode(b, "ben", 0.4, True, restarts=1),  # b's only other episode is a restart
    ]
    reference = human_reference(episodes)
    assert reference.worlds[a] == {
        "score": pytest.approx((0.6 + 0.9) / 2), "success": True, "success_rate": pytest.approx((0.5 + 1.0) / 2),
        "source": "human recordings (2 players)", "players": 2, "episodes": 3, "restarted_episodes": 1,
        "restarted_mean_score": pytest.approx(0.1),
    }
    assert reference.worlds[b]["score"] == pytest.approx(0.2) and reference.worlds[b]["players"] == 1
    # With a random baseline, a world where the humans did no better is left out and reported.
    reference = human_reference(episodes, {a: {"score": 0.5}, b: {"score": 0.2}})
    assert list(reference.worlds) == [a]
    assert reference.left_out_worlds == {b: "humans scored 0.200, no better than random (0.200)"}
    assert "no random baseline" in human_reference(episodes, {a: {"score": 0.0}}).left_out_worlds[b]
    only_restarts = human_reference([episode(a, "cy", 0.3, restarts=1)])
    assert only_restarts.worlds == {} and only_restarts.left_out_worlds == {a: "all 1 episode(s) were restarted"}


def test_the_world_key_is_the_world_supplys_folder_name():
    assert world_key("eat", 0.3, 4) == WorldRequest("eat", 0.3, 4).folder_name == "eat-0.300000-4"


def test_a_score_file_that_is_not_one_is_refused_naming_it(tmp_path):
    (tmp_path / "scores.json").write_text('{"eat-0.000000-1": 3}')
    with pytest.raises(ValueError, match="scores.json: expected a JSON object of world key"):
        load_scores(tmp_path / "scores.json")
    with pytest.raises(ValueError, match="missing.json: not a readable JSON score file"):
        load_scores(tmp_path / "missing.json")


# ---- in the simulator ---------------------------------------------------------------------------


def scripted_track(tmp_path: Path, task: str, difficulty: float, seed: int, name: str, stop_after: int | None = None):
    """A pose track of the scripted agent on a world (cut after ``stop_after`` steps), and the world folder."""
    world, route = walk_route(task, difficulty, seed)
    world_dir = export_world(world, tmp_path / f"world-{name}")
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space="mouse_keyboard", resolution=32, is_training=False))
    codec, agent = ActionCodec("mouse_keyboard"), RouteFollower(world, route)
    try:
        observation, info = env.reset(options={"world_dir": str(world_dir), "episode_seed": 0})
        agent.reset(observation, info)
        observations, actions = [observation], []
        while not info["success"] and (stop_after is None or len(actions) < stop_after):
            action = agent.act(observation, info)
            observation, _, terminated, truncated, info = env.step(action)
            observations.append(observation)
            actions.append(codec.encode(action))
            assert not (terminated or truncated)
    finally:
        env.close()
    proprioception = {key: np.stack([o[key] for o in observations]) for key in observations[0] if key != "rgbd"}
    track = pose_track_from_episode(proprioception, np.stack(actions), "mouse_keyboard")
    return write_pose_track(track, tmp_path / f"{name}.jsonl"), world_dir


@pytest.mark.godot
@pytest.mark.slow
def test_a_folder_of_human_episodes_replays_and_scores_as_played(tmp_path, capsys):
    root = tmp_path / "vr_data"
    eat_track, eat_world = scripted_track(tmp_path, "eat", 0.5, 2, "eat")
    short_track, _ = scripted_track(tmp_path, "eat", 0.5, 2, "short", stop_after=6)  # stops before eating
    move_track, move_world = scripted_track(tmp_path, "move", 0.0, 4, "move")
    played = {  # (track, world, player) -> the score the live import reported
        ("eat", "ana"): import_pose_track(eat_track, "ana", root, world_dir=eat_world, resolution=32),
        ("short", "ana"): import_pose_track(short_track, "ana", root, world_dir=eat_world, resolution=32),
        ("eat", "ben"): import_pose_track(eat_track, "ben", root, world_dir=eat_world, resolution=32),
        ("move", "ben"): import_pose_track(move_track, "ben", root, world_dir=move_world, resolution=32),
    }
    assert played[("eat", "ana")].success and not played[("short", "ana")].success

    assert main(["replay", str(root), "--jobs", "2"]) == 0
    assert "4 of 4 episode files replay identically." in capsys.readouterr().out

    random_file = tmp_path / "random.json"
    eat_key, move_key = world_key("eat", 0.5, 2), world_key("move", 0.0, 4)
    random_file.write_text(json.dumps({eat_key: {"score": 0.0}, move_key: {"score": played[("move", "ben")].score}}))
    assert main(["human", "score", str(root), "--jobs", "2", "--random", str(random_file)]) == 0
    reference = json.loads((root / "human_reference.json").read_text())
    # By hand: ana's mean over her two runs, ben's one run; the mean of the two players.
    ana = (played[("eat", "ana")].score + played[("short", "ana")].score) / 2
    ben = played[("eat", "ben")].score
    assert reference[eat_key]["score"] == pytest.approx((ana + ben) / 2, abs=1e-6)
    assert reference[eat_key]["success_rate"] == pytest.approx((0.5 + 1.0) / 2)
    # Evaluation reads it as a reference file (random = 0, mean human = 1).
    assert read_score_file(root / "human_reference.json").scores[eat_key].score == pytest.approx((ana + ben) / 2, abs=1e-6)
    assert reference[eat_key]["players"] == 2 and reference[eat_key]["episodes"] == 3
    assert move_key not in reference  # ben scored what random scores there: left out, and said so
    assert f"- {move_key}: humans scored" in capsys.readouterr().out

    # One action changed in one file: the folder replay names it and scoring leaves it out.
    changed = played[("eat", "ben")].episode
    parts = members(changed)
    parts["actions"] = parts["actions"].copy()
    parts["actions"][2, 0] = 0.5 if abs(parts["actions"][2, 0]) < 0.25 else 0.0  # strafe half speed in step 3
    save(changed, parts)
    assert main(["replay", str(root), "--jobs", "2"]) == 1
    printed = capsys.readouterr().out
    assert "3 of 4 episode files replay identically." in printed
    assert f"| {changed.relative_to(root)} | 3 | DIFFERENT: observation 3 of" in printed
    assert main(["human", "score", str(root), "--jobs", "2"]) == 1
    reference = json.loads((root / "human_reference.json").read_text())
    assert reference[eat_key]["players"] == 1 and f"- {changed}: DIFFERENT" in capsys.readouterr().out
