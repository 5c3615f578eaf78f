"""The confirmatory Connect Four study's analysis exactly as registered
(studies/c4_confirm/REGISTRATION.md), written into the study's folder beside its data.

A thin client of `warmjax.analysis.registered`: `design.py` beside it holds the design
and this file reads the study; the analysis and its Markdown are the library's. Three
hypotheses on the policy head's optimal-move rate, each paired by seed (the paired t-test,
two-sided):

- H1: adaptive WRoRa − baseline;
- H2: fixed WRoRa I′ = 5 − baseline;
- H3: adaptive WRoRa − fixed WRoRa I′ = 5.

The primary measure is the AUC over iterations 1–8, the secondary the rate at iteration
15. Per measure the three p-values are adjusted together by Benjamini–Hochberg, and each
hypothesis is decided by the verdict rule (`stats.decide`, δ = 2 points) on its adjusted p.
Claim 1 is H1 and H2 decided together (reproduced if both are; contradicted if both
intervals lie below +δ or either is significantly negative); claim 3 is H3. Wilcoxon's
and Welch's p are sensitivity columns; the final networks' Elo in each seed's round robin,
centred on the seed's mean and paired by seed, is reported beside and decides nothing.

The registration allows no interim analysis: the tool refuses a study whose arms do not all
have the registered seeds with every iteration, unless `--incomplete`, which labels the
output incomplete and claims no verdict.

    python studies/c4_confirm/analysis.py studies/c4_confirm/c4_confirm
    python studies/c4_confirm/analysis.py DIR --seeds 0 1 2 3 --incomplete   # a dry run
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from warmjax.analysis import registered, study, tables
from warmjax.matches.tournament_folder import TournamentFolder
from warmjax.train import run_folder

DESIGN: registered.Design = study.load_design(Path(__file__).with_name("design.py")).DESIGN
SEEDS, ITERATIONS = DESIGN.board.seeds, DESIGN.board.iterations
AUC_ITERATIONS = DESIGN.measures["auc"].iterations


def analyse(folder: Path, seeds: tuple[int, ...] = SEEDS, iterations: int = ITERATIONS,
            allow_incomplete: bool = False) -> dict:
    """The registered analysis of the study in `folder` (its runs and `tournament/`), on
    the registered seeds and iterations or, for a dry run, on others."""
    runs = [r for r in run_folder.find_runs([folder]) if r.id.seed in seeds]
    found = []
    if TournamentFolder(folder / "tournament").has_header():
        found.append(tables.journal_tournament(folder / "tournament"))
    (family,) = study.families(runs, found, AUC_ITERATIONS)
    design = DESIGN.runs(seeds, iterations)
    missing = set(design.board.roles) - set(design.roles(family))
    if missing:
        raise SystemExit(f"the study has no {', '.join(sorted(missing))} arm")
    gaps = registered.missing(design.roles(family), seeds, iterations)
    if gaps and not allow_incomplete:
        raise SystemExit("the registered analysis needs every run of every seed (no interim "
                         "look); missing: " + "; ".join(gaps))
    return registered.analyse(family, design, gaps, folder=str(folder))


def markdown(result: dict) -> str:
    return registered.markdown(result, DESIGN,
                               f"python studies/c4_confirm/analysis.py {result['folder']}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    parser.add_argument("--iterations", type=int, default=ITERATIONS)
    parser.add_argument("--incomplete", action="store_true",
                        help="analyse what there is, labelled incomplete, with no verdict")
    parser.add_argument("--out", type=Path, help="folder for registered.md and "
                        "registered.json (default: the folder above the data's, the study's)")
    args = parser.parse_args(argv)
    result = analyse(args.folder, tuple(args.seeds), args.iterations, args.incomplete)
    out = args.out or args.folder.parent
    out.mkdir(parents=True, exist_ok=True)
    (out / "registered.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "registered.md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
