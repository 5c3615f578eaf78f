"""Time to strength with censoring (analysis/survival.py): worked examples, and the same
numbers as lifelines on the same data."""

from __future__ import annotations

import numpy as np
import pytest
from lifelines import KaplanMeierFitter
from lifelines.statistics import logrank_test
from lifelines.utils import median_survival_times, restricted_mean_survival_time

from warmjax.analysis.survival import (
    Passage,
    first_passage,
    kaplan_meier,
    log_rank,
    rmst,
    speedup,
)


def test_first_passage_reads_the_first_iteration_at_the_threshold():
    rates = [0.40, None, 0.52, 0.49, 0.61]
    compute = [10.0, 20.0, 30.0, 40.0, 50.0]
    assert first_passage(rates, compute, 0.50) == Passage(30.0, True)
    assert first_passage(rates, compute, 0.61) == Passage(50.0, True)
    # Never reached: censored at the budget, not dropped.
    assert first_passage(rates, compute, 0.65) == Passage(50.0, False)
    with pytest.raises(ValueError):
        first_passage([0.1], [1.0, 2.0], 0.5)


def test_a_held_step_counts_from_the_last_of_its_rows():
    """Held for 3 rows: a touch that falls back does not count, the time is the third row's,
    an unmeasured row breaks the run of rows, and fewer than 3 rows at the end censor."""
    rates = [0.52, 0.49, 0.55, 0.56, 0.58, 0.40]
    compute = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    assert first_passage(rates, compute, 0.50, hold=3) == Passage(50.0, True)
    assert first_passage(rates, compute, 0.50, hold=1) == Passage(10.0, True)
    assert first_passage([0.6, None, 0.6, 0.6, 0.6], compute[:5], 0.5, hold=3) == Passage(
        50.0, True)
    assert first_passage([0.4, 0.4, 0.4, 0.6, 0.6], compute[:5], 0.5, hold=3) == Passage(
        50.0, False)
    with pytest.raises(ValueError):
        first_passage(rates, compute, 0.5, hold=0)


def test_left_out_range_by_hand():
    """Every run reaches: RMST is the mean time. Reference 10, 20, 30; arm 10 each: leaving
    out 30 gives 15 / 10, leaving out 10 gives 25 / 10."""
    from warmjax.analysis.survival import left_out_range

    ref = {s: Passage(t, True) for s, t in ((0, 10.0), (1, 20.0), (2, 30.0))}
    arm = {s: Passage(10.0, True) for s in ref}
    assert left_out_range(ref, arm, 100.0) == pytest.approx((1.5, 2.5))
    with pytest.raises(ValueError):
        left_out_range({0: ref[0], 1: ref[1]}, arm, 100.0)


def test_kaplan_meier_by_hand():
    """Runs reaching at 2, 3 and 5, one censored at 3. At risk 4 at t = 2: S = 3/4; at
    t = 3 one of 3 reaches (the censored run still counts as at risk): S = 3/4 · 2/3 = 1/2;
    at t = 5 the last one: S = 0. The median is the first time S < 1/2: 5. The area up to
    τ = 4: 2·1 + 1·3/4 + 1·1/2 = 3.25."""
    runs = [Passage(2, True), Passage(3, True), Passage(3, False), Passage(5, True)]
    km = kaplan_meier(runs, tau=4.0)
    assert km.median == 5.0 and km.reached == 3 and km.runs == 4
    assert km.rmst == pytest.approx(3.25)
    assert rmst(runs, 10.0) == pytest.approx(2 + 0.75 + 0.5 * 2)  # S = 0 after 5
    # Nobody reached: no median, and the area is τ itself.
    never = [Passage(7, False), Passage(9, False)]
    assert kaplan_meier(never, 6.0).median is None and rmst(never, 6.0) == 6.0


@pytest.mark.parametrize("trial", range(6))
def test_the_same_numbers_as_lifelines(trial):
    rng = np.random.default_rng(trial)
    t = np.round(rng.exponential(10, 8), 1) + 0.1
    e = rng.random(8) < 0.7
    u = np.round(rng.exponential(20, 8), 1) + 0.1
    f = rng.random(8) < 0.7
    a = [Passage(float(x), bool(y)) for x, y in zip(t, e)]
    b = [Passage(float(x), bool(y)) for x, y in zip(u, f)]
    tau = float(min(t.max(), u.max()))
    km = kaplan_meier(a, tau)
    fitted = KaplanMeierFitter().fit(t, e)
    expected = fitted.median_survival_time_
    assert (km.median if km.median is not None else np.inf) == pytest.approx(expected)
    low, high = median_survival_times(fitted.confidence_interval_).values[0]
    assert (km.median_ci[0] if km.median_ci[0] is not None else np.inf) == pytest.approx(low)
    assert (km.median_ci[1] if km.median_ci[1] is not None else np.inf) == pytest.approx(high)
    assert km.rmst == pytest.approx(restricted_mean_survival_time(fitted, t=tau))
    assert log_rank(a, b) == pytest.approx(logrank_test(t, u, e, f).p_value)


@pytest.mark.parametrize("trial", range(4))
def test_restricted_mean_with_tied_iterations_as_lifelines(trial):
    """Passages on the iteration axis tie often (several runs reach a step at the same
    iteration, some censored there too): the restricted mean still equals lifelines'."""
    rng = np.random.default_rng(100 + trial)
    t = rng.integers(1, 8, 10).astype(float)
    e = rng.random(10) < 0.6
    tau = float(rng.integers(3, 9))
    fitted = KaplanMeierFitter().fit(t, e)
    assert rmst([Passage(float(x), bool(y)) for x, y in zip(t, e)], tau) == pytest.approx(
        restricted_mean_survival_time(fitted, t=tau))


def test_speedup_worked_example():
    """Every run of the arm gets there in half the baseline's time, all before τ: the
    restricted means are the plain means, and every resample's ratio is exactly 2."""
    base = {s: Passage(10.0 + s, True) for s in range(6)}
    arm = {s: Passage((10.0 + s) / 2, True) for s in range(6)}
    result = speedup(base, arm, tau=100.0, resamples=200)
    assert result.ratio == pytest.approx(2.0) and result.seeds == 6
    assert result.ci == pytest.approx((2.0, 2.0))
    same = speedup(base, base, tau=100.0, resamples=200)
    assert same.ratio == pytest.approx(1.0)
    # Censored runs weigh in at their budget: a baseline that never arrives by τ = 12
    # counts 12, the arm (5 to 7.5) its own times.
    slow = {s: Passage(12.0, False) for s in range(6)}
    mixed = speedup(slow, arm, tau=12.0, resamples=200)
    assert mixed.ratio == pytest.approx(12.0 / np.mean([(10 + s) / 2 for s in range(6)]))
    with pytest.raises(ValueError):
        speedup({0: base[0]}, {0: arm[0]}, tau=10.0)
