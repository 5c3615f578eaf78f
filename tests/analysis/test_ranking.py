"""Exact rank tests across a handful of boards (analysis/ranking.py): against hand counts
of the orderings and scipy's Spearman ρ."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from warmjax.analysis import ranking


def test_spearman_test_counts_the_orderings_by_hand():
    # Five boards: the perfect ranking is 1 of 120 orderings; ρ ≥ 0.9 are it and the four
    # swaps of neighbours (5 of 120); the reversed ranking is beaten by all.
    assert ranking.spearman_test([1, 2, 3, 4, 5], [10, 20, 30, 40, 50]) == pytest.approx(
        (1.0, 1 / 120))
    assert ranking.spearman_test([1, 2, 3, 4, 5], [20, 10, 30, 40, 50]) == pytest.approx(
        (0.9, 5 / 120))
    assert ranking.spearman_test([1, 2, 3, 4, 5], [50, 40, 30, 20, 10]) == pytest.approx(
        (-1.0, 1.0))


def test_rho_is_scipys():
    import itertools

    rng = np.random.default_rng(0)
    for _ in range(5):
        x, y = rng.normal(size=5), rng.normal(size=5)
        rho, p = ranking.spearman_test(x, y)
        assert rho == pytest.approx(scipy_stats.spearmanr(x, y).statistic)
        # The exact p by scipy's ρ over every ordering of the outcomes (the reference).
        every = [scipy_stats.spearmanr(x, order).statistic
                 for order in itertools.permutations(y)]
        assert p == pytest.approx(np.mean([r >= rho - 1e-12 for r in every]))


def test_placement_test_places_the_new_boards_among_the_old():
    predictor = [25.1, 21.8, 9.9, 3.5, -0.4]
    # The new boards (1 and 2) where the predictor puts them, the old in its order: the
    # best of the 5·4 = 20 placements, alone.
    rho, p, placements = ranking.placement_test(predictor, [5, 4, 3, 2, 1], new=[1, 2])
    assert (rho, p, placements) == (pytest.approx(1.0), pytest.approx(1 / 20), 20)
    # The new boards at the bottom, reversed: no placement does worse.
    rho, p, _ = ranking.placement_test(predictor, [5, 1, 2, 4, 3], new=[1, 2])
    assert p == pytest.approx(1.0)
    # By hand: the new boards at ranks 3 and 4 swapped (the old keep 5, 2, 1): Σd² = 2,
    # ρ = 1 − 6·2/120 = 0.9. Placements with Σd² ≤ 2, the old boards filling the ranks
    # left in their order (4 lowest, then 3, then 0): (4, 3) the perfect one, (3, 4) the
    # observed, (5, 3) which moves board 0 to 4, and (4, 2) which moves board 3 to 3:
    # 4 of the 20.
    rho, p, _ = ranking.placement_test(predictor, [5, 3, 4, 2, 1], new=[1, 2])
    assert rho == pytest.approx(0.9) and p == pytest.approx(4 / 20)


def test_early_gain_is_the_paired_mean_with_a_t_interval():
    gain = ranking.early_gain({60: 0.5, 61: 0.7, 62: 0.9}, {60: 0.4, 61: 0.5, 63: 0.1})
    assert gain["seeds"] == [60, 61]
    assert gain["mean"] == pytest.approx(0.15)
    half = 12.706205 * np.std([0.1, 0.2], ddof=1) / np.sqrt(2)  # t(0.975, 1 df)
    assert gain["interval"] == pytest.approx([0.15 - half, 0.15 + half], rel=1e-5)
    with pytest.raises(ValueError, match="at least two paired seeds"):
        ranking.early_gain({1: 0.5}, {1: 0.4})


PREDICTOR = {"hex": 25.1, "othello": 21.8, "gobang": 9.9, "c4_6x6": 3.5, "c4_6x7": -0.4}
NEW = ("othello", "gobang")


def boards(gain_ranks):
    """The five boards with the registered predictor values and early gains ranked as
    given (gain = rank / 100: its interval and seeds are not what is tested here)."""
    return [{"name": n, "title": n, "predictor": PREDICTOR[n],
             "sample": "out of sample" if n in NEW else "in sample",
             "gain": {"mean": r / 100, "interval": [r / 100 - 0.01, r / 100 + 0.01],
                      "seeds": [70, 71]}}
            for n, r in gain_ranks.items()]


def test_the_registered_prediction_on_hand_counted_rankings():
    """Registration, part 2: a perfect ranking gives ρ = 1, p = 1/120, and out of sample
    the one best placement of twenty (p = 0.05 ≤ 0.10); two disjoint swaps of neighbours
    give ρ = 0.8 and p = 8/120 (1 identity, 4 single swaps, 3 double swaps have Σd² ≤ 4),
    which does not hold; the ranking reversed counts against it."""
    perfect = ranking.prediction(boards({"hex": 5, "othello": 4, "gobang": 3, "c4_6x6": 2,
                                         "c4_6x7": 1}))
    assert perfect["spearman"]["rho"] == pytest.approx(1.0)
    assert perfect["spearman"]["p"] == pytest.approx(1 / 120)
    assert perfect["spearman"]["verdict"] == ranking.HOLDS
    assert perfect["out_of_sample"]["placements"] == 20
    assert perfect["out_of_sample"]["p"] == pytest.approx(1 / 20)
    assert perfect["out_of_sample"]["verdict"] == ranking.HOLDS
    two_swaps = ranking.prediction(boards({"hex": 4, "othello": 5, "gobang": 3, "c4_6x6": 1,
                                           "c4_6x7": 2}))
    assert two_swaps["spearman"]["rho"] == pytest.approx(0.8)
    assert two_swaps["spearman"]["p"] == pytest.approx(8 / 120)
    assert two_swaps["spearman"]["verdict"] == ranking.FAILS
    reversed_ = ranking.prediction(boards({"hex": 1, "othello": 2, "gobang": 3, "c4_6x6": 4,
                                           "c4_6x7": 5}))
    assert reversed_["spearman"]["verdict"] == ranking.AGAINST
    assert reversed_["out_of_sample"]["verdict"] == ranking.AGAINST
    text = ranking.prediction_markdown(perfect)
    assert "Spearman's ρ = +1.00, exact one-sided p = 0.00833 over 120 orderings" in text
    assert "conditional p = 0.05 over 20 placements" in text and "**holds**" in text


def test_window_mean_is_the_registered_window():
    curve = {1: 0.5, 2: 0.7, 10: 0.9, 11: 0.1}
    assert ranking.window_mean(curve, (1, 10)) == pytest.approx(0.7)
    with pytest.raises(ValueError, match="no probe in iterations 12-20"):
        ranking.window_mean(curve, (12, 20))


def test_a_boards_early_gain_from_its_runs(tmp_path):
    """Synthetic runs (tests/analysis/synthetic.py): the warm arm's policy rate is the
    baseline's + 0.06 in every seed, its search rate (half the policy's + 0.4) + 0.03; the
    seed noise is shared, so every paired difference is exact and the interval has no
    width. Seed 3 is left out as a design's seeds would."""
    from warmjax.analysis import study
    from warmjax.train import run_folder

    from .synthetic import write_run

    for seed in (0, 1, 2, 3):
        write_run(tmp_path, "none", "rollout", seed, 0.0)
        write_run(tmp_path, "adaptive", "rollout", seed, 0.06)
    (family,) = study.families(run_folder.find_runs([tmp_path]))
    search = ranking.board_gain(family, "search", (1, 4), seeds=(0, 1, 2))
    assert search["seeds"] == [0, 1, 2]
    assert search["mean"] == pytest.approx(0.03)
    assert search["interval"] == pytest.approx([0.03, 0.03])
    assert ranking.board_gain(family, "policy", (1, 4))["mean"] == pytest.approx(0.06)
