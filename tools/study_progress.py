"""A running study's progress without its results: for each run folder, the iterations done
and the seconds they took, read from `metrics.jsonl`'s `iteration` and `seconds_total`
alone. A registered study is checked this way while it trains (its registration's "Looks"),
so nothing here prints a rate, a loss or an arena result.

    python tools/study_progress.py runs/study_hex_7x7_long [--iterations 60] [--seeds 8-13]

`--seeds` counts only those seeds' runs (a study under a cut keeps the folders its sweep
made for the others).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path


def seed_range(text: str) -> range:
    """`8-13` (inclusive) or `8`: the seeds to count."""
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"seeds must read like 8-13 or 8, not {text!r}")
    first = int(match[1])
    last = int(match[2]) if match[2] else first
    return range(first, last + 1)


def progress(run: Path) -> tuple[int, float]:
    """The iterations done and their seconds in all, from the two timing fields only."""
    path = run / "metrics.jsonl"
    if not path.exists():
        return 0, 0.0
    done, seconds = 0, 0.0
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            done = max(done, int(row["iteration"]))
            seconds += float(row["seconds_total"])
    return done, seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", type=Path, help="a study's folder under runs/")
    parser.add_argument("--iterations", type=int, default=None,
                        help="the runs' length, to print the iterations left")
    parser.add_argument("--seeds", type=seed_range, default=None,
                        help="count only these seeds' runs, e.g. 8-13")
    args = parser.parse_args(argv)
    if not args.study.is_dir():
        raise SystemExit(f"error: no study folder at {args.study}")
    total_done, total_seconds, left = 0, 0.0, 0
    for run in sorted(p for p in args.study.iterdir() if p.is_dir() and "seed=" in p.name):
        seed = int(re.search(r"seed=(\d+)", run.name)[1])
        if args.seeds is not None and seed not in args.seeds:
            continue
        done, seconds = progress(run)
        total_done += done
        total_seconds += seconds
        if args.iterations is not None:
            left += max(args.iterations - done, 0)
        if done:
            print(f"{run.name:40s} {done:4d} iterations  {seconds / 60:6.1f} min")
    line = f"in all: {total_done} iterations, {total_seconds / 3600:.2f} h"
    if args.iterations is not None and total_done:
        per = total_seconds / total_done
        line += f"; {left} left, about {left * per / 3600:.1f} h at {per:.0f} s each"
    print(line)


if __name__ == "__main__":
    main()
