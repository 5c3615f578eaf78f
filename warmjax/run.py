"""The training entry point (Hydra).

    python -m warmjax.run +experiment=adaptive_c4 profile=fast
    python -m warmjax.run -m +experiment=fixed_c4 warmstart.iprime=1,3,5,7,9 \
        warmstart.enhancement=rollout,rave,rora,wro,wrora seed=0,1

The Hydra config is turned into a frozen `RunConfig` once and validated before anything is
compiled. Each run writes into its own deterministic folder
(`runs/<experiment>/<overrides>`), so the same command resumes an interrupted run.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf

from warmjax import cli
from warmjax.train.estimate import estimate_paper_seconds
from warmjax.train.run_config import ConfigError, RunConfig, ignored_overrides

CONF_DIR = cli.CONF_DIR
EXTRA_KEYS = ("run_root", "confirm_paper_on_cpu")
ASK_ABOVE_SECONDS = 3600  # a paper-scale run on a CPU longer than this needs a yes


def run_name(override_dirname: str) -> str:
    """A folder name from Hydra's override string ("default" when there is none); an
    appended key's `+` is dropped (`+arm=baseline,seed=0` → `arm=baseline,seed=0`)."""
    name = re.sub(r"(^|,)\+", r"\1", override_dirname)
    name = re.sub(r"[^A-Za-z0-9_.,=+-]", "_", name.replace("/", "_"))
    return name or "default"


if not OmegaConf.has_resolver("warmjax_run_name"):
    OmegaConf.register_new_resolver("warmjax_run_name", run_name)


def to_run_config(cfg: DictConfig) -> RunConfig:
    """DictConfig → validated RunConfig (raises ConfigError)."""
    raw = OmegaConf.to_container(cfg, resolve=True)
    for key in EXTRA_KEYS:
        raw.pop(key, None)
    game = raw.get("game")
    if isinstance(game, dict) and isinstance(game.get("name"), (int, float)):
        game["name"] = str(game["name"])  # game.name=2048: Hydra reads a number; a name
    return RunConfig.from_dict(raw)


def compose_run_config(overrides: list[str], run_dir) -> RunConfig:
    """The `RunConfig` that `python -m warmjax.run <overrides> run_dir=<run_dir>` would
    train, composed without running Hydra's job (for scripts and tests)."""
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=[*overrides, f"run_dir={run_dir}"])
    return to_run_config(cfg)


def warn_paper_on_cpu(config: RunConfig, confirm: bool) -> bool:
    """On a machine without an accelerator, states the paper profile's cost. True: go on.

    A run estimated above an hour needs a yes: asked on a terminal; without one it is
    refused (`ConfigError`, naming profile=fast and `confirm_paper_on_cpu=false`, the
    setting that says yes in advance).
    """
    import jax

    if config.profile_name != "paper" or jax.default_backend() != "cpu" or not confirm:
        return True
    print("profile=paper holds the papers' full scale (method.md §11) and is meant for a GPU.")
    print("measuring this machine...", flush=True)
    seconds = estimate_paper_seconds(config)
    print(f"expected duration here: about {seconds / 3600:.0f} hours "
          f"({seconds / config.train.iterations / 60:.0f} min per iteration).")
    if seconds <= ASK_ABOVE_SECONDS:
        return True
    print("For a laptop CPU use the main job's profile=fast, e.g.\n"
          "  python -m warmjax.run +experiment=adaptive_c4 profile=fast")
    if sys.stdin.isatty():
        answer = input("Run at paper scale anyway? [y/N] ").strip().lower()
        return answer in ("y", "yes")
    raise ConfigError(f"profile=paper would take about {seconds / 3600:.0f} hours on this CPU "
                      "and no terminal can confirm it: use profile=fast, or add "
                      "confirm_paper_on_cpu=false to run it anyway")


def override_keys() -> list[str]:
    """The keys the command line set for this job (Hydra's task overrides)."""
    from hydra.core.hydra_config import HydraConfig

    try:
        task = HydraConfig.get().overrides.task
    except ValueError:  # not inside a Hydra job (the library called directly)
        return []
    return [str(o).split("=", 1)[0] for o in task]


