"""Building and verifying a set: manifest, replacements, reference runs, hand-edited manifests."""

from __future__ import annotations

import json
import math

import attr
import pytest

import avalon.evaluation.sets.worker as worker
from avalon.app.main import main
from avalon.evaluation.results import EpisodeResult
from avalon.evaluation.scoring.score_files import RANDOM_SOURCE, SCRIPTED_SOURCE
from avalon.evaluation.sets import load_scores, load_set
from avalon.evaluation.sets.build import build_report, build_set
from avalon.evaluation.sets.recipe import PlannedWorld, SetRecipe, plan_worlds, recipe as set_recipe
from avalon.evaluation.sets.verify import verify_set
from avalon.tasks import TASKS, WorldGenerationError, build_world

TINY = SetRecipe(name="tiny", version=1, worlds_per_task=3, hardest_share=0.0, force_every_value=False, only_tasks=("eat", "jump"))


@pytest.fixture(scope="module")
def tiny_set(tmp_path_factory):
    """The tiny set built without the simulator, by two worker processes."""
    folder = tmp_path_factory.mktemp("sets")
    result = build_set(TINY, folder, jobs=2, run_reference=False, progress=False)
    return folder, result


def test_a_build_writes_the_manifest_and_a_report_that_says_the_reference_agent_did_not_run(tiny_set):
    folder, result = tiny_set
    evalset = load_set("tiny", folder)
    assert evalset == result.evalset and len(evalset.worlds) == 6 and evalset.tasks() == ["eat", "jump"]
    assert [w.difficulty for w in evalset.worlds] == [0.0, 0.5, 1.0] * 2
    assert not (folder / "tiny.reference.json").exists()
    report = (folder / "tiny.report.md").read_text()
    assert "**The reference agent was not run**" in report and "| jump | 3 | 0 | yes | 0 | not run |" in report
    assert "| eat | 3 | 0 | no certificate | 0 | not run |" in report


def test_a_rebuild_is_the_same_set_and_verify_finds_every_hash(tiny_set, tmp_path):
    folder, _ = tiny_set
    again = build_set(TINY, tmp_path, jobs=1, run_reference=False, progress=False)
    assert (tmp_path / "tiny.json").read_text() == (folder / "tiny.json").read_text()
    assert again.evalset.worlds == load_set("tiny", folder).worlds
    verified = verify_set("tiny", folder, jobs=2, progress=False)
    assert verified.ok and "all 6 worlds match their content hashes" in verified.message()


