"""``avalon human import | score | compare``: human episodes from pose tracks (:mod:`avalon.human`),
their reference scores, and people judging agents side by side, ranked with TrueSkill (``compare``,
BASALT's method).

A task's score does not capture everything a person sees (how an agent fights, whether it
explores). As BASALT does, a person is shown two episodes of different policies on the same world
side by side, replayed from their episode files at a readable size, and says which did the task
better, or that they did equally well. The policies are ranked with TrueSkill (the ``trueskill``
package: a Bayesian skill rating with an uncertainty per policy, made for many players and
draws; BASALT's appendix A.3 gives the reasons over Elo).

A *run* is a folder of episode files (an evaluation's recorded episodes, a player's folder of
``vr_data/``, ...); its episodes are matched to other runs' by their world's content hash. Each
next comparison is the pair of runs, on a world both played and that pair has not been judged on,
whose TrueSkill match quality is highest (the most uncertain outcome: what BASALT's evaluation
server did to reduce uncertainty fastest); which run is shown on the left is drawn at random.

Judgements are appended to ``comparisons.jsonl`` as they are made, so a session resumes where the
last one stopped; ``ranking.json`` and ``ranking.md`` hold each run's rating (mean ``mu`` and
``sigma``; the interval ``mu +- 2 sigma``), wins, losses and draws.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import attr
import numpy as np
import trueskill

from avalon.app.play.session import window_display
from avalon.env.avalon_env import AvalonEnv
from avalon.env.spaces import ActionCodec
from avalon.episodes.episode_file import Recording
from avalon.episodes.replay_folder import episode_files
from avalon.sim.settings import RENDERERS
from avalon.sim.temp_folders import make_temp_folder

#: Keys of the judging window: (keys, meaning).
JUDGING_KEYS = (
    ("Left or 1", "the left episode did the task better"),
    ("Right or 2", "the right episode did the task better"),
    ("Down, 0 or Space", "equally well (a draw)"),
    ("S", "skip this pair"),
    ("Esc", "stop (the judgements made are kept)"),
)


#: TrueSkill's defaults (mu 25, sigma 25/3), with draws allowed: people may judge two episodes equal.
TRUESKILL = trueskill.TrueSkill(draw_probability=0.1)


@attr.s(frozen=True, auto_attribs=True)
class Run:
    """A policy's episodes: its name and, per world content hash, one episode file."""

    name: str
    episodes: dict[str, Path]


def collect_runs(folders: Sequence[str | os.PathLike]) -> list[Run]:
    """The runs of ``folders`` (named by their folder name, made unique); ``ValueError`` when there
    are fewer than two or no world is shared by two of them."""
    if len(folders) < 2:
        raise ValueError(f"compare needs at least two runs, got {len(folders)}")
    runs, names = [], set()
    for folder in folders:
        episodes: dict[str, Path] = {}
        for path in episode_files(folder):
            episodes.setdefault(Recording.load(path).meta["world"]["content_hash"], path)
        name = Path(folder).resolve().name
        while name in names:
            name += "'"
        names.add(name)
        runs.append(Run(name, episodes))
    if not any(set(a.episodes) & set(b.episodes) for i, a in enumerate(runs) for b in runs[i + 1 :]):
        raise ValueError("no world is shared by two of the runs: comparisons need both episodes on the same world")
    return runs


@attr.s(frozen=True, auto_attribs=True)
class Judgement:
    left: str
    right: str
    world: str
    winner: str | None  # None: a draw
    judge: str = "anonymous"
    time: str = ""

    def to_json(self) -> dict[str, Any]:
        return attr.asdict(self)


def load_judgements(path: Path) -> list[Judgement]:
    if not path.exists():
        return []
    judgements = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.strip():
            try:
                judgements.append(Judgement(**json.loads(line)))
            except (ValueError, TypeError) as error:
                raise ValueError(f"{path}, line {number}: not a judgement ({error})") from None
    return judgements


