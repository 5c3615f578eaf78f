"""The papers' figures and tables from run folders and tournaments, or a study's statistics
and claims, as PNG and Markdown (the library: `warmjax.analysis.report`).

    JAX_PLATFORMS=cpu python -m warmjax.report --runs 'runs/adaptive_*/*' \
        --tournaments tournaments/c4 tournaments/othello --out report
    JAX_PLATFORMS=cpu python -m warmjax.report --study runs/study_c4_cpu --out report_c4
    JAX_PLATFORMS=cpu python -m warmjax.report --design studies/fast_recipe   # registered
    JAX_PLATFORMS=cpu python -m warmjax.report --design studies/cpu   # the papers' claims
"""

from __future__ import annotations

from collections.abc import Sequence

from warmjax import cli
from warmjax.analysis import model
from warmjax.analysis.report import render_study, study_record, write_runs


def main(argv: Sequence[str] | None = None) -> None:
    parser = cli.ArgumentParser(
        "report", description="The papers' figures and tables (PNG + Markdown) from run "
                              "folders and tournaments.")
    parser.add_argument("--runs", nargs="*", default=[],
                        help="run folders or (quoted) glob patterns, for the switch table "
                             "and the reward balance")
    parser.add_argument("--tournaments", nargs="*", default=[],
                        help="tournament folders (python -m warmjax.tournament --out)")
    parser.add_argument("--study", nargs="*", default=[],
                        help="study folders (python -m warmjax.run -m +study=NAME): the "
                             "statistics, curves and claims (study.json, study.md)")
    parser.add_argument("--auc-iterations", type=int, default=None,
                        help="k of a study's area under the learning curve (default: half "
                             "the runs' iterations)")
    parser.add_argument("--delta", type=float, default=model.DELTA,
                        help="a study's smallest gain worth finding, as a rate "
                             f"(default {model.DELTA})")
    parser.add_argument("--calibration", default=None,
                        help="a study's calibration table (python -m warmjax.calibrate): time "
                             "to strength also against the ledger's estimated seconds "
                             "(default: against the runs' measured seconds)")
    parser.add_argument("--device", default=None,
                        help="the calibration table's device, e.g. 'cpu: 2 cores' (default: "
                             "its first row for the game)")
    parser.add_argument("--measure", action="append", default=[], metavar="NAME",
                        help="a further measure of the study's arms, e.g. selfplay_speed "
                             "(warmjax.analysis.arm_measures; repeatable)")
    parser.add_argument("--design", default=None, metavar="STUDY",
                        help="a registered study's folder (or its design file): its one "
                             "analysis, as analysis.json and analysis.md (a design.json) or "
                             "registered.json and registered.md (a design.py; "
                             "warmjax.analysis.engine)")
    parser.add_argument("--cut", type=int, default=0,
                        help="with --design: apply the first N cuts of its registered cut "
                             "order")
    parser.add_argument("--papers", action="store_true",
                        help="with --design: write the folder's exploratory reports (the "
                             "papers' four claims: its design.py's PAPERS) where it also has "
                             "a registered DESIGN")
    parser.add_argument("--incomplete", action="store_true",
                        help="with --design: analyse what there is, labelled incomplete, with "
                             "no verdict (a dry run)")
    parser.add_argument("--root", default=None,
                        help="with --design: the folder holding its boards' run folders "
                             "(default: the study's folder where it holds one, else its parent)")
    parser.add_argument("--out", default=None,
                        help="output folder (default: report; with --design, the study's "
                             "folder)")
    args = parser.parse_args(argv)
    if args.design is not None:
        _design(parser, args)
        return
    args.out = args.out or "report"
    problem = cli.folder_problem(args.out)  # before the work, not after it
    if problem is not None:
        parser.fail(problem)
    try:
        if args.study:
            written = render_study(study_record(
                args.study, args.tournaments, args.auc_iterations, args.delta,
                calibration=args.calibration, device=args.device,
                measures=args.measure), args.out)
            start = "study.md"
        else:
            written = write_runs(args.runs, args.tournaments, args.out)
            start = "summary.md"
    except ValueError as err:
        cli.fail(err, "report")
    print(f"wrote {len(written)} files to {args.out}; start with {args.out}/{start}")


def _design(parser, args) -> None:
    from pathlib import Path

    from warmjax.analysis import engine

    if not engine.design_file(args.design).is_file():
        parser.fail(f"no {engine.DESIGN_PY} or {engine.DESIGN} at {args.design}")
    if args.papers and engine.design_file(args.design).suffix != ".py":
        parser.fail(f"--papers writes a {engine.DESIGN_PY}'s PAPERS; {args.design} has "
                    f"{engine.design_file(args.design).name}")
    out = Path(args.out) if args.out else None
    problem = cli.folder_problem(str(out or engine.design_file(args.design).parent))
    if problem is not None:
        parser.fail(problem)
    try:
        _, text = engine.analyse_folder(args.design, root=Path(args.root) if args.root else None,
                                        cut=args.cut, incomplete=args.incomplete, out=out,
                                        papers=args.papers)
    except ValueError as err:
        cli.fail(err, "report")
    print(text)


if __name__ == "__main__":
    main()
