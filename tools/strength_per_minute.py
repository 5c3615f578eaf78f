"""Strength per minute of training: when each run's per-iteration perfect-play probe first
reaches given optimal-move rates, in minutes of its iterations (compilation excluded).

    python tools/strength_per_minute.py runs/gumbel_quick/*_s0 [--policy 50 60 65 70]
        [--search 85 88 90]

Minutes are the sums of the runs' `seconds_total` up to that iteration, so they compare runs
made on the same machine under the same load only. A rate never reached prints "—".
"""

from __future__ import annotations

import argparse

from warmjax.markdown import percent, table
from warmjax.train.run_folder import find_runs


def first_minutes(metrics, field: str, level: float) -> str:
    """Minutes of training until the probe's `field` first reaches `level` (a fraction)."""
    elapsed = 0.0
    for m in metrics:
        elapsed += m.seconds_total or 0.0
        value = getattr(m, field)
        if value is not None and value >= level:
            return f"{elapsed / 60:.1f} (it {m.iteration})"
    return "—"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--policy", type=float, nargs="+", default=[50, 60, 65, 70],
                        help="policy-head optimal rates, in percent")
    parser.add_argument("--search", type=float, nargs="+", default=[85, 88, 90],
                        help="search optimal rates, in percent")
    args = parser.parse_args(argv)
    rows = []
    for run in find_runs(args.runs):
        metrics = run.metrics
        if not metrics:
            continue
        search = run.config.search
        last = metrics[-1]
        minutes = sum(m.seconds_total or 0.0 for m in metrics) / 60
        rows.append([run.id.label(seed=True), f"{search.baseline_search}, m = {search.simulations}",
                     len(metrics), f"{minutes:.1f}", percent(last.oracle_optimal),
                     percent(last.oracle_policy),
                     *[first_minutes(metrics, "oracle_policy", p / 100) for p in args.policy],
                     *[first_minutes(metrics, "oracle_optimal", s / 100) for s in args.search]])
    print(table(["run", "search", "iterations", "minutes", "final search %", "final policy %",
                 *[f"policy ≥ {p:g}%: min" for p in args.policy],
                 *[f"search ≥ {s:g}%: min" for s in args.search]], rows))


if __name__ == "__main__":
    main()
