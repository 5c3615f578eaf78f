"""The papers' figures and tables from run folders and tournaments, or a study's statistics
and claims, as PNG and Markdown (the library: `warmjax.analysis.report`).

    JAX_PLATFORMS=cpu python -m warmjax.report --runs 'runs/adaptive_*/*' \
        --tournaments tournaments/c4 tournaments/othello --out report
    JAX_PLATFORMS=cpu python -m warmjax.report --study runs/study_c4_cpu --out report_c4
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
    parser.add_argument("--out", default="report", help="output folder (default: report)")
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    main()
