"""Families set against each other (`warmjax.analysis.contrasts`): one game on two boards,
and a departure's family against the papers' family, checked against values computed by
hand from the fabricated runs."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
import scipy.stats

from warmjax.analysis import contrasts, model, plots, record, report, stats, study
from warmjax.analysis.tournaments import Tournament
from warmjax.matches.tournament_folder import NetworkEntry
from warmjax.train import run_folder
from warmjax.train.run_id import RunId

from .synthetic import ITERATIONS, NOISE, base_curve, write_run

SMALL = {"rows": 6, "cols": 6, "win_length": 4}  # the registered board, spelled out
LARGE = {"rows": 6, "cols": 7}
# Per seed: adaptive WRoRa's lead over its baseline and its switch iteration (99: never).
LEAD = {"small": {0: 0.010, 1: 0.030, 2: 0.020, 3: 0.000},
        "large": {0: 0.080, 1: 0.110, 2: 0.090}}
SWITCH = {"small": {0: 1, 1: 2, 2: 3, 3: 5}, "large": {0: 4, 1: 6, 2: 99}}
# The fixed arm leads by the same amount on both boards, up to a little noise.
FIXED = {"small": {0: 0.010, 1: 0.011, 2: 0.009, 3: 0.010},
         "large": {0: 0.010, 1: 0.009, 2: 0.011}}


def _welch(a, b):
    """Welch's t-test by its textbook formulas: (difference, two-sided p)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    t = (a.mean() - b.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    return a.mean() - b.mean(), 2 * scipy.stats.t.sf(abs(t), df)


def _exact_mann_whitney(a, b):
    """The two-sided exact Mann–Whitney p by enumerating every split of the pooled values
    (no ties)."""
    pooled = list(a) + list(b)
    u = lambda xs, ys: sum(x > y for x in xs for y in ys)  # noqa: E731
    centre = len(a) * len(b) / 2
    seen = abs(u(a, b) - centre)
    splits = list(itertools.combinations(range(len(pooled)), len(a)))
    extreme = 0
    for chosen in splits:
        xs = [pooled[i] for i in chosen]
        ys = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        extreme += abs(u(xs, ys) - centre) >= seen - 1e-12
    return extreme / len(splits)


@pytest.fixture(scope="module")
def boards(tmp_path_factory):
    root = tmp_path_factory.mktemp("boards")
    for size, params in (("small", SMALL), ("large", LARGE)):
        for seed in LEAD[size]:
            write_run(root, "none", "rollout", seed, 0.0, params=params)
            write_run(root, "adaptive", "wrora", seed, LEAD[size][seed],
                      switch=SWITCH[size][seed], params=params)
            write_run(root, "fixed", "wrora", seed, FIXED[size][seed], params=params)
    return root


def test_a_larger_board_against_the_smallest(boards):
    (group,) = contrasts.board_steps(study.families(run_folder.find_runs([boards])))
    assert [b.name for b in group.boards] == ["6×6", "6×7"]
    assert group.title == "Connect Four: 6×6, 6×7"
    small, large = group.boards
    adaptive = large.arms["WRoRa adaptive"]
    assert adaptive.leads == pytest.approx(LEAD["large"])
    assert adaptive.switches == (4, 6, ITERATIONS + 1) and adaptive.never == 1
    assert small.arms["WRoRa adaptive"].lead.diff == pytest.approx(0.015)
    steps = {s.arm: s for s in group.steps}
    growth = steps["WRoRa adaptive"].growth
    diff, p = _welch(list(LEAD["large"].values()), list(LEAD["small"].values()))
    assert growth.test == "Welch"
    assert growth.diff == pytest.approx(diff) and growth.p == pytest.approx(p, rel=1e-6)
    delay = steps["WRoRa adaptive"]
    d, p_delay = _welch([4, 6, 7], [1, 2, 3, 5])
    assert delay.delay.diff == pytest.approx(d) and delay.delay.p == pytest.approx(p_delay,
                                                                                   rel=1e-6)
    assert delay.p_mannwhitney == pytest.approx(_exact_mann_whitney([4, 6, 7], [1, 2, 3, 5]))
    assert steps["WRoRa I′=5"].delay is None  # a fixed arm has no switch
    # Benjamini–Hochberg over the two steps' growth tests.
    ps = sorted([growth.p, steps["WRoRa I′=5"].growth.p])
    assert growth.p_adjusted == pytest.approx(min(2 * growth.p, ps[1]))
    # The verdicts: the adaptive arm's lead grows by about 7 points (clearly more than δ);
    # the fixed arm's lead is the same on both boards, its interval well inside ±δ.
    assert delay.lead_decision.verdict == stats.REPRODUCED
    fixed = steps["WRoRa I′=5"]
    assert fixed.growth.ci[1] < model.DELTA
    assert (fixed.lead_decision.verdict, fixed.lead_decision.reason) == (stats.CONTRADICTED,
                                                                         "no gain")


