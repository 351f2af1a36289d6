"""``avalon world export | preview | benchmark``: a task's world folder; a picture of it, from above
and through the agent's eyes; and the world benchmark (``avalon benchmark worlds``).

The picture's left half is the top-down map of :func:`avalon.datagen.preview.top_down_preview` (shaded
relief, biome colours, water, scenery, food, spawn and obstacle rings); the right half is the
first RGB frame Godot renders from the spawn point. :func:`previews` writes a task's pictures at
several difficulties into a folder (``avalon world preview --task jump --difficulties 0,0.5,1
--out-dir docs/images`` makes ``docs/images/jump-d0.png``, ``jump-d0.5.png`` and ``jump-d1.png``).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from avalon.app import benchmark
from avalon.app.options import difficulty_list
from avalon.datagen.biomes import Biome, BiomeMap
from avalon.datagen.doors import DOOR_KIND
from avalon.datagen.export import export_world
from avalon.datagen.preview import top_down_preview
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import FlatGround, Terrain, World
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.errors import check_int
from avalon.rules.animals import ANIMALS
from avalon.rules.tools import TOOLS
from avalon.sim.settings import RENDERERS
from avalon.tasks import build_world, check_difficulty, check_task, task_for
from avalon.tasks.kit.predators import activation_radius_m

PANEL_PIXELS = 512
FIRST_PERSON_RESOLUTION = 256


def _flat_as_terrain(ground: FlatGround) -> Terrain:
    """A flat ground as a one-biome terrain, so flat worlds get the same map."""
    cells = 65
    heightmap = HeightMap(heights=np.zeros((cells, cells), np.float32), size_m=ground.size_m, water_height_m=-1.0)
    biome_map = BiomeMap(
        biome_ids=np.full((cells, cells), Biome.GRASSLAND, np.uint8),
        climbable=np.zeros((cells, cells), bool),
        colors=np.broadcast_to(np.array(ground.color, np.float32), (cells, cells, 3)),
        heightmap=heightmap,
    )
    return Terrain(biome_map=biome_map)


def top_down(world: World, pixels: int = PANEL_PIXELS) -> Image.Image:
    terrain = world.ground if isinstance(world.ground, Terrain) else _flat_as_terrain(world.ground)
    x, _, z = world.spawn_position
    return top_down_preview(
        terrain.heightmap,
        terrain.biome_map,
        scenery=world.scenery,
        food=[food.position for food in world.food],
        spawn=(x, z, world.spawn_yaw_rad),
        rings=terrain.ring_outlines,
        pixels=pixels,
        footprints=footprints(world),
        animals=[(a.position[0], a.position[2], activation_radius_m(a), ANIMALS[a.kind].color) for a in world.animals],
        buildings=world.buildings,
        doors=[(d.position[0], d.position[2], d.yaw_rad, d.param("width_m"), len(d.param("locks")))
               for d in world.entities if d.kind == DOOR_KIND],
    )


def footprints(world: World) -> list:
    """The footprints (``avalon.datagen.preview.Footprint``) of the world's static boxes and tools."""
    out = []
    for entity in world.entities:
        x, _, z = entity.position
        if entity.kind == "box":
            width, _, depth = entity.param("size")
            out.append((x, z, width, depth, entity.yaw_rad, tuple(entity.param("color", (0.6, 0.6, 0.6)))))
        elif entity.kind in TOOLS:
            scale = float(entity.param("safe_scale", 1.0))
            width, _, depth = (v * scale for v in TOOLS[entity.kind].size_m)
            out.append((x, z, width, depth, entity.yaw_rad, tuple(entity.param("base_color", TOOLS[entity.kind].color))))
    return out


def first_person(world_dir: Path, renderer: str, resolution: int = FIRST_PERSON_RESOLUTION) -> Image.Image:
    env = AvalonEnv(EnvConfig(renderer=renderer, resolution=resolution, world_dir=str(world_dir)))
    try:
        observation, _ = env.reset(seed=0)
    finally:
        env.close()
    return Image.fromarray(observation["rgbd"][..., :3])


def two_panels(world: World, mapped: World, renderer: str, panel_pixels: int, caption: str) -> Image.Image:
    """The top-down map of ``mapped`` (``world``, or it with marks added) beside the first frame Godot
    renders of ``world`` from the spawn point, each ``panel_pixels`` square, under ``caption``."""
    work = Path(tempfile.mkdtemp(prefix="avalon-preview-"))
    try:
        world_dir = export_world(world, work / "world")
        view = first_person(world_dir, renderer).resize((panel_pixels, panel_pixels), Image.BILINEAR)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    caption_pixels = 24
    picture = Image.new("RGB", (2 * panel_pixels, panel_pixels + caption_pixels), (20, 20, 20))
    picture.paste(top_down(mapped, panel_pixels), (0, caption_pixels))
    picture.paste(view, (panel_pixels, caption_pixels))
    ImageDraw.Draw(picture).text((8, 6), caption, fill=(230, 230, 230))
    return picture


