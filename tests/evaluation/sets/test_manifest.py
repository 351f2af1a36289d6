"""The checked-in sets and their manifests: loading, keys, score files, bad input."""

from __future__ import annotations

import json
import math

import pytest

from avalon.datagen.world import GENERATOR_VERSION
from avalon.evaluation.scoring.score_files import SCRIPTED_SOURCE
from avalon.evaluation.sets import RECIPES, EvalSet, SetWorld, load_scores, load_set, set_names
from avalon.evaluation.sets.manifest import SETS_DIR, set_from_json
from avalon.evaluation.sets.recipe import DEFAULT_SET, plan_worlds
from avalon.tasks import TASKS
from avalon.training.world_supply import WorldRequest


def test_the_smoke_and_default_sets_are_checked_in():
    assert {"smoke", "v1", "v2", DEFAULT_SET} <= set(set_names())
    assert (SETS_DIR / "v1.json").is_file() and (SETS_DIR / "v1.reference.json").is_file()


@pytest.mark.parametrize("name", ["smoke", "v1", "v2", "v3"])
def test_a_checked_in_set_holds_the_worlds_its_recipe_plans(name):
    """Every world is the planned one (its seed, or a later seed that replaced it), with a hash: the
    recipe, reading the tasks' specs, plans exactly the manifest's worlds."""
    evalset = load_set(name)
    assert (evalset.name, evalset.version) == (name, RECIPES[name].version)
    planned = plan_worlds(RECIPES[name])
    assert evalset.tasks() == RECIPES[name].set_tasks() == evalset.recipe["tasks"]
    assert len(planned) == len(evalset.worlds)
    for plan, world in zip(planned, evalset.worlds):
        assert (world.task, world.difficulty, world.forced) == (plan.task, plan.difficulty, plan.forced)
        assert plan.seed <= world.seed <= plan.seed + 20
        assert world.content_hash.startswith("sha256:") and len(world.content_hash) == 71
    assert evalset.created_with == GENERATOR_VERSION


@pytest.mark.parametrize("name", ["v1", DEFAULT_SET])
def test_a_full_set_has_fifty_worlds_per_task_and_one_forced_world_per_value_each_task_can_force(name):
    """G.1: every food kind for eat; in the default set also every prey for hunt, every predator for avoid."""
    evalset = load_set(name)
    for task in evalset.tasks():
        assert sum(w.task == task for w in evalset.worlds) == 50
        for forcing in TASKS[task].forcing:
            forced = sorted(w.forced[forcing.option] for w in evalset.worlds if w.task == task and w.forced)
            assert forced == sorted(forcing.values), (task, forcing.option)


def test_keys_are_the_requests_folder_names_and_requests_carry_the_forcing():
    evalset = load_set("v1")
    requests = evalset.requests()
    assert all(isinstance(r, WorldRequest) for r in requests)
    assert [w.key for w in evalset.worlds] == [r.folder_name for r in requests]
    assert len({w.key for w in evalset.worlds}) == len(evalset.worlds)
    forced = next(w for w in evalset.worlds if w.forced)
    assert forced.key == f"eat-1.000000-{forced.seed}"
    assert requests[evalset.worlds.index(forced)].forced == forced.forced


@pytest.mark.parametrize("name", ["smoke", "v1", "v2", "v3"])
def test_the_reference_scores_name_worlds_of_the_set(name):
    keys = {w.key for w in load_set(name).worlds}
    scores = load_scores(name, "reference")
    assert scores and set(scores) <= keys
    for entry in scores.values():
        assert set(entry) == {"score", "success", "source"} and entry["source"] == SCRIPTED_SOURCE
        assert isinstance(entry["success"], bool) and math.isfinite(entry["score"]) and entry["score"] >= 0.0
    assert any(entry["success"] for entry in scores.values())


def test_the_build_report_says_whether_the_reference_agent_ran():
    report = (SETS_DIR / "v1.report.md").read_text()
    assert "The scripted reference agent played every world" in report
    assert "| eat | 50 | 10 |" in report


def test_an_unknown_set_name_lists_the_sets():
    with pytest.raises(ValueError, match=r"unknown evaluation set 'v7' in .*; the sets are: .*smoke.*v1"):
        load_set("v7")
    with pytest.raises(ValueError, match="the sets are"):
        load_scores("v7", "reference")
    with pytest.raises(ValueError, match="unknown evaluation set '../v1'"):
        load_set("../v1")


def test_score_files_are_named_and_missing_ones_reported(tmp_path):
    with pytest.raises(ValueError, match=r"score file kind 'human' is not one of reference, random"):
        load_scores("v1", "human")
    (tmp_path / "mine.json").write_text((SETS_DIR / "smoke.json").read_text())
    with pytest.raises(ValueError, match=r"set 'mine' has no reference scores: .*mine.reference.json does not exist"):
        load_scores("mine", "reference", tmp_path)


def test_a_manifest_round_trips_through_json():
    evalset = load_set("smoke")
    again = set_from_json(json.loads(json.dumps(evalset.to_json())), "memory")
    assert again == evalset and isinstance(again, EvalSet) and isinstance(again.worlds[0], SetWorld)


@pytest.mark.parametrize("edit, message", [
    (lambda data: data.update(format=7), "expected a manifest object with format 1"),
    (lambda data: data["worlds"][0].pop("content_hash"), "malformed manifest: TypeError"),
    (lambda data: data["worlds"][0].update(task="fly"), "unknown task 'fly'"),
    (lambda data: data["worlds"][0].update(difficulty=2), "difficulty 2 must be a number in"),
    (lambda data: data["worlds"].append(dict(data["worlds"][0])), "a world is listed twice"),
    (lambda data: data.update(version=0), "version=0 must be an int >= 1"),
])
def test_malformed_manifests_are_refused_naming_the_file_and_field(tmp_path, edit, message):
    data = json.loads((SETS_DIR / "smoke.json").read_text())
    edit(data)
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=f"bad.json.*{message}"):
        load_set("bad", tmp_path)