def _tournament(tag, params, ratings):
    players = {f"p{i}": NetworkEntry(f"r{i}", game=v.game, mode=v.mode,
                                     enhancement=v.enhancement, iprime=v.iprime,
                                     departures=v.departures, seed=v.seed)
               for i, v in enumerate(ratings)}
    return Tournament(tag, tag, "connect_four", tuple(players), tuple(ratings.values()),
                      (0,) * len(ratings), (0,) * len(ratings), players, params)


def test_two_boards_ratings_never_mix(boards):
    # The same variants and seeds on two boards, each rated in its own round robin: adaptive
    # WRoRa is 20 Elo above its baseline on 6×6 and 40 below on 6×7.
    def rated(offset):
        out = {}
        for seed in (0, 1, 2, 3):  # the 6×7 board has no seed 3: its rating matches nothing
            out[RunId("connect_four", seed=seed)] = 1000.0 * seed
            out[RunId("connect_four", "adaptive", "wrora", seed=seed)] = \
                1000.0 * seed + offset
        return out

    full_small = {**SMALL}
    full_large = {"rows": 6, "cols": 7, "win_length": 4}
    tournaments = [_tournament("small", full_small, rated(20.0)),
                   _tournament("large", full_large, rated(-40.0))]
    found = study.families(run_folder.find_runs([boards]), tournaments)
    by_title = {f.title: f for f in found}
    small = next(a for a in by_title["Connect Four"].arms if a.label == "WRoRa adaptive")
    large = next(a for a in by_title["Connect Four 6×7"].arms if a.label == "WRoRa adaptive")
    assert small.elo_vs_baseline.diff == pytest.approx(20.0)
    assert large.elo_vs_baseline.diff == pytest.approx(-40.0)


def test_each_seed_block_is_rated_by_one_tournament(tmp_path):
    # A second tournament that rated only the baseline of each seed, on another scale, must
    # not shift the block's centring: the tournament that rated the whole block decides.
    for seed in (0, 1):
        write_run(tmp_path, "none", "rollout", seed, 0.0)
        write_run(tmp_path, "adaptive", "wrora", seed, 0.0)
    whole = {}
    for seed in (0, 1):
        whole[RunId("connect_four", seed=seed)] = 0.0
        whole[RunId("connect_four", "adaptive", "wrora", seed=seed)] = 30.0
    partial = {RunId("connect_four", seed=s): 500.0 for s in (0, 1)}
    runs = run_folder.find_runs([tmp_path])
    for order in ([partial, whole], [whole, partial]):
        tournaments = [_tournament(f"t{i}", SMALL, r) for i, r in enumerate(order)]
        (family,) = study.families(runs, tournaments)
        assert family.baseline.elo.values == (-15.0, -15.0)
        assert family.arms[0].elo_vs_baseline.diff == pytest.approx(30.0)


