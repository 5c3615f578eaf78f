"""Time to strength with censoring (method.md §12): how much compute, or how many
iterations, a run needs before its probe rate first reaches a threshold. No JAX here.

A run that never reaches the threshold is **censored** at its budget (its compute, or its
iterations, at its last row), not dropped: it says "more than this". Per arm the times get
scipy's Kaplan–Meier estimate (`scipy.stats.ecdf` on `CensoredData`), with

- the median, the first time the curve is below 1/2, and its 95% interval, read off the
  curve's pointwise log-log band the same way (the median is None when no more than half
  the runs got there; an end of the interval is None where the band never falls below
  1/2: "beyond the data");
- the restricted mean time up to τ (RMST): the area under the survival curve from 0 to τ,
  the mean time to the threshold when every run is stopped at τ. With τ no later than
  every compared run's budget it is defined however many runs were censored.

Two arms are compared by the log-rank test (`scipy.stats.logrank`) and by the **speed-up
ratio** RMST(reference) / RMST(arm): above 1, the arm gets there sooner. Its interval is a
percentile bootstrap over seeds: each resample draws seeds with replacement and keeps both
arms' runs of a seed together, since they share the seed's initial network.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
RESAMPLES = 2000


@dataclasses.dataclass(frozen=True)
class Passage:
    """One run's first passage over one threshold."""

    time: float  # when it first reached it; its budget if it never did
    reached: bool  # False: censored at `time`


def first_passage(values: Sequence[float | None], times: Sequence[float], threshold: float
                  ) -> Passage:
    """The first time `values[i] ≥ threshold` (values None are not measured), else the run
    censored at its last time.

    Args:
      values: a run's rate after each iteration (None where the probe did not run).
      times: the compute (or iteration) after each iteration, increasing.
      threshold: the step of the ladder.
    """
    if len(values) != len(times) or not times:
        raise ValueError("a run needs one time per value, and at least one")
    for value, time in zip(values, times):
        if value is not None and value >= threshold:
            return Passage(float(time), True)
    return Passage(float(times[-1]), False)


def _censored(passages: Sequence[Passage]) -> stats.CensoredData:
    times = np.array([p.time for p in passages], float)
    reached = np.array([p.reached for p in passages], bool)
    return stats.CensoredData(uncensored=times[reached], right=times[~reached])


@dataclasses.dataclass(frozen=True)
class KaplanMeier:
    """An arm's Kaplan–Meier summary at one threshold."""

    runs: int
    reached: int
    median: float | None  # None: fewer than half the runs reached the threshold
    median_ci: tuple[float | None, float | None]
    tau: float
    rmst: float  # restricted mean time up to tau


def _survival(passages: Sequence[Passage]):
    """`(times, survival, lower, upper)`: the curve's steps at the event times and the
    pointwise log-log 95% band (scipy), or empty arrays when no run reached."""
    if not any(p.reached for p in passages):
        return (np.array([]),) * 4
    sf = stats.ecdf(_censored(passages)).sf
    with warnings.catch_warnings():  # undefined where the curve is 1 or 0: said below
        warnings.simplefilter("ignore", RuntimeWarning)
        band = sf.confidence_interval(CONFIDENCE, method="log-log")
    survival = sf.probabilities
    # The log-log band is undefined where the curve is at 1 or 0; it is the curve there.
    low = np.where(np.isnan(band.low.probabilities), survival, band.low.probabilities)
    high = np.where(np.isnan(band.high.probabilities), survival, band.high.probabilities)
    return sf.quantiles, survival, low, high


def _crossing(times: np.ndarray, curve: np.ndarray, level: float = 0.5) -> float | None:
    """The first time the step curve is below `level` (more than half the runs have got
    there, lifelines' convention); None if it never is."""
    below = np.flatnonzero(curve < level - 1e-12)
    return float(times[below[0]]) if below.size else None


def rmst(passages: Sequence[Passage], tau: float) -> float:
    """The area under the Kaplan–Meier curve from 0 to `tau`."""
    times, survival, _, _ = _survival(passages)
    keep = times < tau
    edges = np.concatenate([[0.0], times[keep], [tau]])
    heights = np.concatenate([[1.0], survival[keep]])
    return float(np.sum(np.diff(edges) * heights))


def kaplan_meier(passages: Sequence[Passage], tau: float) -> KaplanMeier:
    """The arm's estimate (see the module docstring); `tau` bounds the restricted mean."""
    times, survival, low, high = _survival(passages)
    median = _crossing(times, survival)
    return KaplanMeier(
        runs=len(passages), reached=sum(p.reached for p in passages), median=median,
        median_ci=(_crossing(times, low), _crossing(times, high)), tau=float(tau),
        rmst=rmst(passages, tau))


def log_rank(a: Sequence[Passage], b: Sequence[Passage]) -> float:
    """The two-sided log-rank p-value of two arms' passages (1.0 where no run of either
    reached the threshold: nothing to compare)."""
    if not any(p.reached for p in (*a, *b)):
        return 1.0
    p = float(stats.logrank(_censored(a), _censored(b)).pvalue)
    return 1.0 if math.isnan(p) else p  # every time equal: nothing to tell them apart


@dataclasses.dataclass(frozen=True)
class Speedup:
    """RMST(reference) / RMST(arm) with its bootstrap interval over seeds."""

    ratio: float
    ci: tuple[float, float]
    tau: float
    seeds: int


def speedup(reference: Mapping[int, Passage], arm: Mapping[int, Passage], tau: float,
            resamples: int = RESAMPLES, seed: int = 0) -> Speedup:
    """The speed-up of `arm` over `reference` on their common seeds (see the module
    docstring); the resamples' generator is seeded, so the interval is reproducible.

    Raises:
      ValueError: fewer than two common seeds.
    """
    seeds = sorted(set(reference) & set(arm))
    if len(seeds) < 2:
        raise ValueError("a speed-up needs at least two seeds with both arms")
    ref = [reference[s] for s in seeds]
    mine = [arm[s] for s in seeds]

    def ratio_of(a, b) -> float:  # NaN where the arm's restricted mean is 0 (τ = 0)
        below = rmst(b, tau)
        return rmst(a, tau) / below if below > 0 else math.nan

    ratio = ratio_of(ref, mine)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(seeds), size=(resamples, len(seeds)))
    ratios = np.array([ratio_of([ref[i] for i in d], [mine[i] for i in d]) for d in draws])
    alpha = 1.0 - CONFIDENCE
    ratios = ratios[~np.isnan(ratios)]
    low, high = (np.quantile(ratios, [alpha / 2, 1 - alpha / 2]) if ratios.size
                 else (math.nan, math.nan))
    return Speedup(float(ratio), (float(low), float(high)), float(tau), len(seeds))