def check_job(cfg: DictConfig, keys: list[str]) -> RunConfig:
    """The job's validated RunConfig; `ConfigError` for an impossible setting or one the
    experiment ignores (`run_config.ignored_overrides`)."""
    config = to_run_config(cfg)
    ignored = ignored_overrides(config, keys)
    if ignored:
        raise ConfigError(ignored[0])
    return config


@hydra.main(version_base="1.3", config_path=CONF_DIR, config_name="config")
def main(cfg: DictConfig) -> None:
    # A Ctrl-C anywhere in the job (the paper-scale question, compiling, before the first
    # checkpoint) leaves no empty run folder: the folder Hydra made goes with it.
    with cli.interrupt_cleanup(lambda: _remove_if_empty(cfg)):
        _job(cfg)


def _job(cfg: DictConfig) -> None:
    try:
        config = check_job(cfg, override_keys())
        go_on = warn_paper_on_cpu(config, bool(cfg.get("confirm_paper_on_cpu", True)))
    except ConfigError as err:
        _remove_if_empty(cfg)
        cli.fail(err)
    if not go_on:
        _remove_if_empty(cfg)
        print("stopped; nothing was run.")
        return
    from warmjax.games import make
    from warmjax.perfect import positions
    from warmjax.train.loop import train

    print(f"run folder: {config.run_dir}")
    try:
        train(config)
    except ConfigError as err:  # a folder another process is training, another run's
        cli.fail(err)
    folder = config.run_dir
    if not (Path(folder) / "network.msgpack").exists():  # complete, its checkpoints gone
        print(f"done: {folder} holds its metrics but no network to evaluate")
        return
    has_oracle = positions.path_for(make(config.game.name, **config.game.params)) is not None
    py = f"{module_path(config.game.module)}python"
    print(f"done: the final network is {folder}/network.msgpack; next try\n"
          f"  {py} -m warmjax.versus '{folder}'\n"
          + (f"  {py} -m warmjax.oracle '{folder}'\n" if has_oracle else "")
          + f"  {py} -m warmjax.play '{folder}'\n", end="")


