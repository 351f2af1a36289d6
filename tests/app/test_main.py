"""The ``avalon`` command line (``make run`` uses ``avalon run``)."""

import pytest
from PIL import Image

from avalon.app.main import main
from avalon.episodes.recording import Recording
from avalon.tasks import TASKS


@pytest.mark.godot
@pytest.mark.slow
def test_run_plays_one_episode_and_writes_the_picture_and_recording(tmp_path, capsys):
    assert main(["run", "--renderer", "GLES2", "--out", str(tmp_path / "run")]) == 0
    printed = capsys.readouterr().out
    assert "steps per second" in printed and "steps: 200" in printed
    strip = Image.open(tmp_path / "run" / "frames.png")
    assert strip.size == (8 * 256, 2 * 256)  # rendered at --render-resolution's default
    assert Recording.load(tmp_path / "run" / "episode-00000.npz").actions.shape == (200, 21)
    assert main(["replay", str(tmp_path / "run" / "episode-00000.npz")]) == 0
    assert "identical: 200 steps" in capsys.readouterr().out


def test_world_export_writes_a_world_folder_and_bad_input_is_a_clear_error(tmp_path, capsys):
    assert main(["world", "export", "--task", "trivial", "-o", str(tmp_path / "w")]) == 0
    assert (tmp_path / "w" / "world.tscn").is_file()
    assert main(["world", "export", "--task", "fly", "-o", str(tmp_path / "x")]) == 2
    assert f"unknown task 'fly'; the tasks are: {', '.join(sorted(TASKS))}" in capsys.readouterr().err
    assert main(["world", "export", "--difficulty", "1.5", "-o", str(tmp_path / "y")]) == 2
    assert "difficulty 1.5 must be a number in [0, 1]" in capsys.readouterr().err


def test_world_export_forces_a_generator_choice_and_names_a_bad_one(tmp_path, capsys):
    assert main(["world", "export", "--task", "hunt", "--difficulty", "1", "--seed", "2", "--force", "prey_kind=deer",
                 "-o", str(tmp_path / "deer")]) == 0
    assert "animals/deer.tscn" in (tmp_path / "deer" / "world.tscn").read_text()
    assert main(["world", "export", "--task", "hunt", "--force", "prey_kind=dragon", "-o", str(tmp_path / "x")]) == 2
    assert "forced prey_kind='dragon' is not one of frog, turtle" in capsys.readouterr().err
    assert main(["world", "export", "--task", "hunt", "--force", "prey_kind", "-o", str(tmp_path / "y")]) == 2
    assert "--force 'prey_kind': expected OPTION=VALUE" in capsys.readouterr().err
    assert main(["world", "export", "--task", "eat", "--force", "prey_kind=deer", "-o", str(tmp_path / "z")]) == 2
    assert "task 'eat' cannot force 'prey_kind': the options it can force are: food_kind" in capsys.readouterr().err
