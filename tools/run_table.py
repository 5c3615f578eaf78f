"""Per-run, per-iteration metrics of the run folders under a directory, as one Markdown table
(for device sessions, whose run folders do not come back).

    python tools/run_table.py runs/fixed_c4
"""

from __future__ import annotations

import argparse

from warmjax.markdown import percent, table
from warmjax.train.run_folder import find_runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root")
    args = parser.parse_args()
    rows = []
    for run in find_runs([args.root]):
        for m in run.metrics:
            rows.append([run.id.label(seed=True), m.iteration,
                         "yes" if m.warmstart_active else "no", f"{m.r_balance:+g}",
                         m.examples, m.train_steps,
                         f"{m.arena_wins}-{m.arena_draws}-{m.arena_losses}",
                         "yes" if m.accepted else "no", percent(m.oracle_optimal),
                         percent(m.oracle_policy),
                         "" if m.seconds_total is None else f"{m.seconds_total:.1f}"])
    print(table(["run", "iteration", "warm start", "r", "examples", "train steps",
                 "arena W-D-L", "accepted", "search optimal %", "policy optimal %", "group s"],
                rows))


if __name__ == "__main__":
    main()
