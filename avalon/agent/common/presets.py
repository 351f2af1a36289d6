"""Presets of ``avalon train <algorithm>``: named sets of values a run starts from.

Each algorithm's registry row lists its presets (``Algorithm.presets``); ours have two: ``gpu``,
the paper's Table 7 (what it ran on GPU machines), and ``cpu``, what learned eat fastest on the
2-core CPU machine this project is developed on (docs/agent.md, "Presets"). A preset sets run
settings (simulators, image side, the curriculum's step; :data:`RUN_SETTINGS`) and fields of the
algorithm's config; an option given beside it overrides that one value. Without ``--preset`` the
run's device chooses: ``gpu`` on a CUDA device, ``cpu`` otherwise.

:func:`choose_settings` resolves a run's values; :class:`RunSettings` prints them
(:meth:`~RunSettings.lines`) and records them (:meth:`~RunSettings.to_json`, the run folder's
``settings.json``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attr

#: The run settings a preset may set, each with its option of ``avalon train``.
RUN_SETTINGS: dict[str, str] = {"envs": "--envs", "resolution": "--resolution", "difficulty_step": "--difficulty-step"}
#: Run settings where no preset sets them (the curriculum's step: the row's ``difficulty_step``).
RUN_DEFAULTS: dict[str, Any] = {"envs": 2, "resolution": 96}
#: The presets of our algorithms; the default is the one for the run's device.
CPU, GPU = "cpu", "gpu"
#: ``--device``'s default: a CUDA GPU where torch sees one, else the CPU.
AUTO_DEVICE = "auto"

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


def _check_name(_instance, attribute, value) -> None:
    if not isinstance(value, str) or not _NAME.match(value):
        raise ValueError(f"{attribute.name}={value!r} must be a lower-case name such as 'cpu'")


def _check_run(_instance, attribute, value) -> None:
    unknown = sorted(set(value) - set(RUN_SETTINGS))
    if unknown:
        raise ValueError(f"{attribute.name}: {unknown} are not run settings; a preset sets {', '.join(RUN_SETTINGS)}")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Preset:
    """A named set of values for ``avalon train <algorithm>``."""

    #: ``--preset NAME``.
    name: str = attr.ib(validator=_check_name)
    #: One line for the help and the run's printout: what the values are and where they come from.
    summary: str
    #: Run settings (keys of :data:`RUN_SETTINGS`), e.g. ``{"resolution": 48}``.
    run: Mapping[str, Any] = attr.ib(factory=dict, converter=dict, validator=_check_run)
    #: Fields of the algorithm's config (a ``NetworkConfig`` for ``network``), e.g. ``{"clip_range": 0.1}``.
    config: Mapping[str, Any] = attr.ib(factory=dict, converter=dict)
    #: Sized for a GPU: a run with it on the CPU warns once that it will be slow.
    for_gpu: bool = False


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class RunSettings:
    """The values a run starts from: its preset's, with the options given over them."""

    algorithm: str
    #: The preset chosen (None: the algorithm has none).
    preset: Preset | None
    #: Whether ``--preset`` named it (else the device chose it).
    preset_given: bool
    #: The learner's torch device ("cpu", "cuda", "cuda:N"), ``--device auto`` resolved.
    device: str
    #: envs, resolution and difficulty_step in force.
    run: dict[str, Any]
    #: The config fields in force that differ from the config's defaults or that the preset sets
    #: (``TrainingRun.config_overrides``).
    config: dict[str, Any]
    #: The options given beside the preset: (run setting or config field) -> value.
    given: dict[str, Any]
    #: Config field -> its option's flag (the algorithm's ``options``), for the printout.
    flags: dict[str, str] = attr.ib(factory=dict)
    #: Said once at the start of the run (a GPU preset on the CPU).
    warnings: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """The printout at the start of a run: the preset, every value it sets, what was given over it."""
        flags = {**RUN_SETTINGS, **self.flags}
        if self.preset is None:
            head = f"preset: none ({self.algorithm} has no presets); run settings"
            values = self.run
        else:
            chosen = "" if self.preset_given else f", chosen for the device {self.device}"
            head = f"preset {self.preset.name} ({self.preset.summary}{chosen})"
            values = {**self.preset.run, **self.preset.config}
        lines = [head + ":"]
        lines.append("  " + ", ".join(_shown(key, value, flags) for key, value in values.items()))
        if self.given:
            lines.append("  given over it: " + ", ".join(_shown(key, value, flags) for key, value in self.given.items()))
        return lines

    def to_json(self) -> dict[str, Any]:
        """Plain values for the run folder's ``settings.json``."""
        return {
            "algorithm": self.algorithm,
            "preset": None if self.preset is None else self.preset.name,
            "preset_given": self.preset_given,
            "device": self.device,
            "preset_values": None if self.preset is None else {"run": dict(self.preset.run), "config": _plain(self.preset.config)},
            "given": _plain(self.given),
            "run": dict(self.run),
        }


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: attr.asdict(value) if attr.has(type(value)) else value for key, value in values.items()}