@pytest.fixture(scope="module")
def dropped(tmp_path_factory):
    root = tmp_path_factory.mktemp("drop")
    for seed in (0, 1, 2, 3):
        write_run(root, "none", "rollout", seed, 0.0)
        write_run(root, "adaptive", "wrora", seed, 0.05)
        write_run(root, "adaptive", "wrora", seed, 0.08 + 0.01 * seed,
                  train={"drop_warmstart_games": True})
    return root


def test_a_departure_against_the_papers_family(dropped):
    found = study.families(run_folder.find_runs([dropped]))
    (contrast,) = contrasts.departure_contrasts(found)
    assert contrast.added == ("drop-warm-games",)
    assert contrast.reference.departures == ()
    rows = {r.name: r for r in contrast.rows}
    arm = "WRoRa adaptive + drop-warm-games"
    assert list(rows) == [f"{arm} − Baseline", f"{arm} − WRoRa adaptive"]
    vs_base, vs_same = rows[f"{arm} − Baseline"], rows[f"{arm} − WRoRa adaptive"]
    # Every iteration's rate is shifted by the same amount, so the AUC's and the final
    # rate's paired differences are the shifts': 0.08 + 0.01·seed against 0 and 0.05.
    assert vs_base.auc.diff == pytest.approx(0.095) and vs_base.auc.paired
    assert vs_same.final.diff == pytest.approx(0.045) and vs_same.seeds == 4
    assert vs_base.auc_decision.verdict == stats.REPRODUCED
    sd = float(np.std([0.01 * s for s in range(4)], ddof=1))
    t = 0.095 / (sd / 2)
    assert vs_base.auc.p == pytest.approx(2 * scipy.stats.t.sf(t, 3), rel=1e-6)
    assert vs_base.auc.p_adjusted == pytest.approx(min(2 * vs_base.auc.p, vs_same.auc.p))
    assert vs_same.auc.p_adjusted == pytest.approx(vs_same.auc.p)
    assert vs_base.elo is None  # no round robin


def test_elo_against_the_reference_from_one_round_robin_per_seed(dropped):
    # Each seed's round robin rated the drop arm and the papers' baseline (on its own
    # offset); the paired Elo difference is theirs within it: 10, 20, 30, 40.
    ratings = {}
    for seed in (0, 1, 2, 3):
        ratings[RunId("connect_four", seed=seed)] = 700.0 * seed
        ratings[RunId("connect_four", "adaptive", "wrora",
                           departures=("drop-warm-games",), seed=seed)] = \
            700.0 * seed + 10.0 * (seed + 1)
    tournaments = [_tournament("t", SMALL, ratings)]
    found = study.families(run_folder.find_runs([dropped]), tournaments)
    (contrast,) = contrasts.departure_contrasts(found, tournaments)
    rows = {r.name: r for r in contrast.rows}
    elo = rows["WRoRa adaptive + drop-warm-games − Baseline"].elo
    assert elo.diff == pytest.approx(25.0) and elo.n == 4
    assert rows["WRoRa adaptive + drop-warm-games − WRoRa adaptive"].elo is None


@pytest.mark.slow
def test_the_report_sets_boards_and_departures_side_by_side(tmp_path, boards, dropped):
    written = report.write_study([str(boards)], out=str(tmp_path / "rep"))
    text = (tmp_path / "rep" / "study.md").read_text()
    assert "## Across boards" in text and "## Against a reference family" not in text
    assert "### Connect Four: 6×6, 6×7" in text
    assert written["boards_connect_four.png"].stat().st_size > 0
    payload = json.loads((tmp_path / "rep" / "study.json").read_text())
    (group,) = payload["boards"]
    step = next(s for s in group["steps"] if s["arm"] == "WRoRa adaptive")
    assert step["growth"]["diff"] == pytest.approx(np.mean(list(LEAD["large"].values()))
                                                   - np.mean(list(LEAD["small"].values())),
                                                   abs=1e-6)
    assert step["growth_verdict"]["verdict"] == stats.REPRODUCED
    report.write_study([str(dropped)], out=str(tmp_path / "drop"))
    text = (tmp_path / "drop" / "study.md").read_text()
    assert "### Connect Four with drop-warm-games against Connect Four" in text
    (contrast,) = json.loads((tmp_path / "drop" / "study.json").read_text())["contrasts"]
    assert contrast["added"] == ["drop-warm-games"] and len(contrast["rows"]) == 2


