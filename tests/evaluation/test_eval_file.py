"""``eval.json``: what the one writer lays out and the one reader reads back, the two kinds of
file written before the layout had a name, and what is refused (naming the command to run)."""

import json

import attr
import pytest

from avalon.evaluation.eval_file import (
    EVAL_FORMAT,
    EVAL_VERSION,
    EvalFileError,
    eval_content,
    read_eval_file,
    scored_episodes,
    write_eval_file,
)
from avalon.evaluation.results import EpisodeResult, EvaluationResult, FailedWorld
from avalon.training.world_supply import WorldRequest

EPISODES = (
    EpisodeResult(task="eat", difficulty=0.0, seed=3, success=True, score=1.25, episode_return=0.5, episode_length=40,
                  achievements=("eat", "grasp")),
    EpisodeResult(task="move", difficulty=1.0, seed=4, success=False, score=0.0, episode_return=-0.1, episode_length=3000,
                  achievements=(), attempts=2, note="failed at step 1 (walk): blocked"),
)
RESULT = EvaluationResult(episodes=EPISODES, failed_worlds=(FailedWorld("eat", 0.5, 9, 3, "it crashed"),), restarts=4,
                          skipped=(WorldRequest("trivial", 0.0, 1),))


def written(tmp_path):
    content = eval_content(
        policy="random policy (seed 0)", worlds="tasks eat,move", settings={"action_space": "vr", "time_limits": "world"},
        result=RESULT, episodes=scored_episodes(EPISODES, [0.0, None]), run={"played": 2, "resumed": 0},
    )
    return write_eval_file(tmp_path / "eval.json", content)


def test_the_file_holds_every_field_and_reads_back(tmp_path):
    path = written(tmp_path)
    saved = json.loads(path.read_text())
    assert (saved["format"], saved["version"]) == (EVAL_FORMAT, EVAL_VERSION)
    assert set(saved) == {"format", "version", "policy", "worlds", "settings", "per_task", "by_difficulty",
                          "falls_with_difficulty", "episodes", "failed_worlds", "skipped", "restarts", "error", "video",
                          "video_episode", "run", "normalisation", "report", "plots"}
    assert saved["episodes"][1] == {
        "key": "move-1.000000-4", "task": "move", "difficulty": 1.0, "seed": 4, "success": False, "score": 0.0,
        "episode_return": -0.1, "episode_length": 3000, "achievements": [], "attempts": 2,
        "note": "failed at step 1 (walk): blocked", "normalised": None}
    assert saved["skipped"] == ["trivial-0.000000-1"] and saved["restarts"] == 4
    assert "1 of 3 evaluation worlds failed: eat difficulty 0.5 seed 9 after 3 attempt(s): it crashed" == saved["error"]
    assert saved["by_difficulty"]["eat"][0]["successes"] == 1 and saved["per_task"]["move"]["episodes"] == 1
    read = read_eval_file(path)
    assert (read.version, read.policy, read.worlds) == (EVAL_VERSION, "random policy (seed 0)", "tasks eat,move")
    assert list(read.episodes) == saved["episodes"]


def test_the_files_written_before_the_layout_had_a_name_are_read(tmp_path):
    episodes = [attr.asdict(episode) for episode in EPISODES]
    for episode in episodes:
        del episode["note"]
    (tmp_path / "train.json").write_text(json.dumps({"checkpoint": "runs/a/ckpt.pt", "per_task": {}, "episodes": episodes}))
    trained = read_eval_file(tmp_path / "train.json")
    assert (trained.version, trained.policy) == (1, "checkpoint runs/a/ckpt.pt")
    assert [(e["key"], e["score"], e["normalised"]) for e in trained.episodes] == [
        ("eat-0.000000-3", 1.25, None), ("move-1.000000-4", 0.0, None)]
    world = {"key": "eat-0.000000-3", "task": "eat", "difficulty": 0.0, "score": 1.25, "normalised": 0.9, "success": True,
             "achievements": ["eat"], "length": 40}
    (tmp_path / "eval.json").write_text(json.dumps({"policy": "random", "worlds": "set smoke", "episodes": episodes,
                                                    "scoring": {"worlds": [world]}}))
    scored = read_eval_file(tmp_path / "eval.json")
    assert (scored.version, scored.policy, scored.worlds) == (1, "random", "set smoke")
    assert [(e["key"], e["normalised"], e["episode_length"]) for e in scored.episodes] == [("eat-0.000000-3", 0.9, 40)]


@pytest.mark.parametrize("content, message", [
    (None, "does not exist"),
    ("not json", "is not readable JSON"),
    ([1, 2], "holds list, not an evaluation's eval.json"),
    ({"env_steps": 300}, "is not an evaluation's eval.json"),
    ({"format": "something-else", "episodes": []}, "is not an evaluation's eval.json"),
    ({"format": EVAL_FORMAT, "version": 99, "episodes": []}, "is an eval.json of version 99; this avalon reads version 2"),
    ({"episodes": [{"task": "eat"}]}, "an episode lacks a field"),
])
def test_anything_else_is_refused_naming_the_command_that_writes_one(tmp_path, content, message):
    path = tmp_path / "file.json"
    if content is not None:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(EvalFileError, match=message) as caught:
        read_eval_file(path)
    assert "`avalon eval --checkpoint PATH --out DIR`" in str(caught.value) and str(path) in str(caught.value)
