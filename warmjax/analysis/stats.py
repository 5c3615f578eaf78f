"""The study's statistics, pure: numpy, scipy and statsmodels, nothing of warmjax's games,
search or training (importing this module leaves JAX unloaded).

- `Estimate`: a mean over seeds with its 95% t-interval;
- `Comparison` (`compare`, `compare_paired`, `compare_by_seed`): an arm against a reference,
  paired by seed (paired t-test, sign-flip permutation p, Wilcoxon), with Welch's unpaired
  test as a secondary column, and the effect 80% power detects (`effect_at_power`,
  `seeds_for`);
- `adjusted`: Benjamini–Hochberg; `friedman`: Friedman's test over repeated measures;
- the verdict rule, `decide`, that turns a claim's comparisons (`Tested`) into a
  `Decision` (docs/method.md states it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import warnings
from collections.abc import Sequence

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
ALPHA = 0.05
POWER = 0.80  # the power at which a study states the effect it could have detected
PERMUTATIONS = 20_000  # resamples where the exact permutation distribution is larger

REPRODUCED, CONTRADICTED, UNRESOLVED, NOT_TESTED = (
    "reproduced", "contradicted", "not resolvable at this power", "not tested")
# The floor rule (`strength.floor`): a family whose baseline did not learn decides nothing.
NOT_INFORMATIVE = "not informative"


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A mean over seeds with its 95% t-interval (nan bounds for fewer than two values)."""

    mean: float
    ci: tuple[float, float]
    values: tuple[float, ...]

    @classmethod
    def of(cls, values: Sequence[float]) -> Estimate:
        x = np.asarray(values, np.float64)
        if x.size == 0:
            return cls(math.nan, (math.nan, math.nan), ())
        if x.size < 2 or np.all(x == x[0]):
            half = math.nan if x.size < 2 else 0.0
            return cls(float(x.mean()), (float(x.mean()) - half, float(x.mean()) + half),
                       tuple(map(float, x)))
        with quiet_moments():
            low, high = stats.ttest_1samp(x, 0.0).confidence_interval(CONFIDENCE)
        return cls(float(x.mean()), (float(low), float(high)), tuple(map(float, x)))


@dataclasses.dataclass(frozen=True)
class Comparison:
    """An arm against a reference arm: difference of means (arm − reference).

    Attributes:
      diff: the difference of the means (paired: the mean of the per-seed differences).
      ci: the test's 95% interval of the difference.
      p: the test's two-sided p-value.
      p_permutation: the two-sided permutation p-value (sign flips where paired).
      test: "paired t" (`scipy.stats.ttest_rel`, matched by seed) or "Welch"
        (`scipy.stats.ttest_ind(equal_var=False)`).
      n: pairs (paired) or the smaller arm's runs (Welch).
      sd: the SD of the per-seed differences (paired) or the pooled SD of the two arms.
      effect80: the smallest difference the test detects with 80% power at α, two-sided
        (`statsmodels.stats.power`, from `sd` and the sample sizes); nan below two values.
      p_wilcoxon: paired only: the Wilcoxon signed-rank p (`scipy.stats.wilcoxon`).
      welch: paired only: Welch's test of the same two arms on all their runs, a secondary
        column.
      p_adjusted: `p` adjusted by Benjamini–Hochberg (over a family's warm-start arms, or
        within a claim); nan where not adjusted.
    """

    diff: float
    ci: tuple[float, float]
    p: float
    p_permutation: float
    test: str = "Welch"
    n: int = 0
    sd: float = math.nan
    effect80: float = math.nan
    p_wilcoxon: float = math.nan
    welch: Comparison | None = None
    p_adjusted: float = math.nan

    @property
    def significant(self) -> bool:
        return self.p < ALPHA

    @property
    def paired(self) -> bool:
        return self.test == "paired t"

    def seeds_for(self, delta: float) -> float:
        """The seeds (pairs, or runs per arm for Welch) this comparison's test needs for 80%
        power at a true difference of `delta`, at its observed SD; nan where unknown."""
        return seeds_for(delta, self.sd, paired=self.paired)


