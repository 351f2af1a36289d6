"""Score files and per-task normalisation: random agent 0, reference 1, from the task's mean raw
scores over the evaluated worlds; missing worlds named."""

import json
import math

import attr
import pytest

from avalon.evaluation.results import EpisodeResult, episode_success
from avalon.evaluation.scoring.normalise import normalisation
from avalon.evaluation.scoring.score_files import ScoreFileError, read_score_file, write_score_file
from avalon.tasks import TASKS
from avalon.training.world_supply import WorldRequest

REQUESTS = [WorldRequest("eat", 0.0, 1), WorldRequest("eat", 1.0, 2), WorldRequest("move", 0.5, 3), WorldRequest("trivial", 0.0, 4)]


def scores_file(path, scores: dict[str, float]):
    path.write_text(json.dumps({key: {"score": value, "success": value > 0.5} for key, value in scores.items()}))
    return read_score_file(path)


def keys(*indices):
    return [REQUESTS[i].folder_name for i in indices]


def test_each_task_is_normalised_by_its_means_over_the_evaluated_worlds(tmp_path):
    eat0, eat1, move, trivial = keys(0, 1, 2, 3)
    random = scores_file(tmp_path / "random.json", {eat0: 0.0, eat1: 0.2, move: 0.1, trivial: 0.0})
    reference = scores_file(tmp_path / "reference.json", {eat0: 1.0, eat1: 0.6, move: 0.1})
    result = normalisation(REQUESTS, random, reference)
    assert result.normalisers["eat"].random_mean == pytest.approx(0.1)
    assert result.normalisers["eat"].reference_mean == pytest.approx(0.8)
    assert result.score("eat", 0.1) == pytest.approx(0.0) and result.score("eat", 0.8) == pytest.approx(1.0)
    assert result.score("eat", 0.45) == pytest.approx(0.5)
    # move: the reference does no better than random; trivial: no reference at all.
    assert "not above the random agent's" in result.not_normalised["move"] and math.isnan(result.score("move", 1.0))
    assert "holds none of its 1 worlds" in result.not_normalised["trivial"]
    assert result.describe()["reference"]["source"] == "not named in the file"


def test_score_files_missing_evaluated_worlds_name_them(tmp_path):
    eat0, eat1, move, trivial = keys(0, 1, 2, 3)
    random = scores_file(tmp_path / "random.json", {eat0: 0.0, move: 0.0})
    reference = scores_file(tmp_path / "reference.json", {eat0: 1.0, eat1: 1.0, move: 1.0})
    with pytest.raises(ScoreFileError, match=f"random baseline file .* has no score for 2 evaluated world.*: {eat1}, {trivial}"):
        normalisation(REQUESTS, random, reference)
    random = scores_file(tmp_path / "random.json", {eat0: 0.0, eat1: 0.0, move: 0.0, trivial: 0.0})
    reference = scores_file(tmp_path / "reference.json", {eat0: 1.0, move: 1.0})
    with pytest.raises(ScoreFileError, match=f"reference file .* has no score for 1 evaluated world.*: {eat1}$"):
        normalisation(REQUESTS, random, reference)


def test_written_score_files_read_back_with_their_source(tmp_path):
    episode = EpisodeResult("eat", 0.0, 1, True, 1.02, 0.9, 30, ("eat",))
    path = write_score_file(tmp_path / "reference.json", {"eat-0.000000-1": episode}, "scripted reference agents")
    read = read_score_file(path)
    assert read.scores["eat-0.000000-1"].score == 1.02 and read.scores["eat-0.000000-1"].success
    assert read.source == "scripted reference agents"


@pytest.mark.parametrize("content, message", [
    ("[1, 2]", "expected a non-empty JSON object"),
    ('{"a": {"score": "high", "success": true}}', "world 'a' has"),
    ('{"a": {"score": NaN, "success": true}}', "world 'a' has"),
    ('{"a": {"score": 1.0}}', "world 'a' has"),
    ("{not json", "not readable JSON"),
])
def test_malformed_score_files_are_refused_saying_what_was_expected(tmp_path, content, message):
    (tmp_path / "scores.json").write_text(content)
    with pytest.raises(ScoreFileError, match=message):
        read_score_file(tmp_path / "scores.json")
    with pytest.raises(ScoreFileError, match="does not exist"):
        read_score_file(tmp_path / "missing.json")


def test_a_task_of_several_foods_also_succeeds_with_one_food_and_more_energy_than_at_the_start(monkeypatch):
    # Gather and survive (Appendix M) will say so in their specs; a stand-in registered here does.
    monkeypatch.setitem(TASKS, "gather", attr.evolve(TASKS["eat"], name="gather", succeeds_on_energy_gain=True))
    some = {"success": False, "food_eaten": 1, "energy": 1.2}
    assert episode_success("gather", some)
    assert not episode_success("eat", some)  # one food, all of it: only "every food eaten" counts
    assert not episode_success("gather", dict(some, energy=0.9)) and not episode_success("gather", dict(some, food_eaten=0))
    assert episode_success("eat", {"success": True, "food_eaten": 1, "energy": 0.5})
