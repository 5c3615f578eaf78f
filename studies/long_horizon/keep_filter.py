"""How much the long-horizon analysis's keep filter moves its Elo leads: the round robins
rated from the games among the cut's seeds and the anchors (`engine.in_plan`, the analysis
as run) against all their games (Hex 5×5's seeds 14 and 15 played before the cut). Prints
the largest change of a per-seed lead, adaptive − baseline, per study.

    python studies/long_horizon/keep_filter.py
"""

from __future__ import annotations

from pathlib import Path

from warmjax.analysis import engine, study

ROOT = Path(__file__).parent
MODULE = study.load_design(ROOT / "design.py")


def leads(keep) -> dict[str, list[float]]:
    """Per study, the per-seed Elo leads with the round robins filtered by `keep`."""
    design = MODULE.DESIGN.cut(**MODULE.CUTS[-1])
    data, _, _, _ = engine.read_horizons(ROOT, design, keep=keep)
    out = {}
    for d in data:
        arms = design.roles(d.family)
        base, arm = arms["baseline"].by_seed("elo"), arms["adaptive"].by_seed("elo")
        out[d.board.name] = [arm[s] - base[s] for s in sorted(arm)]
    return out


def main() -> None:
    filtered = leads(engine.in_plan)
    every = leads(lambda entry, seeds: True)
    for name in filtered:
        change = max(abs(a - b) for a, b in zip(filtered[name], every[name]))
        print(f"{name}: largest change of a seed's lead {change:.2f} Elo")


if __name__ == "__main__":
    main()
