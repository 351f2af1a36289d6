"""``avalon replay``: distinct, documented exit codes, what differed, no tracebacks, ``--renderer``."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile

import numpy as np
import pytest

from avalon import AvalonEnv
from avalon.cli import REPLAY_EXIT_CODES, main
from avalon.env.recording import RecordEpisodes

pytestmark = pytest.mark.godot


@pytest.fixture(scope="module")
def episode_file(tmp_path_factory, trivial_world_dir):
    """A real 10-step episode in evaluation mode (GLES2)."""
    env = RecordEpisodes(
        AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir), is_training=False),
        tmp_path_factory.mktemp("episodes"),
    )
    env.action_space.seed(1)
    try:
        env.reset(seed=1)
        for _ in range(10):
            env.step(env.action_space.sample())
    finally:
        env.close()
    return env.last_path


def _members(path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {key: data[key] for key in data.files}


def _world_files(members) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(members["world_tar"].tobytes()), mode="r:gz") as tar:
        return {member.name: tar.extractfile(member).read() for member in tar.getmembers()}


def _with_world(members, files: dict[str, bytes]) -> dict[str, np.ndarray]:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return {**members, "world_tar": np.frombuffer(buffer.getvalue(), np.uint8)}


def _exploit_scene(scene: bytes, marker) -> bytes:
    """world.tscn with an embedded GDScript on its root that would write ``marker`` when loaded."""
    source = (
        'extends Spatial\\nfunc _ready():\\n\\tvar f = File.new()\\n'
        f'\\tf.open(\\"{marker}\\", File.WRITE)\\n\\tf.store_string(\\"ran\\")\\n\\tf.close()\\n'
    )
    text = scene.decode()
    root = '[node name="World" type="Spatial"]\n'
    assert root in text
    script = f'[sub_resource type="GDScript" id=99]\nscript/source = "{source}"\n\n'
    return text.replace(root, script + root + "script = SubResource( 99 )\n").encode()


def _replay_process(*args: str) -> subprocess.CompletedProcess:
    """``avalon replay`` as people run it: its own process, its exit code, its stdout and stderr."""
    return subprocess.run(
        [sys.executable, "-m", "avalon.cli", "replay", *args], capture_output=True, text=True, timeout=300
    )


def test_identical_exits_0(episode_file, capsys):
    assert main(["replay", str(episode_file)]) == 0
    assert capsys.readouterr().out == "identical: 10 steps replayed to the same observation bytes and rewards\n"


def test_different_exits_1_and_says_what_differed(episode_file, tmp_path, capsys):
    members = _members(episode_file)
    members["observation/energy"] = members["observation/energy"].copy()
    members["observation/energy"][4, 0] -= 0.5
    tampered = tmp_path / "tampered.npz"
    np.savez_compressed(tampered, **members)
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
    members = _members(episode_file)
    files = _world_files(members)
    marker = tmp_path / "marker"
    files["world.tscn"] = _exploit_scene(files["world.tscn"], marker)
    unsafe = tmp_path / "unsafe.npz"
    np.savez_compressed(unsafe, **_with_world(members, files))
    done = _replay_process(str(unsafe))
    assert done.returncode == 4, done.stderr
    assert "avalon replay: error: the world inside" in done.stderr and "Traceback" not in done.stderr
    assert not marker.exists()

    outside = tmp_path / "outside.npz"
    np.savez_compressed(outside, **_with_world(members, {**_world_files(members), "../escape.txt": b"x"}))
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