@pytest.mark.slow
def test_two_studies_of_one_game_stay_apart(tmp_path):
    # An exploratory study (seeds 0-1) and a confirmatory one (seeds 2-3) of the same game,
    # board and algorithm, a 6×7 study on seeds 2-3 and a departure's study on seeds 2-3:
    # the two 6×6 studies are two families, named by their folders; the departure and the
    # larger board are set against the 6×6 study that shares their seeds.
    studies = {name: tmp_path / name for name in ("explore", "confirm", "wide", "drop")}
    for seed in (0, 1):
        write_run(studies["explore"], "none", "rollout", seed, 0.0)
        write_run(studies["explore"], "adaptive", "wrora", seed, 0.30)
    for seed in (2, 3):
        write_run(studies["confirm"], "none", "rollout", seed, 0.0)
        write_run(studies["confirm"], "adaptive", "wrora", seed, 0.02 + 0.01 * seed)
        write_run(studies["wide"], "none", "rollout", seed, 0.0, params=LARGE)
        write_run(studies["wide"], "adaptive", "wrora", seed, 0.04 * seed, params=LARGE)
        write_run(studies["drop"], "adaptive", "wrora", seed, 0.01 * seed,
                  train={"drop_warmstart_games": True})
    written = report.write_study([str(p) for p in studies.values()],
                                 out=str(tmp_path / "rep"))
    payload = json.loads((tmp_path / "rep" / "study.json").read_text())
    six = [f for f in payload["families"] if f["departures"] == [] and "board" not in f]
    assert sorted(f["study"] for f in six) == ["confirm", "explore"]
    for f in six:  # each its own seeds and its own lead, never pooled
        (arm,) = f["arms"]
        lead = 0.30 if f["study"] == "explore" else 0.045
        assert arm["vs_baseline"]["diff"] == pytest.approx(lead)
        assert arm["vs_baseline"]["n"] == 2
    text = (tmp_path / "rep" / "study.md").read_text()
    assert "## Connect Four (explore)" in text and "## Connect Four (confirm)" in text
    assert "curves_connect_four_confirm_adaptive.png" in written
    (contrast,) = payload["contrasts"]
    assert contrast["reference"] == "Connect Four (confirm)"
    (group,) = payload["boards"]
    step = next(s for s in group["steps"] if s["arm"] == "WRoRa adaptive")
    assert (step["small"], step["large"]) == ("6×6 (confirm)", "6×7")
    assert step["growth"]["diff"] == pytest.approx(0.10 - 0.045)


@pytest.mark.slow
def test_a_pgx_game_on_two_boards(tmp_path):
    # The Hex size family (REGISTRATION_hex_sizes.md): two studies of pgx's Hex that differ
    # only in `size`. Its boards are read from the game itself (5×5, 7×7), its one growth
    # test is Welch's on the per-seed leads, and Benjamini–Hochberg over that single test
    # leaves its p as it is.
    leads = {5: {0: 0.01, 1: 0.03, 2: -0.01}, 7: {0: 0.02, 1: 0.00, 2: 0.05}}
    switches = {5: {0: 2, 1: 3, 2: 4}, 7: {0: 5, 1: 3, 2: 99}}
    for size in (5, 7):
        root = tmp_path / f"hex_{size}"
        for seed in range(3):
            write_run(root, "none", "rollout", seed, 0.0, params={"size": size}, game="hex")
            write_run(root, "adaptive", "wrora", seed, leads[size][seed],
                      switch=switches[size][seed], params={"size": size}, game="hex")
    report.write_study([str(tmp_path / "hex_5"), str(tmp_path / "hex_7")],
                       out=str(tmp_path / "rep"))
    (group,) = json.loads((tmp_path / "rep" / "study.json").read_text())["boards"]
    assert group["game"] == "hex"
    assert [b["board"] for b in group["boards"]] == ["5×5", "7×7"]
    (step,) = group["steps"]
    diff, p = _welch(list(leads[7].values()), list(leads[5].values()))
    assert step["growth"]["diff"] == pytest.approx(diff, abs=1e-6)
    assert step["growth"]["p"] == pytest.approx(p, rel=1e-5)
    assert step["growth"]["p_adjusted"] == pytest.approx(p, rel=1e-5)
    d, p_delay = _welch([5, 3, ITERATIONS + 1], [2, 3, 4])
    assert step["delay"]["diff"] == pytest.approx(d, abs=1e-6)
    assert step["delay"]["p"] == pytest.approx(p_delay, rel=1e-5)
    assert "### Hex: 5×5, 7×7" in (tmp_path / "rep" / "study.md").read_text()