def module_path(module: str | None) -> str:
    """`PYTHONPATH='DIR' ` where the game's module (`game.module`) was found through
    `PYTHONPATH`, so that the commands printed after a run work when pasted; "" where no
    module is named or it imports without it (installed, or in the working folder)."""
    import importlib.util
    import os
    from pathlib import Path

    if module is None:
        return ""
    spec = importlib.util.find_spec(module.split(".")[0])
    if spec is None or spec.origin is None:
        return ""
    origin = Path(spec.origin).resolve()
    folder = origin.parent.parent if origin.name == "__init__.py" else origin.parent
    listed = [Path(p).resolve() for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return f"PYTHONPATH='{folder}' " if folder in listed else ""


def _remove_if_empty(cfg: DictConfig) -> None:
    """A rejected configuration leaves no empty run folder behind (Hydra made it)."""
    from pathlib import Path

    try:
        folder = Path(str(cfg.run_dir)).resolve()
        root = Path(str(cfg.run_root)).resolve()
    except Exception:  # noqa: BLE001 - an unresolvable run_dir made no folder either
        return
    # The run folder wherever it is (hydra.run.dir may put it outside run_root), then the
    # folders above it up to run_root, if Hydra left them empty; run_root too if this
    # process made it (`ROOTS_BEFORE`).
    if folder.is_dir() and not any(folder.iterdir()) and folder not in RUN_DIRS_BEFORE:
        folder.rmdir()
        folder = folder.parent
        while (folder == root or root in folder.parents) and folder.is_dir() \
                and not any(folder.iterdir()):
            if folder == root and (ROOTS_BEFORE is None or root in ROOTS_BEFORE):
                break
            folder.rmdir()
            if folder == root:
                break
            folder = folder.parent


def run_roots(argv: list[str]) -> set:
    """The run_root folders the command line names (`run_root=…`, else the default `runs`)
    that exist now, resolved: `_remove_if_empty` leaves those in place."""
    from pathlib import Path

    named = [a.split("=", 1)[1] for a in argv if a.lstrip("+").startswith("run_root=")]
    return {Path(p).resolve() for p in (named or ["runs"]) if Path(p).is_dir()}


# The run roots that existed when a `python -m warmjax.run` process started; None (the
# library called otherwise): not known, so no run_root is removed.
ROOTS_BEFORE: set | None = None


def sweep_jobs(args: list[str]) -> list[list[str]]:
    """The jobs of a multirun command line, each as its overrides: the command line's
    sweeps and the config's `hydra.sweeper.params` (a study's), expanded as Hydra's basic
    sweeper expands them."""
    from hydra import compose, initialize_config_dir
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    given = [a for a in args if not a.startswith("-")]
    parser = OverridesParser.create()
    fixed = [o.input_line for o in parser.parse_overrides(given) if not o.is_sweep_override()]
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        base = compose(config_name="config", overrides=fixed, return_hydra_config=True)
    sweeper = base.hydra.sweeper.get("params")
    params = {} if sweeper is None else OmegaConf.to_container(sweeper, resolve=False)
    named = {o.key_or_group for o in parser.parse_overrides(given)}
    lines = [f"{k}={v}" for k, v in params.items() if k not in named] + given
    batches = BasicSweeper.split_arguments(parser.parse_overrides(lines), None)
    return [list(job) for batch in batches for job in batch]


def check_sweep(args: list[str]) -> None:
    """Validates every job of a multirun command line before the first one trains; exits
    with one `error:` line naming the first bad job."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    cli.refuse_unplayable_choice([a for a in args if not a.startswith("-")], None)
    try:
        jobs = sweep_jobs(args)
    except (HydraException, OmegaConfBaseException) as err:
        cli.fail(cli.hydra_message(err))
    # A job is named by the settings that vary across the sweep.
    varying = {o for job in jobs for o in job if any(o not in other for other in jobs)}
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):  # once for all
        for number, job in enumerate(jobs, start=1):
            composable = [o for o in job if not o.lstrip("+~").startswith("hydra")]
            name = " ".join(o for o in job if o in varying) or " ".join(job)
            try:
                cfg = compose(config_name="config", overrides=[*composable, "run_dir=."])
                check_job(cfg, [o.split("=", 1)[0] for o in composable])
            except (HydraException, OmegaConfBaseException) as err:
                cli.fail(f"job {number} of {len(jobs)} ({name}): {cli.hydra_message(err)}; "
                         "no job was run")
            except ConfigError as err:
                cli.fail(f"job {number} of {len(jobs)} ({name}): {err}; no job was run")


def follow_run_dir(argv: list[str]) -> list[str]:
    """A single run's command line with `run_dir=DIR`: Hydra's job folder made DIR too
    (`hydra.run.dir`), so that no other folder named after the overrides is made beside it;
    a DIR that cannot be written is one error line before anything starts."""
    from pathlib import Path

    given = [a.split("=", 1)[1] for a in argv if a.lstrip("+").startswith("run_dir=")]
    if not given or any(a in ("-m", "--multirun") for a in argv):
        return argv
    problem = cli.writable_problem(Path(given[-1]) / "config.yaml")
    if problem is not None:
        cli.fail(f"run_dir: {problem}")
    if Path(given[-1]).is_dir():
        RUN_DIRS_BEFORE.add(Path(given[-1]).resolve())
    if any(a.startswith("hydra.run.dir=") for a in argv):
        return argv
    return [*argv, f"hydra.run.dir={given[-1]}"]


# Run folders named with run_dir= that existed when the process started: a refused or
# interrupted run leaves them in place, empty or not (`_remove_if_empty`).
RUN_DIRS_BEFORE: set = set()


if __name__ == "__main__":
    ROOTS_BEFORE = run_roots(sys.argv[1:])
    if any(a in ("-m", "--multirun") for a in sys.argv[1:]):
        check_sweep([a for a in sys.argv[1:] if a not in ("-m", "--multirun")])
    cli.check_overrides("config", None)
    sys.argv[1:] = follow_run_dir(sys.argv[1:])
    main()
