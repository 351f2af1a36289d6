"""``avalon replay``: distinct, documented exit codes, what differed, no tracebacks, ``--renderer``."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from avalon.app.main import main
from avalon.app.replay import REPLAY_EXIT_CODES
from tests.datagen import tampering
from tests.episodes.episode_files import members, record_random_episode, repack_world, save, world_files, world_tar

pytestmark = pytest.mark.godot


@pytest.fixture(scope="module")
def episode_file(tmp_path_factory, trivial_world_dir):
    """A real 10-step episode in evaluation mode (GLES2)."""
    return record_random_episode(tmp_path_factory.mktemp("episodes"), trivial_world_dir, 10, 1, is_training=False)


def _replay_process(*args: str) -> subprocess.CompletedProcess:
    """``avalon replay`` as people run it: its own process, its exit code, its stdout and stderr."""
    return subprocess.run(
        [sys.executable, "-m", "avalon.app.main", "replay", *args], capture_output=True, text=True, timeout=300
    )


def test_identical_exits_0(episode_file, capsys):
    assert main(["replay", str(episode_file)]) == 0
    assert capsys.readouterr().out == "identical: 10 steps replayed to the same observation bytes and rewards\n"


def test_different_exits_1_and_says_what_differed(episode_file, tmp_path, capsys):
    parts = members(episode_file)
    parts["observation/energy"] = parts["observation/energy"].copy()
    parts["observation/energy"][4, 0] -= 0.5
    tampered = save(tmp_path / "tampered.npz", parts)
    assert main(["replay", str(tampered)]) == 1
    printed = capsys.readouterr().out
    assert printed.startswith("DIFFERENT: observation 4 of 10 differs")
    assert "  energy: recorded " in printed and "(max |difference| 0.5)" in printed and "rgbd" not in printed


def _truncated(path, tmp_path):
    target = tmp_path / "truncated.npz"
    target.write_bytes(path.read_bytes()[:-1000])
    return target


def _not_an_episode(path, tmp_path):
    target = tmp_path / "weights.npz"
    np.savez(target, weights=np.zeros(4))
    return target


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda path, tmp_path: tmp_path / "missing.npz", "does not exist"),
        (_truncated, "is truncated or corrupt"),
        (_not_an_episode, "is not an episode file: it has no 'meta' member"),
    ],
    ids=["missing", "truncated", "not-an-episode"],
)
def test_a_missing_truncated_or_foreign_file_exits_3_without_a_traceback(make, message, episode_file, tmp_path):
    bad = make(episode_file, tmp_path)
    done = _replay_process(str(bad))
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith("avalon replay: error: ") and message in done.stderr and str(bad) in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_an_unsafe_world_inside_exits_4_before_it_reaches_the_simulator(episode_file, tmp_path):
    marker = tmp_path / "marker"
    unsafe = repack_world(episode_file, tmp_path / "unsafe.npz", lambda folder: tampering.add_embedded_script(folder, marker))
    done = _replay_process(str(unsafe))
    assert done.returncode == 4, done.stderr
    assert "avalon replay: error: the world inside" in done.stderr and "Traceback" not in done.stderr
    assert not marker.exists()

    parts = members(episode_file)
    outside = save(tmp_path / "outside.npz", {**parts, "world_tar": world_tar({**world_files(parts), "../escape.txt": b"x"})})
    done = _replay_process(str(outside))
    assert done.returncode == 4 and "'../escape.txt' is not a plain file" in done.stderr, done.stderr


def test_a_simulator_that_fails_exits_5_with_its_log(episode_file, tmp_path, monkeypatch):
    # A Godot project with no main scene: the real Godot exits at start-up.
    (tmp_path / "project.godot").write_text("")
    monkeypatch.setenv("AVALON_GODOT_PROJECT", str(tmp_path))
    done = _replay_process(str(episode_file))
    assert done.returncode == 5, done.stderr
    assert "exited during start-up" in done.stderr and "no main scene defined" in done.stderr
    assert "Traceback" not in done.stderr


def test_usage_errors_exit_2_and_the_help_documents_the_codes(episode_file, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["replay", str(episode_file), "--renderer", "GLES4"])
    assert stopped.value.code == 2
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    printed = capsys.readouterr().out
    for code, meaning in REPLAY_EXIT_CODES.items():
        assert f"  {code}  {meaning}" in printed


def test_renderer_option_replays_with_that_renderer_and_says_so(episode_file, capsys):
    assert main(["replay", str(episode_file), "--renderer", "GLES3"]) == 1
    printed = capsys.readouterr().out
    # Only the pixels differ: GLES3 draws the same world otherwise than the recorded GLES2.
    assert printed == (
        "DIFFERENT: observation 0 of 10 differs (0 = after reset); the replay stopped there\n"
        "  rgbd: the frame differs (its SHA-256; the file keeps no pixels)\n"
        "note: renderer: replayed with 'GLES3', recorded with 'GLES2'\n"
    )
    assert main(["replay", str(episode_file), "--renderer", "GLES2"]) == 0
    assert "identical" in capsys.readouterr().out
