"""Time to strength, the floor rule and the compute axis (analysis/strength.py,
analysis/compute.py) on fabricated runs whose passages are worked out by hand."""

from __future__ import annotations

import dataclasses
import json

import pytest

from warmjax.analysis import claims, compute, stats, strength, study
from warmjax.analysis.report import write_study
from warmjax.train import run_folder
from warmjax.train.run_config import GameConfig, RunConfig, SearchConfig, TrainConfig

from ..helpers import metric_row
from .synthetic import write_run


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """Connect Four, 6 iterations, seeds 0-3: the baseline's policy head is
    0.30 + 0.04·it + noise (0, +0.03, −0.02, +0.01 by seed), the adaptive arm's 0.09 more."""
    root = tmp_path_factory.mktemp("strength")
    for seed in range(4):
        write_run(root, "none", "rollout", seed, 0.0)
        write_run(root, "adaptive", "wrora", seed, 0.09)
    return root


@pytest.fixture(scope="module")
def family(root):
    (found,) = study.families(run_folder.find_runs([root]))
    return found


@pytest.mark.slow
def test_the_report_carries_them(root, tmp_path):
    """`report --study` puts the floor, the time to strength and the robustness in
    study.json, and study.md shows them."""
    write_study([str(root)], str(tmp_path), log=lambda _: None)
    payload = json.loads((tmp_path / "study.json").read_text())
    (record,) = payload["time_to_strength"]
    (c,) = [c for c in record["axes"]["iterations"]["comparisons"]
            if c["measure"] == "policy" and c["threshold"] == 0.50]
    assert c["speedup"] == pytest.approx(1.75) and "verdict" in c
    assert payload["robustness"]["windows"] == [3, 4, 5, 6]
    (floor,) = payload["floor"]
    assert floor["learned"] and floor["baseline_rates"] == pytest.approx([0.54, 0.57, 0.52,
                                                                          0.55])
    text = (tmp_path / "study.md").read_text()
    for heading in ("### The floor rule", "### How far each verdict holds",
                    "## Time to strength"):
        assert heading in text


def test_first_passages_and_speedup_by_hand(family):
    """Step 0.50: the baseline gets there at iterations 5, 5, 6, 5 (seeds 0-3), the arm at
    3, 2, 4, 3. All before τ = 6, so the restricted means are the means: 5.25 and 3.0, a
    speed-up of 1.75."""
    record = strength.time_to_strength(family)
    runs = {(r["arm"], r["seed"]): r for r in record["runs"]}
    step = lambda arm, seed: runs[(arm, seed)]["policy"][0]  # noqa: E731
    assert [step("Baseline", s)["iteration"] for s in range(4)] == [5, 5, 6, 5]
    assert [step("WRoRa adaptive", s)["iteration"] for s in range(4)] == [3, 2, 4, 3]
    (c,) = [c for c in record["axes"]["iterations"]["comparisons"]
            if c["measure"] == "policy" and c["threshold"] == 0.50]
    assert c["tau"] == 6 and c["speedup"] == pytest.approx(5.25 / 3.0)
    # Step 0.65: nobody's baseline gets there in 6 iterations (0.54 + noise at most 0.57),
    # censored at 6, not dropped.
    assert all(not runs[("Baseline", s)]["policy"][3]["reached"] for s in range(4))
    arms = {(a["arm"], a["threshold"]): a for a in record["axes"]["iterations"]["arms"]
            if a["measure"] == "policy"}
    assert arms[("Baseline", 0.65)]["reached"] == 0 and arms[("Baseline", 0.65)]["rmst"] == 6
    assert arms[("Baseline", 0.50)]["median"] == 5  # S(5) = 1/4 < 1/2


