"""Pons' benchmark at equal compute: warmjax's CPU recipe against AlphaZero.jl's published curve.

For each run folder given (by default the Pons screen's best recipe, the `budget` row,
seeds 0 and 1: `studies/screen_pons/budget_s*`), the search's mistake rate at m = 600
on each of Pons' six sets at every judged network (`pons_iteration_NNN.json`, the
milestones, 200 positions a set; `pons.json`, the final network, 1,000) against the self-play
compute the run had spent up to it, from its ledger (`metrics.jsonl`):

- simulations: the network evaluations of self-play (`count_evals_selfplay`; Rollout's
  playouts are not counted as simulations);
- searched positions: self-play's searches, 1 + m evaluations each.

Beside them AlphaZero.jl's per-iteration rates as read off its published plot
(`../shared/benchmarks/pons/README.md`, ±0.5 point on beginning/hard), at about 75M
simulations and 125K searched positions an iteration (5,000 games at 600 simulations).
`--gpu DIR` adds a run of the GPU recipe (its `metrics.jsonl` and `pons.json`). Writes
`equal_compute_simulations.png` and `equal_compute_positions.png` and prints the table.

    python benchmarks/pons_equal_compute.py --out studies/screen_pons
"""

from __future__ import annotations

import argparse
import glob
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import yaml  # noqa: E402

SETS = ("end_easy", "middle_easy", "middle_medium", "beginning_easy", "beginning_medium",
        "beginning_hard")
TITLES = {s: s.replace("_", "/") for s in SETS}
# AlphaZero.jl's published curve (../shared/benchmarks/pons/README.md), in %, by iteration.
AZJL_ITERATIONS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15)
AZJL = {
    "beginning_easy": (3.7, 3.6, 0.7, 0.1, 0, 0.1, 0.0, 0.0, 0.0, 0.0),
    "middle_easy": (1.3, 1.0, 0.6, 0.3, 0.1, 0.0, 0.1, 0.1, 0.1, 0.0),
    "end_easy": (1.0, 0.7, 0.3, 0.2, 0, 0, 0, 0, 0, 0),
    "beginning_medium": (11.7, 12.9, 4.8, 3.7, 2.9, 2.2, 1.7, 1.5, 1.8, 2.2),
    "middle_medium": (11.0, 13.1, 7.5, 4.5, 3.7, 2.3, 2.0, 2.3, 1.7, 2.7),
    "beginning_hard": (36.0, 38.5, 14.3, 13.5, 10.8, 7.5, 6.3, 7.0, 7.0, 7.5),
}
AZJL_SIMULATIONS, AZJL_POSITIONS = 75e6, 125e3  # an iteration (published configuration)


def curve(run: Path) -> list[dict]:
    """The run's judged networks: iteration, compute spent up to it, mistake % per set."""
    m = yaml.safe_load((run / "config.yaml").read_text())["search"]["simulations"]
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    points = []
    for path in sorted(run.glob("pons*.json")):
        judged = json.loads(path.read_text())
        it = judged["settings"]["iteration"]
        evaluations = sum(r["count_evals_selfplay"] for r in rows if r["iteration"] <= it)
        points.append(dict(iteration=it, simulations=evaluations,
                           positions=evaluations / (m + 1),
                           positions_per_set=judged["sets"][SETS[0]]["positions"],
                           **{s: 100 * judged["sets"][s]["deep_search"] for s in SETS}))
    return sorted(points, key=lambda p: p["iteration"])


def draw(runs: dict[str, list[dict]], axis: str, out: Path) -> None:
    fig, panels = plt.subplots(2, 3, figsize=(13, 7.5), sharex=True)
    scale = AZJL_SIMULATIONS if axis == "simulations" else AZJL_POSITIONS
    for panel, name in zip(panels.flat, SETS):
        panel.plot([k * scale for k in AZJL_ITERATIONS], AZJL[name], "s-", color="black",
                   label="AlphaZero.jl (published; per iteration)")
        for label, points in runs.items():
            panel.plot([p[axis] for p in points], [p[name] for p in points], "o-", label=label)
        panel.set_xscale("log")
        panel.set_title(TITLES[name])
        panel.set_ylabel("mistakes, %")
        panel.grid(alpha=0.3)
    for panel in panels[1]:
        panel.set_xlabel("self-play simulations" if axis == "simulations"
                         else "self-play searched positions")
    panels[0][0].legend(fontsize=8)
    fig.suptitle("Pons' benchmark against self-play compute: the search at m = 600")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="*",
                        default=sorted(glob.glob("studies/screen_pons/budget_s*")))
    parser.add_argument("--gpu", default=None, help="a GPU recipe's run folder")
    parser.add_argument("--out", default="studies/screen_pons")
    args = parser.parse_args(argv)
    runs = {f"CPU recipe ({Path(r).name})": curve(Path(r)) for r in args.runs}
    if args.gpu:
        runs[f"GPU recipe ({Path(args.gpu).name})"] = curve(Path(args.gpu))
    out = Path(args.out)
    print("| run | iteration | simulations | searched positions | positions a set | "
          + " | ".join(TITLES[s] for s in SETS) + " |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(SETS))
    for label, points in runs.items():
        for p in points:
            print(f"| {label} | {p['iteration']} | {p['simulations'] / 1e6:.1f}M | "
                  f"{p['positions'] / 1e3:.0f}K | {p['positions_per_set']} | "
                  + " | ".join(f"{p[s]:.1f}" for s in SETS) + " |")
    for k, it in enumerate(AZJL_ITERATIONS):
        print(f"| AlphaZero.jl (published) | {it} | {it * AZJL_SIMULATIONS / 1e6:.0f}M | "
              f"{it * AZJL_POSITIONS / 1e3:.0f}K | 1,000 | "
              + " | ".join(f"{AZJL[s][k]:.1f}" for s in SETS) + " |")
    for axis in ("simulations", "positions"):
        draw(runs, axis, out / f"equal_compute_{axis}.png")
        print(f"wrote {out / f'equal_compute_{axis}.png'}")


if __name__ == "__main__":
    main()
