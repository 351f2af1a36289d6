"""``avalon play`` in a real window (pygame on the package's Xvfb) with the real simulator: key and
mouse events are injected into the window's event queue as a person's would arrive, step by step."""

from __future__ import annotations

import json
import os

import pygame
import pytest

from avalon.app.main import main
from avalon.app.play.session import PlayOptions, PlaySession
from avalon.episodes.recording import replay
from tests.processes import descendants, our_godot_pids

pytestmark = [pytest.mark.godot, pytest.mark.slow]


def key(k: int, down: bool = True) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN if down else pygame.KEYUP, key=k, mod=0, unicode="", scancode=0))


def button(number: int, down: bool = True) -> None:
    kind = pygame.MOUSEBUTTONDOWN if down else pygame.MOUSEBUTTONUP
    pygame.event.post(pygame.event.Event(kind, button=number, pos=(256, 256)))


def mouse(dx: int, dy: int) -> None:
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(256, 256), rel=(dx, dy), buttons=(0, 0, 0)))


class Player:
    """Posts the planned events when the session has taken a given number of steps (once each)."""

    def __init__(self, plan: dict[int, list]) -> None:
        self.plan, self.done = plan, set()

    def __call__(self, session: PlaySession) -> None:
        moment = (session.restarts, session.steps)
        if moment in self.plan and moment not in self.done:
            self.done.add(moment)
            for event in self.plan[moment]:
                event()


# Walk up to the altar, look down at the apple, reach for it with the right hand, eat it.
EAT_THE_APPLE = {
    (0, 1): [lambda: key(pygame.K_w)],
    (0, 2): [lambda: key(pygame.K_w, False)],
    (0, 3): [lambda: mouse(0, 30)],
    (0, 4): [lambda: button(3)],
    (0, 12): [lambda: key(pygame.K_e)],
    (0, 60): [lambda: key(pygame.K_ESCAPE)],  # not reached: eating ends the episode first
}


def test_a_played_episode_is_recorded_replays_identically_and_scores_as_played(tmp_path):
    options = PlayOptions(player="tester", task="eat", difficulty=0.0, seed=1, root=str(tmp_path / "vr_data"))
    result = PlaySession(options, Player(EAT_THE_APPLE)).run()
    meta = result.meta
    assert meta["success"] and meta["finished"] and meta["ending"] == "terminated" and meta["restarts"] == 0
    assert result.run == tmp_path / "vr_data" / "eat__1__0" / "tester" / "001"
    assert json.loads((result.run / "meta.json").read_text()) == meta
    files = sorted(result.run.glob("*.npz"))
    assert len(files) == 1
    replayed = replay(files[0])
    assert replayed.identical and replayed.frames == meta["frames"] == len(result.step_seconds)
    assert replayed.score == pytest.approx(meta["score"]) and replayed.success


def test_a_restart_is_counted_and_esc_keeps_what_was_played_unfinished(tmp_path):
    plan = {
        (0, 3): [lambda: key(pygame.K_d)],
        (0, 6): [lambda: key(pygame.K_r)],  # restart: the same world again
        (1, 2): [lambda: key(pygame.K_SPACE), lambda: mouse(-40, 0)],
        (1, 5): [lambda: key(pygame.K_ESCAPE)],
    }
    options = PlayOptions(player="tester", task="eat", difficulty=0.5, seed=2, root=str(tmp_path / "vr_data"))
    result = PlaySession(options, Player(plan)).run()
    assert result.meta["restarts"] == 1 and not result.meta["finished"] and result.meta["ending"] == "cut_short"
    files = sorted(result.run.glob("*.npz"))
    assert [f.name for f in files] == ["episode-00000.npz", "episode-00001.npz"]  # the first attempt, then the restart
    assert all(replay(f).identical for f in files)
    assert 5 <= result.meta["frames"] <= 7  # the second attempt's steps (events land within a step)
    # The window's display and the simulator are gone with the session.
    assert our_godot_pids() == [] and "Xvfb" not in descendants(os.getpid()).values()


def test_paused_mode_steps_once_per_key_press(tmp_path):
    presses = {(0, n): [lambda: key(pygame.K_w), lambda: key(pygame.K_w, False)] for n in range(4)}
    presses[(0, 4)] = [lambda: key(pygame.K_ESCAPE)]
    options = PlayOptions(player="tester", task="eat", difficulty=0.0, seed=1, root=str(tmp_path / "vr_data"), paused=True)
    result = PlaySession(options, Player(presses)).run()
    assert result.meta["frames"] == 4 and result.meta["source"]["paused"]


def test_a_world_of_an_evaluation_set_is_played_by_its_index(tmp_path):
    from avalon.evaluation.sets import load_set

    world = load_set("smoke").worlds[3]
    plan = {(0, 2): [lambda: key(pygame.K_ESCAPE)]}
    options = PlayOptions(player="tester", set_name="smoke", set_index=3, root=str(tmp_path / "vr_data"))
    result = PlaySession(options, Player(plan)).run()
    assert (result.meta["task"], result.meta["seed"], result.meta["world_content_hash"]) == (world.task, world.seed, world.content_hash)
    assert result.run.parent.parent.name == f"{world.task}__{world.seed}__{world.difficulty:g}"


def test_the_command_refuses_bad_input_before_opening_a_window(tmp_path, capsys):
    assert main(["play", "--player", "a/b", "--root", str(tmp_path)]) == 2
    assert "player id 'a/b' must be 1-64 letters" in capsys.readouterr().err
    assert main(["play", "--player", "a", "--window-pixels", "256", "--root", str(tmp_path)]) == 2
    assert "window_pixels 256 must be a whole number of at least 512" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert main(["play", "--player", "a", "--root", str(tmp_path / "file" / "vr_data")]) == 2
    assert "file/vr_data" in capsys.readouterr().err
    assert main(["play", "--player", "a", "--world", str(tmp_path / "nowhere"), "--root", str(tmp_path / "vr")]) == 2
    assert "nowhere" in capsys.readouterr().err
    assert main(["play", "--player", "a", "--set", "smoke", "--index", "999", "--root", str(tmp_path / "vr")]) == 2
    assert "index 999: set 'smoke' has" in capsys.readouterr().err
    assert main(["play", "--player", "a", "--set", "nosuchset", "--root", str(tmp_path / "vr")]) == 2
    assert "smoke" in capsys.readouterr().err  # the sets are listed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
