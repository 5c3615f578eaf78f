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