def test_adjust_and_the_speed_verdicts(family):
    record = strength.time_to_strength(family)
    strength.adjust([record])
    comps = [c for c in record["axes"]["iterations"]["comparisons"] if c["measure"] == "policy"]
    ps = stats.adjusted([c["logrank_p"] for c in comps])
    assert [c["p_adjusted"] for c in comps] == pytest.approx(ps)
    search = [c for c in record["axes"]["iterations"]["comparisons"] if c["measure"] == "search"]
    assert all(c["p_adjusted"] is None for c in search)  # reported unadjusted
    by_step = {c["threshold"]: c["verdict"] for c in comps}
    assert by_step[0.50] == ("faster" if comps[0]["p_adjusted"] < 0.05 else "open")
    neither = dict(comps[0], reached=False)
    assert strength.speed_verdict(neither) == "neither arm reached it"
    slow = dict(comps[0], p_adjusted=0.5, speedup=1.05, speedup_ci=[0.9, 1.2])
    assert strength.speed_verdict(slow) == "no speed-up ≥ 1.25×"


def test_the_floor_rule(family):
    """The baseline ends at 0.54 + noise (0.54, 0.57, 0.52, 0.55): far above a random rate
    of 0.40, not above one of 0.56."""
    learned = strength.floor(family, 0.40)
    assert learned.learned and learned.rates == pytest.approx((0.54, 0.57, 0.52, 0.55))
    stuck = strength.floor(family, 0.56)
    assert not stuck.learned
    found = claims.claims([family])
    floored = strength.floored_claims(found, {family.title: stuck})
    assert all(c.verdict == stats.NOT_INFORMATIVE for c in floored)
    assert "the baseline did not learn" in floored[0].label
    assert strength.floored_claims(found, {family.title: learned}) == found
    decision = stats.Decision(stats.CONTRADICTED, "no gain", ())
    assert strength.floored_decision(decision, [learned, None]) is decision
    assert strength.floored_decision(decision, [learned, stuck]).verdict == \
        stats.NOT_INFORMATIVE


def _peaked(tmp_path, drops):
    """A baseline family of 10 iterations, seeds 0-3: each run's policy head 0.50 up to
    iteration 5, then 0.50 − `drops[seed]` at iterations 6-10."""
    runs = []
    for seed, drop in enumerate(drops):
        folder = tmp_path / f"s{seed}"
        folder.mkdir()
        config = RunConfig(game=GameConfig("connect_four", {}), seed=seed,
                           train=TrainConfig(iterations=10, games=10), run_dir=str(folder))
        run_folder.write_config(folder, config)
        run_folder.write_metrics(folder, [metric_row(iteration=it, oracle_policy=0.50 - (
            drop if it > 5 else 0.0), oracle_optimal=0.8) for it in range(1, 11)])
        runs.append(folder)
    (found,) = study.families(run_folder.find_runs(runs))
    return found


def test_the_decline_rule_by_hand(tmp_path):
    """Late = iteration 10 (the last tenth of 10), window 2–4 at 0.50: drops of 4, 6, 2
    and 8 points are a paired difference of −5 points, one-sided t as scipy's; no drop in
    one seed and a rise in another is no decline."""
    assert strength.late_window(100) == (91, 100) and strength.late_window(60) == (55, 60)
    assert strength.late_window(10) == (10, 10) and strength.late_window(5) == (5, 5)
    (tmp_path / "a").mkdir()
    fell = strength.decline(_peaked(tmp_path / "a", [0.04, 0.06, 0.02, 0.08]), (2, 4))
    assert fell.late == (10, 10) and fell.window == (2, 4) and fell.seeds == (0, 1, 2, 3)
    assert fell.window_rates == pytest.approx((0.5,) * 4)
    assert fell.late_rates == pytest.approx((0.46, 0.44, 0.48, 0.42))
    assert fell.diff == pytest.approx(-0.05)
    expected = stats_t([0.46, 0.44, 0.48, 0.42], [0.5] * 4)
    assert fell.p == pytest.approx(expected) and fell.declines
    assert strength.declined("reproduced", fell) == f"reproduced; {strength.DECLINING}"
    (tmp_path / "b").mkdir()
    mixed = strength.decline(_peaked(tmp_path / "b", [0.0, -0.03, 0.01, 0.0]), (2, 4))
    assert not mixed.declines and strength.declined("open", mixed) == "open"
    assert strength.declined("open", None) == "open"
    (tmp_path / "c").mkdir()
    with pytest.raises(ValueError, match="must end before the late iterations 10-10"):
        strength.decline(_peaked(tmp_path / "c", [0.0, 0.01, 0.02, 0.03]), (8, 10))


