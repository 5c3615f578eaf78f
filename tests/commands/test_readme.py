"""README's commands: every `python -m warmjax.…` line in its code blocks names a command that
exists and takes its arguments. Training commands are composed with their overrides (the
first value of each sweep) and validated as a run would be; the evaluation commands are run
on a tiny run folder in place of the main job's."""

from __future__ import annotations

import re
import shlex

import pytest
from hydra import compose, initialize_config_dir

from warmjax import cli
from warmjax.run import to_run_config

from ..helpers import ROOT, write_tiny_run

MAIN_JOB_FOLDER = "runs/adaptive_c4/profile=fast"


def readme_commands() -> list[list[str]]:
    """The `python -m warmjax.…` commands in README's bash blocks, as argument lists."""
    text = (ROOT / "README.md").read_text()
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#")[0].strip()
            if line.startswith("python -m warmjax."):
                commands.append(shlex.split(line)[2:])
    return commands


COMMANDS = readme_commands()


def test_readme_shows_the_commands_a_user_needs():
    modules = {command[0] for command in COMMANDS}
    assert {"warmjax.run", "warmjax.versus", "warmjax.oracle", "warmjax.play"} <= modules
    assert ["warmjax.run", "+experiment=adaptive_c4", "profile=fast"] in COMMANDS


@pytest.mark.parametrize("command", [c for c in COMMANDS if c[0] == "warmjax.run"],
                         ids=lambda c: " ".join(c[1:3]))
def test_readme_training_commands_compose(command, tmp_path):
    overrides = []
    for arg in command[1:]:
        if arg == "-m" or arg.lstrip("+").startswith("hydra"):
            continue  # launcher settings are Hydra's own
        key, value = arg.split("=", 1)
        overrides.append(f"{key}={value.split(',')[0]}")  # a sweep's first job
    with initialize_config_dir(config_dir=cli.CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=[*overrides, f"run_dir={tmp_path}"])
    config = to_run_config(cfg)  # validated as the run would be
    if "profile=quick" in command:
        assert config.profile_name == "quick" and config.train.iterations == 40
    if "profile=fast" in command:
        assert config.profile_name == "fast" and config.train.iterations == 80
        assert config.train.explore == 0.5 and not config.arena.gate


@pytest.mark.parametrize("command", [c for c in COMMANDS
                                     if c[0] in ("warmjax.versus", "warmjax.oracle")],
                         ids=lambda c: c[0])
def test_readme_evaluation_commands_run(command, tmp_path, capsys):
    from warmjax import oracle, versus

    run = write_tiny_run(tmp_path / "run")
    args = [str(run) if a == MAIN_JOB_FOLDER else a for a in command[1:]]
    # Fewer games, simulations and positions than the README's, for time.
    if command[0] == "warmjax.versus":
        args = [a for a in args if a not in ("--games", "100")]
        versus.main([*args, "--games", "2", "--opponents", "random", "--simulations", "2"])
        assert "| random |" in capsys.readouterr().out
    else:
        oracle.main([*args, "--positions", "4", "--simulations", "2", "--players", "random",
                     "--out", str(tmp_path / "oracle.json")])
        assert "uniform random" in capsys.readouterr().out


def test_readme_play_command_runs(tmp_path):
    import io

    from warmjax import play

    (command,) = [c for c in COMMANDS if c[0] == "warmjax.play"]
    run = write_tiny_run(tmp_path / "run")
    args = [str(run) if a == MAIN_JOB_FOLDER else a for a in command[1:]]
    out = io.StringIO()
    assert play.main([*args, "--simulations", "2"], stdin=io.StringIO("quit\n"), out=out) == 0
    assert "your move" in out.getvalue()


def test_every_gpu_install_line_keeps_the_supported_jax():
    """README and experiments.md install JAX for the GPU within pyproject's jax range."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (pin,) = [d[len("jax"):] for d in project["dependencies"] if d.startswith("jax>")]
    for page in ("README.md", "docs/experiments.md"):
        text = (ROOT / page).read_text()
        lines = re.findall(r"jax\[cuda\d+\][^'\"`\s]*", text)
        assert lines, page
        assert all(line == f"jax[cuda12]{pin}" for line in lines), (page, lines)
