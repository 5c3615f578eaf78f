"""The warm-start study: its statistics against hand-computed values, a synthetic study with a
known difference, the study configs, and a smoke-sized study trained, played and reported
by its commands."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from hydra_plugins.warmjax_studies.studies_searchpath import study_configs
from warmjax import cli
from warmjax.analysis import claims, model, record, report, stats, study, study_tables
from warmjax.analysis.tournaments import Tournament
from warmjax.matches.round_robin import scheduled_pairs
from warmjax.matches.tournament_folder import AnchorEntry, NetworkEntry
from warmjax.train import run_folder
from warmjax.train.run_id import RunId

from ..helpers import ROOT, TEST_CACHE, compose_config
from .synthetic import FIXED_OWN, ITERATIONS, NOISE, base_curve, write_run

STUDY_CONFIGS = study_configs(cli.CONF_DIR)

# Student's t quantiles t(0.975; ν) from printed tables.
T975 = {2: 4.302653, 4: 2.776445}


def test_estimate_is_the_t_interval_of_the_mean():
    e = stats.Estimate.of([1.0, 2.0, 3.0])  # mean 2, sample sd 1
    half = T975[2] / math.sqrt(3)
    assert e.mean == 2.0
    assert e.ci == pytest.approx((2 - half, 2 + half), abs=1e-5)
    assert math.isnan(stats.Estimate.of([5.0]).ci[0])


def test_welch_and_permutation_against_hand_computed_values():
    c = stats.compare([4.0, 5.0, 6.0], [1.0, 2.0, 3.0])
    # Equal variances (1) and sizes (3): se = sqrt(2/3), t = 3/se, Welch's df = 4.
    t = 3 / math.sqrt(2 / 3)
    # Student's t with 4 degrees of freedom has a closed-form distribution function.
    u = t * t / 4
    cdf = 0.5 + 3 / 8 * t / math.sqrt(1 + u) * (1 - t * t / (12 * (1 + u)))
    assert c.diff == 3.0
    assert c.p == pytest.approx(2 * (1 - cdf), rel=1e-6)
    half = T975[4] * math.sqrt(2 / 3)
    assert c.ci == pytest.approx((3 - half, 3 + half), abs=1e-5)
    assert c.test == "Welch" and c.sd == pytest.approx(1.0)  # the pooled SD
    # Of the C(6, 3) = 20 ways to split the six values, two give |mean difference| ≥ 3.
    assert c.p_permutation == pytest.approx(2 / 20)
    with pytest.raises(ValueError, match="at least two runs"):
        stats.compare([1.0], [1.0, 2.0])


def test_paired_comparison_against_hand_computed_values():
    c = stats.compare_paired([3.0, 5.0, 4.0], [1.0, 2.0, 3.0])  # differences 2, 3, 1
    t = 2 / (1 / math.sqrt(3))  # mean 2, sd 1, df 2
    assert c.diff == 2.0
    # With 2 degrees of freedom the two-sided p is 1 - t / sqrt(2 + t²).
    assert c.p == pytest.approx(1 - t / math.sqrt(2 + t * t), rel=1e-6)
    half = T975[2] / math.sqrt(3)
    assert c.ci == pytest.approx((2 - half, 2 + half), abs=1e-5)
    # Of the 2³ sign flips only all-plus and all-minus reach |mean| ≥ 2.
    assert c.p_permutation == pytest.approx(2 / 8)


def test_sign_flip_p_counts_sign_patterns_by_hand():
    # Six differences of one sign: only all-plus and all-minus reach the mean, 2 of 2⁶.
    assert stats.sign_flip_p([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) == pytest.approx(2 / 64)
    # 3, 1, −1 (sum 3): the sums ±5, ±3, ±3 reach |3|, six of the 2³ patterns.
    assert stats.sign_flip_p([3.0, 1.0, -1.0]) == pytest.approx(6 / 8)
    # It is the paired test's permutation p on the same differences.
    assert stats.sign_flip_p([2.0, 3.0, 1.0]) == pytest.approx(
        stats.compare_paired([3.0, 5.0, 4.0], [1.0, 2.0, 3.0]).p_permutation)
    assert stats.sign_flip_p([0.0, 0.0]) == 1.0


def test_elo_is_centred_on_each_seed_block(tmp_path):
    # Two seeds whose blocks sit 1000 Elo apart (as blocks tied only through an anchor may):
    # the baseline is 20 below the warm-start arm in both.
    for seed in (0, 1):
        write_run(tmp_path, "none", "rollout", seed, 0.0)
        write_run(tmp_path, "adaptive", "wrora", seed, 0.0)
    runs = run_folder.find_runs([tmp_path])
    ratings = {RunId("connect_four", seed=0): 0.0,
               RunId("connect_four", "adaptive", "wrora", seed=0): 20.0,
               RunId("connect_four", seed=1): 1000.0,
               RunId("connect_four", "adaptive", "wrora", seed=1): 1020.0}
    players = {f"p{i}": NetworkEntry(f"r{i}", game=v.game, mode=v.mode,
                                     enhancement=v.enhancement, seed=v.seed)
               for i, v in enumerate(ratings)}
    tournament = Tournament("t", "t", "connect_four", tuple(players),
                            tuple(ratings.values()), (0,) * 4, (0,) * 4, players)
    (family,) = study.families(runs, [tournament])
    assert family.baseline.elo.values == (-10.0, -10.0)
    (arm,) = family.arms
    assert arm.elo.mean == 10.0 and arm.elo_vs_baseline.diff == 20.0
    assert arm.elo_vs_baseline.p == 0.0  # the same difference in every seed


def test_benjamini_hochberg_by_hand():
    # Sorted p: 0.01, 0.02, 0.04 with m = 3: 0.03, 0.03, 0.04 (monotone from the top).
    assert stats.adjusted([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.03])


def test_seed_pairing_meets_within_seeds_and_anchors_meet_all():
    net = lambda seed: NetworkEntry(f"run{seed}", seed=seed)  # noqa: E731
    infos = [net(0), net(0), net(1), net(1), net(0), AnchorEntry("random")]
    assert scheduled_pairs(infos, "seed") == [(0, 1), (0, 4), (0, 5), (1, 4), (1, 5), (2, 3),
                                              (2, 5), (3, 5), (4, 5)]
    assert len(scheduled_pairs(infos, "all")) == 15


# --- a synthetic study with a known difference ---------------------------------------------

@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    for seed in NOISE:
        write_run(root, "none", "rollout", seed, 0.0)
        write_run(root, "adaptive", "wrora", seed, 0.10 + 0.001 * seed)  # a clear gain
        write_run(root, "adaptive", "rollout", seed, 0.0, switch=2)  # no gain at all
        write_run(root, "fixed", "wrora", seed, 0.05 + FIXED_OWN[seed])  # its own noise
    return root


def test_synthetic_study_statistics(synthetic):
    runs = run_folder.find_runs([synthetic])
    (family,) = study.families(runs)
    assert family.auc_iterations == 3 and family.final_iteration == ITERATIONS
    assert family.baseline.label == "Baseline"
    arms = {a.label: a for a in family.arms}
    assert list(arms) == ["Rollout adaptive", "WRoRa I′=5", "WRoRa adaptive"]
    # AUC over iterations 1-3 of the baseline: mean(base_curve(1..3)) + seed noise.
    base_auc = np.mean([base_curve(i) for i in (1, 2, 3)]) + np.array(list(NOISE.values()))
    assert family.baseline.primary.auc.values == pytest.approx(base_auc)
    gain = arms["WRoRa adaptive"].primary.auc_vs_baseline
    assert gain.diff == pytest.approx(0.10 + 0.0015)  # 0.1 plus the mean of 0.001 · seed
    assert 0.05 < gain.ci[0] < gain.diff < gain.ci[1] and gain.p < 0.01
    none = arms["Rollout adaptive"].primary.auc_vs_baseline
    assert none.diff == pytest.approx(0.0, abs=1e-12) and none.p == pytest.approx(1.0)
    assert arms["WRoRa adaptive"].primary.final.mean == pytest.approx(
        base_curve(ITERATIONS) + np.mean(list(NOISE.values())) + 0.1015)
    # Benjamini–Hochberg over the three arms: the largest p (1) stays; the smallest, the
    # clear gain's, becomes min(3 p₁, 3/2 p₂, p₃).
    fixed = arms["WRoRa I′=5"].primary.auc_vs_baseline
    assert gain.p < fixed.p < none.p
    assert none.p_adjusted == pytest.approx(1.0)
    assert gain.p_adjusted == pytest.approx(min(3 * gain.p, 1.5 * fixed.p, none.p))
    assert fixed.p_adjusted == pytest.approx(min(1.5 * fixed.p, none.p))
    assert arms["Rollout adaptive"].switches == (2, 2, 2, 2)
    assert arms["WRoRa I′=5"].warm_iterations() == (5, 5, 5, 5)


def test_adding_a_summary_is_one_definition(synthetic, monkeypatch):
    """A new summary (the policy head's AUC at k = 2) added to `SUMMARIES` alone reaches
    every arm, its paired comparison with the baseline, the adjustment over the arms and
    study.json, with no other change."""
    monkeypatch.setitem(model.SUMMARIES, "auc2", model.Summary(
        lambda run, metric, k, common: model.area(run, metric, 2), "AUC at k = 2"))
    (family,) = study.families(run_folder.find_runs([synthetic]))
    arms = {a.label: a for a in family.arms}
    base_auc2 = np.mean([base_curve(1), base_curve(2)]) + np.array(list(NOISE.values()))
    assert family.baseline.primary.values["auc2"].values == pytest.approx(base_auc2)
    gain = arms["WRoRa adaptive"].primary.vs_baseline["auc2"]
    assert gain.diff == pytest.approx(0.1015) and gain.p_adjusted is not None
    assert gain.p_adjusted >= gain.p
    entry = record.arm_json(arms["WRoRa adaptive"])["policy"]
    assert entry["auc2"] == pytest.approx(family.baseline.primary.values["auc2"].mean + 0.1015)
    assert entry["auc2_vs_baseline"]["diff"] == pytest.approx(0.1015)
    assert len(entry["auc2_runs"]) == 4 and "vs_baseline" in entry  # the AUC's, as before


@pytest.mark.slow
def test_quiet_measures_where_every_run_logged_them(tmp_path, synthetic):
    # Runs that logged the quiet positions' rates (`oracle_*_quiet`) get those measures as
    # well, compared and reported like the others; runs from before them do not.
    assert study.families(run_folder.find_runs([synthetic]))[0].measures == ("policy",
                                                                             "search")
    for seed in (0, 1, 2):
        write_run(tmp_path, "none", "rollout", seed, 0.0, quiet=True)
        write_run(tmp_path, "adaptive", "wrora", seed, 0.05, quiet=True)
    (family,) = study.families(run_folder.find_runs([tmp_path]))
    assert family.measures == ("policy", "search", "policy_quiet", "search_quiet")
    (arm,) = family.arms
    quiet = arm.metrics["policy_quiet"]
    base = np.mean([base_curve(i) for i in (1, 2, 3)]) - 0.1 + np.mean([NOISE[s]
                                                                     for s in (0, 1, 2)])
    assert family.baseline.metrics["policy_quiet"].auc.mean == pytest.approx(base)
    assert quiet.auc_vs_baseline.diff == pytest.approx(0.05)
    assert arm.metrics["search_quiet"].auc_vs_baseline.diff == pytest.approx(0.025)
    assert record.arm_json(arm)["policy_quiet"]["vs_baseline"]["diff"] == pytest.approx(0.05)
    report.write_study([str(tmp_path)], out=str(tmp_path / "rep"))
    text = (tmp_path / "rep" / "study.md").read_text()
    assert "### Policy head, quiet positions" in text and "### Search, quiet positions" in text


def test_board_sizes_are_families_of_their_own(tmp_path):
    # A size study: the registered 6×6 board (given explicitly, as run folders hold it) and
    # 6×7 are two families, titled by their boards.
    for seed in (0, 1):
        for params in ({"rows": 6, "cols": 6, "win_length": 4}, {"rows": 6, "cols": 7}):
            write_run(tmp_path, "none", "rollout", seed, 0.0, params=params)
            write_run(tmp_path, "adaptive", "wrora", seed, 0.02, params=params)
    found = study.families(run_folder.find_runs([tmp_path]))
    assert [(f.title, len(f.baseline.runs), len(f.arms)) for f in found] == [
        ("Connect Four", 2, 1), ("Connect Four 6×7", 2, 1)]
    assert record.family_json(found[1])["board"] == "6×7"
    assert "board" not in record.family_json(found[0])


def test_synthetic_study_claims(synthetic):
    found = {c.claim[:1]: c for c in claims.claims(
        study.families(run_folder.find_runs([synthetic])))}
    # Claim 1 covers every warm-start arm: WRoRa's clear gains do not make up for Rollout
    # adaptive's exact zero, whose interval (0, 0) is below δ while theirs are not.
    assert found["1"].verdict == stats.UNRESOLVED
    adjusted = {t.name: t.comparison.p_adjusted for t in found["1"].decision.tested}
    assert adjusted["WRoRa adaptive − Baseline"] < 0.05
    assert adjusted["Rollout adaptive − Baseline"] == 1.0
    assert found["2"].verdict == stats.REPRODUCED  # WRoRa 0.1 ahead of Rollout, adaptive
    # Only WRoRa ran in both modes: adaptive is 0.05 ahead of fixed I′ = 5.
    assert found["3"].verdict == stats.REPRODUCED
    assert found["4"].verdict == stats.NOT_TESTED


def test_claim_3_untested_says_why(tmp_path):
    """The smoke study's shape: Rollout adaptive and fixed at I′ = 1, two seeds each. Claim
    3 is not tested because no fixed arm switches at I′ = 5, and says so (both modes ran
    with two seeds each); without fixed arms it says no enhancement ran in both."""
    for seed in (0, 1):
        write_run(tmp_path / "a", "none", "rollout", seed, 0.0)
        write_run(tmp_path / "a", "adaptive", "rollout", seed, 0.02)
        write_run(tmp_path / "a", "fixed", "rollout", seed, 0.01, iprime=1)
    (family,) = study.families(run_folder.find_runs([tmp_path / "a"]))
    claim = claims.claim_adaptive_beats_fixed(family, 0.02)
    assert claim.verdict == stats.NOT_TESTED
    assert claim.evidence == "no fixed arm at I′ = 5 (its fixed arms switch at I′ = 1)"
    for seed in (0, 1):
        write_run(tmp_path / "b", "none", "rollout", seed, 0.0)
        write_run(tmp_path / "b", "adaptive", "rollout", seed, 0.02)
    (family,) = study.families(run_folder.find_runs([tmp_path / "b"]))
    assert claims.claim_adaptive_beats_fixed(family, 0.02).evidence == (
        "no enhancement in both modes with two seeds each")


def test_iprime_claim_on_the_seeds_that_ran_every_iprime(tmp_path):
    # Fixed WRoRa at I′ = 1, 3, 5, three seeds each, one more seed at I′ = 5 (as the main
    # comparison's I′ = 5 arm has more seeds than the sweep). Shifts 0, 0.06, 0.12 rank the
    # three I′ values 1, 2, 3 within each of the seeds 0-2 (the blocks), so Friedman's
    # χ² = 12/(n k (k+1)) · (3² + 6² + 9²) − 3 n (k+1) = 42 − 36 = 6 with n = k = 3, and with
    # two degrees of freedom p = exp(−6/2).
    for seed in NOISE:
        write_run(tmp_path, "none", "rollout", seed, 0.0)
        write_run(tmp_path, "fixed", "wrora", seed, 0.12, iprime=5)
    for seed in (0, 1, 2):
        write_run(tmp_path, "fixed", "wrora", seed, 0.0, iprime=1)
        write_run(tmp_path, "fixed", "wrora", seed, 0.06, iprime=3)
    (family,) = study.families(run_folder.find_runs([tmp_path]))
    claim = claims.claim_iprime(family, delta=0.02)
    assert "seeds 0, 1, 2" in claim.evidence and "χ² = 6.00" in claim.evidence
    assert f"p = {math.exp(-3):.3g}" in claim.evidence
    assert claim.verdict == stats.REPRODUCED  # p = 0.0498 < 0.05
    assert claim.papers == ""  # no round robin: no Elo column
    # The sweep (I′ ≠ 5) is apart from the main comparison: claim 1 and the main arms'
    # Benjamini–Hochberg adjustment see only I′ = 5 (one arm: p stays), the sweep's two arms
    # are adjusted between themselves (the larger p stays, the smaller is min(2 p₁, p₂)).
    assert [a.label for a in family.main] == ["WRoRa I′=5"]
    assert [a.label for a in family.sweep] == ["WRoRa I′=1", "WRoRa I′=3"]
    main = family.main[0].primary.auc_vs_baseline
    assert main.p_adjusted == pytest.approx(main.p)
    same, gain = (a.primary.auc_vs_baseline for a in family.sweep)  # shifts 0 and 0.06
    assert gain.p < same.p and same.p_adjusted == pytest.approx(same.p)
    assert gain.p_adjusted == pytest.approx(min(2 * gain.p, same.p))
    assert "(1 arm)" in claims.claim_beats_baseline(family, 0.02).evidence
    # The sweep's table, on seeds 0-2: I′ = 1's final policy rate is base_curve(6) plus the
    # mean of those seeds' noise (0, 0.03, -0.02).
    rows = {line.split("|")[1].strip(): line.split("|")[2:-1]
            for line in study_tables.iprime_markdown(record.family_json(family)).splitlines()[2:]}
    assert list(rows) == ["Baseline", "WRoRa I′=1", "WRoRa I′=3", "WRoRa I′=5"]
    assert rows["WRoRa I′=5"][0].strip() == "3"  # seed 3 left out
    final = 100 * (base_curve(ITERATIONS) + 0.01 / 3)
    assert rows["WRoRa I′=1"][2].strip() == f"{final:.1f}"
    assert rows["WRoRa I′=5"][2].strip() == f"{final + 12:.1f}"


def test_null_study_is_unresolved_or_contradicted(tmp_path):
    # The warm-start arm's own noise, independent of the baseline's, leaves the paired
    # differences 0.01, 0.02, -0.03, 0.0: mean 0, SD 0.0216; t(0.975; 3) = 3.182446, so
    # the interval is ±0.0344 — open to a gain of δ = 2 points, below δ = 5 points.
    own = {0: 0.01, 1: 0.02, 2: -0.03, 3: 0.0}
    for seed in NOISE:
        write_run(tmp_path, "none", "rollout", seed, 0.0)
        write_run(tmp_path, "adaptive", "wrora", seed, own[seed])
    (family,) = study.families(run_folder.find_runs([tmp_path]))
    c = family.arms[0].primary.auc_vs_baseline
    sd = float(np.std(list(own.values()), ddof=1))
    assert c.paired and c.sd == pytest.approx(sd)
    assert c.ci == pytest.approx((-3.182446 * sd / 2, 3.182446 * sd / 2), abs=1e-6)
    claim = claims.claim_beats_baseline(family, delta=0.02)
    assert claim.verdict == stats.UNRESOLVED
    assert claim.label.startswith("not resolvable in the policy head's AUC 1-3")
    assert claim.decision.effect80 == pytest.approx(c.effect80)
    wide = claims.claim_beats_baseline(family, delta=0.05)
    assert wide.verdict == stats.CONTRADICTED and wide.decision.reason == "no gain"
    assert wide.label == "contradicted: no gain ≥ 5 points in the policy head's AUC 1-3"


def test_paired_and_welch_disagree_on_a_blocked_study():
    # Seeds shift both arms alike (blocks 0, 10, 20, 30); the arm is 1 ahead in every seed
    # but one, where it is 2 ahead: differences 1, 1, 1, 2 (mean 1.25, SD 0.5).
    reference = [0.0, 10.0, 20.0, 30.0]
    values = [1.0, 11.0, 21.0, 32.0]
    paired = stats.compare_paired(values, reference, stats.compare(values, reference))
    # Paired: t = 1.25 / (0.5 / 2) = 5 on 3 degrees of freedom. Student's t with 3 degrees of
    # freedom has the closed-form CDF 1/2 + (θ + sin θ cos θ)/π, θ = atan(t / √3).
    theta = math.atan(5 / math.sqrt(3))
    p_paired = 2 * (1 - (0.5 + (theta + math.sin(theta) * math.cos(theta)) / math.pi))
    assert paired.diff == 1.25 and paired.p == pytest.approx(p_paired, rel=1e-6)
    assert paired.p < 0.05  # significant when the blocks are respected
    # Welch: the same difference of means against the seeds' spread (SDs 12.91 and 13.35)
    # is nowhere near significant.
    se = math.sqrt((np.var(values, ddof=1) + np.var(reference, ddof=1)) / 4)
    assert paired.welch.diff == 1.25 and paired.welch.p > 0.8
    assert paired.welch.ci[1] - paired.welch.diff == pytest.approx(
        paired.welch.diff - paired.welch.ci[0])
    assert (paired.welch.ci[1] - 1.25) / se > 2.4  # t(0.975; ν ≈ 6) ≈ 2.45
    # The claim's rule takes the paired test: a reproduced verdict from a study that Welch
    # would have called not resolvable.
    tested = [stats.Tested("arm − baseline", paired)]
    assert stats.decide(tested, 0.5).verdict == stats.REPRODUCED
    assert stats.decide([stats.Tested("arm − baseline", paired.welch)], 0.5).verdict == \
        stats.UNRESOLVED


def test_effect_at_80_percent_power_against_the_noncentral_t():
    # A paired test with n pairs of SD σ detects δ with power P(|T| > t(0.975; n−1)), T
    # noncentral t with n−1 degrees of freedom and noncentrality δ√n/σ (scipy's nct, not
    # the statsmodels solver that effect_at_power uses).
    import scipy.stats

    for sd, n in ((3.97, 8), (1.0, 25), (0.5, 40)):
        effect = stats.effect_at_power(sd, n)
        crit = scipy.stats.t.ppf(0.975, n - 1)
        nc = effect * math.sqrt(n) / sd
        power = scipy.stats.nct.sf(crit, n - 1, nc) + scipy.stats.nct.cdf(-crit, n - 1, nc)
        assert power == pytest.approx(0.80, abs=1e-4)
        # The normal approximation (z.975 + z.8) σ/√n is a lower bound (the t test needs
        # more), close for many pairs: within 5% at n ≥ 25.
        normal = (scipy.stats.norm.ppf(0.975) + scipy.stats.norm.ppf(0.8)) * sd / math.sqrt(n)
        assert effect > normal
        if n >= 25:
            assert effect == pytest.approx(normal, rel=0.05)
    # The seeds 80% power at δ needs, against the normal approximation
    # n ≈ ((z.975 + z.8) σ / δ)² plus about one for the t distribution's heavier tails.
    z = scipy.stats.norm.ppf(0.975) + scipy.stats.norm.ppf(0.8)
    for sd, delta in ((3.97, 2.0), (0.0389, 0.02), (1.0, 0.5)):
        approx = (z * sd / delta) ** 2
        assert approx + 0.5 < stats.seeds_for(delta, sd) < approx + 3
    assert stats.seeds_for(0.02, 0.03887865738422561) == 32  # the registration's figure
    # Two samples of 8 with pooled SD 1: δ√(n/2)/σ noncentrality, 14 degrees of freedom.
    effect = stats.effect_at_power(1.0, (8, 8), paired=False)
    crit, nc = scipy.stats.t.ppf(0.975, 14), effect * math.sqrt(4)
    assert scipy.stats.nct.sf(crit, 14, nc) + scipy.stats.nct.cdf(-crit, 14, nc) == pytest.approx(
        0.80, abs=1e-4)


def test_one_rule_decides_every_way():
    def t(diff, low, high, p, name="a"):
        return stats.Tested(name, stats.Comparison(diff, (low, high), p, p, test="paired t",
                                                   n=8, sd=0.03, effect80=0.035))

    d = stats.decide([t(0.05, 0.02, 0.08, 0.01), t(0.04, 0.01, 0.07, 0.02, "b")], 0.02)
    assert d.verdict == stats.REPRODUCED  # both adjusted p (0.02, 0.02) below α
    assert [x.comparison.p_adjusted for x in d.tested] == pytest.approx([0.02, 0.02])
    d = stats.decide([t(0.05, 0.02, 0.08, 0.01), t(0.01, -0.02, 0.04, 0.5, "b")], 0.02)
    assert d.verdict == stats.UNRESOLVED and d.effect80 == 0.035  # b is open
    d = stats.decide([t(-0.04, -0.07, -0.01, 0.01), t(0.03, -0.01, 0.07, 0.2, "b")], 0.02)
    assert (d.verdict, d.reason) == (stats.CONTRADICTED, "opposite")
    d = stats.decide([t(0.0, -0.01, 0.015, 0.9), t(0.005, -0.01, 0.019, 0.5, "b")], 0.02)
    assert (d.verdict, d.reason) == (stats.CONTRADICTED, "no gain")
    # δ inside one arm's interval (upper bound 0.025 ≥ 0.02): not resolvable, though the
    # other arm's interval lies below δ.
    d = stats.decide([t(0.0, -0.01, 0.015, 0.9), t(0.01, -0.005, 0.025, 0.2, "b")], 0.02)
    assert d.verdict == stats.UNRESOLVED
    # A claim of variation: its omnibus p decides "reproduced"; "no gain" needs every pair
    # inside (−δ, +δ).
    assert stats.decide([t(0.0, -0.03, 0.01, 0.5)], 0.02, omnibus_p=0.01).verdict == \
        stats.REPRODUCED
    assert stats.decide([t(0.0, -0.03, 0.01, 0.5)], 0.02, omnibus_p=0.5).verdict == \
        stats.UNRESOLVED
    assert stats.decide([t(0.0, -0.01, 0.01, 0.5)], 0.02, omnibus_p=0.5).reason == "no gain"
    assert stats.decide([], 0.02).verdict == stats.NOT_TESTED


# --- the study configs ---------------------------------------------------------------------


@pytest.mark.parametrize("arm,expected", [
    ("baseline", RunId("connect_four")),
    ("adaptive_rora", RunId("connect_four", "adaptive", "rora")),
    ("fixed_wrora", RunId("connect_four", "fixed", "wrora", 5)),
])
def test_study_arms_compose_to_their_variants(arm, expected, tmp_path):
    config = compose_config(["+study=c4_cpu", f"+arm={arm}", "seed=3"], tmp_path)
    assert RunId.of(config) == RunId(**{**expected.__dict__, "seed": 3})
    assert config.search.simulations == 100 and config.arena.games == 40  # the papers'


def test_study_configs_sweep_their_arms_and_seeds():
    import yaml

    for name, arms, seeds in (("c4_cpu", 11, "8"), ("othello_cpu", 4, "8"),
                              ("gobang_cpu", 4, "8"), ("c4_cpu_departures", 2, "8"),
                              ("c4_cpu_iprime", 1, "4"), ("c4_confirm", 3, "8,40"),
                              ("c4_confirm_iprime", 1, "8,20"), ("c4_gumbel", 3, "8,16"),
                              ("c4_6x7_cpu", 2, "8"), ("othello_8x8_cpu", 2, "8"),
                              ("c4_cpu_departures_drop", 1, "8")):
        data = yaml.safe_load(STUDY_CONFIGS[name].read_text())
        params = data["hydra"]["sweeper"]["params"]
        assert len(params["+arm"].split(",")) == arms, name
        assert params["seed"] == f"range({seeds})", name


@pytest.mark.parametrize("name,arm,expected", [
    ("c4_6x7_cpu", "adaptive_wrora", dict(game={"rows": 6, "cols": 7, "win_length": 4})),
    ("othello_8x8_cpu", "baseline", dict(game={"size": 8}, epochs=1)),
    ("c4_gumbel", "fixed_wrora", dict(baseline_search="gumbel")),
    ("c4_cpu_departures_drop", "adaptive_wrora", dict(drop=True, fpu=1.0))])
def test_issue_studies_change_only_what_they_name(tmp_path, name, arm, expected):
    # Each is c4_cpu's (or othello_cpu's) scale and algorithm with one change.
    config = compose_config([f"+study={name}", f"+arm={arm}", "seed=0"], tmp_path)
    base = compose_config([f"+study={'othello' if 'othello' in name else 'c4'}_cpu",
                           f"+arm={arm}", "seed=0"], tmp_path)
    assert config.game.params == expected.get("game", base.game.params)
    assert config.search.baseline_search == expected.get("baseline_search", "mcts")
    assert config.train.drop_warmstart_games == expected.get("drop", False)
    assert config.search.fpu == expected.get("fpu", 0.0)
    assert (config.train.iterations, config.train.games, config.search.simulations) == (
        base.train.iterations, base.train.games, base.search.simulations) == (15, 50, 100)
    assert config.train.epochs == expected.get("epochs", base.train.epochs)


def test_confirmatory_study_is_c4_cpu_on_fresh_seeds_seed_by_seed(tmp_path):
    """The registered study (studies/c4_confirm/REGISTRATION.md) keeps c4_cpu's
    scale, trains seed by seed (the seed swept first) and shares no seed with c4_cpu."""
    import yaml

    data = yaml.safe_load((ROOT / "studies/c4_confirm/conf/study/c4_confirm.yaml").read_text())
    assert data["hydra"]["launcher"]["seed_major"] is True
    confirm = compose_config(["+study=c4_confirm", "+arm=adaptive_wrora", "seed=8"], tmp_path)
    cpu = compose_config(["+study=c4_cpu", "+arm=adaptive_wrora", "seed=8"], tmp_path)
    assert confirm.experiment_name == "study_c4_confirm"
    assert dataclasses.replace(confirm, run_dir=cpu.run_dir,
                               experiment_name=cpu.experiment_name) == cpu


# --- a smoke-sized study, end to end -------------------------------------------------------

SMOKE_SIZES = ["train.iterations=2", "train.games=4", "search.simulations=4", "arena.games=2",
               "train.epochs=1", "model.channels=8", "model.fc=[16,16]", "probe.positions=16",
               "search.temperature_moves=4", "arena.temperature_moves=4",
               "stage_times=false", f"compilation_cache={TEST_CACHE}"]


def _command(args, cwd):
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    result = subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, text=True,
                            capture_output=True, timeout=900)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    return result.stdout


@pytest.mark.slow
def test_smoke_study_trains_plays_and_reports(tmp_path):
    _command(["warmjax.run", "-m", "+study=c4_cpu", "+arm=baseline,adaptive_rora",
              "seed=0,1", "run_root=studies", *SMOKE_SIZES], tmp_path)
    folder = tmp_path / "studies" / "study_c4_cpu"
    names = [p.name.split(",") for p in folder.iterdir() if p.is_dir() and "=" in p.name]
    assert sorted((n[0], next(x for x in n if x.startswith("seed="))) for n in names) == [
        ("arm=adaptive_rora", "seed=0"), ("arm=adaptive_rora", "seed=1"),
        ("arm=baseline", "seed=0"), ("arm=baseline", "seed=1")]
    # The round robin in two seed blocks, as sessions whose networks do not outlive them
    # would play it: each block meets within its seed and against random.
    for seed in (0, 1):
        _command(["warmjax.tournament", str(folder / f"*seed={seed}*"), "--pairing", "seed",
                  "--games", "2", "--fast-compile", "--out", str(folder / "tournament")],
                 tmp_path)
        games = json.loads((folder / "tournament" / "games.json").read_text())
        assert len(games) == 6  # this block's 3 pairs of 2 games
    players = json.loads((folder / "tournament" / "tournament.json").read_text())["players"]
    assert len(players) == 5
    from warmjax.matches.round_robin import journal_elo

    elo = journal_elo(folder / "tournament")
    assert len(elo.players) == 5 and int(np.sum(elo.games)) == 2 * 12  # both blocks, both sides
    out = _command(["warmjax.report", "--study", str(folder), "--out", "rep"], tmp_path)
    assert "study.md" in out
    data = json.loads((tmp_path / "rep" / "study.json").read_text())
    (family,) = data["families"]
    assert family["baseline"]["runs"] == 2 and family["auc_iterations"] == 1
    (arm,) = family["arms"]
    assert arm["arm"] == "RoRa adaptive" and arm["runs"] == 2
    for key in ("auc", "auc_ci", "final", "final_ci"):
        assert key in arm
    assert set(arm["vs_baseline"]) >= {"diff", "ci", "p"}
    assert len(arm["elo"]["runs"]) == 2 and arm["elo"]["vs_baseline"] is not None
    assert [c["claim"][:1] for c in data["claims"]] == ["1", "2", "3", "4"]
    assert (tmp_path / "rep" / "curves_connect_four_adaptive.png").stat().st_size > 1000
    assert "## Claims" in (tmp_path / "rep" / "study.md").read_text()


def test_a_study_of_one_seed_reports_without_tests(tmp_path):
    # One seed per arm (a study's first seed block): estimates, no comparisons or claims.
    write_run(tmp_path, "none", "rollout", 0, 0.0)
    write_run(tmp_path, "adaptive", "wrora", 0, 0.1)
    write_run(tmp_path, "fixed", "wrora", 0, 0.1)
    write_run(tmp_path, "adaptive", "rora", 0, 0.1)
    (family,) = study.families(run_folder.find_runs([tmp_path]))
    assert all(a.primary.auc_vs_baseline is None for a in family.arms)
    assert {c.verdict for c in claims.claims([family])} == {stats.NOT_TESTED}


def test_a_game_without_a_labelled_set_is_refused_with_the_way_out(tmp_path):
    # Hex 9×9 is beyond the Hex solver (7×7 at most), so it has no probe: the report says
    # so and points to --tournaments;
    # a Connect Four run that merely skipped the probe is told to probe.
    from warmjax.train.run_config import GameConfig, RunConfig, TrainConfig

    from ..helpers import metric_row

    for game, params in (("hex", {"size": 9}), ("connect_four", {})):
        folder = tmp_path / game
        config = RunConfig(game=GameConfig(game, params), train=TrainConfig(iterations=2),
                           run_dir=str(folder))
        folder.mkdir()
        run_folder.write_config(folder, config)
        run_folder.write_metrics(folder, [metric_row(iteration=i) for i in (1, 2)])
        with pytest.raises(ValueError) as error:
            study.families(run_folder.find_runs([folder]))
        if game == "hex":
            assert "Hex 9×9 has no labelled perfect-play set" in str(error.value)
            assert "--tournaments" in str(error.value)
        else:
            assert "logged no perfect-play probe; train with probe.every=1" in str(error.value)
