"""Where the Godot project and the Godot binary are."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from avalon.errors import SimulatorNotInstalledError

GODOT_BINARY = "godot3-runner"
NATIVE_LIBRARY = "native/libavalon_native.so"  # in the Godot project, loaded by:
NATIVE_LIBRARY_LOADER = "native/avalon_native.gdnlib"


def repository_dir() -> Path:
    """The folder holding the ``avalon`` package, ``godot/`` and ``docs/``."""
    return Path(__file__).resolve().parents[2]


def godot_project_dir() -> Path:
    """The Godot project folder: ``$AVALON_GODOT_PROJECT`` or ``godot/`` beside the package."""
    override = os.environ.get("AVALON_GODOT_PROJECT")
    return Path(override) if override else repository_dir() / "godot"


def find_godot_binary(name: str = GODOT_BINARY) -> str:
    """Absolute path of the Godot 3 binary, or a clear error saying how to install it."""
    path = shutil.which(name)
    if path is None:
        raise SimulatorNotInstalledError(
            f"the Godot 3 binary {name!r} is not on PATH; run `make setup` "
            "(installs godot3-runner, xvfb and Mesa from Debian)"
        )
    return path


def find_native_library() -> Path | None:
    """The simulator's native library (``godot/native/libavalon_native.so``, built by ``make setup``
    from ``native/``), or a clear error saying how to build it. None for a Godot project that
    loads none (an older revision's, as benchmarks against earlier code run them)."""
    project = godot_project_dir()
    path = project / NATIVE_LIBRARY
    if not (project / NATIVE_LIBRARY_LOADER).is_file():
        return None
    how = "run `make setup` (or bin/build_native.sh: builds it from native/*.c with gcc)"
    if not path.is_file():
        raise SimulatorNotInstalledError(f"the simulator's native library {path} is missing; {how}")
    sources = repository_dir() / "native"
    if project.resolve() == (repository_dir() / "godot").resolve() and sources.is_dir():
        newest = max((source.stat().st_mtime for source in sources.rglob("*") if source.suffix in (".c", ".h")), default=0.0)
        if newest > path.stat().st_mtime:
            raise SimulatorNotInstalledError(f"the simulator's native library {path} is older than its sources in {sources}; {how}")
    return path


def find_xvfb_binary() -> str:
    path = shutil.which("Xvfb")
    if path is None:
        raise SimulatorNotInstalledError("Xvfb is not on PATH and DISPLAY is unset; run `make setup` (installs xvfb)")
    return path
