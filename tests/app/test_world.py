"""``avalon world export`` and ``avalon world preview``: world folders and their pictures, and bad input."""

import pytest
from PIL import Image

from avalon.app.main import main
from avalon.tasks import TASKS


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


@pytest.mark.godot
def test_previews_of_a_task_at_several_difficulties_go_into_a_folder(tmp_path, capsys):
    assert main(["world", "preview", "--task", "eat", "--difficulties", "0,1", "--out-dir", str(tmp_path),
                 "--renderer", "GLES2", "--panel-pixels", "128"]) == 0
    written = capsys.readouterr().out.split()
    assert written == [str(tmp_path / "eat-d0.png"), str(tmp_path / "eat-d1.png")]
    for path in written:
        assert Image.open(path).size == (256, 128 + 24)


def test_the_preview_command_wants_one_output(tmp_path, capsys):
    assert main(["world", "preview", "--task", "eat"]) == 2
    assert "give either -o/--output" in capsys.readouterr().err
    assert main(["world", "preview", "--task", "eat", "-o", str(tmp_path / "a.png"), "--out-dir", str(tmp_path)]) == 2
    assert main(["world", "preview", "--task", "eat", "--difficulties", "0,1", "-o", str(tmp_path / "a.png")]) == 2
    assert "give --out-dir, not -o" in capsys.readouterr().err
    assert main(["world", "preview", "--task", "eat", "--difficulties", "x", "--out-dir", str(tmp_path)]) == 2
    assert "expected comma-separated numbers" in capsys.readouterr().err
