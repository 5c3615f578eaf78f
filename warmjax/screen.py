"""A screen of training settings (`warmjax.analysis.screen`): rows of settings, each trained
for several seeds one after the other (run it with the machine to itself: the minutes are
wall time), each final network judged on the labelled set (`python -m warmjax.oracle`), and
one Markdown row per setting.

    python -m warmjax.screen studies/screen_fast/rows.txt --seeds 0 1 2 --out runs/screen_fast
    python -m warmjax.screen ROWS --seeds 0 --dry-run           # the commands only
    python -m warmjax.screen ROWS --seeds 0 1 2 --table-only    # the table of what is there
    python -m warmjax.screen ROWS --table-only --against quick  # and each row against `quick`

A rows file holds one row per line, `name | settings` (Hydra overrides added to the
`--base` command; `#` starts a comment). A row's runs go to `--out`/NAME_sSEED; a run
already complete (its `oracle.json` written) is not trained again, so a stopped screen
resumes where it stopped, and the table counts only complete runs (a row short of some
seeds says how many it has). Before any training every row's command is composed: a row
with a setting that does not exist, or (with `--benchmark pons`) one that trains another
board than 7 columns × 6 rows, is refused in one line.

`--against REF` adds a second table: each complete row against row REF, paired by seed (the
paired t-test over the seeds both rows have, at least two), in points of optimal-move rate:
the mean difference with its 95% interval, the two-sided p, and the difference the test
detects with 80% power at the observed SD of the differences (α = 0.05).

`--benchmark pons` judges each run on Pons' Connect Four benchmark instead (a run on 7
columns × 6 rows; `python -m warmjax.oracle RUN --benchmark pons`, which writes
`pons.json`). With `--milestones N …` each run also keeps its network after those
iterations (`keep_networks`), each is judged on the benchmark (`--iteration N`;
`--milestone-positions P`: the first P of each set), and the table adds, per seed, the
first milestone (or the end) whose search is at or below the depth-5 minimax on all six
sets, with the wall minutes of training up to it. `--figure ROW PNG` then draws row ROW's
judged networks: each set's mistake rates against the minutes of training up to them,
beside the published levels (`warmjax.analysis.plots.plot_pons_curves`).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from warmjax import cli
from warmjax.analysis.screen import (
    HEADS,
    JUDGED,
    PAIRED_HEADS,
    paired_cells,
    pons_cells,
    pons_curves,
    pons_heads,
    read_rows,
    row_cells,
)
from warmjax.markdown import table
from warmjax.perfect import pons
from warmjax.train.run_folder import find_runs

__all__ = ["BASE", "commands", "main", "pons_curves", "read_rows", "refuse_unfit"]

BASE = "+experiment=adaptive_c4 profile=quick"  # the main job (README)


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


def main(argv=None) -> None:
    parser = cli.ArgumentParser("screen", description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=Path, help="the rows file (name | settings per line)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--base", default=BASE, help=f"the training command's settings "
                        f"before each row's (default: {BASE!r})")
    parser.add_argument("--out", type=Path, default=Path("runs/screen"))
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
    heads = pons_heads(pons.SETS) if args.benchmark else HEADS
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
        body.append([label, shown, *(pons_cells(runs, pons.SETS) if args.benchmark else
                                     row_cells(runs, args.calibration or None))])
    print(table(heads, body, "l" * len(heads)))
    if args.figure:
        name, png = args.figure
        runs = list(complete[name].values())
        if not runs:
            parser.error(f"--figure: row {name} has no complete run in {args.out}")
        from warmjax.analysis.plots import plot_pons_curves

        print(f"wrote {plot_pons_curves(name, pons_curves(runs, pons.SETS), pons.SETS, png)}")
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
