"""``avalon replay FILE | FOLDER``: an episode file replayed and compared with its recording, or every
episode file below a folder in worker processes (:mod:`avalon.episodes.replay_folder`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from avalon.sim.settings import RENDERERS

#: ``avalon replay``'s exit codes (2 is argparse's own, for a usage error).
REPLAY_EXIT_CODES = {
    0: "identical: every observation, reward and the episode's end as recorded (a folder: every file)",
    1: "replayed, but different (what differed is printed); a folder: some file differed or failed (its row says)",
    2: "usage error",
    3: "the file is missing, unreadable, truncated or not an episode file",
    4: "the world inside the file is refused as unsafe or corrupt",
    5: "the simulator failed (or is not installed)",
}


def _cmd_replay(args: argparse.Namespace) -> int:
    from avalon.episodes.recording import EpisodeFileError, replay
    from avalon.errors import SimulatorError, SimulatorNotInstalledError, WorldLoadError

    if Path(args.file).is_dir():
        return _replay_folder(args)
    overrides = {} if args.renderer is None else {"renderer": args.renderer}
    try:
        result = replay(args.file, **overrides)
    except EpisodeFileError as error:
        code, what = 3, error
    except WorldLoadError as error:
        code, what = 4, error
    except (SimulatorError, SimulatorNotInstalledError) as error:
        code, what = 5, error
    else:
        print(result.describe())
        return 0 if result.identical else 1
    print(f"avalon replay: error: {what}", file=sys.stderr)
    return code


def _replay_folder(args: argparse.Namespace) -> int:
    from avalon.episodes.replay_folder import episode_files, replay_files, replay_table

    if args.renderer is not None:
        raise ValueError("--renderer applies to one file; a folder replays each file as it was recorded")
    files = episode_files(args.file)
    print(f"avalon replay: {len(files)} episode files under {args.file}, {args.jobs} processes")
    results = replay_files(files, args.jobs)
    table = replay_table(results, args.file)
    print(table)
    if args.report:
        Path(args.report).write_text(table + "\n")
        print(f"table written to {args.report}")
    return 0 if all(result.identical for result in results) else 1


def add_parser(commands: argparse._SubParsersAction) -> None:
    """``avalon replay``."""
    replay = commands.add_parser(
        "replay", help="replay an episode file and check the observations are identical",
        epilog="exit codes:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in REPLAY_EXIT_CODES.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("file", help="an episode file, or a folder: every episode file below it (e.g. vr_data/)")
    replay.add_argument(
        "--renderer", choices=RENDERERS, default=None, help="replay with this renderer (default: the recorded one)"
    )
    replay.add_argument("--jobs", type=int, default=2, help="folder: replays run in parallel (default 2)")
    replay.add_argument("--report", help="folder: also write the table (Markdown) to this file")
    replay.set_defaults(handler=_cmd_replay)
