"""``avalon play``: a person plays a world in a window; the episode is recorded under ``vr_data/``."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from avalon.sim.settings import RENDERERS
from avalon.tasks import task_for


def _cmd_play(args: argparse.Namespace) -> int:
    from avalon.app.play.session import PlayOptions, PlaySession

    options = PlayOptions(
        player=args.player, task=None if (args.world or args.set) else args.task, difficulty=args.difficulty, seed=args.seed,
        world_dir=args.world, set_name=args.set, set_index=args.index, root=args.root, window_pixels=args.window_pixels,
        renderer=args.renderer, paused=args.paused,
    )
    try:
        result = PlaySession(options).run()
    except OSError as error:
        print(f"avalon play: error: {error}", file=sys.stderr)
        return 2
    meta = result.meta
    outcome = "success" if meta["success"] else ("unfinished" if not meta["finished"] else meta["ending"])
    print(f"avalon play: {meta['frames']} steps, {outcome}, score {meta['score']:.3f}, restarts {meta['restarts']}")
    print(f"  recorded in {result.run}   (replay: avalon replay {result.run})")
    if result.step_seconds:
        ms = np.array(result.step_seconds) * 1000.0
        print(f"  step times (simulator and the {args.window_pixels}-pixel picture): median {np.median(ms):.0f} ms, "
              f"90th percentile {np.percentile(ms, 90):.0f} ms, max {ms.max():.0f} ms; "
              f"{np.mean(ms > 100.0):.0%} over 100 ms; the window drew {result.display_fps:.0f} frames per second")
    return 0


def add_parser(commands: argparse._SubParsersAction) -> None:
    """``avalon play``."""
    play = commands.add_parser(
        "play", help="play a world yourself in a window (keys and mouse); the episode is recorded under vr_data/",
        description="WASD walk, mouse look (C releases it), Space jump, Tab crouch, left/right button grasp with the "
        "left/right hand, wheel reach, E eat, T throw, R restart, F1 help, Esc quit. Steps at 10 per second.",
    )
    play.add_argument("--player", required=True, help="your player id (letters, digits, - and _)")
    play_world = play.add_mutually_exclusive_group()
    play_world.add_argument("--task", default=task_for("first"), help=f"the task whose world to play (default {task_for('first')})")
    play_world.add_argument("--world", help="a world folder to play instead")
    play_world.add_argument("--set", help="an evaluation set (avalon evalset list): play its world --index")
    play.add_argument("--difficulty", type=float, default=0.0)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--index", type=int, default=0, help="with --set: which of its worlds (from 0)")
    play.add_argument("--root", default="vr_data", help="where the episode is recorded (default vr_data)")
    play.add_argument("--window-pixels", type=int, default=512, help="side of the view, rendered at that size (>= 512)")
    play.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    play.add_argument("--paused", action="store_true", help="step once per key press (debugging)")
    play.set_defaults(handler=_cmd_play)