def test_a_boards_figure_draws_only_the_arms_compared_across_boards(tmp_path):
    # The 6×6 reference families hold more arms than the larger board (the enhancements'
    # sweep); the figure of a game's boards draws each board's baseline and the arms that
    # ran on both boards, and leaves the others to the 6×6 family's own figures.
    for seed in range(2):
        write_run(tmp_path, "none", "rollout", seed, 0.0)
        write_run(tmp_path, "adaptive", "wrora", seed, 0.02)
        write_run(tmp_path, "adaptive", "rave", seed, 0.01)
        write_run(tmp_path, "none", "rollout", seed, 0.0, params=LARGE)
        write_run(tmp_path, "adaptive", "wrora", seed, 0.03, params=LARGE)
    (group,) = contrasts.board_steps(study.families(run_folder.find_runs([tmp_path])))
    assert sorted(group.boards[0].arms) == ["Rave adaptive", "WRoRa adaptive"]
    shown = contrasts.board_curve_arms(group)
    assert [[a.label for a in arms] for arms in shown] == [["Baseline", "WRoRa adaptive"],
                                                           ["Baseline", "WRoRa adaptive"]]
    # The figure draws the arms' record entries: their curves, the mean over seeds of
    # `base_curve` plus each seed's noise and the arm's shift.
    boards = [(board.name, [record.arm_json(a) for a in arms])
              for board, arms in zip(group.boards, shown)]
    curve = boards[0][1][1]["curves"]["policy"]
    expected = [base_curve(i) + np.mean([NOISE[0], NOISE[1]]) + 0.02
                for i in range(1, ITERATIONS + 1)]
    assert curve["iterations"] == list(range(1, ITERATIONS + 1))
    assert curve["mean"] == pytest.approx(expected, abs=1e-6)
    assert plots.plot_board_curves(group.title, boards, tmp_path / "boards.png"
                                   ).stat().st_size > 0


def test_nearly_identical_samples_are_tested_without_scipys_precision_warning():
    """A difference equal in every seed up to float rounding: scipy's t-tests warn of
    precision loss (`report --study` printed 14 such lines); the comparisons, estimates and
    the floor and decline rules test it quietly, with the same results as scipy's."""
    import warnings

    from scipy import stats as sp

    from warmjax.analysis.stats import Estimate, compare, compare_paired

    arm, ref = [0.5, 0.5, 0.5], [0.4, 0.4, 0.4000001]
    with warnings.catch_warnings(record=True) as raw:
        warnings.simplefilter("always")
        expected = sp.ttest_ind(arm, ref, equal_var=False).pvalue
    assert any("Precision loss" in str(w.message) for w in raw)  # scipy's own warning
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        welch = compare(arm, ref)
        compare_paired(arm, ref)
        Estimate.of([0.1, 0.1, 0.1000001])
    assert not [w for w in seen if "Precision loss" in str(w.message)]
    assert welch.p == pytest.approx(expected)
