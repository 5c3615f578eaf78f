"""An ablation table in the style of docs/history.md: rows of training settings, each
trained for several seeds one after the other (run it with the machine to itself: the
minutes are wall time), each final network judged on the labelled set
(`python -m warmjax.oracle`), and one Markdown row per setting.

    python tools/ablation.py benchmarks/ablations/c4_fast.txt --seeds 0 1 2
    python tools/ablation.py ROWS --seeds 0 --dry-run         # the commands only
    python tools/ablation.py ROWS --seeds 0 1 2 --table-only  # the table of what is there
    python tools/ablation.py ROWS --table-only --against quick # and each row against `quick`

A rows file holds one row per line, `name | settings` (Hydra overrides added to the
`--base` command; `#` starts a comment). A row's runs go to `--out`/NAME_sSEED; a run
already complete (its `oracle.json` written) is not trained again, so a stopped ablation
resumes where it stopped, and the table counts only complete runs (a row short of some
seeds says how many it has). Before any training every row's command is composed: a row
with a setting that does not exist, or (with `--benchmark pons`) one that trains another
board than 7 columns × 6 rows, is refused in one line. The table gives, per row, each
seed's search and policy head (optimal-move rates on all positions, and the mean), the
same on the quiet positions, the policy head's share of immediate wins taken, the
candidates the arena accepted, the wall minutes of the iterations (compilation excluded),
and the compute: the ledger's network evaluations and its estimated CPU-minutes on the
calibration table's device.

`--against REF` adds a second table: each complete row against row REF, paired by seed
(`warmjax.analysis.stats.compare_by_seed`: the paired t-test over the seeds both rows
have, at least two), in points of optimal-move rate: the mean difference with its 95%
interval, the two-sided p, and the difference the test detects with 80% power at the
observed SD of the differences (α = 0.05).

`--benchmark pons` judges each run on Pons' Connect Four benchmark instead (a run on 7
columns × 6 rows; `python -m warmjax.oracle RUN --benchmark pons`, which writes
`pons.json`): the table gives, per row and set, the mistake rates of the search at the
benchmark's deep m (600) and of the policy head, each seed's and their mean, beside
AlphaZero.jl's published figures, and the seeds whose search is at or below AlphaZero.jl's
rate on all six sets (issue 72's target: `benchmarks/ablations/pons.txt`); it leaves out
the pure-MCTS reference, the same for every network, which `python -m warmjax.oracle RUN
--benchmark pons` prints. With `--milestones N …` each run also keeps its network after
those iterations (`keep_networks`), each is judged on the benchmark (`--iteration N`;
`--milestone-positions P`: the first P of each set), and the table adds, per seed, the
first milestone (or the end) whose search is at or below the depth-5 minimax on all six
sets, with the wall minutes of training up to it.
`--figure ROW PNG` then draws row ROW's judged networks (`pons_curves`): each set's mistake
rates against the minutes of training up to them, beside the published levels
(`warmjax.analysis.plots.plot_pons_curves`; issue 72's figure).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np

from warmjax.analysis import report, stats, tables
from warmjax.markdown import table
from warmjax.matches.tournament_folder import read_oracle
from warmjax.perfect import pons
from warmjax.train.run_folder import find_runs

BASE = "+experiment=adaptive_c4 profile=quick"  # the main job (README)
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


def commands(base: str, name: str, settings: str, seed: int, out: Path,
             benchmark: str | None = None, milestones=(),
             milestone_positions: int | None = None) -> list[list[str]]:
    """The training and judging commands of one row's run (judged on the labelled set, or
    on `benchmark`; with `milestones`, its networks kept after them judged first, so that a
    run whose final judgement is written is complete)."""
    run = out / f"{name}_s{seed}"
    kept = [f"keep_networks=[{','.join(map(str, milestones))}]"] if milestones else []
    train = [sys.executable, "-m", "warmjax.run", *shlex.split(base), *shlex.split(settings),
             *kept, f"seed={seed}", "tensorboard=false", f"run_dir={run}"]
    judge = [sys.executable, "-m", "warmjax.oracle", str(run)]
    if benchmark is not None:  # without pure MCTS, the same for every network and not shown
        judge += ["--benchmark", benchmark, "--no-pure-mcts"]
    subset = [] if milestone_positions is None else ["--positions", str(milestone_positions)]
    early = [[*judge, "--iteration", str(n), *subset] for n in milestones]
    return [train, *early, judge]


def refuse_unfit(base: str, rows, benchmark: str | None) -> str | None:
    """Before any training: the first row whose command does not compose (an unknown
    setting), or, on Pons' benchmark, trains another board than Connect Four 7 columns ×
    6 rows, as one line naming it; None when every row fits."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from warmjax.run import compose_run_config
    from warmjax.settings import ConfigError

    for name, settings in rows:
        overrides = [*shlex.split(base), *shlex.split(settings)]
        try:
            game = compose_run_config(overrides, "unused").game
        except (ConfigError, HydraException, OmegaConfBaseException) as err:
            return f"row {name}: its settings do not compose: {str(err).splitlines()[0]}"
        params = {"rows": game.params.get("rows"), "cols": game.params.get("cols")}
        if benchmark == "pons" and (game.name, params) != ("connect_four",
                                                           {"rows": 6, "cols": 7}):
            return (f"row {name}: --benchmark pons scores Connect Four 7 columns × 6 rows, "
                    f"and this row trains {game.name} "
                    f"{params['rows']}×{params['cols']} (add game.params.cols=7 to --base)")
    return None


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