def effect_at_power(sd: float, n: int | tuple[int, int], paired: bool = True) -> float:
    """The smallest difference a two-sided t-test at α detects with 80% power: for a paired
    test with `n` pairs whose differences have SD `sd`, or for two samples of sizes `n`
    with pooled SD `sd` (`statsmodels.stats.power.TTestPower` / `TTestIndPower`). nan where
    unknown: fewer than two seeds, an unknown SD, or a solver that gives up."""
    from statsmodels.stats.power import TTestIndPower, TTestPower

    if math.isnan(sd):
        return math.nan
    if sd == 0:
        return 0.0
    if paired:
        if n < 2:
            return math.nan
        solver, sizes = TTestPower(), dict(nobs=n)
    else:
        n1, n2 = n
        if min(n1, n2) < 2:
            return math.nan
        solver, sizes = TTestIndPower(), dict(nobs1=n1, ratio=n2 / n1)
    with _quiet_solver():
        d = solver.solve_power(**sizes, alpha=ALPHA, power=POWER, alternative="two-sided")
    return float(sd * np.ravel(d)[0])


@contextlib.contextmanager
def quiet_moments():
    """scipy's t-tests warn of "precision loss" where a sample's values are nearly the same
    (a difference equal in every seed up to float rounding). The test's result is still
    what the data give and the record states each spread, so a report that printed the
    warning would only repeat it, once per comparison (`report --study` printed 14)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Precision loss occurred",
                                category=RuntimeWarning)
        yield


@contextlib.contextmanager
def _quiet_solver():
    """statsmodels warns where its root finder gives up and returns nan; the callers here
    read that nan as "unknown", so the warning would only repeat it."""
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def seeds_for(delta: float, sd: float, paired: bool = True) -> float:
    """The seeds a two-sided t-test at α needs for 80% power at a true difference `delta`
    with SD `sd` (paired: pairs; else runs per arm, equal arms), rounded up; nan where
    `sd` is unknown or zero."""
    from statsmodels.stats.power import TTestIndPower, TTestPower

    if math.isnan(sd) or sd <= 0 or delta <= 0:
        return math.nan
    solver = TTestPower() if paired else TTestIndPower()
    try:
        with _quiet_solver():
            n = float(np.ravel(solver.solve_power(effect_size=delta / sd, alpha=ALPHA,
                                                  power=POWER, alternative="two-sided"))[0])
    except (ValueError, RuntimeError):  # an effect so large that two seeds suffice
        return 2.0
    if math.isnan(n):  # the solver can give up without raising: for a large effect (d ≥ 1
        # needs at most 10 pairs; the failures seen are at d > 10) two seeds suffice, else
        # the figure is unknown
        return 2.0 if delta / sd >= 1 else math.nan
    return float(max(2, math.ceil(n - 1e-9)))


def power_at(c: Comparison | None, delta: float) -> float:
    """A paired comparison's power at a true difference `delta`, at its observed SD
    (`statsmodels.stats.power.TTestPower`); nan where unknown."""
    from statsmodels.stats.power import TTestPower

    if c is None or math.isnan(c.sd) or c.sd == 0 or c.n < 2:
        return math.nan
    return float(TTestPower().power(effect_size=delta / c.sd, nobs=c.n, alpha=ALPHA,
                                    alternative="two-sided"))


def _mean_difference(x, y, axis):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def compare(values: Sequence[float], reference: Sequence[float]) -> Comparison:
    """Welch's t-test and a permutation test of `values` against `reference` (at least two
    of each)."""
    a, b = np.asarray(values, np.float64), np.asarray(reference, np.float64)
    if a.size < 2 or b.size < 2:
        raise ValueError(f"a comparison needs at least two runs per arm, got {a.size} and "
                         f"{b.size}")
    pooled = math.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1))
                       / (a.size + b.size - 2))
    sizes = (int(a.size), int(b.size))
    effect = effect_at_power(pooled, sizes, paired=False)
    if np.all(a == a[0]) and np.all(b == b[0]):  # no spread: nothing to test against
        return dataclasses.replace(_certain(float(a.mean() - b.mean())), test="Welch",
                                   n=min(sizes), sd=pooled, effect80=effect)
    with quiet_moments():
        c = _tested(a, b, stats.ttest_ind(a, b, equal_var=False), _mean_difference,
                    "independent")
    return dataclasses.replace(c, test="Welch", n=min(sizes), sd=pooled, effect80=effect)


def _paired_mean_difference(x, y, axis):
    return np.mean(x - y, axis=axis)


def compare_paired(values: Sequence[float], reference: Sequence[float],
                   welch: Comparison | None = None) -> Comparison:
    """A paired t-test (`scipy.stats.ttest_rel`), a sign-flip permutation test and the
    Wilcoxon signed-rank test of `values` against `reference`, matched by position (at least
    two pairs); `welch`: the unpaired test to carry as the secondary column."""
    a, b = np.asarray(values, np.float64), np.asarray(reference, np.float64)
    if a.size != b.size or a.size < 2:
        raise ValueError(f"a paired comparison needs at least two matched pairs, got {a.size} "
                         f"and {b.size} values")
    d = a - b
    sd = float(d.std(ddof=1))
    common = dict(test="paired t", n=int(a.size), sd=sd, welch=welch,
                  effect80=effect_at_power(sd, int(a.size)))
    if np.all(d == d[0]):
        return dataclasses.replace(_certain(float(d.mean())), **common)
    with quiet_moments():
        c = _tested(a, b, stats.ttest_rel(a, b), _paired_mean_difference, "samples")
        nonzero = d[d != 0]
        p_w = float(stats.wilcoxon(d).pvalue) if nonzero.size else 1.0
    return dataclasses.replace(c, p_wilcoxon=p_w, **common)


def compare_by_seed(values: dict[int, float], reference: dict[int, float]
                    ) -> Comparison | None:
    """`values` against `reference` (each `{seed: value}`), paired on their common seeds,
    with Welch's test on all values as the secondary column; None below two of each (or
    two common seeds)."""
    if len(values) < 2 or len(reference) < 2:
        return None
    welch = compare(list(values.values()), list(reference.values()))
    seeds = sorted(set(values) & set(reference))
    if len(seeds) < 2:
        return None
    return compare_paired([values[s] for s in seeds], [reference[s] for s in seeds], welch)


def _certain(diff: float) -> Comparison:
    """Every value equal (or every pair's difference): no spread to test against."""
    p = 1.0 if diff == 0 else 0.0
    return Comparison(diff, (diff, diff), p, p, p_wilcoxon=p)


def _tested(a: np.ndarray, b: np.ndarray, test, statistic, permutation_type: str
            ) -> Comparison:
    """A Comparison from a scipy t-test result and the matching permutation test."""
    low, high = test.confidence_interval(CONFIDENCE)
    permutation = stats.permutation_test(
        (a, b), statistic, permutation_type=permutation_type, vectorized=True,
        n_resamples=PERMUTATIONS, alternative="two-sided", random_state=0)
    return Comparison(float(statistic(a, b, axis=0)), (float(low), float(high)),
                      float(test.pvalue), float(permutation.pvalue))


def sign_flip_p(differences: Sequence[float]) -> float:
    """The two-sided p of the mean of paired differences under random signs
    (`scipy.stats.permutation_test`, exact up to `PERMUTATIONS` sign patterns); 1 where every
    difference is 0."""
    d = np.asarray(differences, np.float64)
    if not d.size:
        raise ValueError("a sign-flip test needs at least one difference")
    if np.all(d == 0):
        return 1.0
    return float(stats.permutation_test(
        (d,), np.mean, permutation_type="samples", vectorized=True, n_resamples=PERMUTATIONS,
        alternative="two-sided", random_state=0).pvalue)


def adjusted(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (`scipy.stats.false_discovery_control`)."""
    if not p_values:
        return []
    return [float(p) for p in stats.false_discovery_control(np.asarray(p_values, np.float64))]


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Spearman's rank correlation of `x` and `y` with its two-sided p
    (`scipy.stats.spearmanr`); nan, nan where either has no spread."""
    if len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan, math.nan
    test = stats.spearmanr(x, y)
    return float(test.statistic), float(test.pvalue)


def friedman(groups: Sequence[Sequence[float]]) -> tuple[float, float]:
    """Friedman's test over repeated measures (`groups[i][j]`: treatment i on block j), as
    `(statistic, p)` (`scipy.stats.friedmanchisquare`); nan without spread."""
    x = np.asarray(groups, np.float64)
    if np.all(x == x[0, 0]):
        return math.nan, 1.0
    test = stats.friedmanchisquare(*x)
    return float(test.statistic), float(test.pvalue)


# --- the verdict rule ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Tested:
    """One comparison a claim makes: `name` (e.g. "WRoRa adaptive − Baseline"), the test on
    the deciding measure (`p_adjusted`: within the claim), and the papers' measure, final
    Elo paired by seed, where a round robin rated both arms."""

    name: str
    comparison: Comparison
    elo: Comparison | None = None


@dataclasses.dataclass(frozen=True)
class Decision:
    """What the verdict rule (`decide`) made of a claim's comparisons.

    Attributes:
      verdict: REPRODUCED, CONTRADICTED, UNRESOLVED or NOT_TESTED.
      reason: "all better", "no gain", "opposite", "open" or "" (not tested).
      tested: the comparisons, each with its p adjusted within the claim.
      effect80: not resolvable: the largest 80%-power effect among the comparisons the rule
        left open (what the study would have needed to see).
    """

    verdict: str
    reason: str
    tested: tuple[Tested, ...]
    effect80: float = math.nan


def decide(tested: Sequence[Tested], delta: float, omnibus_p: float | None = None,
           p_adjusted: Sequence[float] | None = None) -> Decision:
    """The one verdict rule every claim uses (docs/method.md §13, "The verdict rule").

    The comparisons' p-values are adjusted by Benjamini–Hochberg within the claim, unless
    `p_adjusted` gives them adjusted over a larger set (a registered family of hypotheses,
    or every step of a report). Then:

    - *reproduced*: every comparison is significant (adjusted p < α) in the claimed
      direction (difference > 0); for a claim of variation (`omnibus_p` given), its omnibus
      test is significant;
    - *contradicted, opposite*: some comparison is significant in the opposite direction
      (not for a claim of variation);
    - *contradicted, no gain*: every comparison's 95% interval lies below +δ (for a claim of
      variation: inside (−δ, +δ)), so no gain of δ or more in any arm the claim covers;
    - *not resolvable*: anything else; `effect80` is the largest 80%-power effect of the
      comparisons left open.
    """
    if not tested:
        return Decision(NOT_TESTED, "", ())
    p_adj = (adjusted([t.comparison.p for t in tested]) if p_adjusted is None
             else [float(p) for p in p_adjusted])
    if len(p_adj) != len(tested):
        raise ValueError(f"{len(p_adj)} adjusted p-values for {len(tested)} comparisons")
    tested = tuple(dataclasses.replace(t, comparison=dataclasses.replace(
        t.comparison, p_adjusted=p)) for t, p in zip(tested, p_adj))
    comps = [t.comparison for t in tested]
    variation = omnibus_p is not None
    if variation:
        if omnibus_p < ALPHA:
            return Decision(REPRODUCED, "all better", tested)
    else:
        if all(p < ALPHA and c.diff > 0 for c, p in zip(comps, p_adj)):
            return Decision(REPRODUCED, "all better", tested)
        if any(p < ALPHA and c.diff < 0 for c, p in zip(comps, p_adj)):
            return Decision(CONTRADICTED, "opposite", tested)
    if all(c.ci[1] < delta and (not variation or c.ci[0] > -delta) for c in comps):
        return Decision(CONTRADICTED, "no gain", tested)
    open_ = [c.effect80 for c, p in zip(comps, p_adj)
             if not (p < ALPHA and (variation or c.diff > 0))]
    return Decision(UNRESOLVED, "open", tested,
                    float(max(open_)) if open_ and not any(map(math.isnan, open_))
                    else math.nan)
