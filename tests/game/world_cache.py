"""Purpose-built test worlds, exported once per name and shared by the tests of a module."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from avalon.datagen.export import export_world
from avalon.datagen.world import World


def world_cache(root: Path, build: Callable[..., World]) -> Callable[..., str]:
    """``world(name, entities, **kwargs)``: the folder of ``build(entities, **kwargs)`` exported
    under ``root / name``, made the first time a name is asked for (later calls with that name
    return the same folder, whatever their arguments)."""
    made: dict[str, str] = {}

    def world(name: str, entities, **kwargs) -> str:
        if name not in made:
            made[name] = str(export_world(build(entities, **kwargs), root / name))
        return made[name]

    return world