def pons_cells(runs) -> list[str]:
    """One row's cells on Pons' benchmark (its runs' `pons.json`, one per seed in seed
    order): per set, the deep search's and the policy head's mistake rates, then the
    minutes and the seeds at or below AlphaZero.jl on every set."""
    judged = [json.loads((r.path / "pons.json").read_text()) for r in runs]
    cells = []
    for spec in pons.SETS:
        cells += [_cell([j["sets"][spec.name]["deep_search"] for j in judged]),
                  _cell([j["sets"][spec.name]["policy_head"] for j in judged])]
    matched = [all(j["sets"][spec.name]["deep_search"] <= spec.alphazero_jl[1]
                   for spec in pons.SETS) for j in judged]
    minutes = _cell([_minutes(r) for r in runs], scale=1.0)
    return [*cells, minutes, f"{sum(matched)} of {len(judged)}",
            " / ".join(minimax_reached(r) for r in runs)]


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


def minimax_reached(run) -> str:
    """The first of the run's judged networks (`judged_networks`) whose deep search is at or
    below the depth-5 minimax on all six sets: "iteration 40 (12.3 min)", the minutes those
    of training up to it; "not reached"."""
    for iteration, sets in judged_networks(run):
        if all(sets[spec.name]["deep_search"] <= spec.minimax5 for spec in pons.SETS):
            return f"iteration {iteration} ({_minutes(run, iteration):.1f} min)"
    return "not reached"


def pons_curves(runs) -> list[dict]:
    """Each run's judged networks as curves against the wall minutes of training up to them:
    `{"label": "seed S", "iterations", "minutes", "positions": {set: [...]}, "deep_search":
    {set: [...]}, "policy_head": {set: [...]}}`, in iteration order (rates in [0, 1])."""
    curves = []
    for run in runs:
        judged = judged_networks(run)
        curves.append({
            "label": f"seed {run.id.seed}", "iterations": [i for i, _ in judged],
            "minutes": [_minutes(run, i) for i, _ in judged],
            **{key: {spec.name: [sets[spec.name][key] for _, sets in judged]
                     for spec in pons.SETS}
               for key in ("deep_search", "policy_head", "positions")}})
    return curves


