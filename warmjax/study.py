"""A study's runs folder while it trains: `python -m warmjax.study progress RUNS` prints its
iterations and seconds only (no rate, loss or arena result: what a registered study is
checked by while it trains); `python -m warmjax.study export RUNS FOLDER` copies its small
data (configs, metrics, judgements, round-robin journals) into a study folder for
committing (`warmjax.matches.study_runs`).

    python -m warmjax.study progress runs/study_hex_7x7_long --iterations 60 --seeds 8-13
    python -m warmjax.study export runs/study_c4_cpu studies/cpu/c4_cpu
    python -m warmjax.study export --partial /tmp/c4paper "$OUT/runs"   # on a GPU machine
"""

from __future__ import annotations

from pathlib import Path

from warmjax import cli
from warmjax.matches import study_runs


def main(argv=None) -> None:
    parser = cli.ArgumentParser("study", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(  # each subcommand's mistakes are one line too
        dest="command", required=True,
        parser_class=lambda **kwargs: cli.ArgumentParser("study", **kwargs))
    progress = commands.add_parser("progress", help="iterations and seconds only")
    progress.add_argument("study", type=Path, help="a study's runs folder (runs/study_NAME)")
    progress.add_argument("--iterations", type=int, default=None,
                          help="the runs' length, to print the iterations left")
    progress.add_argument("--seeds", default=None,
                          help="count only these seeds' runs, e.g. 8-13 (a study under a "
                               "cut keeps the folders its sweep made for the others)")
    export = commands.add_parser("export", help="copy its small data for committing")
    export.add_argument("source", type=Path)
    export.add_argument("target", type=Path)
    export.add_argument("--partial", action="store_true",
                        help="copy unfinished runs too (a time-limited device session's)")
    args = parser.parse_args(argv)
    if args.command == "progress":
        if not args.study.is_dir():
            parser.fail(f"no study folder at {args.study}")
        try:
            seeds = None if args.seeds is None else study_runs.seed_range(args.seeds)
        except ValueError as err:
            parser.fail(err)
        print("\n".join(study_runs.report(args.study, args.iterations, seeds)))
        return
    if not args.source.is_dir():
        parser.fail(f"no runs folder at {args.source}")
    try:
        size, left_out = study_runs.export(args.source, args.target, args.partial)
    except study_runs.ExportError as err:
        parser.fail(err)
    for folder in left_out:
        print(f"left out (still training): {folder}")
    print(f"{size / 1e6:.2f} MB in {args.target}")


if __name__ == "__main__":
    main()