def stats_t(late, window):
    from scipy import stats as sp

    return sp.ttest_rel(late, window, alternative="less").pvalue


def test_holds_over_names_the_windows():
    by_k = {3: "a", 4: "a", 5: "b", 6: "a", 7: "a", 8: "a", 100: "a"}
    assert strength.holds_over(by_k, "a") == "3–4, 6–8, 100"
    assert strength.holds_over(by_k, "c") == "none"


def _run(tmp_path, rows, **config):
    folder = tmp_path / "run"
    c = RunConfig(game=GameConfig("connect_four"), search=SearchConfig(simulations=9),
                  train=TrainConfig(games=10, batch_size=4), **config)
    folder.mkdir()
    run_folder.write_config(folder, c)
    run_folder.write_metrics(folder, rows)
    return run_folder.read_run(folder)


def test_compute_from_the_ledger_reconstructed_and_measured(tmp_path):
    units = compute.UnitSeconds("cpu: 2 cores", "connect_four", {}, "small",
                                seconds_per_evaluation=2.0, seconds_per_playout_step=0.5,
                                seconds_per_train_sample=0.1)
    ledger = dict(count_games_selfplay=10, count_games_arena=40, count_evals_selfplay=100,
                  count_evals_arena=50, count_evals_probe=999, count_playout_steps=40,
                  count_train_samples=30)
    rows = [metric_row(iteration=1, seconds_total=7.0, **ledger),
            metric_row(iteration=2, seconds_total=5.0, **ledger)]
    run = _run(tmp_path, rows)
    curve = compute.compute_curve(run, units)
    # (100 + 50)·2 + 40·0.5 + 30·0.1 = 323 per iteration; the probe's 999 are left out.
    assert curve.source == "ledger" and curve.seconds == pytest.approx((323.0, 646.0))
    assert compute.compute_curve(run, units, "measured").seconds == (7.0, 12.0)
    assert compute.compute_curve(run, None) is None


def test_compute_reconstructed_for_runs_before_the_ledger(tmp_path):
    units = compute.UnitSeconds("cpu", "connect_four", {}, "small", 1.0, 0.5, 0.25)
    rows = [metric_row(iteration=1, selfplay_mean_plies=20.0, train_steps=6)]
    run = _run(tmp_path, rows)
    curve = compute.compute_curve(run, units)
    # Self-play (1 + m)·E·plies = 10·10·20; the arena at self-play's length 10·40·20;
    # training 6·4 samples; no playouts.
    assert curve.source == "reconstructed"
    assert curve.seconds == pytest.approx((2000.0 + 8000.0 + 24 * 0.25,))


def test_calibration_table_round_trip_and_lookup(tmp_path):
    rows = [compute.UnitSeconds("cpu: 2 cores", "hex", {"size": 7}, "small", 1e-5, 1e-7, 1e-4),
            compute.UnitSeconds("gpu: H200", "hex", {"size": 7}, "small", 1e-7, 1e-8, 1e-6)]
    compute.write_calibration(tmp_path / "c.json", rows)
    back = compute.read_calibration(tmp_path / "c.json")
    assert back == rows
    assert compute.unit_seconds_for(back, "hex", {"size": 7}, "small") == rows[0]
    assert compute.unit_seconds_for(back, "hex", {"size": 7}, "small", "gpu: H200") == rows[1]
    assert compute.unit_seconds_for(back, "hex", {"size": 5}, "small") is None
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="not a warmjax-calibration-v1"):
        compute.read_calibration(tmp_path / "bad.json")
    assert dataclasses.asdict(back[0])["params"] == {"size": 7}
