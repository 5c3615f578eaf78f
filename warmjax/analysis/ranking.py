"""Does a predictor rank boards by an outcome? Exact rank tests for a handful of boards.

A registered prediction across boards (`studies/where_it_helps/REGISTRATION.md`): each board
has a predictor value measured before its runs and an outcome measured from them (warm
start's early gain). With five boards no large-sample approximation holds, so every p-value
here is exact, by enumerating orderings:

- `spearman_test`: Spearman's ρ of predictor and outcome, and the one-sided p of ρ at least
  as large under every ordering of the outcomes (n! of them; a perfect ranking of five gives
  p = 1/120);
- `placement_test`: the out-of-sample part, where some boards' outcomes were known before
  the prediction: the in-sample outcomes keep their observed order, the new boards' ranks
  among all n are drawn uniformly (n·(n−1)·… placements), and p is the share of placements
  whose ρ is at least the observed one;
- `early_gain`: the outcome per board, a warm-start arm's mean rate over a window of
  iterations minus the baseline's, paired by seed, with a t interval.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats as scipy_stats


def ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1…n, ties given their mean rank."""
    return scipy_stats.rankdata(np.asarray(values, float))


def rho_of_ranks(x_ranks: np.ndarray, y_ranks: np.ndarray) -> float:
    """Spearman's ρ: the Pearson correlation of the two rankings."""
    return float(np.corrcoef(x_ranks, y_ranks)[0, 1])


def spearman_test(predictor: Sequence[float], outcome: Sequence[float]) -> tuple[float, float]:
    """`(ρ, p)`: Spearman's ρ and its exact one-sided p (ρ > 0 predicted): the share of the
    n! orderings of the outcomes whose ρ with the predictor is at least the observed one."""
    x, y = ranks(predictor), ranks(outcome)
    observed = rho_of_ranks(x, y)
    at_least = total = 0
    for order in itertools.permutations(y):
        total += 1
        at_least += rho_of_ranks(x, np.asarray(order)) >= observed - 1e-12
    return observed, at_least / total


def placement_test(predictor: Sequence[float], outcome: Sequence[float],
                   new: Sequence[int]) -> tuple[float, float, int]:
    """`(ρ, p, placements)`: the out-of-sample test of the boards at indices `new`. The
    other boards' outcomes keep their observed order; each ordered choice of distinct ranks
    1…n for the new boards (n!/(n−k)! of them, equally likely) fills the rest in that
    order; p is the share of placements whose ρ is at least the observed one (at best
    1/placements)."""
    n, new = len(outcome), list(new)
    x, y = ranks(predictor), ranks(outcome)
    observed = rho_of_ranks(x, y)
    old = [i for i in range(n) if i not in new]
    old_order = sorted(old, key=lambda i: y[i])  # the in-sample boards, lowest outcome first
    at_least = total = 0
    for chosen in itertools.permutations(range(1, n + 1), len(new)):
        placed = np.zeros(n)
        for i, r in zip(new, chosen):
            placed[i] = r
        rest = iter(r for r in range(1, n + 1) if r not in chosen)
        for i in old_order:
            placed[i] = next(rest)
        total += 1
        at_least += rho_of_ranks(x, placed) >= observed - 1e-12
    return observed, at_least / total, total


def early_gain(warm: Mapping[int, float], baseline: Mapping[int, float]) -> dict:
    """Per seed the warm-start run's outcome minus the baseline run's (each already the
    mean over the window), paired by the seeds both have: the mean, its 95% t interval and
    the per-seed differences."""
    seeds = sorted(set(warm) & set(baseline))
    if len(seeds) < 2:
        raise ValueError(f"an early gain needs at least two paired seeds, got {seeds}")
    diffs = np.array([warm[s] - baseline[s] for s in seeds], float)
    mean = float(diffs.mean())
    half = float(scipy_stats.t.ppf(0.975, len(diffs) - 1) * diffs.std(ddof=1)
                 / math.sqrt(len(diffs)))
    return {"mean": mean, "interval": [mean - half, mean + half], "seeds": seeds,
            "differences": diffs.tolist()}


# --- the registered prediction across boards --------------------------------------------

HOLDS, FAILS, AGAINST = "holds", "does not hold", "counts against the prediction"


def window_mean(curve: Mapping[int, float], window: Sequence[int]) -> float:
    """The mean rate over the probed iterations `window[0]` … `window[1]`."""
    points = [v for it, v in curve.items() if window[0] <= it <= window[1]]
    if not points:
        raise ValueError(f"no probe in iterations {window[0]}-{window[1]}")
    return float(np.mean(points))


