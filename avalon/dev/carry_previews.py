"""Pictures of carry worlds, one per base task and difficulty, with where the items are used marked.

Like ``avalon world preview`` (left: from above, north up; right: the first frame from the spawn)
but for each of carry's base tasks (forced), and with each moved item's place of use drawn under
it in yellow (bridge: the log across the trench; stack: the staircase's stones; throw's rocks and
fight's tools where the base task lays them, by the spawn), so the picture shows how far the items
lie from it; small items are marked by cyan squares. Writes ``<out-dir>/carry-<base task>-d<difficulty>.png``.
Usage:

    python -m avalon.dev.carry_previews [--difficulties 0,0.5,1] [--seed 0] [--out-dir docs/images] [--panel-pixels 320]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import attr
from PIL import Image

from avalon.app.world import two_panels
from avalon.datagen.world import Entity
from avalon.tasks import build_world, carry, check_difficulty
from avalon.tasks.kit.carrying import footprint

#: The colour the places of use are drawn in.
PLACE_COLOR = (1.0, 0.85, 0.1)
#: Small items (throw's rocks, fight's sticks and rocks) and their places are marked by squares at
#: least this wide, metres (a 0.2 m rock is under a pixel of a Small island's picture), the items'
#: in this colour.
MARK_M = 0.9
ITEM_COLOR = (0.1, 0.95, 0.95)


def picture(base_task: str, difficulty: float, seed: int, panel_pixels: int, renderer: str) -> Image.Image:
    world = build_world("carry", difficulty, seed, forced={"base_task": base_task})
    layout = carry.layout_of(world)
    places = []
    items = {entity.name: entity for entity in world.entities}
    for use in layout.uses:
        block = footprint(use.place)
        places.append(Entity(kind="box", name=f"place-of-{use.name}", position=use.place.position, yaw_rad=use.place.yaw_rad,
                             params={"size": (max(block.width_m, MARK_M), 0.1, max(block.length_m, MARK_M)),
                                     "color": PLACE_COLOR}))
        if max(block.width_m, block.length_m) < MARK_M:
            item = items[use.name]
            places.append(Entity(kind="box", name=f"mark-of-{use.name}", position=item.position, yaw_rad=item.yaw_rad,
                                 params={"size": (MARK_M, 0.1, MARK_M), "color": ITEM_COLOR}))
    marked = attr.evolve(world, entities=tuple(places) + world.entities)  # the items drawn over their places
    key = "yellow: where used" + ("; cyan: the items" if any(p.name.startswith("mark-of-") for p in places) else "")
    return two_panels(world, marked, renderer, panel_pixels, f"carry ({base_task})  difficulty {difficulty:g}  seed {seed}  ({key})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--difficulties", default="0,0.5,1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", default="docs/images")
    parser.add_argument("--panel-pixels", type=int, default=320)
    parser.add_argument("--renderer", default="GLES3")
    parser.add_argument("--base-tasks", default=",".join(carry.base_task_names()))
    args = parser.parse_args(argv)
    try:
        difficulties = [check_difficulty(float(part)) for part in args.difficulties.split(",") if part.strip()]
        bases = [carry.base_task_named(part.strip()).name for part in args.base_tasks.split(",") if part.strip()]
    except ValueError as error:
        parser.error(str(error))
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for base in bases:
        for difficulty in difficulties:
            path = out_dir / f"carry-{base}-d{difficulty:g}.png"
            picture(base, difficulty, args.seed, args.panel_pixels, args.renderer).save(path, optimize=True)
            print(path, flush=True)


if __name__ == "__main__":
    main()
