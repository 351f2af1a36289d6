"""Scoring reaches the evaluation sets: their worlds in order and the score files they ship."""

from __future__ import annotations

import json

import pytest

from avalon.evaluation.scoring.score_files import read_score_file
from avalon.evaluation.scoring.sets import set_requests, set_score_file
from avalon.evaluation.sets import load_set, set_names
from avalon.evaluation.sets.manifest import SETS_DIR


def test_a_sets_requests_are_its_worlds_in_order_with_their_forced_options():
    evalset = load_set("smoke")
    requests = set_requests("smoke")
    assert [r.folder_name for r in requests] == [w.key for w in evalset.worlds]
    assert [r.forced for r in requests] == [w.forced for w in evalset.worlds]


def test_the_shipped_score_files_are_found_and_read_by_scoring():
    random_file, reference_file = set_score_file("smoke", "random"), set_score_file("smoke", "reference")
    assert random_file.name == "smoke.random.json" and reference_file.name == "smoke.reference.json"
    keys = {w.key for w in load_set("smoke").worlds}
    for path in (random_file, reference_file):
        assert set(json.loads(path.read_text())) == keys
        read_score_file(path)  # scoring's reader accepts the sets' format


def test_an_unknown_set_is_refused_listing_the_sets():
    with pytest.raises(ValueError, match="--set 'nope': .*smoke"):
        set_requests("nope")



def test_a_reissued_reference_file_is_the_one_used_and_is_not_a_set(tmp_path):
    for name in ("smoke.json", "smoke.reference.json", "smoke.random.json"):
        (tmp_path / name).write_text((SETS_DIR / name).read_text())
    assert set_score_file("smoke", "reference", tmp_path).name == "smoke.reference.json"
    for n in (2, 10):
        (tmp_path / f"smoke.reference.{n}.json").write_text((tmp_path / "smoke.reference.json").read_text())
    assert set_score_file("smoke", "reference", tmp_path).name == "smoke.reference.10.json"
    assert set_score_file("smoke", "random", tmp_path).name == "smoke.random.json"
    assert set_names(tmp_path) == ["smoke"]
