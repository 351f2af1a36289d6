"""People judging policies side by side (``avalon human compare``): TrueSkill ranking, the choice of
pairs, and the judging window with injected keys on real replayed episodes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pygame
import pytest

from avalon.app.human import Judgement, Run, collect_runs, load_judgements, next_pair, ranking
from avalon.app.main import main
from tests.episodes.episode_files import record_random_episode


def judgements(*results: tuple[str, str, str | None], world: str = "w") -> list[Judgement]:
    return [Judgement(a, b, f"{world}{i}", winner) for i, (a, b, winner) in enumerate(results)]


def test_a_always_beating_b_and_b_beating_c_ranks_a_b_c_with_intervals():
    made = judgements(*[("A", "B", "A"), ("B", "C", "B"), ("C", "A", "A")] * 4)
    rows = ranking(["C", "B", "A"], made)
    assert [row["run"] for row in rows] == ["A", "B", "C"]
    assert all(row["low"] < row["mu"] < row["high"] for row in rows)
    assert (rows[0]["wins"], rows[0]["losses"], rows[1]["wins"], rows[1]["losses"], rows[2]["wins"]) == (8, 0, 4, 4, 0)
    # Fewer judgements: wider intervals.
    few = ranking(["A", "B", "C"], made[:3])
    assert few[0]["high"] - few[0]["low"] > rows[0]["high"] - rows[0]["low"]


def test_draws_keep_two_equal_runs_together():
    rows = ranking(["A", "B"], judgements(*[("A", "B", None)] * 6))
    assert rows[0]["mu"] == pytest.approx(rows[1]["mu"]) and rows[0]["draws"] == 6


def test_pairs_share_a_world_are_never_repeated_and_the_closest_match_comes_first():
    runs = [Run("A", {"w1": Path("a1"), "w2": Path("a2")}), Run("B", {"w1": Path("b1")}), Run("C", {"w2": Path("c2")})]
    rng = np.random.default_rng(0)
    seen = []
    made: list[Judgement] = []
    while (pair := next_pair(runs, made, rng)) is not None:
        left, right, world = pair
        assert world in left.episodes and world in right.episodes
        seen.append((frozenset((left.name, right.name)), world))
        made.append(Judgement(left.name, right.name, world, "A" if "A" in (left.name, right.name) else left.name))
    assert sorted(seen, key=lambda pair: pair[1]) == [(frozenset("AB"), "w1"), (frozenset("AC"), "w2")]
    # After A has beaten B once, A against B again is the least uncertain match: a pair with C comes
    # first (in enumeration order A-B would).
    runs = [Run(name, {"x": Path(), "y": Path()}) for name in "ABC"]
    left, right, _ = next_pair(runs, [Judgement("A", "B", "x", "A")], np.random.default_rng(1))
    assert "C" in (left.name, right.name)


def test_a_judgement_log_that_is_not_one_is_refused_with_its_line(tmp_path):
    log = tmp_path / "comparisons.jsonl"
    log.write_text(json.dumps(Judgement("A", "B", "w", "A").to_json()) + "\n{\"left\": 1}\n")
    with pytest.raises(ValueError, match="comparisons.jsonl, line 2: not a judgement"):
        load_judgements(log)


def test_runs_without_a_shared_world_or_too_few_are_refused(tmp_path):
    with pytest.raises(ValueError, match="at least two runs, got 1"):
        collect_runs([tmp_path])


@pytest.mark.godot
@pytest.mark.slow
def test_a_person_judges_in_the_window_and_the_ranking_follows(tmp_path, trivial_world_dir, capsys):
    # Two policies (random actions of two seeds), each with an episode in the same world.
    for policy, seed in (("policy_a", 1), ("policy_b", 2)):
        record_random_episode(tmp_path / policy, trivial_world_dir, steps=8, seed=seed, resolution=32)
    runs = collect_runs([tmp_path / "policy_a", tmp_path / "policy_b"])

    pressed = []

    def judge(session):  # prefers policy_a, whichever side it is shown on
        if session.showing is not None and len(pressed) == session.made:
            left = session.showing[0].name
            pressed.append(left)
            key = pygame.K_LEFT if left == "policy_a" else pygame.K_RIGHT
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0))

    from avalon.app.human import CompareSession

    rows = CompareSession(runs, tmp_path / "out", judge="tester", pixels=128, input_hook=judge).run()
    assert [row["run"] for row in rows] == ["policy_a", "policy_b"] and rows[0]["wins"] == 1
    logged = load_judgements(tmp_path / "out" / "comparisons.jsonl")
    assert [(j.winner, j.judge) for j in logged] == [("policy_a", "tester")]
    # Every pair judged on every shared world: a second session has nothing to show and keeps the ranking.
    assert main(["human", "compare", str(tmp_path / "policy_a"), str(tmp_path / "policy_b"), "--out", str(tmp_path / "out"),
                 "--judge", "tester"]) == 0
    assert "| 1 | policy_a |" in capsys.readouterr().out
    assert json.loads((tmp_path / "out" / "ranking.json").read_text())[0]["run"] == "policy_a"