def preview(task: str, difficulty: float, seed: int, output: str | Path, renderer: str = "GLES3",
            panel_pixels: int = PANEL_PIXELS, forced: object = None) -> Path:
    """Writes the two-panel picture of (task, difficulty, seed) to ``output`` (``forced``: the
    generator choices pinned, see :func:`avalon.tasks.build_world`); returns its path."""
    panel_pixels = check_int(panel_pixels, "panel_pixels", low=64, high=2048, unit="pixels")
    world = build_world(task, difficulty, seed, forced=forced)
    legend = "   (left: from above, north up; right: from the spawn point)" if panel_pixels >= 400 else ""
    picture = two_panels(world, world, renderer, panel_pixels, f"{task}  difficulty {difficulty:g}  seed {seed}{legend}")
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    picture.save(output, optimize=True)
    return output


def preview_name(task: str, difficulty: float) -> str:
    """The file name of a task's picture at a difficulty in a folder of previews: ``eat-d0.5.png``."""
    return f"{task}-d{difficulty:g}.png"


def previews(task: str, difficulties: Sequence[float], seed: int, out_dir: str | Path, renderer: str = "GLES3",
             panel_pixels: int = PANEL_PIXELS, forced: object = None) -> list[Path]:
    """Writes the picture of ``task`` at each of ``difficulties`` into ``out_dir`` (see
    :func:`preview_name`; ``docs/images`` holds each task's at d = 0, 0.5 and 1); returns the paths."""
    check_task(task)
    checked = [check_difficulty(difficulty) for difficulty in difficulties]
    if not checked:
        raise ValueError("previews: difficulties is empty; expected at least one difficulty in [0, 1]")
    return [preview(task, d, seed, Path(out_dir) / preview_name(task, d), renderer, panel_pixels, forced) for d in checked]


#: ``--force``'s help (``avalon world export`` and ``preview``).
FORCE_HELP = "pin one of the task's generator choices (repeatable; the task's TaskSpec.forcing), e.g. prey_kind=rabbit"


def _cmd_world_export(args: argparse.Namespace) -> int:
    from avalon.tasks import generate_world
    from avalon.tasks.kit.forcing import parse_forced

    path = generate_world(args.task, args.difficulty, args.seed, args.output, forced=parse_forced(args.force))
    print(path)
    return 0


def _cmd_world_preview(args: argparse.Namespace) -> int:
    from avalon.tasks.kit.forcing import parse_forced

    if (args.output is None) == (args.out_dir is None):
        raise ValueError("avalon world preview: give either -o/--output (one picture at --difficulty) or --out-dir "
                         "(one picture per --difficulties, named <task>-d<difficulty>.png)")
    if args.out_dir is not None:
        difficulties = difficulty_list(args.difficulties) if args.difficulties else (args.difficulty,)
        for path in previews(args.task, difficulties, args.seed, args.out_dir, args.renderer, args.panel_pixels,
                             forced=parse_forced(args.force)):
            print(path)
        return 0
    if args.difficulties:
        raise ValueError("avalon world preview: --difficulties writes one picture each: give --out-dir, not -o")
    print(preview(args.task, args.difficulty, args.seed, args.output, renderer=args.renderer, panel_pixels=args.panel_pixels,
                  forced=parse_forced(args.force)))
    return 0


def _cmd_world_benchmark(args: argparse.Namespace) -> int:
    """``avalon world benchmark``: ``avalon benchmark worlds`` under the ``world`` group."""
    return benchmark.run_benchmark("worlds", args.arguments, prog="avalon world benchmark")


def add_parser(commands: argparse._SubParsersAction) -> None:
    """``avalon world export | preview | benchmark``."""
    world = commands.add_parser("world", help="world folders")
    world_commands = world.add_subparsers(dest="world_command", required=True)
    export = world_commands.add_parser("export", help="generate a task's world folder")
    export.add_argument("--task", default=task_for("smoke"))
    export.add_argument("--difficulty", type=float, default=0.0)
    export.add_argument("--seed", type=int, default=0)
    export.add_argument("-o", "--output", required=True)
    export.add_argument("--force", action="append", metavar="OPTION=VALUE", help=FORCE_HELP)
    export.set_defaults(handler=_cmd_world_export)
    show = world_commands.add_parser("preview", help="picture of a task's world: from above and from the spawn point")
    show.add_argument("--task", default=task_for("smoke"))
    show.add_argument("--difficulty", type=float, default=0.0)
    show.add_argument("--difficulties", help="comma-separated difficulties, one picture each into --out-dir (e.g. 0,0.5,1)")
    show.add_argument("--seed", type=int, default=0)
    show.add_argument("--force", action="append", metavar="OPTION=VALUE", help=FORCE_HELP)
    show.add_argument("--renderer", choices=RENDERERS, default="GLES3")
    show.add_argument("--panel-pixels", type=int, default=512, help="side of each of the two panels (default 512)")
    show.add_argument("-o", "--output", help="PNG file to write")
    show.add_argument("--out-dir", help="folder to write <task>-d<difficulty>.png into (docs/images for the docs)")
    show.set_defaults(handler=_cmd_world_preview)
    benchmark.add_passthrough_parser(
        world_commands, "benchmark", help="generation, export, reset and steps/s per task and world size",
        handler=_cmd_world_benchmark,
    )
