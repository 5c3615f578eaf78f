"""A screen: rows of training settings, each trained for several seeds, each final network
judged on the labelled set (or on Pons' benchmark), one Markdown row per setting
(`python -m warmjax.screen`, which trains and judges; the tables here). A screen's folder
under `studies/` holds its rows file, its runs' small data, its README and its figure.

The table gives, per row, each seed's search and policy head (optimal-move rates on all
positions, and the mean), the same on the quiet positions, the policy head's share of
immediate wins taken, the candidates the arena accepted, the wall minutes of the iterations
(compilation excluded), and the compute: the ledger's network evaluations and its estimated
CPU-minutes on the calibration table's device (`row_cells`). Each row against a reference
row, paired by seed (`paired_cells`: `stats.compare_by_seed`, in points). On Pons'
benchmark, per row and set, the mistake rates of the search at the benchmark's deep m (600)
and of the policy head beside AlphaZero.jl's published figures, the seeds at or below them
on all six sets, and the first judged network at or below the depth-5 minimax
(`pons_cells`); `pons_curves` draws a row's judged networks against minutes of training.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from warmjax.analysis import report, stats, tables
from warmjax.matches.tournament_folder import read_oracle

JUDGED = {None: "oracle.json", "pons": "pons.json"}  # a judged run's file, per benchmark


def read_rows(path: Path) -> list[tuple[str, str]]:
    """`(name, settings)` per row of a rows file.

    Raises:
      ValueError: a line without `|`, an empty or repeated name, naming the line.
    """
    rows, seen = [], set()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, bar, settings = line.partition("|")
        name = name.strip()
        if not bar or not name or " " in name:
            raise ValueError(f"{path}:{number}: a row is 'name | settings', the name one word")
        if name in seen:
            raise ValueError(f"{path}:{number}: row {name!r} is named twice")
        seen.add(name)
        rows.append((name, settings.strip()))
    return rows


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(np.mean(known)) if known and len(known) == len(values) else None


def _cell(values: list[float | None], scale: float = 100.0, digits: int = 1) -> str:
    """"91.0 / 87.6 / 89.3 (89.3)"; "—" for a value not there."""
    each = " / ".join("—" if v is None else f"{scale * v:.{digits}f}" for v in values)
    mean = _mean(values)
    return each + ("" if mean is None or len(values) < 2 else f" ({scale * mean:.{digits}f})")


def row_cells(runs, calibration: str | None) -> list[str]:
    """One row's cells from its runs (one per seed, in seed order)."""
    figures = [tables.final_figures(r) for r in runs]
    judged = [read_oracle(r.path) for r in runs]
    taken = [None if j is None or "policy_head" not in j.players
             else j.players["policy_head"].immediate_win_taken for j in judged]
    accepted = [sum(bool(m.accepted) for m in r.metrics) for r in runs]
    evals = [sum((m.count_evals_selfplay or 0) + (m.count_evals_arena or 0)
                 for m in r.metrics) if r.metrics[0].count_evals_selfplay is not None
             else None for r in runs]
    curves = (report.compute_curves(runs, calibration, None, lambda s: print(s, file=sys.stderr))
              if calibration else {})
    estimated = [curves[r.path].budget / 60 if r.path in curves else None for r in runs]
    return [_cell([f["search"] for f in figures]), _cell([f["policy"] for f in figures]),
            _cell([f["search_quiet"] for f in figures]),
            _cell([f["policy_quiet"] for f in figures]), _cell(taken),
            " / ".join(map(str, accepted)),
            _cell([f["minutes"] for f in figures], scale=1.0),
            _cell([None if e is None else e / 1e6 for e in evals], scale=1.0, digits=2),
            _cell(estimated, scale=1.0)]


def pons_cells(runs, sets) -> list[str]:
    """One row's cells on Pons' benchmark (`sets`: `perfect.pons.SETS`; its runs'
    `pons.json`, one per seed in seed order): per set, the deep search's and the policy
    head's mistake rates, then the minutes and the seeds at or below AlphaZero.jl on every
    set."""
    judged = [json.loads((r.path / "pons.json").read_text()) for r in runs]
    cells = []
    for spec in sets:
        cells += [_cell([j["sets"][spec.name]["deep_search"] for j in judged]),
                  _cell([j["sets"][spec.name]["policy_head"] for j in judged])]
    matched = [all(j["sets"][spec.name]["deep_search"] <= spec.alphazero_jl[1]
                   for spec in sets) for j in judged]
    minutes = _cell([_minutes(r) for r in runs], scale=1.0)
    return [*cells, minutes, f"{sum(matched)} of {len(judged)}",
            " / ".join(minimax_reached(r, sets) for r in runs)]