def ratings(names: Iterable[str], judgements: Sequence[Judgement]) -> dict[str, trueskill.Rating]:
    """TrueSkill ratings of the runs after ``judgements``, in order (a draw is a tie)."""
    rated = {name: TRUESKILL.create_rating() for name in names}
    for judgement in judgements:
        if judgement.left not in rated or judgement.right not in rated:
            continue
        if judgement.winner is None:
            rated[judgement.left], rated[judgement.right] = trueskill.rate_1vs1(
                rated[judgement.left], rated[judgement.right], drawn=True, env=TRUESKILL)
        else:
            loser = judgement.right if judgement.winner == judgement.left else judgement.left
            rated[judgement.winner], rated[loser] = trueskill.rate_1vs1(rated[judgement.winner], rated[loser], env=TRUESKILL)
    return rated


def ranking(names: Sequence[str], judgements: Sequence[Judgement]) -> list[dict[str, Any]]:
    """Runs ordered by TrueSkill mean, each with ``mu``, ``sigma``, the interval ``mu +- 2 sigma``,
    and its wins, losses and draws."""
    rated = ratings(names, judgements)
    rows = []
    for name in names:
        mine = [j for j in judgements if name in (j.left, j.right)]
        rows.append({
            "run": name, "mu": rated[name].mu, "sigma": rated[name].sigma,
            "low": rated[name].mu - 2 * rated[name].sigma, "high": rated[name].mu + 2 * rated[name].sigma,
            "wins": sum(j.winner == name for j in mine),
            "losses": sum(j.winner is not None and j.winner != name for j in mine),
            "draws": sum(j.winner is None for j in mine),
        })
    return sorted(rows, key=lambda row: -row["mu"])


def ranking_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["| rank | run | TrueSkill mu | interval (mu +- 2 sigma) | wins | losses | draws |", "|---|---|---|---|---|---|---|"]
    for rank, row in enumerate(rows, start=1):
        lines.append(f"| {rank} | {row['run']} | {row['mu']:.2f} | {row['low']:.2f} to {row['high']:.2f} | "
                     f"{row['wins']} | {row['losses']} | {row['draws']} |")
    return "\n".join(lines)


def next_pair(runs: Sequence[Run], judgements: Sequence[Judgement], rng: np.random.Generator) -> tuple[Run, Run, str] | None:
    """The most informative comparison not yet made (see the module doc), left and right drawn at
    random; None when every pair has been judged on every world they share."""
    done = {(frozenset((j.left, j.right)), j.world) for j in judgements}
    rated = ratings([run.name for run in runs], judgements)
    best, best_quality = None, -1.0
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            worlds = sorted(w for w in set(a.episodes) & set(b.episodes) if (frozenset((a.name, b.name)), w) not in done)
            if not worlds:
                continue
            quality = trueskill.quality_1vs1(rated[a.name], rated[b.name], env=TRUESKILL)
            if quality > best_quality:
                best, best_quality = (a, b, worlds[0]), quality
    if best is None:
        return None
    a, b, world = best
    return (a, b, world) if rng.random() < 0.5 else (b, a, world)


def episode_frames(path: Path, pixels: int) -> list[np.ndarray]:
    """The episode's pictures (RGB, ``pixels`` square), replayed from its file: the reset's, then one per step."""
    recording = Recording.load(path)
    work = make_temp_folder("replay")
    env = AvalonEnv(recording.env_config(render_resolution=pixels), render_mode="rgb_array")
    try:
        env.reset(options=recording.reset_options(recording.extract_world(work / "world")))
        frames = [env.render()]
        codec = ActionCodec(recording.meta["action_space"])
        for vector in recording.actions:
            _, _, terminated, truncated, _ = env.step(codec.decode(vector))
            frames.append(env.render())
            if terminated or truncated:
                break
        return frames
    finally:
        env.close()
        shutil.rmtree(work, ignore_errors=True)


