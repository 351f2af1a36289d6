"""``avalon eval report``: the paper's Table 1 and Table 8 from evaluations on one set."""

import json
import re

import numpy as np
import pytest

from avalon.app.main import main
from avalon.evaluation.eval_file import EVAL_FORMAT, EVAL_VERSION
from avalon.evaluation.scoring.paper_table import paper_tables, task_order, write_paper_report
from avalon.tasks import TASKS

BASIC = [spec.name for spec in sorted(TASKS.values(), key=lambda spec: spec.table_row or 99) if spec.group == "basic"]


def _episodes(scores_by_task: dict[str, list[float]]) -> list[dict]:
    return [{"key": f"{task}__{i}", "task": task, "difficulty": 0.5, "score": float(value), "normalised": float(value),
             "success": bool(value > 0.5), "achievements": []}
            for task, values in scores_by_task.items() for i, value in enumerate(values)]


def _eval_file(path, scores_by_task, worlds="set v3"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": EVAL_FORMAT, "version": EVAL_VERSION, "policy": "p", "worlds": worlds,
                                "episodes": _episodes(scores_by_task)}))
    return path


def test_rows_follow_table_1_then_the_group_rows_whose_mean_pools_every_task():
    rng = np.random.default_rng(0)
    tasks = [BASIC[5], BASIC[0], BASIC[2]]  # given out of order
    scores = {task: list(rng.uniform(0.0, 1.5, 20)) for task in tasks}
    tables = paper_tables({"run": [_episodes(scores)]}, reps=200)
    assert tables["rows"] == [BASIC[0], BASIC[2], BASIC[5], "all basic", "all compositional", "all"]
    cells = tables["columns"]["run"]
    for task in tasks:
        assert cells["mean"][task]["value"] == pytest.approx(np.mean(scores[task]))
        # rliable's optimality gap with the reference at 1: the mean shortfall below 1, scores above 1 counting as 1.
        assert cells["optimality_gap"][task]["value"] == pytest.approx(np.mean(1.0 - np.minimum(scores[task], 1.0)))
    pooled = np.concatenate([scores[task] for task in tasks])
    for row in ("all basic", "all"):
        assert cells["mean"][row]["value"] == pytest.approx(pooled.mean())
        assert cells["mean"][row]["low"] < pooled.mean() < cells["mean"][row]["high"]
    assert cells["mean"]["all compositional"] is None
    assert tables["missing"]["run"]["all compositional"] == "no task of the group was evaluated"


def test_a_column_lacking_a_task_gets_no_group_cell_and_the_reason():
    a = {BASIC[0]: [0.2] * 5, BASIC[1]: [0.4] * 5}
    b = {BASIC[0]: [0.9] * 5}
    tables = paper_tables({"a": [_episodes(a)], "b": [_episodes(b)]}, reps=100)
    assert tables["columns"]["a"]["mean"]["all basic"]["value"] == pytest.approx(0.3)
    assert tables["columns"]["b"]["mean"]["all basic"] is None
    assert tables["missing"]["b"]["all basic"] == f"not evaluated: {BASIC[1]}"
    assert tables["columns"]["b"]["mean"][BASIC[1]] is None


def test_unknown_tasks_come_last_without_a_group():
    assert task_order(["zzz", BASIC[1], BASIC[0]]) == [(BASIC[0], "basic"), (BASIC[1], "basic"), ("zzz", None)]


def test_the_command_writes_both_tables_json_and_the_figure(tmp_path, capsys):
    rng = np.random.default_rng(1)
    first = _eval_file(tmp_path / "a" / "eval.json", {task: list(rng.uniform(0, 1, 10)) for task in BASIC[:3]})
    second = _eval_file(tmp_path / "b" / "eval.json", {task: list(rng.uniform(0, 1, 10)) for task in BASIC[:3]})
    assert main(["eval", "report", f"ppo={first}", f"impala={second}", "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    table1 = (tmp_path / "out" / "table1.md").read_text()
    assert table1 in printed
    assert "| task | ppo | impala |" in table1
    assert "| all basic (3 of the paper's 16 tasks) |" in table1
    assert "Optimality gap" in (tmp_path / "out" / "table8.md").read_text()
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["worlds"] == "set v3" and set(report["columns"]) == {"ppo", "impala"}
    assert (tmp_path / "out" / "tables.png").read_bytes()[:4] == b"\x89PNG"


def test_evaluations_on_different_sets_are_refused_naming_both(tmp_path, capsys):
    first = _eval_file(tmp_path / "a" / "eval.json", {BASIC[0]: [0.5]}, worlds="set v2")
    second = _eval_file(tmp_path / "b" / "eval.json", {BASIC[0]: [0.5]}, worlds="set v3")
    assert main(["eval", "report", str(first), str(second), "--out", str(tmp_path / "out")]) == 2
    assert re.search(r"different worlds: .*a/eval.json on 'set v2', .*b/eval.json on 'set v3'", capsys.readouterr().err)
    assert not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match="different worlds"):
        write_paper_report([str(first), str(second)], tmp_path / "out")
