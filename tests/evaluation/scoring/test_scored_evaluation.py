"""Scored evaluations (``avalon eval``) with the real simulator: an interrupted evaluation resumes
from its per-episode file; the random baseline and the scripted reference write the score files
that normalise an evaluation; the report, its plots and ``eval compare``; bad input refused before
any simulator."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from avalon.app.main import main
from avalon.env.config import EnvConfig
from avalon.evaluation.policies import RandomPolicy
from avalon.evaluation.scoring.scored_evaluation import ScoredEvaluation, generated_worlds_label, run_scored_evaluation
from avalon.evaluation.worlds import evaluation_worlds

SMALL = ["--resolution", "32", "--time-limits", "training", "--max-difficulty", "0.1", "--no-video"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def episode_lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()[1:] if line.endswith("}")]


@pytest.mark.godot
@pytest.mark.slow
def test_an_interrupted_evaluation_resumes_and_plays_only_the_worlds_it_had_not_finished(tmp_path, capsys):
    out = tmp_path / "eval"
    args = ["eval", "--policy", "random", "--tasks", "eat", "--episodes", "5", "--envs", "1", "--out", str(out), *SMALL]
    process = subprocess.Popen([sys.executable, "-m", "avalon.app.main", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while len(episode_lines(out / "episodes.jsonl")) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 128 + signal.SIGTERM, process.stderr.read().decode()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    before = episode_lines(out / "episodes.jsonl")
    assert 2 <= len(before) < 5
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert f"{len(before)} of 5 worlds already played; {5 - len(before)} to play" in printed
    assert f"played {5 - len(before)} world(s)" in printed
    after = episode_lines(out / "episodes.jsonl")
    assert after[: len(before)] == before  # kept as they were, the rest appended
    expected = [request.folder_name for request in evaluation_worlds(["eat"], 5, 0.0, 0.1, seed=0)]
    assert sorted(line["key"] for line in after) == sorted(expected)  # each world once
    saved = json.loads((out / "eval.json").read_text())
    assert [w["key"] for w in saved["episodes"]] == expected and saved["run"]["resumed"] == len(before)
    # The same folder with another configuration is refused, both values named.
    assert main(["eval", "--policy", "random", "--tasks", "eat", "--episodes", "5", "--out", str(out), *SMALL[:-1][2:],
                 "--resolution", "48", "--no-video"]) == 2
    assert "its resolution is 32, this evaluation's is 48" in capsys.readouterr().err


@pytest.mark.godot
@pytest.mark.slow
def test_the_random_baseline_and_the_reference_normalise_an_evaluation_and_runs_compare(tmp_path, capsys):
    config = EnvConfig(renderer="GLES2", resolution=32, action_space="vr")
    requests = evaluation_worlds(["eat", "trivial"], 2, 0.0, 0.1, seed=0)
    said = []
    random_out = tmp_path / "random"
    run_scored_evaluation(ScoredEvaluation(
        kind="random", policy=RandomPolicy("vr", seed=0), label="random policy (seed 0)", env_config=config,
        requests=requests,
        worlds_label=generated_worlds_label(["eat", "trivial"], 2, 0.0, 0.1, 0), out_dir=random_out, time_limits="training", video=None,
        write_baseline=random_out / "random.json", estimate_from_worlds=1, progress=False, bootstrap_reps=200,
    ), say=said.append)
    assert any(line.startswith("estimated time: about") for line in said)
    baseline = json.loads((random_out / "random.json").read_text())
    assert sorted(baseline) == sorted(r.folder_name for r in requests)
    reference_out = tmp_path / "reference"
    # The reference agents play eat's worlds (the same seeds: a task's worlds are drawn by its place in the list);
    # trivial declares none, so its worlds stay without a reference score.
    assert main(["eval", "--policy", "reference", "--tasks", "eat", "--episodes", "2", "--out", str(reference_out),
                 "--write-reference", str(reference_out / "reference.json"), *SMALL]) == 0
    reference = json.loads((reference_out / "reference.json").read_text())
    eat_keys = [r.folder_name for r in requests if r.task == "eat"]
    assert sorted(reference) == sorted(eat_keys) and all(reference[key]["success"] for key in eat_keys)
    # The random evaluation again, now normalised: every world is read back, none played.
    assert main(["eval", "--policy", "random", "--tasks", "eat,trivial", "--episodes", "2", "--out", str(random_out),
                 "--baseline", str(random_out / "random.json"), "--reference", str(reference_out / "reference.json"), *SMALL]) == 0
    saved = json.loads((random_out / "eval.json").read_text())
    assert saved["run"]["played"] == 0 and saved["run"]["resumed"] == 4
    random_mean = sum(baseline[key]["score"] for key in eat_keys) / 2
    reference_mean = sum(reference[key]["score"] for key in eat_keys) / 2
    for world in saved["episodes"]:
        if world["task"] == "eat":
            assert world["normalised"] == pytest.approx((world["score"] - random_mean) / (reference_mean - random_mean))
        else:
            assert world["normalised"] is None
    assert saved["normalisation"]["reference"]["source"] == "scripted reference agents"
    table = (random_out / "eval.md").read_text()
    assert "reference = 1: scripted reference agents" in table and "trivial: not normalised" in table
    for name in ("tasks", "profile", "difficulty"):
        assert Path(saved["plots"][name]).read_bytes()[:8] == PNG_MAGIC
    compare_out = tmp_path / "compare"
    assert main(["eval", "compare", f"random={random_out / 'eval.json'}", f"scripted={reference_out / 'eval.json'}",
                 "--out", str(compare_out)]) == 0
    compared = (compare_out / "compare.md").read_text()
    assert "| task | random | scripted |" in compared and (compare_out / "profile.png").read_bytes()[:8] == PNG_MAGIC
    assert "Raw scores: some runs have no normalised scores" in compared  # the reference run was not normalised
    report = json.loads((compare_out / "compare.json").read_text())
    assert report["score_kind"] == "raw" and report["columns"]["scripted"]["worlds"] == 2
    # Normalised anew with the two files: the reference scores 1 on eat, the random agent 0.
    assert main(["eval", "compare", f"random={random_out / 'eval.json'}", f"scripted={reference_out / 'eval.json'}",
                 "--out", str(compare_out), "--baseline", str(random_out / "random.json"),
                 "--reference", str(reference_out / "reference.json")]) == 0
    report = json.loads((compare_out / "compare.json").read_text())
    assert report["score_kind"] == "normalised"
    assert report["columns"]["scripted"]["per_task"]["eat"]["value"] == pytest.approx(1.0)
    assert report["columns"]["random"]["per_task"]["eat"]["value"] == pytest.approx(0.0)
    assert "trivial" not in report["columns"]["random"]["per_task"]


def test_score_files_missing_worlds_and_unknown_sets_are_refused_before_any_simulator_starts(tmp_path, capsys):
    requests = evaluation_worlds(["eat"], 3, 0.0, 0.1, seed=0)
    partial = {requests[0].folder_name: {"score": 0.0, "success": False}}
    (tmp_path / "random.json").write_text(json.dumps(partial))
    (tmp_path / "reference.json").write_text(json.dumps({r.folder_name: {"score": 1.0, "success": True} for r in requests}))
    code = main(["eval", "--policy", "random", "--tasks", "eat", "--episodes", "3", "--out", str(tmp_path / "out"),
                 "--baseline", str(tmp_path / "random.json"), "--reference", str(tmp_path / "reference.json"), *SMALL])
    assert code == 2
    error = capsys.readouterr().err
    assert f"has no score for 2 evaluated world(s): {requests[1].folder_name}, {requests[2].folder_name}" in error
    assert not (tmp_path / "out").exists()
    assert main(["eval", "--policy", "random", "--set", "no-such-set", "--out", str(tmp_path / "out")]) == 2
    assert "--set 'no-such-set'" in capsys.readouterr().err
    assert main(["eval", "--policy", "reference", "--tasks", "eat", "--write-baseline", str(tmp_path / "b.json")]) == 2
    assert "--write-baseline writes the random agent's scores" in capsys.readouterr().err