class CompareSession:
    """A person judging pairs in a window until every pair is judged, ``max_comparisons`` are made
    or Esc. ``input_hook(session)`` is called before each round of event handling (tests post
    key events from it)."""

    def __init__(self, runs: Sequence[Run], out: str | os.PathLike, judge: str = "anonymous", pixels: int = 384,
                 max_comparisons: int | None = None, seed: int = 0,
                 input_hook: Callable[["CompareSession"], None] | None = None) -> None:
        self.runs, self.out, self.judge, self.pixels = list(runs), Path(out), judge, pixels
        self.max_comparisons, self.input_hook = max_comparisons, input_hook
        self.rng = np.random.default_rng(seed)
        self.out.mkdir(parents=True, exist_ok=True)
        self.log = self.out / "comparisons.jsonl"
        self.judgements = load_judgements(self.log)
        self.made = 0
        self.showing: tuple[Run, Run, str] | None = None

    def run(self) -> list[dict[str, Any]]:
        import pygame

        with window_display(pygame):
            pygame.font.init()
            screen = pygame.display.set_mode((2 * self.pixels + 30, self.pixels + 90))
            pygame.display.set_caption("Avalon: which did the task better?")
            font = pygame.font.Font(None, 22)
            clock = pygame.time.Clock()
            while self.max_comparisons is None or self.made < self.max_comparisons:
                pair = next_pair(self.runs, self.judgements, self.rng)
                if pair is None:
                    break
                self.showing = pair
                left, right, world = pair
                videos = [episode_frames(left.episodes[world], self.pixels), episode_frames(right.episodes[world], self.pixels)]
                verdict = self._judge(pygame, screen, font, clock, videos)
                if verdict == "stop":
                    break
                if verdict == "skip":
                    continue
                winner = {"left": left.name, "right": right.name, "draw": None}[verdict]
                judgement = Judgement(left.name, right.name, world, winner, self.judge, time.strftime("%Y-%m-%dT%H:%M:%S%z"))
                with self.log.open("a") as log:
                    log.write(json.dumps(judgement.to_json()) + "\n")
                self.judgements.append(judgement)
                self.made += 1
        rows = ranking([run.name for run in self.runs], self.judgements)
        (self.out / "ranking.json").write_text(json.dumps(rows, indent=2) + "\n")
        (self.out / "ranking.md").write_text(ranking_table(rows) + "\n")
        return rows

    def _judge(self, pygame, screen, font, clock, videos: list[list[np.ndarray]]) -> str:
        surfaces = [[pygame.surfarray.make_surface(np.ascontiguousarray(f.swapaxes(0, 1))) for f in video] for video in videos]
        frame = 0
        keys = {pygame.K_LEFT: "left", pygame.K_1: "left", pygame.K_RIGHT: "right", pygame.K_2: "right",
                pygame.K_DOWN: "draw", pygame.K_0: "draw", pygame.K_SPACE: "draw", pygame.K_s: "skip", pygame.K_ESCAPE: "stop"}
        while True:
            if self.input_hook is not None:
                self.input_hook(self)
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    return "stop"
                if event.type == pygame.KEYDOWN and event.key in keys:
                    return keys[event.key]
            screen.fill((24, 24, 28))
            for side, video in enumerate(surfaces):
                screen.blit(video[min(frame, len(video) - 1)], (10 + side * (self.pixels + 10), 10))
            steps = max(len(v) for v in surfaces)
            text = (f"step {min(frame, steps - 1)} of {steps - 1}    which did the task better?   "
                    "Left/1: left   Right/2: right   Down/0/Space: equally   S: skip   Esc: stop")
            screen.blit(font.render(text, True, (230, 230, 230)), (10, self.pixels + 25))
            screen.blit(font.render(f"judged {len(self.judgements)}", True, (160, 160, 170)), (10, self.pixels + 55))
            pygame.display.flip()
            frame = (frame + 1) % (steps + 10)  # a pause of a second at the end of each loop
            clock.tick(10)


def _cmd_human_compare(args: argparse.Namespace) -> int:
    from avalon.human.pose_import import check_player

    runs = collect_runs(args.runs)
    out = Path(args.out)
    print(f"avalon human compare: {len(runs)} runs ({', '.join(run.name for run in runs)}); judgements go to {out / 'comparisons.jsonl'}")
    rows = CompareSession(runs, out, judge=check_player(args.judge), pixels=args.pixels, max_comparisons=args.max).run()
    print(ranking_table(rows))
    print(f"ranking written to {out / 'ranking.json'} and {out / 'ranking.md'}")
    return 0


