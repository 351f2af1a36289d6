"""Scoring reaches the evaluation sets: their worlds in order and the score files they ship."""

from __future__ import annotations

import json

import pytest

from avalon.evaluation.scoring.score_files import read_score_file
from avalon.evaluation.scoring.sets import set_requests, set_score_file
from avalon.evaluation.sets import load_set


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
