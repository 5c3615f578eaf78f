"""Fabricated study runs with known learning curves, for the analysis tests."""

from __future__ import annotations

from pathlib import Path

from warmjax.train import run_folder
from warmjax.train.run_config import GameConfig, RunConfig, TrainConfig, WarmstartConfig

from ..helpers import metric_row

ITERATIONS = 6
NOISE = {0: 0.00, 1: 0.03, 2: -0.02, 3: 0.01}  # per seed, added to every iteration
FIXED_OWN = {0: 0.004, 1: -0.006, 2: 0.002, 3: 0.0}  # the fixed arm's own noise per seed


def base_curve(it: int) -> float:
    return 0.30 + 0.04 * it


def write_run(root: Path, mode: str, enhancement: str, seed: int, shift: float,
              iprime: int = 5, switch: int = 3, quiet: bool = False,
              params: dict | None = None, train: dict | None = None,
              game: str = "connect_four") -> Path:
    """A fabricated run folder of `game` (`params`: its board) whose policy head's
    rate is `base_curve(it) + NOISE[seed] + shift` (the search's: half of it + 0.4); an
    adaptive run switches at iteration `switch` (never if beyond ITERATIONS); `train`:
    TrainConfig settings (a departure such as drop_warmstart_games)."""
    folder = root / (f"{game}_{mode}_{enhancement}_{iprime}_s{seed}"
                     f"{'_' + str(params) if params else ''}{'_' + str(train) if train else ''}")
    config = RunConfig(game=GameConfig(game, params or {}),
                       warmstart=WarmstartConfig(mode, enhancement, iprime), seed=seed,
                       train=TrainConfig(iterations=ITERATIONS, games=10, **(train or {})),
                       run_dir=str(folder))
    folder.mkdir(parents=True)
    run_folder.write_config(folder, config)
    rows = []
    for it in range(1, ITERATIONS + 1):
        rate = base_curve(it) + NOISE[seed] + shift
        warm = mode == "fixed" and it <= iprime or mode == "adaptive" and it <= switch
        calm = {"oracle_policy_quiet": rate - 0.1, "oracle_optimal_quiet": rate / 2 + 0.2} \
            if quiet else {}
        rows.append(metric_row(iteration=it, oracle_policy=rate, oracle_optimal=rate / 2 + 0.4,
                               warmstart_active=warm, switched=mode == "adaptive"
                               and it >= switch, switch_iteration=switch
                               if mode == "adaptive" and it >= switch else -1, **calm))
    run_folder.write_metrics(folder, rows)
    return folder


def write_study_run(folder: Path, game: str, params: dict, mode: str, enhancement: str,
                    seed: int, iterations: int, rows: list, module: str | None = None) -> Path:
    """A fabricated run folder of a registered study: `config.yaml` (E = 50, I′ = 5) and
    the given metrics rows; `module`: the game's, for a game kept outside warmjax."""
    config = RunConfig(game=GameConfig(game, params, module),
                       warmstart=WarmstartConfig(mode, enhancement, 5), seed=seed,
                       train=TrainConfig(iterations=iterations, games=50), run_dir=str(folder))
    folder.mkdir(parents=True)
    run_folder.write_config(folder, config)
    run_folder.write_metrics(folder, rows)
    return folder


def ledger_curve(seconds: float, iterations: int):
    """A run's ledger compute curve at `seconds` an iteration, iterations 1 … `iterations`."""
    from warmjax.analysis.compute import ComputeCurve

    its = tuple(range(1, iterations + 1))
    return ComputeCurve(its, tuple(seconds * it for it in its), "ledger")