def test_a_hand_edited_manifest_is_reported_world_by_world_and_must_be_re_versioned(tiny_set, tmp_path, capsys):
    folder, _ = tiny_set
    data = json.loads((folder / "tiny.json").read_text())
    edited_hash, edited_seed = data["worlds"][1], data["worlds"][4]
    edited_hash["content_hash"] = "sha256:" + "0" * 64
    edited_seed["seed"] += 1000
    (tmp_path / "tiny.json").write_text(json.dumps(data))
    verified = verify_set("tiny", tmp_path, jobs=1, progress=False)
    bad = {m.world.key for m in verified.mismatches}
    assert bad == {f"eat-0.500000-{edited_hash['seed']}", f"jump-0.500000-{edited_seed['seed']}"}
    message = verified.message()
    assert f"eat-0.500000-{edited_hash['seed']}: the manifest says sha256:{'0' * 64}, regenerated sha256:" in message
    assert "2 of 6 worlds of set 'tiny' version 1 do not match" in message and "must be re-versioned" in message
    assert main(["evalset", "verify", "tiny", "--dir", str(tmp_path), "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert f"jump-0.500000-{edited_seed['seed']}: the manifest says" in out and "must be re-versioned" in out


def test_a_rebuild_that_would_change_a_built_set_is_refused(tiny_set, tmp_path):
    folder, _ = tiny_set
    data = json.loads((folder / "tiny.json").read_text())
    data["worlds"][2]["content_hash"] = "sha256:" + "1" * 64
    (tmp_path / "tiny.json").write_text(json.dumps(data))
    key = load_set("tiny", tmp_path).worlds[2].key
    with pytest.raises(ValueError, match=f"already holds set 'tiny' version 1, and 1 of its worlds came out differently \\({key}\\): "
                                         "re-version the set"):
        build_set(TINY, tmp_path, jobs=1, run_reference=False, progress=False)
    assert json.loads((tmp_path / "tiny.json").read_text()) == data  # nothing was written
    assert not (tmp_path / "tiny.report.md").exists()


def test_the_command_builds_lists_and_verifies_the_smoke_set(tmp_path, capsys):
    assert main(["evalset", "build", "smoke", "--no-reference", "--jobs", "2", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| eat | 2 | 0 | no certificate | 0 | not run |" in out and "generation time" in out
    assert main(["evalset", "list", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    worlds = len(plan_worlds(set_recipe("smoke")))  # every task of today's registry: 2 worlds each
    assert f"smoke: version 1, {worlds} worlds" in out and "v1: not built" in out
    assert main(["evalset", "verify", "smoke", "--dir", str(tmp_path), "--jobs", "2"]) == 0
    assert f"all {worlds} worlds match" in capsys.readouterr().out


def test_unknown_set_names_are_refused_listing_the_sets(tmp_path, capsys):
    assert main(["evalset", "verify", "nope"]) == 2
    assert "unknown evaluation set 'nope'" in capsys.readouterr().err
    assert main(["evalset", "build", "nope", "--dir", str(tmp_path)]) == 2
    assert "the sets that can be built are: smoke, v1" in capsys.readouterr().err


NEAR_M = 2.5


def near_food_certificate(world):
    """eat's worlds checked more strictly than eat does: the food reached on foot, and within
    NEAR_M of the spawn (a real property of each world, which the generator does not keep)."""
    from avalon.tasks.kit.certificate import certify

    certificate = certify(world, world.food[0], frozenset(), frozenset({"walk"}))
    distance = _food_distance(world)
    if distance > NEAR_M:
        return attr.evolve(certificate, solvable=False, reason=f"the food is {distance:.2f} m away, beyond {NEAR_M} m")
    return certificate


def _food_distance(world) -> float:
    """Horizontal distance from the spawn to the (first) food, metres."""
    (x, _, z), (fx, _, fz) = world.spawn_position, world.food[0].position
    return math.hypot(fx - x, fz - z)


def test_a_world_its_certificate_rejects_is_replaced_by_the_next_seed(monkeypatch):
    monkeypatch.setitem(TASKS, "eat", attr.evolve(TASKS["eat"], certificate=near_food_certificate))
    replaced = []
    for seed in range(40, 60):
        built = worker.build_one(PlannedWorld("eat", 1.0, seed), run_reference=False)
        assert built.certified
        final = build_world("eat", 1.0, built.world.seed)
        assert _food_distance(final) <= NEAR_M
        assert built.world.seed == seed + len(built.replacements)
        for offset, replacement in enumerate(built.replacements):
            assert replacement.seed == seed + offset and "beyond 2.5 m" in replacement.reason
            assert _food_distance(build_world("eat", 1.0, replacement.seed)) > NEAR_M
        if built.replacements:
            replaced.append(built)
        if len(replaced) == 2:
            break
    assert len(replaced) == 2, "no world was replaced: the test's certificate rejects nothing"
    result = attr.evolve(_result_of(replaced), reference_ran=False)
    report = build_report(result)
    first = replaced[0].replacements[0]
    assert f"- eat d=1: seed {first.seed} replaced (certificate: the food is" in report
    assert "| eat | 2 | 0 | yes | 2 | not run |" in report


def _result_of(built):
    from avalon.evaluation.sets.build import BuildResult
    from avalon.evaluation.sets.manifest import EvalSet
    from avalon.evaluation.sets.runner import JobStats

    evalset = EvalSet(name="t", version=1, created_with="0.1.0", worlds=tuple(b.world for b in built))
    return BuildResult(evalset, tuple(built), False, JobStats(backend="this process"))


def test_a_planned_world_whose_next_seeds_all_fail_stops_the_build(monkeypatch):
    def reject_all(world):
        return attr.evolve(near_food_certificate(world), solvable=False, reason="rejects every world")

    monkeypatch.setitem(TASKS, "eat", attr.evolve(TASKS["eat"], certificate=reject_all))
    monkeypatch.setattr(worker, "MAX_REPLACEMENTS", 2)
    with pytest.raises(WorldGenerationError, match=r"eat d=0.5: seeds 7 to 9 all failed; last: certificate: rejects every world"):
        worker.build_one(PlannedWorld("eat", 0.5, 7), run_reference=False)


@pytest.mark.godot
@pytest.mark.slow
def test_the_reference_agent_plays_every_world_and_its_scores_are_kept_beside_the_manifest(tmp_path):
    recipe = SetRecipe(name="played", version=1, worlds_per_task=2, force_every_value=False, only_tasks=("eat", "move"))
    result = build_set(recipe, tmp_path, jobs=1, run_reference=True, progress=False)
    scores = load_scores("played", "reference", tmp_path)
    assert set(scores) == {w.key for w in result.evalset.worlds}
    for built in result.built:
        entry = scores[built.world.key]
        assert entry == {"score": built.reference.score, "success": built.reference.success, "source": SCRIPTED_SOURCE}
        assert math.isfinite(entry["score"]) and built.reference.episode_length > 0
        if entry["success"]:  # Appendix M: eating early scores above zero
            assert entry["score"] > 0
    easiest_eat = next(b for b in result.built if b.world.task == "eat" and b.world.difficulty == 0.0)
    assert easiest_eat.reference.success  # the scripted agent eats the food on the altar in front of it
    report = (tmp_path / "played.report.md").read_text()
    assert "The scripted reference agent played every world" in report
    eat_solved = sum(scores[w.key]["success"] for w in result.evalset.worlds if w.task == "eat")
    assert f"| eat | 2 | 0 | no certificate | 0 | {eat_solved} / 2 |" in report


@pytest.mark.godot
@pytest.mark.slow
def test_the_random_baseline_plays_every_world_to_its_time_limit_and_writes_its_scores(tmp_path, capsys):
    recipe = SetRecipe(name="randomised", version=1, worlds_per_task=1, force_every_value=False, only_tasks=("eat",))
    build_set(recipe, tmp_path, jobs=1, run_reference=False, progress=False)
    assert main(["evalset", "baseline", "randomised", "--dir", str(tmp_path), "--jobs", "1"]) == 0
    assert "random agent (vr actions) on 1 worlds" in capsys.readouterr().out
    scores = load_scores("randomised", "random", tmp_path)
    world = load_set("randomised", tmp_path).worlds[0]
    assert list(scores) == [world.key]
    assert isinstance(scores[world.key]["success"], bool) and scores[world.key]["score"] >= 0.0
    try:
        played = worker.random_run(world)  # the same seeds: the same episode
    finally:
        worker.close_envs()
    assert {"score": played.score, "success": played.success, "source": RANDOM_SOURCE} == scores[world.key]
    assert 0 < played.episode_length <= TASKS["eat"].evaluation_time_limit_frames


@pytest.mark.godot
@pytest.mark.slow
def test_the_reference_agent_lays_the_log_on_a_bridge_world():
    # Bridge routes need the task's own follower (it fetches and lays the log): the set's reference
    # runs take it from follower_for, through ScriptedPolicy.
    try:
        built = worker.build_one(PlannedWorld("bridge", 0.0, 0), run_reference=True)
    finally:
        worker.close_envs()
    assert isinstance(built.reference, EpisodeResult) and built.reference.success, built.reference
    assert built.reference.score > 0
