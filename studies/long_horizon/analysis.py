"""The long-horizon study's registered analysis (studies/long_horizon/REGISTRATION.md),
written to long_horizon.json, long_horizon.md and elo_leads.png.

A thin client of `warmjax.analysis.horizon`: the design is `design.py` beside this file;
this file reads the three studies' folders (their runs, the final round robin
`tournament/` and the horizons' `tournament_atNNN/`), costs each run's ledger with the
registered calibration table, and records the look; the analysis and its Markdown are the
library's.

The registration allows one analysis, when every run of the three studies is committed (or
at the registered cut). The tool refuses a study that lacks any registered run, iteration
or round robin, unless `--incomplete`, which labels everything "incomplete: no verdict"
(for a dry run on fabricated folders). Each run appends the look to every study folder's
looks.json first, unless the same look (seeds, iterations, note) is already there, so a
rerun from a fresh clone regenerates the same files and records nothing new.

    python studies/long_horizon/analysis.py                       # studies/long_horizon/<name>
    python studies/long_horizon/analysis.py --cut-iterations 60   # the registered cut, step 1
    python studies/long_horizon/analysis.py --root DIR --out DIR --incomplete
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from warmjax.analysis import horizon, plots, registered, study, tables
from warmjax.analysis.report import compute_curves, random_rate
from warmjax.matches.tournament_folder import AnchorEntry, TournamentFolder
from warmjax.train import run_folder

ROOT = Path("studies/long_horizon")
OUT = ROOT / "report"
# The re-issue under the decline rule with the corrections (the registration's departures,
# 2 December 2026) is a look of its own, beside the first look's.
NOTE = ("the registered analysis, re-issued with the decline rule and the corrections "
        "(studies/long_horizon/analysis.py)")


DESIGN: registered.Design = study.load_design(Path(__file__).with_name("design.py")).DESIGN


def _log(text: str) -> None:
    print(text, file=sys.stderr)


def _tournament(path: Path, seeds):
    """The round robin in `path` rated from the games among the plan's seeds and the anchors
    only: a cut leaves committed seeds' games in the journal (Hex 5×5's seeds 14 and 15),
    and through the shared anchor they would move the kept seeds' ratings."""
    if not TournamentFolder(path).has_header():
        return None
    return tables.journal_tournament(path, lambda entry: in_plan(entry, seeds))


def in_plan(entry, seeds) -> bool:
    """An anchor, or a network of one of the plan's seeds."""
    return isinstance(entry, AnchorEntry) or entry.seed in seeds


def read(root: Path, design: registered.Design, calibration: str
         ) -> tuple[list, dict, dict, list[str]]:
    """The studies under `root` as `horizon.StudyData`, their compute curves (the
    ledger's on the calibration, and measured) and the studies that have no run at all."""
    data, ledger, measured, absent = [], {}, {}, []
    k = design.measures["auc"].iterations
    for board in design.boards:
        folder = root / board.name
        runs = run_folder.seed_runs(folder, board.seeds)
        if not runs:
            absent.append(f"{board.name}: no run under {folder}")
            continue
        final = _tournament(folder / "tournament", board.seeds)
        (family,) = study.families(runs, [final] if final else [], k, tables=False)
        horizons = {}
        for h in design.horizons:
            found = _tournament(folder / f"tournament_at{h:03d}", board.seeds)
            if found is not None and h < board.iterations:
                (horizons[h],) = study.families(runs, [found], k, tables=False)
        data.append(horizon.StudyData(board, family, horizons, random_rate(family)))
        ledger.update(compute_curves(runs, calibration, design.device, _log))
        measured.update(compute_curves(runs, None, None, _log))
    return data, ledger, measured, absent


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the folder holding c4_long, hex_5x5_long and hex_7x7_long")
    parser.add_argument("--calibration", default=DESIGN.calibration)
    parser.add_argument("--cut-iterations", type=int, default=None,
                        help="the registered cut's first step: Hex at this many iterations")
    parser.add_argument("--cut-seeds", type=int, default=None,
                        help="the registered cut's second step: Hex on its first N seeds")
    parser.add_argument("--incomplete", action="store_true",
                        help="analyse what there is, labelled incomplete, with no verdict")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"output folder (default: {OUT} under the working directory)")
    args = parser.parse_args(argv)
    design = DESIGN.cut(args.cut_iterations, args.cut_seeds)
    data, ledger, measured, absent = read(args.root, design, args.calibration)
    gaps = absent + horizon.gaps(data, design)
    if gaps and not args.incomplete:
        raise SystemExit("the registered analysis needs every run, iteration and round robin "
                         "of the three studies (no interim look); missing: " + "; ".join(gaps))
    note = NOTE + (" — incomplete, no verdict" if gaps else "")
    for d in data:
        study.record_look(args.root / d.board.name, {
            "date": datetime.date.today().isoformat(), "commit": study.head_commit(),
            "seeds": list(d.board.seeds), "iterations": d.board.iterations, "note": note})
    result = horizon.analyse(data, design, ledger, measured, gaps)
    result["looks"] = {str(args.root / d.board.name): study.read_looks(args.root / d.board.name)
                       for d in data}
    out = args.out or OUT
    out.mkdir(parents=True, exist_ok=True)
    (out / "long_horizon.json").write_text(json.dumps(result, indent=1) + "\n")
    command = "python studies/long_horizon/analysis.py" + "".join(
        f" {flag} {value}" for flag, value in (("--cut-iterations", args.cut_iterations),
                                               ("--cut-seeds", args.cut_seeds))
        if value is not None)
    text = horizon.markdown(result, design, command)
    (out / "long_horizon.md").write_text(text)
    plots.plot_elo_leads(horizon.elo_leads(result, design), out / horizon.FIGURE)
    print(text)


if __name__ == "__main__":
    main()
