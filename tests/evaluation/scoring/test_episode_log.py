"""The per-episode file: one line per world as it ends, read back on resume; a line cut short by a
kill is dropped, a file of another evaluation refused."""

import json

import pytest

from avalon.evaluation.results import EpisodeResult, FailedWorld
from avalon.evaluation.scoring.episode_log import EpisodeLog, EpisodeLogError

HEADER = {"policy": "random policy (seed 0)", "action_space": "vr", "resolution": 32, "time_limits": "world", "set": "set smoke"}


def episode(seed: int, score: float = 0.5) -> EpisodeResult:
    return EpisodeResult(task="eat", difficulty=0.25, seed=seed, success=score > 0, score=score, episode_return=0.1,
                         episode_length=40 + seed, achievements=("eat", "jump"), attempts=1)


def test_episodes_are_read_back_by_key_and_failed_worlds_are_not(tmp_path):
    log = EpisodeLog(tmp_path / "episodes.jsonl", HEADER)
    assert log.open() == {}
    log.append("a", episode(1))
    log.append("b", FailedWorld("eat", 0.25, 2, 3, "simulator died"))
    log.append("c", episode(3, 0.0))
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["kind"] == "avalon-eval-episodes"
    assert EpisodeLog(tmp_path / "episodes.jsonl", HEADER).open() == {"a": episode(1), "c": episode(3, 0.0)}


def test_a_last_line_cut_short_is_dropped_and_the_next_line_starts_clean(tmp_path):
    path = tmp_path / "episodes.jsonl"
    log = EpisodeLog(path, HEADER)
    log.open()
    log.append("a", episode(1))
    with open(path, "a") as file:
        file.write('{"key": "b", "task": "ea')  # a kill in the middle of a write
    again = EpisodeLog(path, HEADER)
    assert set(again.open()) == {"a"}
    again.append("b", episode(2))
    assert set(EpisodeLog(path, HEADER).open()) == {"a", "b"}
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_a_complete_last_line_without_its_newline_is_kept(tmp_path):
    path = tmp_path / "episodes.jsonl"
    log = EpisodeLog(path, HEADER)
    log.open()
    log.append("a", episode(1))
    path.write_text(path.read_text().rstrip("\n"))
    again = EpisodeLog(path, HEADER)
    assert set(again.open()) == {"a"}
    again.append("b", episode(2))
    assert set(EpisodeLog(path, HEADER).open()) == {"a", "b"}


def test_a_file_of_another_evaluation_is_refused_naming_the_field_and_both_values(tmp_path):
    path = tmp_path / "episodes.jsonl"
    EpisodeLog(path, HEADER).open()
    with pytest.raises(EpisodeLogError, match="its resolution is 32, this evaluation's is 96"):
        EpisodeLog(path, dict(HEADER, resolution=96)).open()
    path.write_text('{"kind": "something else"}\n')
    with pytest.raises(EpisodeLogError, match="not an evaluation's per-episode file"):
        EpisodeLog(path, HEADER).open()


def test_a_broken_line_before_the_last_is_an_error_naming_it(tmp_path):
    path = tmp_path / "episodes.jsonl"
    log = EpisodeLog(path, HEADER)
    log.open()
    log.append("a", episode(1))
    path.write_text(path.read_text() + "not json\n" + json.dumps({"key": "c", **episode(3).__dict__}) + "\n")
    with pytest.raises(EpisodeLogError, match="line 3 is not JSON"):
        EpisodeLog(path, HEADER).open()
