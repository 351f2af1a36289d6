"""Simulator processes: crashes, hangs, intruders, clean-up. Real Godot and Xvfb.

These tests create their own envs and close them, so the shared Xvfb's lifetime is theirs to check.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from avalon import AvalonEnv
from avalon.errors import SimulatorError, SimulatorNotInstalledError, WorldLoadError
from avalon.sim import protocol
from avalon.sim.display import shared_xvfb_pid
from avalon.sim.paths import godot_project_dir
from avalon.sim.settings import SimulatorSettings
from avalon.sim.simulator import Simulator
from tests.conftest import zero_action

pytestmark = pytest.mark.godot
needs_own_xvfb = pytest.mark.skipif(bool(os.environ.get("DISPLAY")), reason="DISPLAY is set, so no Xvfb of ours runs")


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def wait_gone(pids, timeout_s=15.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def test_close_leaves_no_process_and_no_temporary_folder():
    env = AvalonEnv(renderer="GLES2")  # task mode: worlds are generated into a temporary folder
    env.reset(seed=1)
    env.step(zero_action())
    godot, xvfb = env.simulator_pid, shared_xvfb_pid()
    folders = [env._simulator.temp_dir, Path(env.world.path).parent]
    assert alive(godot) and all(folder.is_dir() for folder in folders)
    env.close()
    assert not alive(godot)
    assert not any(folder.exists() for folder in folders)
    if not os.environ.get("DISPLAY"):
        assert xvfb is not None and wait_gone([xvfb]) == []
        assert shared_xvfb_pid() is None


@needs_own_xvfb
def test_envs_share_one_xvfb_which_stops_with_the_last(trivial_world_dir):
    first = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir))
    second = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir))
    try:
        first.reset(seed=0)
        xvfb = shared_xvfb_pid()
        second.reset(seed=0)
        assert shared_xvfb_pid() == xvfb and first.simulator_pid != second.simulator_pid
        first.close()
        assert alive(xvfb)
        second.step(zero_action())  # still rendering on the shared display
        second.close()
        assert wait_gone([xvfb]) == []
    finally:
        first.close()
        second.close()


_CHILD = textwrap.dedent(
    """
    import json, sys
    from avalon import AvalonEnv
    from avalon.sim.display import shared_xvfb_pid
    env = AvalonEnv(renderer="GLES2")
    env.reset(seed=0)
    print(json.dumps({"godot": env.simulator_pid, "xvfb": shared_xvfb_pid(),
                      "folders": [str(env._simulator.temp_dir), str(env._work_dir)]}), flush=True)
    if sys.argv[1] == "hang":
        import time; time.sleep(600)
    """
)


def _child(mode: str, temp_root: Path | None = None) -> tuple[subprocess.Popen, dict]:
    env = None if temp_root is None else {**os.environ, "TMPDIR": str(temp_root)}
    child = subprocess.Popen([sys.executable, "-c", _CHILD, mode], stdout=subprocess.PIPE, text=True, env=env)
    facts = json.loads(child.stdout.readline())
    return child, facts


def test_interpreter_exit_without_close_cleans_up():
    child, facts = _child("exit")
    assert child.wait(timeout=60) == 0
    pids = [facts["godot"]] + ([facts["xvfb"]] if facts["xvfb"] else [])
    assert wait_gone(pids) == []
    assert not any(Path(folder).exists() for folder in facts["folders"])


def test_python_killed_outright_leaves_no_godot_or_xvfb():
    child, facts = _child("hang")
    child.kill()  # SIGKILL: no atexit, no finalisers
    child.wait()
    pids = [facts["godot"]] + ([facts["xvfb"]] if facts["xvfb"] else [])
    assert wait_gone(pids) == []  # Godot sees its socket close; Xvfb -terminate sees its clients go
    for folder in facts["folders"]:  # temporary folders cannot be removed by a killed process
        subprocess.run(["rm", "-rf", folder], check=True)


def test_folders_of_python_processes_killed_outright_are_removed_by_the_next_start(tmp_path, trivial_world_dir):
    """SIGTERM and SIGKILL run no clean-up; the next process to start a simulator removes what
    they left, and keeps the folders of a process that still runs."""
    temp_root = tmp_path / "tmp"
    temp_root.mkdir()
    children = []
    try:
        for _ in range(3):
            children.append(_child("hang", temp_root))
        (_, alive_facts), killed = children[2], []
        for (child, facts), how in zip(children, (signal.SIGKILL, signal.SIGTERM)):
            child.send_signal(how)
            assert child.wait(timeout=60) == -how
            killed.append(facts)
        left = [Path(folder) for facts in killed for folder in facts["folders"]]
        assert all(folder.is_dir() for folder in left)  # nobody removed them
        assert wait_gone([facts["godot"] for facts in killed]) == []
        next_start = textwrap.dedent(
            """
            import sys
            from avalon import AvalonEnv
            env = AvalonEnv(renderer="GLES2", world_dir=sys.argv[1])
            env.reset(seed=0)
            env.close()
            """
        )
        subprocess.run([sys.executable, "-c", next_start, str(trivial_world_dir)], check=True, timeout=120,
                       env={**os.environ, "TMPDIR": str(temp_root)})
        assert [folder for folder in left if folder.exists()] == []
        assert all(Path(folder).is_dir() for folder in alive_facts["folders"])  # its owner still runs
        assert sorted(path.name for path in temp_root.iterdir()) == sorted(Path(f).name for f in alive_facts["folders"])
    finally:
        for child, _facts in children:
            child.kill()
            child.wait()
        shutil.rmtree(temp_root, ignore_errors=True)


def test_an_uncreatable_log_dir_is_a_clear_error_and_leaves_nothing_behind(tmp_path, trivial_world_dir, monkeypatch):
    temp_root = tmp_path / "tmp"
    temp_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp_root))
    blocker = tmp_path / "a-file"
    blocker.write_text("a file where a folder should be")
    for bad in (blocker / "logs", blocker):
        env = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir), log_dir=str(bad))
        for _attempt in range(2):
            with pytest.raises(ValueError, match=rf"log_dir='{re.escape(str(bad))}' cannot be used for Godot logs: "
                               r"(Not a directory|File exists); expected a folder"):
                env.reset(seed=0)
        env.close()
    assert list(temp_root.iterdir()) == []  # no avalon-sim-* folder per attempt
    good = tmp_path / "logs" / "nested"
    env = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir), log_dir=str(good))
    try:
        env.reset(seed=0)
        assert env.step(zero_action())[4]["frame"] == 1
        assert [path.name.startswith("godot-") for path in good.iterdir()] == [True]
    finally:
        env.close()
    assert list(temp_root.iterdir()) == []


def test_godot_killed_mid_episode_raises_clearly_and_the_next_reset_recovers(trivial_world_dir):
    env = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir))
    try:
        env.reset(seed=0)
        env.step(zero_action())
        victim = env.simulator_pid
        os.kill(victim, signal.SIGKILL)
        with pytest.raises(SimulatorError, match=r"(?s)killed by signal 9.*Last lines of its log.*godot3-runner") as error:
            env.step(zero_action())
        assert f"pid {victim}" in str(error.value)
        assert not alive(victim)
        observation, info = env.reset(seed=0)
        assert env.simulator_pid != victim and info["frame"] == 0
        assert env.step(zero_action())[4]["frame"] == 1
    finally:
        env.close()


def test_hung_godot_hits_the_deadline_and_is_killed(trivial_world_dir):
    env = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir), step_timeout_s=2.0)
    try:
        env.reset(seed=0)
        victim = env.simulator_pid
        os.kill(victim, signal.SIGSTOP)
        started = time.monotonic()
        with pytest.raises(SimulatorError, match="did not answer within 2 s"):
            env.step(zero_action())
        assert time.monotonic() - started < 10
        assert wait_gone([victim]) == []
        env.reset(seed=0)
        env.step(zero_action())
    finally:
        env.close()


class _IntrudedSimulator(Simulator):
    """Lets impostors connect to the bridge port before Godot does."""

    def _launch(self, binary, port, secret, display, *rest):
        self.port = port
        self.impostors = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        self.impostors[0].sendall(protocol.encode_hello(b"0" * protocol.SECRET_SIZE))  # wrong secret
        self.impostors[1].sendall(b"GET / HTTP/1.0\r\n\r\n")  # not the protocol at all
        return super()._launch(binary, port, secret, display, *rest)


def test_connections_without_the_secret_are_refused_and_the_simulator_keeps_serving(trivial_world_dir):
    simulator = _IntrudedSimulator(SimulatorSettings(renderer="GLES2"))
    try:
        simulator.start()
        for impostor in simulator.impostors:
            impostor.settimeout(5)
            try:
                assert impostor.recv(1) == b""  # dropped by us: end of stream ...
            except ConnectionResetError:
                pass  # ... or a reset, when we closed with its bytes unread
            impostor.close()
        with pytest.raises(ConnectionRefusedError):  # the listener is gone once Godot has greeted
            socket.create_connection(("127.0.0.1", simulator.port), timeout=5)
        observation = simulator.reset(str(trivial_world_dir), 0, 10)
        assert observation.frame == 0
        assert simulator.step(__import__("numpy").zeros(21, "float32")).frame == 1
    finally:
        simulator.close()


def test_missing_godot_binary_says_to_run_make_setup(trivial_world_dir):
    env = AvalonEnv(godot_binary="godot3-runner-not-installed", world_dir=str(trivial_world_dir))
    with pytest.raises(SimulatorNotInstalledError, match="make setup"):
        env.reset()
    env.close()


def test_missing_native_library_says_to_run_make_setup(tmp_path, trivial_world_dir, monkeypatch):
    project = tmp_path / "godot"
    shutil.copytree(godot_project_dir(), project, ignore=shutil.ignore_patterns("*.so", ".import"))
    monkeypatch.setenv("AVALON_GODOT_PROJECT", str(project))
    env = AvalonEnv(world_dir=str(trivial_world_dir))
    with pytest.raises(SimulatorNotInstalledError, match=r"libavalon_native\.so is missing; run `make setup`"):
        env.reset()
    env.close()


def test_corrupt_world_scene_is_reported_and_the_simulator_keeps_serving(tmp_path, trivial_world_dir):
    broken = tmp_path / "broken"
    subprocess.run(["cp", "-r", str(trivial_world_dir), str(broken)], check=True)
    (broken / "world.tscn").write_text("[gd_scene load_steps=2 format=2]\n[node name=broken")
    no_spawn = tmp_path / "no_spawn"
    subprocess.run(["cp", "-r", str(trivial_world_dir), str(no_spawn)], check=True)
    text = (no_spawn / "world.tscn").read_text()
    (no_spawn / "world.tscn").write_text(text.replace('[node name="SpawnPoint"', '[node name="Elsewhere"'))
    env = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir))
    try:
        env.reset(seed=0)
        pid = env.simulator_pid
        # Refused before Godot (content hash); Godot's own answers: tests/game/world/test_untrusted_worlds.py
        with pytest.raises(WorldLoadError, match=f"{broken}/world.json: files_hash .* a file was changed"):
            env.reset(options={"world_dir": str(broken)})
        with pytest.raises(WorldLoadError, match=f"{no_spawn}/world.json: files_hash .* a file was changed"):
            env.reset(options={"world_dir": str(no_spawn)})
        with pytest.raises(WorldLoadError, match=f"{tmp_path / 'missing'} does not exist"):
            env.reset(options={"world_dir": str(tmp_path / "missing")})
        observation, info = env.reset(seed=0)
        assert env.simulator_pid == pid and info["frame"] == 0
        assert env.step(zero_action())[4]["frame"] == 1
    finally:
        env.close()
