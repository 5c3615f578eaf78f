"""The training entry point (Hydra).

    python -m warmjax.run +experiment=adaptive_c4 profile=quick
    python -m warmjax.run -m +experiment=fixed_c4 warmstart.iprime=1,3,5,7,9 \
        warmstart.enhancement=rollout,rave,rora,wro,wrora seed=0,1

The Hydra config is turned into a frozen `RunConfig` once and validated before anything is
compiled. Each run writes into its own deterministic folder
(`runs/<experiment>/<overrides>`), so the same command resumes an interrupted run.
"""

from __future__ import annotations

import re
import sys

import hydra
from omegaconf import DictConfig, OmegaConf

from warmjax import cli
from warmjax.train.estimate import estimate_paper_seconds
from warmjax.train.run_config import ConfigError, RunConfig

CONF_DIR = cli.CONF_DIR
EXTRA_KEYS = ("run_root", "confirm_paper_on_cpu")


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
    return RunConfig.from_dict(raw)


def warn_paper_on_cpu(config: RunConfig, confirm: bool) -> bool:
    """On a machine without an accelerator, states the paper profile's cost. True: go on."""
    import jax

    if config.profile_name != "paper" or jax.default_backend() != "cpu":
        return True
    print("profile=paper holds the papers' full scale (method.md §11) and is meant for a GPU.")
    print("measuring this machine...", flush=True)
    seconds = estimate_paper_seconds(config)
    print(f"expected duration here: about {seconds / 3600:.0f} hours "
          f"({seconds / config.train.iterations / 60:.0f} min per iteration).")
    print("For a laptop CPU use profile=quick, e.g.\n"
          "  python -m warmjax.run +experiment=adaptive_c4 profile=quick")
    if confirm and sys.stdin.isatty():
        answer = input("Run at paper scale anyway? [y/N] ").strip().lower()
        return answer in ("y", "yes")
    print("(not a terminal: going on)")
    return True


@hydra.main(version_base="1.3", config_path=CONF_DIR, config_name="config")
def main(cfg: DictConfig) -> None:
    try:
        config = to_run_config(cfg)
    except ConfigError as err:
        _remove_if_empty(cfg)
        cli.fail(err)
    if not warn_paper_on_cpu(config, bool(cfg.get("confirm_paper_on_cpu", True))):
        print("stopped; nothing was run.")
        return
    from warmjax.games import make
    from warmjax.perfect import positions
    from warmjax.train.loop import train

    print(f"run folder: {config.run_dir}")
    train(config)
    folder = config.run_dir
    has_oracle = positions.path_for(make(config.game.name, **config.game.params)) is not None
    print(f"done: the final network is {folder}/network.msgpack; next try\n"
          f"  python -m warmjax.versus '{folder}'\n"
          + (f"  python -m warmjax.oracle '{folder}'\n" if has_oracle else "")
          + f"  python -m warmjax.play '{folder}'\n", end="")


def _remove_if_empty(cfg: DictConfig) -> None:
    """A rejected configuration leaves no empty run folder behind (Hydra made it)."""
    from pathlib import Path

    try:
        folder = Path(str(cfg.run_dir)).resolve()
        root = Path(str(cfg.run_root)).resolve()
    except Exception:  # noqa: BLE001 - an unresolvable run_dir made no folder either
        return
    # The run folder wherever it is (hydra.run.dir may put it outside run_root), then the
    # folders above it up to run_root, if Hydra left them empty.
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
        while folder != root and root in folder.parents and folder.is_dir() \
                and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent


if __name__ == "__main__":
    cli.check_overrides("config", None)
    main()
