"""A registered study's analysis from its design file (`warmjax.analysis.design`): reads each
board's runs, costs their ledgers with the design's calibration table, records the look
and writes analysis.json and analysis.md, with one figure per board: its runs' policy head
and search against the ledger's compute (`compute_<board>.png`, decides nothing).

    python tools/design_analysis.py studies/fast_recipe/design.json
    python tools/design_analysis.py DESIGN --cut 1          # the first registered cut
    python tools/design_analysis.py DESIGN --root DIR --out DIR --incomplete   # a dry run

Each board's runs are read from `<root>/<board name>` (root: the design's own folder where
it holds a board's folder, as `studies/<study>/` does, else the folder above it), the
design's seeds only. The registration allows one
analysis, when every run is committed: the tool refuses a design that lacks any run or
iteration unless `--incomplete`, which labels every verdict "incomplete: no verdict". Each
run first appends the look to looks.json in the output folder (by default the design's),
unless the same look is there already, so that a rerun records nothing new.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from warmjax.analysis import design as designs
from warmjax.analysis import study
from warmjax.analysis.report import compute_curves, compute_json, random_rate
from warmjax.train import run_folder

NOTE = "the registered analysis (tools/design_analysis.py)"


def _log(text: str) -> None:
    print(text, file=sys.stderr)


def read(plan: designs.Design, root: Path) -> tuple[dict, dict, dict, dict, list[str]]:
    """Per board: its family, a random move's rate; the ledger's and the measured compute
    curves of every run; and the boards with no run at all."""
    families, rates, ledger, measured, absent = {}, {}, {}, {}, []
    for board in plan.boards:
        folder = root / board.name
        runs = run_folder.seed_runs(folder, board.seeds)
        if not runs:
            absent.append(f"{board.name}: no run under {folder}")
            continue
        found = study.families(runs, [], tables=False)
        if len(found) != 1:
            raise SystemExit(f"{folder}: its runs make {len(found)} families "
                             f"({', '.join(f.title for f in found)}); a board is one")
        families[board.name] = found[0]
        rates[board.name] = random_rate(found[0])
        ledger.update(compute_curves(runs, plan.calibration, plan.device, _log))
        measured.update(compute_curves(runs, None, None, _log))
    return families, rates, ledger, measured, absent


def figures(plan: designs.Design, families: dict, ledger: dict, out: Path) -> dict[str, str]:
    """Per board read: its runs' policy head and search rates against the ledger's compute,
    one line per run, the arms in colour (`plots.plot_against_compute`), written to
    `out/compute_<board>.png`; `{board name: file name}`."""
    from warmjax.analysis import plots

    drawn = {}
    for board in plan.boards:
        if board.name in families:
            name = f"compute_{board.name}.png"
            plots.plot_against_compute(board.title, compute_json(families[board.name], ledger),
                                       out / name)
            drawn[board.name] = name
    return drawn


def default_root(design: Path, plan: designs.Design) -> Path:
    """The design's folder where a board's folder lies beside it, else the folder above."""
    beside = design.parent
    if any((beside / board.name).is_dir() for board in plan.boards):
        return beside
    return beside.parent


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("design", type=Path, help="the study's design.json")
    parser.add_argument("--root", type=Path, default=None,
                        help="the folder holding the boards' study folders (default: the "
                        "design's folder where it holds one, else its parent)")
    parser.add_argument("--cut", type=int, default=0,
                        help="apply the first N cuts of the design's registered cut order")
    parser.add_argument("--incomplete", action="store_true",
                        help="analyse what there is, labelled incomplete, with no verdict")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: the design's folder)")
    args = parser.parse_args(argv)
    try:
        plan = designs.read(args.design).under_cuts(args.cut)
    except (OSError, ValueError) as e:
        raise SystemExit(f"design_analysis: {e}") from None
    root = args.root or default_root(args.design, plan)
    families, rates, ledger, measured, absent = read(plan, root)
    gaps = absent + designs.gaps(plan, families)
    if gaps and not args.incomplete:
        raise SystemExit("the registered analysis needs every run and iteration (no interim "
                         "look); missing: " + "; ".join(gaps))
    out = args.out or args.design.parent  # the looks go with the report they made
    study.record_look(out, {
        "date": datetime.date.today().isoformat(), "commit": study.head_commit(),
        "seeds": {b.name: list(b.seeds) for b in plan.boards},
        "iterations": plan.iterations,
        "note": NOTE + (f", {args.cut} cut(s)" if args.cut else "")
        + (" — incomplete, no verdict" if gaps else "")})
    result = designs.analyse(plan, families, rates, ledger, measured, gaps)
    result["looks"] = {str(out): study.read_looks(out)}
    result["figures"] = figures(plan, families, ledger, out)
    (out / "analysis.json").write_text(json.dumps(result, indent=1) + "\n")
    command = f"python tools/design_analysis.py {args.design}" + (
        f" --cut {args.cut}" if args.cut else "")
    text = designs.markdown(result, command)
    (out / "analysis.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
