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


def first_passage(values: Sequence[float | None], times: Sequence[float], threshold: float,
                  hold: int = 1) -> Passage:
    """The first time `values[i] ≥ threshold` (values None are not measured), else the run
    censored at its last time. With `hold` > 1, the first time the values have been at or
    above the threshold for `hold` consecutive rows, timed at the last of them (a probe
    that touches a step and falls back has not reached it yet).

    Args:
      values: a run's rate after each iteration (None where the probe did not run).
      times: the compute (or iteration) after each iteration, increasing.
      threshold: the step of the ladder.
      hold: the consecutive rows at or above the threshold that count as reaching it.
    """
    if len(values) != len(times) or not times:
        raise ValueError("a run needs one time per value, and at least one")
    if hold < 1:
        raise ValueError(f"a step is held for at least one row, not {hold}")
    held = 0
    for value, time in zip(values, times):
        held = held + 1 if value is not None and value >= threshold else 0
        if held == hold:
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


def _product_limit(passages: Sequence[Passage]) -> tuple[np.ndarray, np.ndarray]:
    """The Kaplan–Meier curve's steps: the distinct times at which some run reached the
    threshold, and the survival just after each, Π (1 − reached there / still running)."""
    t = np.array([p.time for p in passages], float)
    reached = np.array([p.reached for p in passages], bool)
    events = np.unique(t[reached])
    if not events.size:
        return events, events
    at_risk = (t[None, :] >= events[:, None]).sum(axis=1)
    died = ((t[None, :] == events[:, None]) & reached[None, :]).sum(axis=1)
    return events, np.cumprod(1.0 - died / at_risk)


def _crossing(times: np.ndarray, curve: np.ndarray, level: float = 0.5) -> float | None:
    """The first time the step curve is below `level` (more than half the runs have got
    there, lifelines' convention); None if it never is."""
    below = np.flatnonzero(curve < level - 1e-12)
    return float(times[below[0]]) if below.size else None


def rmst(passages: Sequence[Passage], tau: float) -> float:
    """The area under the Kaplan–Meier curve from 0 to `tau`.

    The product-limit curve is worked out here with numpy, the same estimate as scipy's
    and lifelines' (tests/analysis/test_survival.py checks it against lifelines): the
    speed-up's bootstrap asks for hundreds of thousands of these, and scipy's result object
    costs about half a millisecond each."""
    times, survival = _product_limit(passages)
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
    with np.errstate(invalid="ignore", divide="ignore"):  # the nan case below
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
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(seeds), size=(resamples, len(seeds)))
    ratios = [rmst_ratio([ref[i] for i in d], [mine[i] for i in d], tau) for d in draws]
    return Speedup(rmst_ratio(ref, mine, tau), _percentiles(ratios), float(tau), len(seeds))


def rmst_ratio(reference: Sequence[Passage], arm: Sequence[Passage], tau: float) -> float:
    """RMST(reference) / RMST(arm); NaN where the arm's restricted mean is 0 (τ = 0)."""
    below = rmst(arm, tau)
    return rmst(reference, tau) / below if below > 0 else math.nan


def _percentiles(draws: Sequence[float]) -> tuple[float, float]:
    """The 95% percentile interval of the resampled values that are defined."""
    x = np.asarray(draws, float)
    x = x[~np.isnan(x)]
    if not x.size:
        return math.nan, math.nan
    alpha = 1.0 - CONFIDENCE
    low, high = np.quantile(x, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


@dataclasses.dataclass(frozen=True)
class Growth:
    """One board's speed-up over another's, with its bootstrap interval."""

    ratio: float  # speed-up(large) / speed-up(small)
    ci: tuple[float, float]
    large: float  # the two speed-ups
    small: float


def speedup_growth(large: tuple[Mapping[int, Passage], Mapping[int, Passage], float],
                   small: tuple[Mapping[int, Passage], Mapping[int, Passage], float],
                   resamples: int = RESAMPLES, seed: int = 0) -> Growth:
    """How much larger the speed-up is on one board than on another: speed-up(large) /
    speed-up(small), each `(reference passages, arm passages, τ)` by seed on its own board
    and τ, with a percentile bootstrap interval. Each resample draws each board's seeds
    with replacement, independently of the other board's (the two boards' runs share no
    network), keeping a seed's two arms together.

    Raises:
      ValueError: fewer than two common seeds on either board.
    """
    rng = np.random.default_rng(seed)

    def prepared(board):
        reference, arm, tau = board
        seeds = sorted(set(reference) & set(arm))
        if len(seeds) < 2:
            raise ValueError("a speed-up needs at least two seeds with both arms")
        return [reference[s] for s in seeds], [arm[s] for s in seeds], tau

    boards = [prepared(large), prepared(small)]
    draws = [rng.integers(0, len(b[0]), size=(resamples, len(b[0]))) for b in boards]

    def growth(up: Sequence[float]) -> float:
        return up[0] / up[1] if up[1] > 0 else math.nan  # NaN stays NaN

    point = [rmst_ratio(*b) for b in boards]
    ratios = [growth([rmst_ratio([ref[j] for j in d[i]], [mine[j] for j in d[i]], tau)
                      for (ref, mine, tau), d in zip(boards, draws)])
              for i in range(resamples)]
    return Growth(growth(point), _percentiles(ratios), point[0], point[1])


def left_out_range(reference: Mapping[int, Passage], arm: Mapping[int, Passage], tau: float
                   ) -> tuple[float, float]:
    """The smallest and largest speed-up (`rmst_ratio`) over the common seeds with any one
    of them left out: how much a single seed moves the ratio.

    Raises:
      ValueError: fewer than three common seeds (two must be left).
    """
    seeds = sorted(set(reference) & set(arm))
    if len(seeds) < 3:
        raise ValueError("leaving one seed out needs at least three seeds with both arms")
    ratios = [rmst_ratio([reference[s] for s in seeds if s != out],
                         [arm[s] for s in seeds if s != out], tau) for out in seeds]
    return float(min(ratios)), float(max(ratios))