def _shown(key: str, value: Any, flags: Mapping[str, str]) -> str:
    if attr.has(type(value)):
        value = ", ".join(f"{name}={part}" for name, part in attr.asdict(value).items())
        return f"{key}=({value})"
    text = format(value, "g") if isinstance(value, float) else str(value)
    return f"{flags[key]} {text}" if key in flags else f"{key}={text}"


def preset_help(presets: tuple[Preset, ...]) -> str:
    """``--preset``'s help: each preset's name and summary, and the default."""
    if not presets:
        return "this algorithm has no presets"
    listed = "; ".join(f"{preset.name}: {preset.summary}" for preset in presets)
    return f"the values a run starts from ({listed}); default: {GPU} on a CUDA device, else {CPU}; options given beside it override it"


def find_preset(algorithm_name: str, presets: tuple[Preset, ...], name: str) -> Preset:
    """The preset called ``name``; ``ValueError`` listing the presets otherwise."""
    for preset in presets:
        if preset.name == name:
            return preset
    listed = ", ".join(f"{preset.name} ({preset.summary})" for preset in presets) or "none"
    raise ValueError(f"unknown preset {name!r} for {algorithm_name}; the presets are: {listed}")


def default_preset_name(presets: tuple[Preset, ...], device: str) -> str | None:
    """The preset a run on ``device`` starts from without ``--preset``: ``gpu`` on a CUDA device,
    else ``cpu`` (a row without them: its first preset; None without presets)."""
    names = [preset.name for preset in presets]
    wanted = GPU if device.startswith("cuda") else CPU
    return wanted if wanted in names else (names[0] if names else None)


def run_device(device: str) -> str:
    """``device`` with ``"auto"`` resolved (CUDA where torch sees a GPU, else the CPU); other values
    are checked by :func:`avalon.agent.common.device.resolve_device`."""
    from avalon.agent.common.device import resolve_device as torch_device  # torch: at run time, not with the parser

    if device == AUTO_DEVICE:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    return str(torch_device(device))


def choose_settings(
    algorithm: Any, preset_name: str | None, device: str, given_run: Mapping[str, Any], given_config: Mapping[str, Any]
) -> RunSettings:
    """A run's settings: ``algorithm``'s (a registry ``Algorithm``) preset ``preset_name`` (None: the
    one for the device), with ``given_run`` (run settings given as options; None values are not
    given) and ``given_config`` (config fields given as options) over it."""
    device = run_device(device)
    presets = tuple(algorithm.presets)
    preset_given = preset_name is not None
    if preset_name is None:
        preset_name = default_preset_name(presets, device)
    preset = find_preset(algorithm.name, presets, preset_name) if preset_name is not None else None
    given = {key: value for key, value in given_run.items() if value is not None}
    unknown = sorted(set(given) - set(RUN_SETTINGS))
    if unknown:
        raise ValueError(f"{unknown} are not run settings; the run settings are {', '.join(RUN_SETTINGS)}")
    run = {**RUN_DEFAULTS, "difficulty_step": algorithm.difficulty_step}
    config: dict[str, Any] = {}
    if preset is not None:
        run.update(preset.run)
        config.update(preset.config)
    run.update(given)
    config.update(given_config)
    warnings = ()
    if preset is not None and preset.for_gpu and not device.startswith("cuda"):
        cpu = [p.name for p in presets if not p.for_gpu]
        instead = f"; --preset {cpu[0]} suits a CPU" if cpu else ""
        warnings = (
            f"preset {preset.name!r} is sized for a GPU and this run learns on the {device}: it will be slow{instead}",
        )
    flags = {option.field: option.flag for option in algorithm.options}
    return RunSettings(
        algorithm=algorithm.name, preset=preset, preset_given=preset_given, device=device, run=run, config=config,
        given={**given, **given_config}, flags=flags, warnings=warnings,
    )
