"""Presets of ``avalon train <algorithm>``: ``gpu`` is Table 7, ``cpu`` the CPU settings; the
device chooses the default; options given beside a preset override it; bad input is named."""

import attr
import pytest

from avalon.agent import registry
from avalon.agent.common.presets import (
    CPU,
    GPU,
    RUN_SETTINGS,
    Preset,
    choose_settings,
    default_preset_name,
    find_preset,
)
from avalon.app.main import build_parser, main

NOT_GIVEN = dict.fromkeys(RUN_SETTINGS)


@pytest.mark.parametrize("name", list(registry.ALGORITHMS))
def test_every_preset_builds_its_algorithms_config_for_its_simulators(name):
    algorithm = registry.ALGORITHMS[name]
    assert [preset.name for preset in algorithm.presets] == [CPU, GPU]
    for preset in algorithm.presets:
        assert set(preset.run) == set(RUN_SETTINGS)  # every run setting stated, so the printout shows them all
        config = algorithm.config_class()(**preset.config)
        config.check_batch(preset.run["envs"])
        assert all(getattr(config, field) == value for field, value in preset.config.items())
    assert algorithm.preset(GPU).for_gpu and not algorithm.preset(CPU).for_gpu


#: Table 7 values a config's defaults leave out, as its docstring says: IMPALA's default batch is
#: one unroll per simulator (Table 7's 32 would make 2 simulators on 2 cores wait for 16 unrolls each).
NOT_DEFAULTS = {"impala": {"batch_unrolls"}}


@pytest.mark.parametrize("name", list(registry.ALGORITHMS))
def test_the_gpu_presets_are_table_7_which_stays_the_configs_defaults(name):
    algorithm = registry.ALGORITHMS[name]
    gpu = algorithm.preset(GPU)
    defaults = algorithm.config_class()()
    table_7 = {field: value for field, value in gpu.config.items() if field not in NOT_DEFAULTS.get(name, ())}
    assert {field: getattr(defaults, field) for field in table_7} == table_7
    assert gpu.run["resolution"] == 96 and gpu.run["difficulty_step"] == algorithm.difficulty_step


def test_table_7s_numbers_in_the_gpu_presets():
    ppo, impala, dreamer = (registry.ALGORITHMS[name].preset(GPU) for name in ("ppo", "impala", "dreamer"))
    assert (ppo.config["learning_rate"], ppo.config["clip_range"], ppo.config["entropy_cost"], ppo.config["unroll_steps"]) == (
        2.5e-4, 0.03, 1.5e-4, 200,
    )
    assert ppo.run == {"envs": 16, "resolution": 96, "difficulty_step": 3e-4}  # Table 7's batch of 16: 16 simulators
    assert (impala.config["learning_rate"], impala.config["entropy_cost"], impala.config["batch_unrolls"]) == (1.5e-4, 5e-3, 32)
    assert impala.run["difficulty_step"] == 5e-3
    assert (dreamer.config["batch_size"], dreamer.config["unroll"], dreamer.config["actor_learning_rate"]) == (116, 30, 1e-5)
    assert dreamer.run["difficulty_step"] == 6e-4


def test_the_device_chooses_the_default_preset():
    presets = registry.ALGORITHMS["ppo"].presets
    assert default_preset_name(presets, "cpu") == CPU
    assert default_preset_name(presets, "cuda") == default_preset_name(presets, "cuda:1") == GPU
    assert default_preset_name((), "cuda") is None
    settings = choose_settings(registry.ALGORITHMS["ppo"], None, "cpu", NOT_GIVEN, {})
    assert (settings.preset.name, settings.preset_given, settings.warnings) == (CPU, False, ())
    assert "chosen for the device cpu" in settings.lines()[0]


def test_options_given_beside_a_preset_override_it_and_are_printed_and_recorded():
    ppo = registry.ALGORITHMS["ppo"]
    cpu = ppo.preset(CPU)
    settings = choose_settings(ppo, CPU, "cpu", {**NOT_GIVEN, "resolution": 64}, {"clip_range": 0.2})
    assert settings.run == {**cpu.run, "resolution": 64}
    assert settings.config == {**cpu.config, "clip_range": 0.2}
    lines = settings.lines()
    assert lines[0].startswith(f"preset cpu ({cpu.summary})")
    assert "--resolution 48" in lines[1] and "--envs 2" in lines[1]  # the preset's own values, every one
    assert lines[2] == "  given over it: --resolution 64, --clip-range 0.2"
    record = settings.to_json()
    assert record["preset"] == CPU and record["given"] == {"resolution": 64, "clip_range": 0.2}
    assert record["run"]["resolution"] == 64 and record["preset_values"]["run"] == cpu.run


def test_a_gpu_preset_on_the_cpu_warns_once_naming_the_cpu_preset():
    settings = choose_settings(registry.ALGORITHMS["dreamer"], GPU, "cpu", NOT_GIVEN, {})
    assert len(settings.warnings) == 1
    assert "sized for a GPU" in settings.warnings[0] and "slow" in settings.warnings[0]
    assert "--preset cpu suits a CPU" in settings.warnings[0]
    assert choose_settings(registry.ALGORITHMS["dreamer"], CPU, "cpu", NOT_GIVEN, {}).warnings == ()


def test_an_unknown_preset_lists_the_presets(capsys):
    with pytest.raises(ValueError, match=r"unknown preset 'tpu' for ppo; the presets are: cpu \(.*\), gpu \(.*\)"):
        find_preset("ppo", registry.ALGORITHMS["ppo"].presets, "tpu")
    with pytest.raises(SystemExit) as stop:
        main(["train", "ppo", "--preset", "tpu"])
    assert stop.value.code == 2
    assert "argument --preset: invalid choice: 'tpu' (choose from 'cpu', 'gpu')" in capsys.readouterr().err


def test_bad_presets_are_refused_when_defined():
    with pytest.raises(ValueError, match=r"\['steps'\] are not run settings"):
        Preset(name="fast", summary="fast", run={"steps": 10})
    with pytest.raises(ValueError, match="name='Fast!' must be a lower-case name"):
        Preset(name="Fast!", summary="fast")
    ppo = registry.ALGORITHMS["ppo"]
    with pytest.raises(ValueError, match=r"its presets repeat the names \['cpu'\]"):
        attr.evolve(ppo, presets=(ppo.preset(CPU), ppo.preset(CPU)))


@pytest.mark.parametrize("name", list(registry.ALGORITHMS))
def test_the_help_shows_the_preset_first(name, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["train", name, "--help"])
    printed = capsys.readouterr().out
    options = printed[printed.index("options:"):]
    assert options.split("\n")[2].lstrip().startswith("--preset {cpu,gpu}")  # right after -h, --help
    assert "default: gpu on a CUDA device, else cpu" in " ".join(printed.split())