def _minutes(run, through: int | None = None) -> float:
    """The wall minutes of the run's iterations (up to `through`)."""
    return sum(m.seconds_total or 0.0 for m in run.metrics
               if through is None or m.iteration <= through) / 60


def judged_networks(run) -> list[tuple[int, dict]]:
    """The run's networks judged on Pons' benchmark, in iteration order: (iteration, its
    judged file's `sets`) for each milestone (`pons_iteration_NNN.json`), then the final
    network (`pons.json`), which replaces a milestone at the run's last iteration."""
    judged = {int(p.stem.rsplit("_", 1)[1]): p for p in run.path.glob("pons_iteration_*.json")}
    judged[run.iterations] = run.path / "pons.json"
    return [(i, json.loads(judged[i].read_text())["sets"]) for i in sorted(judged)]


def minimax_reached(run, sets) -> str:
    """The first of the run's judged networks (`judged_networks`) whose deep search is at or
    below the depth-5 minimax on all six sets: "iteration 40 (12.3 min)", the minutes those
    of training up to it; "not reached"."""
    for iteration, rates in judged_networks(run):
        if all(rates[spec.name]["deep_search"] <= spec.minimax5 for spec in sets):
            return f"iteration {iteration} ({_minutes(run, iteration):.1f} min)"
    return "not reached"


def pons_curves(runs, sets) -> list[dict]:
    """Each run's judged networks as curves against the wall minutes of training up to them:
    `{"label": "seed S", "iterations", "minutes", "positions": {set: [...]}, "deep_search":
    {set: [...]}, "policy_head": {set: [...]}}`, in iteration order (rates in [0, 1])."""
    curves = []
    for run in runs:
        judged = judged_networks(run)
        curves.append({
            "label": f"seed {run.id.seed}", "iterations": [i for i, _ in judged],
            "minutes": [_minutes(run, i) for i, _ in judged],
            **{key: {spec.name: [rates[spec.name][key] for _, rates in judged]
                     for spec in sets}
               for key in ("deep_search", "policy_head", "positions")}})
    return curves


def pons_heads(sets, deep: str = "m = 600") -> list[str]:
    heads = ["row", "settings"]
    for spec in sets:
        low, high = spec.alphazero_jl
        published = f"{100 * low:.1f}" if low == high else f"{100 * low:.1f}–{100 * high:.1f}"
        heads += [f"{spec.name}: search {deep} (AlphaZero.jl {published})",
                  f"{spec.name}: policy head"]
    return heads + ["minutes (wall, alone)", "seeds ≤ AlphaZero.jl on all six",
                    "first ≤ minimax, depth 5, on all six (per seed)"]


PAIRED = (("search", "search"), ("policy", "policy head"), ("search_quiet", "search, quiet"),
          ("policy_quiet", "policy head, quiet"))


def paired_cells(runs: dict[int, object], reference: dict[int, object]) -> list[str] | None:
    """A row's runs against the reference row's (each `{seed: run}`), paired by seed, per
    figure of `PAIRED`: "+0.8 [-1.2, +2.8]", "0.21" (p), "2.5" (80% detects); None below two common
    seeds."""
    mine = {seed: tables.final_figures(r) for seed, r in runs.items()}
    theirs = {seed: tables.final_figures(r) for seed, r in reference.items()}
    if len(set(mine) & set(theirs)) < 2:
        return None
    cells = []
    for key, _ in PAIRED:
        c = stats.compare_by_seed({s: 100 * f[key] for s, f in mine.items()},
                                  {s: 100 * f[key] for s, f in theirs.items()})
        cells += [f"{c.diff:+.1f} [{c.ci[0]:+.1f}, {c.ci[1]:+.1f}]", f"{c.p:.2f}",
                  f"{c.effect80:.1f}"]
    return [str(len(set(mine) & set(theirs))), *cells]


PAIRED_HEADS = ["row", "seeds paired", *[f"{name}{part}" for _, name in PAIRED
                                          for part in (": Δ [95% CI]", ": p", ": 80% detects")]]


HEADS = ["row", "settings", "search, seeds (mean)", "policy head", "search, quiet",
         "policy head, quiet", "immediate wins taken", "candidates accepted",
         "minutes (wall, alone)", "network evaluations, M (ledger)", "estimated CPU-minutes"]
