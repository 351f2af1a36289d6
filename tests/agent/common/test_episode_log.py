"""The episode log of a training run (episodes.csv): what is written, what a resume keeps."""

import math

import pytest

from avalon.agent.common.episodes import EPISODE_LOG_COLUMNS, EpisodeLog, EpisodeRecord, read_episode_log


def _record(task: str, success: bool, difficulty: float = 0.1) -> EpisodeRecord:
    return EpisodeRecord(task=task, difficulty=difficulty, success=success, score=0.5 if success else 0.0, episode_return=1.25, length=42)


def test_every_finished_episode_is_a_row_with_the_step_count_of_its_update(tmp_path):
    log = EpisodeLog(tmp_path / "run" / "episodes.csv")
    log.write(400, [_record("eat", True), _record("move", False, math.nan)])
    log.write(800, [])
    log.write(1200, [_record("eat", False)])
    log.close()
    text = (tmp_path / "run" / "episodes.csv").read_text().splitlines()
    assert text[0] == ",".join(EPISODE_LOG_COLUMNS)
    rows = read_episode_log(tmp_path / "run" / "episodes.csv")
    assert [(row["env_steps"], row["task"], row["success"]) for row in rows] == [
        (400, "eat", True), (400, "move", False), (1200, "eat", False)
    ]
    assert rows[0]["difficulty"] == pytest.approx(0.1) and math.isnan(rows[1]["difficulty"])
    assert rows[0]["score"] == 0.5 and rows[0]["episode_return"] == 1.25 and rows[0]["length"] == 42


def test_a_resume_keeps_the_rows_up_to_its_checkpoint_and_drops_the_redone_ones(tmp_path):
    path = tmp_path / "episodes.csv"
    log = EpisodeLog(path)
    for steps in (400, 800, 1200):
        log.write(steps, [_record("eat", steps == 800)])
    log.close()
    resumed = EpisodeLog(path, resume_steps=800)  # the run stopped after 1200 steps; its checkpoint is at 800
    resumed.write(1200, [_record("eat", True, 0.3)])
    resumed.close()
    assert [(row["env_steps"], row["success"], row["difficulty"]) for row in read_episode_log(path)] == [
        (400, False, 0.1), (800, True, 0.1), (1200, True, 0.3)
    ]


def test_a_fresh_run_starts_a_new_log_and_a_missing_log_reads_as_empty(tmp_path):
    path = tmp_path / "episodes.csv"
    assert read_episode_log(path) == []
    path.write_text("env_steps,task\n999,eat\n")
    EpisodeLog(path).close()
    assert read_episode_log(path) == []