def board_gain(family, metric: str, window: Sequence[int],
               seeds: Sequence[int] | None = None) -> dict:
    """A board's early gain (`early_gain`): its warm-start arm's mean `metric` rate
    ("search", "policy": `model.METRICS`) over `window` minus its baseline's, paired by
    seed (the family's two arms, `design.arms_of`; `seeds`: those of the design, None: all).

    Raises:
      ValueError: a family without both arms, or fewer than two paired seeds.
    """
    from warmjax.analysis.model import curve
    from warmjax.analysis.two_arms import arms_of

    baseline, warm = arms_of(family)
    if baseline is None or warm is None:
        raise ValueError(f"{family.title}: an early gain needs a baseline and a warm-start arm")

    def means(arm) -> dict[int, float]:
        return {r.id.seed: window_mean(curve(r, metric), window) for r in arm.runs
                if seeds is None or r.id.seed in seeds}

    return early_gain(means(warm), means(baseline))


def _verdict(p: float, holds_at: float, rho: float, against_p: float | None) -> str:
    if rho <= 0 or (against_p is not None and p >= against_p):
        return AGAINST
    return HOLDS if p <= holds_at + 1e-12 else FAILS


def prediction(boards: Sequence[Mapping], *, holds_at: float = 0.05,
               out_of_sample_holds_at: float = 0.10, against_p: float = 0.5) -> dict:
    """The registered prediction's record from each board's `name`, `predictor` (points),
    `gain` (`early_gain`, rates) and `sample` ("in sample" or "out of sample"): Spearman's
    ρ of predictor and gain with its exact one-sided p over every ordering (holds at
    p ≤ `holds_at`), and the out-of-sample boards' placement test (holds at conditional
    p ≤ `out_of_sample_holds_at`). Either counts against the prediction at ρ ≤ 0, the
    placement test also at conditional p ≥ `against_p`."""
    names = [b["name"] for b in boards]
    x = [float(b["predictor"]) for b in boards]
    y = [float(b["gain"]["mean"]) for b in boards]
    rho, p = spearman_test(x, y)
    out = {"boards": [dict(b) for b in boards],
           "ranks": {"predictor": dict(zip(names, ranks(x).tolist())),
                     "gain": dict(zip(names, ranks(y).tolist()))},
           "spearman": {"rho": rho, "p": p, "orderings": math.factorial(len(y)),
                        "holds_at": holds_at, "verdict": _verdict(p, holds_at, rho, None)}}
    new = [i for i, b in enumerate(boards) if b["sample"] == "out of sample"]
    if new:
        rho_new, p_new, placements = placement_test(x, y, new)
        out["out_of_sample"] = {
            "boards": [names[i] for i in new], "rho": rho_new, "p": p_new,
            "placements": placements, "holds_at": out_of_sample_holds_at,
            "verdict": _verdict(p_new, out_of_sample_holds_at, rho_new, against_p)}
    return out


def prediction_markdown(record: Mapping) -> str:
    """The prediction's table and verdicts, from its record alone."""
    from warmjax.markdown import table

    rows = [[b["title"], b["sample"], f"{b['predictor']:+.1f}",
             f"{100 * b['gain']['mean']:+.1f} [{100 * b['gain']['interval'][0]:+.1f}, "
             f"{100 * b['gain']['interval'][1]:+.1f}]", str(len(b["gain"]["seeds"])),
             f"{record['ranks']['predictor'][b['name']]:g}",
             f"{record['ranks']['gain'][b['name']]:g}"] for b in record["boards"]]
    s = record["spearman"]
    lines = [table(["board", "", "predictor (points)", "early gain (points) [95%]", "seeds",
                    "predictor's rank", "gain's rank"], rows), "",
             f"Spearman's ρ = {s['rho']:+.2f}, exact one-sided p = {s['p']:.3g} over "
             f"{s['orderings']} orderings (holds at p ≤ {s['holds_at']:g}): **{s['verdict']}**."]
    if "out_of_sample" in record:
        o = record["out_of_sample"]
        lines.append(f"Out of sample ({', '.join(o['boards'])}): conditional p = {o['p']:.3g} "
                     f"over {o['placements']} placements (holds at p ≤ {o['holds_at']:g}; "
                     f"at best {1 / o['placements']:.3g}): **{o['verdict']}**.")
    return "\n".join(lines) + "\n"