def pons_heads(deep: str = "m = 600") -> list[str]:
    heads = ["row", "settings"]
    for spec in pons.SETS:
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=Path, help="the rows file (name | settings per line)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--base", default=BASE, help=f"the training command's settings "
                        f"before each row's (default: {BASE!r})")
    parser.add_argument("--out", type=Path, default=Path("runs/ablation"))
    parser.add_argument("--only", nargs="+", help="train these rows only (the table shows all)")
    parser.add_argument("--calibration", default="results/calibration/cpu.json",
                        help="for the estimated CPU-minutes ('' for none)")
    parser.add_argument("--against", metavar="REF", help="also compare each row with row REF, "
                        "paired by seed")
    parser.add_argument("--benchmark", choices=("pons",), default=None,
                        help="judge on Pons' benchmark (7×6 runs) instead of the labelled set")
    parser.add_argument("--milestones", type=int, nargs="+", default=(),
                        help="with --benchmark: keep and judge the networks after these "
                             "iterations too")
    parser.add_argument("--milestone-positions", type=int, default=None,
                        help="with --milestones: judge them on the first P of each set")
    parser.add_argument("--figure", nargs=2, metavar=("ROW", "PNG"), default=None,
                        help="with --benchmark: draw row ROW's six mistake-rate curves "
                             "against minutes of training, with AlphaZero.jl's and the "
                             "depth-5 minimax's levels")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    parser.add_argument("--table-only", action="store_true", help="train nothing")
    args = parser.parse_args(argv)
    try:
        rows = read_rows(args.rows)
    except (OSError, ValueError) as err:
        parser.error(str(err))
    unknown = (set(args.only or ()) | ({args.against} if args.against else set())) \
        - {name for name, _ in rows}
    if unknown:
        parser.error(f"--only or --against names no row of {args.rows}: "
                     f"{', '.join(sorted(unknown))}")
    if args.benchmark and args.against:
        parser.error("--against compares the labelled set's rates; not with --benchmark")
    if args.milestones and not args.benchmark:
        parser.error("--milestones needs --benchmark")
    if args.figure and not args.benchmark:
        parser.error("--figure needs --benchmark")
    if args.figure and args.figure[0] not in {name for name, _ in rows}:
        parser.error(f"--figure names no row of {args.rows}: {args.figure[0]}")
    judged = JUDGED[args.benchmark]
    if not args.table_only:
        unfit = refuse_unfit(args.base, [(n, r) for n, r in rows
                                         if not args.only or n in args.only], args.benchmark)
        if unfit:
            parser.error(unfit)
        for name, settings in rows:
            if args.only and name not in args.only:
                continue
            for seed in args.seeds:
                run = args.out / f"{name}_s{seed}"
                if (run / judged).exists():
                    continue
                for command in commands(args.base, name, settings, seed, args.out,
                                        args.benchmark, args.milestones,
                                        args.milestone_positions):
                    print("$", shlex.join(command), flush=True)
                    if not args.dry_run:
                        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    if args.dry_run:
        return
    body, complete = [], {}
    heads = pons_heads() if args.benchmark else HEADS
    for name, settings in rows:
        by_seed = {}  # the complete runs: a run still training, or stopped, is not judged
        for seed in args.seeds:
            run = args.out / f"{name}_s{seed}"
            if (run / judged).exists():
                by_seed.update({seed: r for r in find_runs([run]) if r.metrics})
        complete[name] = by_seed
        runs = list(by_seed.values())
        shown = f"`{settings}`" if settings else "—"
        if not runs:
            body.append([name, shown, f"0 of {len(args.seeds)} seeds",
                         *[""] * (len(heads) - 3)])
            continue
        label = name if len(runs) == len(args.seeds) else \
            f"{name} ({len(runs)} of {len(args.seeds)} seeds)"
        body.append([label, shown, *(pons_cells(runs) if args.benchmark else
                                     row_cells(runs, args.calibration or None))])
    print(table(heads, body, "l" * len(heads)))
    if args.figure:
        name, png = args.figure
        runs = list(complete[name].values())
        if not runs:
            parser.error(f"--figure: row {name} has no complete run in {args.out}")
        from warmjax.analysis.plots import plot_pons_curves

        print(f"wrote {plot_pons_curves(name, pons_curves(runs), pons.SETS, png)}")
    if args.against:
        paired = []
        for name, _ in rows:
            cells = None if name == args.against else \
                paired_cells(complete[name], complete[args.against])
            if cells:
                paired.append([name, *cells])
        print(f"\nEach row against `{args.against}`, paired by seed (points):\n")
        print(table(PAIRED_HEADS, paired, "l" * len(PAIRED_HEADS)) if paired
              else f"no row shares two complete seeds with `{args.against}`")


if __name__ == "__main__":
    main()
