"""``avalon world preview``: a picture of a task's world, from above and through the agent's eyes.

The left half is the top-down map of :func:`avalon.datagen.preview.top_down_preview` (shaded
relief, biome colours, water, scenery, food, spawn and obstacle rings); the right half is the
first RGB frame Godot renders from the spawn point. :func:`previews` writes a task's pictures at
several difficulties into a folder (``avalon world preview --task jump --difficulties 0,0.5,1
--out-dir docs/images`` makes ``docs/images/jump-d0.png``, ``jump-d0.5.png`` and ``jump-d1.png``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from avalon.datagen.biomes import Biome, BiomeMap
from avalon.datagen.export import export_world
from avalon.datagen.preview import top_down_preview
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import FlatGround, Terrain, World
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.rules.animals import ANIMALS
from avalon.rules.tools import TOOLS
from avalon.tasks import build_world, check_difficulty, check_task
from avalon.tasks.kit.predators import activation_radius_m
from avalon.validation import check_int

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


def preview(task: str, difficulty: float, seed: int, output: str | Path, renderer: str = "GLES3",
            panel_pixels: int = PANEL_PIXELS, forced: object = None) -> Path:
    """Writes the two-panel picture of (task, difficulty, seed) to ``output`` (``forced``: the
    generator choices pinned, see :func:`avalon.tasks.build_world`); returns its path."""
    panel_pixels = check_int(panel_pixels, "panel_pixels", low=64, high=2048, unit="pixels")
    world = build_world(task, difficulty, seed, forced=forced)
    work = Path(tempfile.mkdtemp(prefix="avalon-preview-"))
    try:
        world_dir = export_world(world, work / "world")
        view = first_person(world_dir, renderer).resize((panel_pixels, panel_pixels), Image.BILINEAR)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    caption = 24
    picture = Image.new("RGB", (2 * panel_pixels, panel_pixels + caption), (20, 20, 20))
    picture.paste(top_down(world, panel_pixels), (0, caption))
    picture.paste(view, (panel_pixels, caption))
    legend = "   (left: from above, north up; right: from the spawn point)" if panel_pixels >= 400 else ""
    ImageDraw.Draw(picture).text((8, 6), f"{task}  difficulty {difficulty:g}  seed {seed}{legend}", fill=(230, 230, 230))
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
