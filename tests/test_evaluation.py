"""Evaluation on fixed sets of fresh worlds: which worlds, and one run with the real simulator."""

import json

import numpy as np
import pytest
from PIL import Image

from avalon.cli import main
from avalon.env.config import EnvConfig
from avalon.env.spaces import action_space
from avalon.evaluation import RandomPolicy, evaluate, evaluation_worlds


def test_evaluation_worlds_have_evenly_spaced_difficulties_and_fixed_seeds():
    requests = evaluation_worlds(["eat", "move"], 5, 0.0, 0.2, seed=0)
    assert [r.task for r in requests] == ["eat"] * 5 + ["move"] * 5
    assert [r.difficulty for r in requests[:5]] == pytest.approx([0.0, 0.05, 0.1, 0.15, 0.2])
    assert requests == evaluation_worlds(["eat", "move"], 5, 0.0, 0.2, seed=0)  # the same worlds every time
    assert len({r.seed for r in requests}) == 10
    other = evaluation_worlds(["eat", "move"], 5, 0.0, 0.2, seed=1)
    assert not {r.seed for r in requests} & {r.seed for r in other}


@pytest.mark.parametrize(
    "args, message",
    [
        ((["eat"], 0), "episodes=0"),
        ((["eat"], 3, 0.5, 0.2), "min_difficulty 0.5 is above max_difficulty 0.2"),
        ((["eat"], 3, 0.0, 1.5), "difficulty 1.5"),
        ((["swim"], 3), "unknown task 'swim'"),
    ],
)
def test_bad_evaluation_settings_are_named(args, message):
    with pytest.raises(ValueError, match=message):
        evaluation_worlds(*args)


def test_the_random_policy_samples_valid_batched_actions():
    space = action_space("mouse_keyboard")
    policy = RandomPolicy(space, seed=0)
    actions = policy.act({"rgbd": np.zeros((3, 8, 8, 4), np.uint8)})
    assert set(actions) == set(space.spaces)
    for key, values in actions.items():
        assert len(values) == 3 and all(space[key].contains(value) for value in values)


@pytest.mark.godot
@pytest.mark.slow
def test_a_random_policy_is_evaluated_on_every_world_once_with_a_video(tmp_path):
    requests = evaluation_worlds(["trivial", "eat"], 2, 0.0, 0.1, seed=3)
    result = evaluate(
        RandomPolicy(action_space("vr"), seed=0), EnvConfig(renderer="GLES2", resolution=32), requests,
        num_envs=2, time_limits="training", video_path=tmp_path / "episode.gif", progress=False,
    )
    assert [(e.task, e.difficulty, e.seed) for e in result.episodes] == [(r.task, r.difficulty, r.seed) for r in requests]
    # Training time limits: 30 s for trivial, 20-40 s for eat; a random agent never finishes early here.
    assert [e.episode_length for e in result.episodes] == [300, 300, 200, 220]
    assert not any(e.success for e in result.episodes) and all(e.score == 0.0 for e in result.episodes)
    per_task = result.per_task()
    assert per_task["eat"]["episodes"] == 2 and per_task["eat"]["success_rate"] == 0.0
    gif = Image.open(result.video_path)
    assert gif.n_frames == 301 and gif.size == (2 * 64, 2 * 32)  # RGB beside depth, twice the size


@pytest.mark.godot
@pytest.mark.slow
def test_eval_command_writes_results_and_refuses_ambiguous_policies(tmp_path, capsys):
    out = tmp_path / "eval"
    code = main([
        "eval", "--policy", "random", "--tasks", "trivial", "--episodes", "1", "--resolution", "32",
        "--time-limits", "training", "--out", str(out),
    ])
    assert code == 0
    printed = capsys.readouterr().out
    assert "trivial" in printed and str(out / "eval.json") in printed
    saved = json.loads((out / "eval.json").read_text())
    assert saved["per_task"]["trivial"]["episodes"] == 1 and (out / "episode.gif").is_file()
    assert main(["eval", "--tasks", "eat"]) == 2
    assert "exactly one of --checkpoint PATH and --policy random" in capsys.readouterr().err