def _cmd_human_score(args: argparse.Namespace) -> int:
    from avalon.episodes.replay_folder import episode_files, replay_files
    from avalon.human.scores import human_episodes, human_reference, load_scores, reference_report

    random_scores = load_scores(args.random) if args.random else None
    files = episode_files(args.folder)
    started = time.monotonic()
    print(f"avalon human score: replaying {len(files)} episode files under {args.folder} with {args.jobs} processes")
    results = replay_files(files, args.jobs)
    episodes, left_out = human_episodes(results)
    reference = human_reference(episodes, random_scores, left_out)
    out = Path(args.out or Path(args.folder) / "human_reference.json")
    out.write_text(json.dumps(reference.to_json(), indent=2) + "\n")
    print(reference_report(reference))
    print(f"{len(episodes)} episodes scored in {time.monotonic() - started:.0f} s; "
          f"the reference of {len(reference.worlds)} worlds written to {out}"
          + ("" if random_scores else " (no --random baseline: no world was checked against random)"))
    return 0 if not left_out else 1


def _cmd_human_import(args: argparse.Namespace) -> int:
    from avalon.human.pose_import import import_pose_track
    from avalon.human.pose_tracks import PoseTrackError

    try:
        imported = import_pose_track(
            args.track, args.player, args.root, world_dir=args.world, task=args.task, difficulty=args.difficulty,
            seed=args.seed, renderer=args.renderer, resolution=args.resolution,
        )
    except PoseTrackError as error:
        print(f"avalon human import: error: {error}", file=sys.stderr)
        return 3
    except (ValueError, PermissionError) as error:
        print(f"avalon human import: error: {error}", file=sys.stderr)
        return 2
    outcome = "success" if imported.success else imported.ending
    print(f"avalon human import: {imported.frames} steps, {outcome}, score {imported.score:.3f}")
    print(f"  episode: {imported.episode}   (replay: avalon replay {imported.episode})")
    print(f"  metadata: {imported.meta}")
    return 0


def add_parser(commands: argparse._SubParsersAction) -> None:
    """``avalon human import | compare | score``."""
    human = commands.add_parser("human", help="human episodes: import pose tracks, score them, judge policies side by side")
    human_commands = human.add_subparsers(dest="human_command", required=True)
    importer = human_commands.add_parser(
        "import", help="play a pose track (JSON Lines, vr_data/README.md) on a world and record it as an episode",
        epilog="exit codes: 0 recorded; 2 usage error or bad option; 3 the pose track is refused (line and reason printed)",
    )
    importer.add_argument("track", help="the pose track file")
    importer.add_argument("--player", required=True, help="player id (letters, digits, - and _)")
    where = importer.add_mutually_exclusive_group(required=True)
    where.add_argument("--world", help="a world folder")
    where.add_argument("--task", help="generate the world of this task (with --difficulty and --seed)")
    importer.add_argument("--difficulty", type=float, default=0.0)
    importer.add_argument("--seed", type=int, default=0)
    importer.add_argument("--root", default="vr_data", help="where episodes go (default vr_data)")
    importer.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    importer.add_argument("--resolution", type=int, default=96)
    importer.set_defaults(handler=_cmd_human_import)
    compare = human_commands.add_parser(
        "compare", help="judge two policies' episodes on the same world side by side; rank the policies with TrueSkill",
        description="Each run is a folder of episode files; episodes are paired by world. Keys: Left/1 left better, "
        "Right/2 right better, Down/0/Space equally, S skip, Esc stop. Judgements are kept and resumed.",
    )
    compare.add_argument("runs", nargs="+", help="two or more folders of episode files, one per policy")
    compare.add_argument("--judge", default="anonymous", help="who judges (letters, digits, - and _)")
    compare.add_argument("--out", default="comparisons", help="folder of comparisons.jsonl and the ranking (default comparisons)")
    compare.add_argument("--pixels", type=int, default=384, help="side of each video (default 384)")
    compare.add_argument("--max", type=int, default=None, help="stop after this many judgements")
    compare.set_defaults(handler=_cmd_human_compare)
    scorer = human_commands.add_parser(
        "score", help="replay every human episode under a folder, score it and write the per-world human reference",
        epilog="exit codes: 0 every episode replayed identically and was scored; 1 some were left out (listed); 2 usage error",
    )
    scorer.add_argument("folder", help="a folder of human episodes (vr_data/)")
    scorer.add_argument("--jobs", type=int, default=2, help="replays run in parallel (default 2)")
    scorer.add_argument("--random", help="per-world random baseline scores (JSON); worlds where humans do no better are left out")
    scorer.add_argument("--out", help="the reference file (default FOLDER/human_reference.json)")
    scorer.set_defaults(handler=_cmd_human_score)
