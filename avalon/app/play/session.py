"""``avalon play``: a person plays one world in a window, and the episode is recorded.

The window (pygame) shows the agent's view rendered at the window's size (``window_pixels``, at
least 512; not the observation scaled up), a crosshair, an energy bar, the time left, what each
hand does, and a help overlay (F1; shown at the start). Steps advance at the simulator's 10 per
second in real time, whatever the window does; in between, the window is redrawn at up to
``display_fps`` frames per second, cross-fading from the previous step's picture to the newest, so
the view moves smoothly (the simulator runs in a thread of its own: :mod:`avalon.app.play.stepper`).
``paused=True`` steps once per key press instead (for debugging): every key but Esc, R, C and F1.

Every episode is recorded under ``root/<task>__<seed>__<difficulty>/<player>/<run>/``
(``vr_data/README.md``): the episode files (one per attempt: R restarts the world and counts a
restart) and ``meta.json`` (player, start and end time, task, difficulty, seed, success, score,
restarts, finished). Closing the window or Esc keeps what was played, marked unfinished. Nothing
recorded before is overwritten: a run folder is only ever created.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import attr
import numpy as np

from avalon.app.play.controls import CONTROLS, ControlSettings, ControlState, vr_action
from avalon.app.play.stepper import Stepper, StepResult
from avalon.datagen.world_folder import read_world_info
from avalon.env.config import EnvConfig
from avalon.human.pose_import import check_player, new_run_folder
from avalon.rules.mechanics import INITIAL_ENERGY, STEP_SECONDS
from avalon.sim.display import acquire_display, release_display
from avalon.sim.temp_folders import make_temp_folder
from avalon.tasks import generate_world

#: The window's picture is rendered at least this large (pixels per side).
MIN_WINDOW_PIXELS = 512
_HUD_PIXELS = 56


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class PlayOptions:
    """What to play and how: a ``task`` world (``difficulty``, ``seed``) or a ``world_dir``."""

    player: str
    task: str | None = None
    difficulty: float = 0.0
    seed: int = 0
    world_dir: str | None = None
    #: World ``set_index`` of the evaluation set ``set_name`` (``avalon evalset list``), instead of a task or folder.
    set_name: str | None = None
    set_index: int = 0
    root: str = "vr_data"
    window_pixels: int = MIN_WINDOW_PIXELS
    resolution: int = 96
    renderer: str = "GLES2"
    paused: bool = False
    display_fps: int = 60
    controls: ControlSettings = ControlSettings()

    def __attrs_post_init__(self) -> None:
        check_player(self.player)
        if sum(choice is not None for choice in (self.task, self.world_dir, self.set_name)) != 1:
            raise ValueError("give one of a task (with difficulty and seed), a world folder or an evaluation set (with an index)")
        if not isinstance(self.window_pixels, int) or self.window_pixels < MIN_WINDOW_PIXELS:
            raise ValueError(f"window_pixels {self.window_pixels!r} must be a whole number of at least {MIN_WINDOW_PIXELS}")


@attr.s(frozen=True, auto_attribs=True)
class PlayResult:
    run: Path
    meta: dict[str, Any]
    #: Seconds each step took in the simulator (step and the window's picture).
    step_seconds: tuple[float, ...]
    #: Frames the window drew per second of play.
    display_fps: float


@contextlib.contextmanager
def window_display(pygame) -> Iterator[None]:
    """pygame's display, on ``$DISPLAY`` or else on the package's own Xvfb (as Godot's). SDL reads
    ``$DISPLAY`` only while it starts, so it is set for that moment only: the simulator, started
    meanwhile in its own thread, must not take it for a display of the user's."""
    if os.environ.get("DISPLAY"):
        pygame.display.init()
        try:
            yield
        finally:
            pygame.display.quit()
        return
    display = acquire_display()
    try:
        os.environ["DISPLAY"] = display
        try:
            pygame.display.init()
        finally:
            del os.environ["DISPLAY"]
        try:
            yield
        finally:
            pygame.display.quit()
    finally:
        release_display()


def set_world_folder(name: str, index: int, folder: Path) -> tuple[Path, int]:
    """World ``index`` of evaluation set ``name`` generated into ``folder``, checked against the
    set's content hash; returns the folder and the world's seed. ``ValueError`` for an unknown set
    (listing the sets), an index out of range, or a world that no longer matches its manifest."""
    from avalon.evaluation.sets import load_set  # the sets' manifests load only when a set is played

    evalset = load_set(name)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(evalset.worlds):
        raise ValueError(f"index {index!r}: set {name!r} has {len(evalset.worlds)} worlds (0 to {len(evalset.worlds) - 1})")
    world = evalset.worlds[index]
    generated = generate_world(world.task, world.difficulty, world.seed, folder, forced=world.forced)
    if read_world_info(generated).content_hash != world.content_hash:
        raise ValueError(f"world {index} of set {name!r} ({world.key}) no longer generates the world its manifest hashes: "
                         "the set must be re-versioned (avalon evalset verify)")
    return generated, world.seed


class PlaySession:
    """One person playing one world. ``input_hook(session)``, if given, is called before each
    round of event handling (tests post pygame events from it, as a person's keys would arrive)."""

    def __init__(self, options: PlayOptions, input_hook: Callable[["PlaySession"], None] | None = None) -> None:
        self.options = options
        self.input_hook = input_hook
        self.state = ControlState()
        self.steps = 0
        self.restarts = 0
        self.show_help = True
        self.mouse_captured = True
        self.latest: StepResult | None = None
        self._surfaces: dict[int, tuple[np.ndarray, Any]] = {}
        self._help = None

    def run(self) -> PlayResult:
        import pygame

        options = self.options
        if options.set_name is not None:
            folder = make_temp_folder("worlds")
            try:
                world_dir, seed = set_world_folder(options.set_name, options.set_index, folder / "world")
                return PlaySession(attr.evolve(options, set_name=None, world_dir=str(world_dir), seed=seed), self.input_hook).run()
            finally:
                shutil.rmtree(folder, ignore_errors=True)
        root = Path(options.root)
        if options.world_dir is not None:
            read_world_info(options.world_dir)  # a missing or broken world folder: its error, before any window
        root.mkdir(parents=True, exist_ok=True)  # an unusable recording folder: its error, before any window
        if not os.access(root, os.W_OK):
            raise PermissionError(f"the recording folder {root} is not writable")
        staging = root / ".playing" / f"{os.getpid()}-{time.monotonic_ns()}"
        config = EnvConfig(
            renderer=options.renderer, resolution=options.resolution, action_space="vr", is_training=False,
            render_resolution=options.window_pixels,
            **({} if options.task is None else {"task": options.task, "difficulty": options.difficulty}),
        )
        reset_options = {} if options.world_dir is None else {"world_dir": str(options.world_dir), "episode_seed": options.seed}
        started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        step_seconds: list[float] = []
        drawn, play_started = 0, time.monotonic()
        ended = "quit"
        with window_display(pygame):
            pygame.font.init()
            # Started once the window has its display: the simulator takes its own (see window_display).
            stepper = Stepper(config, staging, options.seed if options.task else None, reset_options)
            try:
                pixels = options.window_pixels
                screen = pygame.display.set_mode((pixels, pixels + _HUD_PIXELS))
                pygame.display.set_caption("Avalon: play")
                self._capture(pygame, True)
                font = pygame.font.Font(None, 22)
                clock = pygame.time.Clock()
                stepper.reset()
                self.latest = stepper.result(wait=True)
                previous_picture, picture_at = self.latest.picture, time.monotonic()
                next_step_at = time.monotonic() + STEP_SECONDS
                step_wanted = False
                while True:
                    if self.input_hook is not None:
                        self.input_hook(self)
                    command = self._handle_events(pygame)
                    if command == "quit":
                        break
                    if command == "restart" and not stepper.busy:
                        stepper.reset()
                        self.latest = stepper.result(wait=True)
                        self.restarts += 1
                        self.steps = 0
                        self.state = ControlState()
                        previous_picture, picture_at = self.latest.picture, time.monotonic()
                        next_step_at = time.monotonic() + STEP_SECONDS
                    step_wanted = step_wanted or command == "step"
                    now = time.monotonic()
                    due = step_wanted if options.paused else now >= next_step_at
                    if due and not stepper.busy:
                        stepper.step(vr_action(self.state, self.latest.observation, options.controls))
                        self.state.end_step()
                        step_wanted = False
                        next_step_at = max(next_step_at + STEP_SECONDS, now)
                    finished = stepper.result()
                    if finished is not None:
                        previous_picture, picture_at = self.latest.picture, time.monotonic()
                        self.latest = finished
                        self.steps += 1
                        step_seconds.append(finished.seconds)
                        if finished.terminated or finished.truncated:
                            ended = "terminated" if finished.terminated else "truncated"
                            self._draw(pygame, screen, font, previous_picture, 1.0)
                            pygame.display.flip()
                            break
                    blend = 1.0 if options.paused else min(1.0, (time.monotonic() - picture_at) / STEP_SECONDS)
                    self._draw(pygame, screen, font, previous_picture, blend)
                    pygame.display.flip()
                    drawn += 1
                    clock.tick(options.display_fps)
            finally:
                if stepper.busy:
                    stepper.result(wait=True)
                stepper.close()
        elapsed = max(1e-9, time.monotonic() - play_started)
        return self._save(root, staging, stepper.world, started, ended, tuple(step_seconds), drawn / elapsed)

    # ---- input ---------------------------------------------------------------------------------

    _KEYS = {"w": "w", "a": "a", "s": "s", "d": "d", "tab": "tab", "e": "e"}

    def _capture(self, pygame, captured: bool) -> None:
        self.mouse_captured = captured
        pygame.event.set_grab(captured)
        pygame.mouse.set_visible(not captured)

    def _handle_events(self, pygame) -> str | None:
        """Updates the control state; returns "quit", "restart", "step" (paused mode) or None."""
        command = None
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                return "quit"
            if event.type == pygame.KEYDOWN:
                name = pygame.key.name(event.key)
                if name == "escape":
                    return "quit"
                if name == "r":
                    command = "restart"
                    continue
                if name == "c":
                    self._capture(pygame, False)
                    continue
                if name == "f1":
                    self.show_help = not self.show_help
                    continue
                if name in self._KEYS:
                    self.state.keys.add(self._KEYS[name])
                elif name == "space":
                    self.state.jump = True
                elif name == "t":
                    self.state.throw = True
                if self.options.paused:
                    command = command or "step"
            elif event.type == pygame.KEYUP:
                self.state.keys.discard(self._KEYS.get(pygame.key.name(event.key), ""))
            elif event.type == pygame.MOUSEMOTION and self.mouse_captured:
                self.state.mouse_dx += event.rel[0]
                self.state.mouse_dy += event.rel[1]
            elif event.type == pygame.MOUSEBUTTONDOWN and event.button in (1, 3):
                if not self.mouse_captured:
                    self._capture(pygame, True)
                    continue
                self.state.buttons[0 if event.button == 1 else 1] = True
            elif event.type == pygame.MOUSEBUTTONUP and event.button in (1, 3):
                self.state.buttons[0 if event.button == 1 else 1] = False
            elif event.type == pygame.MOUSEWHEEL:
                self.state.wheel += int(event.y)
        return command

    # ---- drawing -------------------------------------------------------------------------------

    def _surface(self, pygame, picture: np.ndarray):
        """The picture as a surface, made once per picture (the window redraws it many times)."""
        cached = self._surfaces.get(id(picture))
        if cached is None or cached[0] is not picture:
            if len(self._surfaces) > 4:
                self._surfaces.clear()
            cached = (picture, pygame.surfarray.make_surface(np.ascontiguousarray(picture.swapaxes(0, 1))).convert())
            self._surfaces[id(picture)] = cached
        return cached[1]

    def _draw(self, pygame, screen, font, previous: np.ndarray, blend: float) -> None:
        latest = self.latest
        assert latest is not None
        pixels = self.options.window_pixels
        current = self._surface(pygame, latest.picture)
        if blend < 1.0:
            screen.blit(self._surface(pygame, previous), (0, 0))
            current.set_alpha(int(255 * blend))
        else:
            current.set_alpha(None)
        screen.blit(current, (0, 0))
        centre = pixels // 2
        pygame.draw.line(screen, (255, 255, 255), (centre - 8, centre), (centre + 8, centre), 1)
        pygame.draw.line(screen, (255, 255, 255), (centre, centre - 8), (centre, centre + 8), 1)
        self._draw_hud(pygame, screen, font)
        if self.show_help:
            self._draw_help(pygame, screen, font)

    def _draw_hud(self, pygame, screen, font) -> None:
        latest = self.latest
        pixels = self.options.window_pixels
        top = pixels
        pygame.draw.rect(screen, (20, 20, 24), (0, top, pixels, _HUD_PIXELS))
        energy = float(latest.info["energy"])
        bar = pixels // 2 - 110
        width = int(bar * max(0.0, min(1.0, energy / (2 * INITIAL_ENERGY))))
        screen.blit(font.render(f"energy {energy:.2f}", True, (230, 230, 230)), (8, top + 6))
        pygame.draw.rect(screen, (70, 70, 70), (100, top + 8, bar, 12))
        pygame.draw.rect(screen, (90, 200, 90) if energy > 0.3 else (220, 80, 60), (100, top + 8, width, 12))
        limit = latest.time_limit_frames
        frames_left = max(0, limit - int(latest.info["frame"]))
        seconds = frames_left * STEP_SECONDS
        screen.blit(font.render(f"time left {int(seconds // 60)}:{int(seconds % 60):02d}", True, (230, 230, 230)),
                    (pixels // 2 + 10, top + 6))
        hands = []
        for side in ("left", "right"):
            holding = latest.observation[f"{side}_hand_is_grasping"][0] > 0.5
            touching = latest.observation[f"{side}_hand_is_colliding"][0] > 0.5
            hands.append(f"{side} hand: {'holding' if holding else 'touching' if touching else 'empty'}")
        food = f"food {latest.info['food_eaten']}/{latest.info['food_total']}"
        extra = f"   restarts {self.restarts}" if self.restarts else ""
        line = "   ".join(hands) + f"   {food}{extra}   F1 help"
        screen.blit(font.render(line, True, (200, 200, 210)), (8, top + 30))

    def _draw_help(self, pygame, screen, font) -> None:
        if self._help is None:  # drawn once: text rendering costs more than the rest of a frame
            pixels = self.options.window_pixels
            self._help = pygame.Surface((pixels - 40, 36 + 22 * len(CONTROLS)), pygame.SRCALPHA)
            self._help.fill((0, 0, 0, 190))
            self._help.blit(font.render("Controls (F1 hides this)", True, (255, 255, 160)), (12, 8))
            for i, (keys, meaning) in enumerate(CONTROLS):
                self._help.blit(font.render(keys, True, (255, 255, 255)), (12, 32 + 22 * i))
                self._help.blit(font.render(meaning, True, (210, 210, 210)), (160, 32 + 22 * i))
        screen.blit(self._help, (20, 20))

    # ---- recording -----------------------------------------------------------------------------

    def _save(self, root: Path, staging: Path, world: Any, started: str, ended: str, step_seconds: tuple[float, ...],
              display_fps: float) -> PlayResult:
        latest = self.latest
        run = new_run_folder(root, world.task, world.seed, world.difficulty, self.options.player)
        for path in sorted(staging.glob("*.npz")):
            shutil.move(str(path), run / path.name)
        shutil.rmtree(staging, ignore_errors=True)
        with contextlib.suppress(OSError):
            (root / ".playing").rmdir()
        success = bool(latest.info["success"])
        meta = {
            "player": self.options.player,
            "source": {"kind": "play", "action_space": "vr", "paused": self.options.paused},
            "start_time": started,
            "end_time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "task": world.task,
            "difficulty": float(world.difficulty),
            "seed": int(world.seed),
            "world_content_hash": world.content_hash,
            "frames": self.steps,
            "ending": ended if ended != "quit" else "cut_short",
            "finished": ended != "quit" or success,
            "success": success,
            "score": float(latest.info["score"]),
            "restarts": self.restarts,
        }
        (run / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
        return PlayResult(run, meta, step_seconds, display_fps)
