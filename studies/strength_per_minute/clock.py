"""Strength per minute of training: when each run's per-iteration perfect-play probe first
reaches given optimal-move rates, in minutes of its iterations (compilation excluded); with
`--figure`, the rates against the minutes and against compute; with `--targets`, each run's
final figures (its `oracle.json`, `python -m warmjax.oracle`) against the targets.

    python studies/strength_per_minute/clock.py runs/gumbel_quick/*_s0 [--policy 50 60 65 70]
        [--search 85 88 90] [--figure strength.png --calibration results/calibration/cpu.json]
        [--targets "minutes=15 search=95 policy=85 search_quiet=90 policy_quiet=80"]

Minutes are the sums of the runs' `seconds_total` up to that iteration, so they compare runs
made on the same machine under the same load only. Compute is the ledger's estimated
seconds on the calibration table's device (`analysis.compute`; reconstructed for runs from
before the ledger), comparable across machines and loads. A rate never reached prints "—".
"""

from __future__ import annotations

import argparse

from warmjax.analysis import compute, plots, report, tables
from warmjax.markdown import percent, table
from warmjax.train.run_folder import find_runs

# quiet_over_pure: the search's optimal rate on the quiet positions minus pure MCTS's (the
# oracle's pure_mcts, 100 playouts by default), in points.
TARGET_KEYS = ("minutes", "search", "policy", "search_quiet", "policy_quiet", "quiet_over_pure")


def first_minutes(metrics, field: str, level: float) -> str:
    """Minutes of training until the probe's `field` first reaches `level` (a fraction)."""
    elapsed = 0.0
    for m in metrics:
        elapsed += m.seconds_total or 0.0
        value = getattr(m, field)
        if value is not None and value >= level:
            return f"{elapsed / 60:.1f} (it {m.iteration})"
    return "—"


def parse_targets(text: str) -> dict[str, float]:
    """`"minutes=15 search=95 policy=85"` → `{"minutes": 15.0, "search": 0.95, ...}` (rates
    given in percent, returned as fractions).

    Raises:
      ValueError: a key other than TARGET_KEYS, or a value that is not a number.
    """
    out = {}
    for item in text.split():
        key, _, value = item.partition("=")
        if key not in TARGET_KEYS:
            raise ValueError(f"unknown target {key!r}; choose from {', '.join(TARGET_KEYS)}")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"target {key} needs a number, got {value!r}") from None
        out[key] = number if key == "minutes" else number / 100
    return out


def targets_table(runs, targets: dict[str, float]) -> str:
    """Each run's final figures, each marked met (✓) or not (✗) against its target."""
    rows = []
    for run in runs:
        got = tables.final_figures(run)
        cells = []
        for key in TARGET_KEYS:
            value = got.get(key)
            if value is None:
                cells.append("—")
                continue
            text = (f"{value:.1f}" if key == "minutes" else f"{100 * value:+.1f}"
                    if key == "quiet_over_pure" else percent(value))
            if key in targets:
                met = value <= targets[key] if key == "minutes" else value >= targets[key]
                text += " ✓" if met else " ✗"
            cells.append(text)
        rows.append([run.id.label(seed=True), *cells])
    heads = [k if k not in targets else f"{k} (≤ {targets[k]:g})" if k == "minutes"
             else f"{k} (≥ {100 * targets[k]:+g} points)" if k == "quiet_over_pure"
             else f"{k} (≥ {100 * targets[k]:g}%)" for k in TARGET_KEYS]
    return table(["run", *heads], rows)


def figure_runs(runs, calibration: str | None) -> list[dict]:
    """What `plots.plot_strength_over_time` draws, per run: the rates against the measured
    minutes, and against the estimated compute where `calibration` has the run's row (the
    study report's `compute_curves`)."""
    estimated = report.compute_curves(runs, calibration, None, lambda s: print(s)) \
        if calibration else {}
    out = []
    for run in runs:
        measured = compute.compute_curve(run, None, "measured")
        curve = estimated.get(run.path)
        out.append({"label": run.id.label(seed=True),
                    "minutes": [s / 60 for s in measured.seconds] if measured else
                    [m.iteration for m in run.metrics],
                    "compute": [s / 60 for s in curve.seconds] if curve else None,
                    "compute_source": curve.source if curve else None,
                    "policy": [m.oracle_policy for m in run.metrics],
                    "search": [m.oracle_optimal for m in run.metrics]})
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--policy", type=float, nargs="+", default=[50, 60, 65, 70],
                        help="policy-head optimal rates, in percent")
    parser.add_argument("--search", type=float, nargs="+", default=[85, 88, 90],
                        help="search optimal rates, in percent")
    parser.add_argument("--figure", help="write the figure of strength against minutes here")
    parser.add_argument("--calibration", help="a calibration table (python -m "
                        "warmjax.calibrate): the figure's compute axis")
    parser.add_argument("--targets", help='e.g. "minutes=15 search=95 policy=85 '
                        'search_quiet=90 policy_quiet=80" (rates in percent)')
    args = parser.parse_args(argv)
    try:
        targets = parse_targets(args.targets) if args.targets else {}
    except ValueError as err:
        parser.error(str(err))
    runs = [r for r in find_runs(args.runs) if r.metrics]
    rows = []
    for run in runs:
        metrics = run.metrics
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
    if targets:
        print()
        print(targets_table(runs, targets))
    if args.figure:
        path = plots.plot_strength_over_time(figure_runs(runs, args.calibration), args.figure,
                                             {k: v for k, v in targets.items()
                                              if k in ("policy", "search")})
        print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
