"""A registered design's analysis (analysis/two_arms.py, analysis/engine.py) on
fabricated boards whose numbers are set by hand: each test checks its figures against scipy
or statsmodels, or against values worked out here."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from warmjax.analysis import registered, render, strength, study
from warmjax.analysis import two_arms as design
from warmjax.train import run_folder

from ..helpers import metric_row
from .synthetic import ledger_curve, write_study_run

ROOT = Path(__file__).parents[2]
ITERATIONS = 10
SEEDS = (0, 1, 2, 3)
NOISE = {0: 0.0, 1: 0.01, 2: -0.01, 3: 0.005}
# Board a (Connect Four 6×6) rises: the baseline's policy head 0.405 + 0.02·it + noise, the
# warm-start arm 0.09 above it in every seed. Board b (6×7) falls: 0.68 − 0.02·it + noise,
# the warm-start arm SHIFT_B[seed] above it.
SHIFT_B = {0: 0.01, 1: 0.03, 2: -0.01, 3: 0.02}
BOARDS = {"a": ({}, 0.405, 0.02, {s: 0.09 for s in SEEDS}),
          "b": ({"cols": 7}, 0.68, -0.02, SHIFT_B)}
ARMS = {"baseline": ("none", "rollout"), "adaptive_rollout": ("adaptive", "rollout")}
SECONDS = {"baseline": 10.0, "adaptive_rollout": 12.0}  # compute per iteration
DESIGN = {
    "registration": "REGISTRATION.md", "question": "Does warm start help?",
    "arms": {"baseline": "warm start off", "adaptive_rollout": "adaptive, Rollout"},
    "seeds": list(SEEDS), "iterations": ITERATIONS,
    "boards": [{"name": "a", "title": "Board A",
                "ladder": {"policy": [0.50, 0.63], "search": [0.79]}},
               {"name": "b", "title": "Board B",
                "ladder": {"policy": [0.55], "search": [0.80]}}],
    "compute": {"calibration": str(ROOT / "results" / "calibration" / "cpu.json"),
                "device": "cpu: 2 cores"},
    "final": {"delta": 0.02, "measures": ["search", "policy"]},
    "speed": {"resamples": 200, "speedup_delta": 1.25},
    "decline_window": [2, 4],
    "cut_order": ["b to seeds 0-2", "b dropped"]}


def rate(board: str, arm: str, seed: int, it: int) -> float:
    _, start, slope, shift = BOARDS[board]
    return start + slope * it + NOISE[seed] + (shift[seed] if arm != "baseline" else 0.0)


def fabricate(root: Path, skip: tuple = ()) -> None:
    """Both boards' run folders under `root` (`skip`: (board, arm, seed) left out)."""
    for board, (params, *_) in BOARDS.items():
        for arm, (mode, enhancement) in ARMS.items():
            for seed in SEEDS:
                if (board, arm, seed) in skip:
                    continue
                write_study_run(root / board / f"arm={arm},seed={seed}", "connect_four",
                                params, mode, enhancement, seed, ITERATIONS, [
                    metric_row(iteration=it, oracle_policy=rate(board, arm, seed, it),
                               oracle_optimal=0.5 + rate(board, arm, seed, it) / 2,
                               selfplay_draws=(0.01 if arm == "baseline" else 0.02) * it,
                               seconds_total=SECONDS[arm], count_games_selfplay=50,
                               count_evals_selfplay=1000, count_evals_arena=0,
                               count_evals_probe=0, count_playout_steps=0,
                               count_train_samples=2000)
                    for it in range(1, ITERATIONS + 1)])


def read(root: Path, plan: registered.Design):
    """The boards' families and their compute curves (SECONDS per iteration)."""
    families, curves = {}, {}
    for board in plan.boards:
        runs = [r for r in run_folder.find_runs([root / board.name])
                if r.id.seed in board.seeds]
        (families[board.name],) = study.families(runs, [], tables=False)
        for r in runs:
            curves[r.path] = ledger_curve(
                SECONDS["baseline" if r.id.mode == "none" else "adaptive_rollout"], ITERATIONS)
    return families, curves


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    root = tmp_path_factory.mktemp("design")
    fabricate(root)
    plan = design.from_json(DESIGN, "design.json")
    families, curves = read(root, plan)
    record = design.analyse(plan, families, {"a": 0.30, "b": 0.30}, curves, {})
    return json.loads(json.dumps(record)), plan, families, curves


def _final(record, board, measure):
    (row,) = [r for r in record["final"] if (r["board"], r["measure"]) == (board, measure)]
    return row


def test_the_committed_design_reads_and_counts_nineteen_steps():
    """The fast-recipe design as committed: three boards, two arms, and the 19 (board,
    measure, step) comparisons its registration adjusts together."""
    plan = design.read(ROOT / "studies" / "fast_recipe" / "design.json")
    assert [b.name for b in plan.boards] == ["fast_c4_6x6", "fast_c4_6x7", "fast_hex_7x7"]
    assert list(plan.arms) == ["baseline", "adaptive_rollout"]
    assert sum(len(b.ladder.policy) + len(b.ladder.search) for b in plan.boards) == 19
    assert plan.iterations == 80 and {b.decline_window for b in plan.boards} == {(21, 30)}
    assert registered.rate_measures(plan) == ["search", "policy"]
    assert design.final_delta(plan) == 0.02
    assert plan.delta("compute") == 1.25 and plan.measures["compute"].resamples == 2000
    assert [h.comparison for h in plan.hypotheses][0] == \
        "Connect Four 6×6: adaptive_rollout − baseline"
    assert [b.seeds for b in plan.under_cuts(1).boards][2] == (60, 61, 62, 63)
    assert [b.name for b in plan.under_cuts(2).boards] == ["fast_c4_6x6", "fast_c4_6x7"]
    assert plan.under_cuts(3).boards[1].seeds == (60, 61, 62, 63)


def test_bad_designs_and_cuts_are_refused():
    with pytest.raises(ValueError, match="has no 'iterations'"):
        design.from_json({k: v for k, v in DESIGN.items() if k != "iterations"})
    with pytest.raises(ValueError, match="names 1 arms"):
        design.from_json({**DESIGN, "arms": {"baseline": ""}})
    with pytest.raises(ValueError, match="unknown measures"):
        design.from_json({**DESIGN, "final": {"delta": 0.02, "measures": ["elo"]}})
    plan = design.from_json(DESIGN)
    with pytest.raises(ValueError, match="registers 2 cuts, not 3"):
        plan.under_cuts(3)
    with pytest.raises(ValueError, match="reads neither"):
        design.from_json({**DESIGN, "cut_order": ["b halved"]}).under_cuts(1)


def test_the_final_agent_by_paired_t_and_bh_over_every_board_and_measure(analysed):
    """Board a: the arm is 0.09 (policy) and 0.045 (search) above in every seed, no spread,
    so p = 0: reproduced. Board b: the per-seed differences are SHIFT_B (policy) and half
    of it (search), p from scipy's paired t; Benjamini–Hochberg over the four by
    statsmodels. Board b's policy interval reaches above +2 points (not resolvable), its
    search interval, [−0.7, +1.98] points, does not (contradicted, no gain); b's baseline
    declines, so both carry the label."""
    record = analysed[0]
    diffs = [SHIFT_B[s] for s in SEEDS]
    p_b = stats.ttest_rel([d for d in diffs], [0.0] * 4).pvalue
    order = [(r["board"], r["measure"]) for r in record["final"]]
    assert order == [("a", "search"), ("a", "policy"), ("b", "search"), ("b", "policy")]
    ps = [r["comparison"]["p"] for r in record["final"]]
    assert ps == pytest.approx([0.0, 0.0, p_b, p_b], abs=1e-6)
    expected = multipletests(ps, method="fdr_bh")[1]
    assert [r["p_adjusted"] for r in record["final"]] == pytest.approx(expected, abs=1e-6)
    assert _final(record, "a", "policy")["comparison"]["diff"] == pytest.approx(0.09)
    assert _final(record, "a", "policy")["verdict"] == "reproduced"
    assert _final(record, "a", "search")["verdict"] == "reproduced"
    b_search = _final(record, "b", "search")
    assert b_search["comparison"]["ci"][1] == pytest.approx(
        0.00625 + stats.t.ppf(0.975, 3) * stats.sem([d / 2 for d in diffs]), abs=1e-6)
    assert b_search["verdict"] == f"contradicted (no gain ≥ δ); {strength.DECLINING}"
    b_policy = _final(record, "b", "policy")["verdict"]
    assert b_policy.startswith("not resolvable (80% power needed ")
    assert b_policy.endswith(strength.DECLINING)
    # the exact sign flips beside: 4 seeds with the same sign pattern's mean or larger
    flips = _final(record, "b", "policy")["comparison"]["p_permutation"]
    assert flips == pytest.approx(6 / 16)  # |mean| ≥ 0.0125 in 6 of the 16 sign patterns


def test_the_decline_and_floor_rules(analysed):
    """Board b's baseline loses 0.02 an iteration: over iteration 10 against 2–4, 0.14 lower
    in every seed, so it declines; board a's rises. With a random move's rate above b's
    final baseline (0.48–0.50), b decides nothing."""
    record, plan, families, curves = analysed
    assert record["decline"]["b"]["declines"] and not record["decline"]["a"]["declines"]
    assert record["decline"]["b"]["diff"] == pytest.approx(-0.14)
    floored = design.analyse(plan, families, {"a": 0.30, "b": 0.60}, curves, {})
    assert not floored["floor"]["b"]["learned"] and floored["floor"]["a"]["learned"]
    assert _final(floored, "b", "policy")["verdict"] == \
        "not informative: the baseline did not learn"
    assert _final(floored, "a", "policy")["verdict"] == "reproduced"


def test_compute_to_strength_on_the_design_ladders(analysed):
    """Board a, policy 50%: the baseline reaches it at iterations 5, 5, 6, 5 (100 s at most,
    10 s an iteration), the arm at iteration 1 (12 s); τ = 100 s, so the speed-up is
    mean(50, 50, 60, 50) / 12. Policy 63%: no baseline run gets there (0.615 at most), every
    arm run does: budget-bound. BH over all five (board, measure, step) of the compute
    axis."""
    record = analysed[0]
    ledger = record["speed"]["ledger"]
    assert [r["board"] for r in ledger] == ["a", "b"]
    comps = {(r["board"], c["measure"], c["threshold"]): c
             for r in ledger for c in r["axes"]["compute"]["comparisons"]}
    assert len(comps) == 5
    first = comps["a", "policy", 0.50]
    assert first["tau"] == 100 and first["speedup"] == pytest.approx(52.5 / 12)
    assert not first["budget_bound"]
    top = comps["a", "policy", 0.63]
    assert top["budget_bound"] and design.BUDGET_BOUND in top["verdict"]
    ps = [c["logrank_p"] for c in comps.values()]
    assert [c["p_adjusted"] for c in comps.values()] == pytest.approx(
        multipletests(ps, method="fdr_bh")[1])
    assert all(c["verdict"].endswith(strength.DECLINING)
               for k, c in comps.items() if k[0] == "b")
    assert record["speed"]["measured"] == []  # no measured curves were given


def test_robustness_beside_compute_to_strength(analysed):
    """Board a, policy 50%: the baseline reaches it at 50, 50, 60, 50 s, the arm at 12 s in
    every seed: 4 of 4 sooner, exact paired p = 2/2⁴. Held for 3 iterations (the rates only
    rise) the baseline gets there two iterations later, 70, 70, 80, 70 s, the arm at 36 s.
    The paired p-values are adjusted by Benjamini–Hochberg over all five steps."""
    record = analysed[0]
    rows = {(r["board"], r["measure"], r["threshold"]): r for r in record["robustness"]}
    assert len(rows) == 5
    first = rows["a", "policy", 0.50]
    assert (first["sooner"], first["later"], first["seeds"]) == (4, 0, 4)
    assert first["paired_p"] == pytest.approx(2 / 16)
    assert first["held_speedup"] == pytest.approx(72.5 / 36)
    assert first["held_reached"] == [4, 4]
    # Any one seed left out: the baseline's mean of the other three over the arm's 12 s;
    # leaving out seed 2 (60 s) gives the smallest, any other the largest.
    assert first["left_out_speedup"] == pytest.approx([50 / 12, 160 / 3 / 12])
    assert [r["paired_p_adjusted"] for r in record["robustness"]] == pytest.approx(
        multipletests([r["paired_p"] for r in record["robustness"]], method="fdr_bh")[1])
    assert render._beside([{**first, "decided": "faster",
                            "held_speedup_ci": [0.9, 2.0]}])[0].startswith(
        "policy 50.0% is faster at the first touch only: held for 3 iterations 2.01× "
        "[0.90, 2.00], paired by seed exact p = 0.125")
    assert render._beside([{**first, "decided": "open", "speedup_ci": [1.1, 3.0],
                            "sooner": 0, "later": 0}]) == [
        f"open, with the speed-up's interval wholly above 1: policy 50.0% "
        f"({first['speedup']:.2f}× [1.10, 3.00])"]


def test_health_means_over_seeds(analysed):
    record = analysed[0]
    draws = record["health"]["a"]["Baseline"]["selfplay_draws"]
    assert draws["10"] == pytest.approx(0.10) and draws["1"] == pytest.approx(0.01)
    assert record["health"]["b"]["Rollout adaptive"]["selfplay_draws"]["10"] == \
        pytest.approx(0.20)


def test_gaps_and_no_verdict(tmp_path):
    fabricate(tmp_path, skip=(("b", "baseline", 3),))
    plan = design.from_json(DESIGN)
    families, curves = read(tmp_path, plan)
    assert design.gaps(plan, families) == ["b baseline: no run of seed(s) 3"]
    record = design.analyse(plan, families, {"a": 0.3, "b": 0.3}, curves, {})
    assert not record["complete"]
    assert {r["verdict"] for r in record["final"]} == {design.INCOMPLETE}
    # under the first registered cut, b's seeds are 0-2: nothing is missing
    cut = plan.under_cuts(1)
    families, curves = read(tmp_path, cut)
    assert design.gaps(cut, families) == []


def test_markdown_from_the_record_alone(analysed):
    record = analysed[0]
    text = render.markdown(record, "python -m warmjax.report --design study")
    for heading in ("# Does warm start help?", "## The answers", "## (B) The final agent",
                    "## (A) Compute to strength", "## The decline rule",
                    "## Self-play health"):
        assert heading in text
    assert "- **Board A.** The final agent, warm start − baseline: search at iteration 10 " \
           "+4.5 [+4.5, +4.5] points: **reproduced**" in text
    assert f"contradicted (no gain ≥ δ); {strength.DECLINING}" in text
    assert not math.isnan(record["final"][0]["comparison"]["diff"])


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_the_command_refuses_gaps_writes_and_records_the_look_once(tmp_path, capsys):
    from warmjax import report

    fabricate(tmp_path / "root", skip=(("a", "adaptive_rollout", 2),))
    folder = tmp_path / "root" / "design"
    folder.mkdir()
    glimpse = {"when": "2026-01-01, 10:00 UTC", "what": "a log's last line: seed 0 of b"}
    (folder / "design.json").write_text(json.dumps({**DESIGN, "glimpses": [glimpse]}))
    out = tmp_path / "out"
    args = ["--design", str(folder / "design.json"), "--out", str(out)]
    with pytest.raises(SystemExit) as refused:
        report.main(args)
    assert refused.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a adaptive_rollout: no run of seed(s) 2" in err[0]
    assert not out.exists()
    fabricate(tmp_path / "root2")
    args += ["--root", str(tmp_path / "root2")]
    report.main(args)
    first = (out / "analysis.json").read_text()
    report.main(args)
    assert (out / "analysis.json").read_text() == first
    record = json.loads(first)
    assert record["complete"] and len(study.read_looks(out)) == 1
    assert record["floor"]["a"]["learned"]  # against the shipped 6×6 set's random rate
    assert "compute" in record["speed"]["ledger"][0]["axes"]  # both boards have a row
    text = (out / "analysis.md").read_text()
    assert text.startswith("# Does warm start help?")
    # One figure per board, linked under its compute-to-strength table.
    assert record["figures"] == {"a": "compute_a.png", "b": "compute_b.png"}
    assert all((out / name).stat().st_size > 10_000 for name in record["figures"].values())
    assert "![Board B: each run against the ledger's compute](compute_b.png)" in text
    assert text.index("![Board A") < text.index("### Board B")
    # The registration's glimpses are said in the report, before its looks.
    assert record["glimpses"] == [glimpse]
    assert ("- **2026-01-01, 10:00 UTC.** A log's last line: seed 0 of b." in text
            and text.index("## Glimpses before the look") < text.index("## Looks"))


def test_the_command_finds_the_boards_beside_the_design(tmp_path):
    """A study folder holds its design beside its boards (studies/<study>/): no --root, and
    the folder names the design."""
    from warmjax import report

    folder = tmp_path / "study"
    fabricate(folder)
    (folder / "design.json").write_text(json.dumps(DESIGN))
    report.main(["--design", str(folder), "--out", str(tmp_path / "out")])
    assert json.loads((tmp_path / "out" / "analysis.json").read_text())["complete"]


@pytest.mark.slow
def test_a_design_with_a_prediction_adds_its_record_and_table(tmp_path):
    """The prediction section (studies/where_it_helps/design.json's shape): each board's
    early gain over iterations 1–4 from its runs, the design's boards read where they lie
    and another board from its own folder. Search rates are 0.5 + policy / 2, so board a's
    search gain is 0.09 / 2 in every seed, board b's the mean of SHIFT_B / 2."""
    from warmjax import report

    folder = tmp_path / "study"
    fabricate(folder)
    fabricate(tmp_path / "elsewhere")
    (folder / "predictor").mkdir()
    for name, points in (("a", 10.0), ("b", 2.0), ("c", 5.0)):
        (folder / "predictor" / f"{name}.json").write_text(json.dumps({"points": points}))
    window = {"window": [1, 4], "pairing": "seed"}
    plan = dict(DESIGN, prediction={
        "outcome": {"measure": "search", **window},
        "secondary_outcome": {"measure": "policy", **window},
        "out_of_sample": {"boards": ["b"], "holds_at": 0.1},
        "boards": [{"name": n, "title": n.upper(), "runs": runs, "seeds": list(SEEDS),
                    "predictor": f"predictor/{n}.json", "sample": sample}
                   for n, runs, sample in (("a", "unused", "in sample"),
                                           ("b", "unused", "out of sample"),
                                           ("c", str(tmp_path / "elsewhere" / "b"),
                                            "in sample"))]})
    (folder / "design.json").write_text(json.dumps(plan))
    report.main(["--design", str(folder), "--out", str(tmp_path / "out")])
    record = json.loads((tmp_path / "out" / "analysis.json").read_text())
    gains = {b["name"]: b for b in record["prediction"]["boards"]}
    assert gains["a"]["gain"]["mean"] == pytest.approx(0.045)
    assert gains["a"]["secondary_gain"]["mean"] == pytest.approx(0.09)
    assert gains["b"]["gain"]["mean"] == pytest.approx(np.mean(list(SHIFT_B.values())) / 2)
    assert gains["c"]["gain"] == pytest.approx(gains["b"]["gain"])
    assert record["prediction"]["out_of_sample"]["placements"] == 3  # b's rank: 1, 2 or 3
    text = (tmp_path / "out" / "analysis.md").read_text()
    assert "## The prediction across boards" in text and "Spearman's ρ" in text


def test_each_registered_analysis_decides_a_group_one_way():
    """`verdicts.decide_each`, the step every registered analysis shares: paired t-test p
    adjusted over the group (statsmodels' Benjamini–Hochberg, an independent
    implementation), the exact sign-flip p beside it adjusted alike, a comparison without
    runs left out of the adjustment, and each verdict by δ alone."""
    from itertools import product

    from warmjax.analysis.stats import REPRODUCED, compare_by_seed
    from warmjax.analysis.verdicts import decide_each

    base = {s: 0.5 for s in range(5)}
    lifts = {"clear": [0.10, 0.12, 0.09, 0.11, 0.10], "small": [0.01, -0.02, 0.03, 0.0, 0.01],
             "mixed": [0.05, -0.01, 0.06, 0.02, 0.04]}
    group = {k: (f"{k} − base", compare_by_seed({s: 0.5 + v[s] for s in range(5)}, base))
             for k, v in lifts.items()}
    group["absent"] = ("absent − base", None)
    out = decide_each(group, delta=0.02)
    assert out["absent"] is None and list(out) == ["clear", "small", "mixed", "absent"]
    keys = list(lifts)
    t_p = [stats.ttest_1samp(lifts[k], 0.0).pvalue for k in keys]
    # the exact two-sided sign-flip p over the 32 sign patterns of five differences
    flip_p = [np.mean([abs(sum(s * d for s, d in zip(signs, lifts[k])))
                       >= abs(sum(lifts[k])) - 1e-12
                       for signs in product((1, -1), repeat=5)]) for k in keys]
    for name, p, field in [("t", t_p, "p_adjusted"), ("flip", flip_p,
                                                      "p_permutation_adjusted")]:
        expected = multipletests(p, method="fdr_bh")[1]
        assert [getattr(out[k], field) for k in keys] == pytest.approx(expected), name
    assert out["clear"].decision.verdict == REPRODUCED  # +10 points, p about 1e-5
    assert out["small"].decision.verdict != REPRODUCED


def test_the_floor_and_decline_labels_by_each_designs_rule():
    """One labelling function, the two registered rules: the fast-recipe design's floor
    label replaces the decline's; the long-horizon design's keeps it after (as its
    committed report reads). A learned baseline's verdict takes only the decline label."""
    from warmjax.analysis.stats import NOT_INFORMATIVE
    from warmjax.analysis.verdicts import INCOMPLETE, labelled

    flat = strength.Floor("f", 0.3, 10, (0.3, 0.31), 0.4, learned=False)
    learned = strength.Floor("f", 0.3, 10, (0.6, 0.7), 1e-4, learned=True)
    down = strength.Decline("f", (1, 10), (90, 100), (0, 1), (0.6, 0.6), (0.5, 0.5), 0.01,
                            declines=True)
    floor_words = f"{NOT_INFORMATIVE}: the baseline did not learn"
    assert labelled("reproduced", flat, down) == floor_words
    assert labelled("reproduced", flat, down, decline_after_floor=True) == (
        f"{floor_words}; {strength.DECLINING}")
    for rule in (False, True):
        assert labelled("reproduced", learned, down, decline_after_floor=rule) == (
            f"reproduced; {strength.DECLINING}")
        assert labelled("reproduced", learned, None, decline_after_floor=rule) == "reproduced"
        assert labelled(INCOMPLETE, flat, down, decline_after_floor=rule) == INCOMPLETE


def test_a_two_arm_study_of_a_game_of_ones_own_runs_through_the_one_command(
        tmp_path, monkeypatch, capsys):
    """A new registered study of a toy game kept outside warmjax (examples/toy_three.py,
    named by its module in each run's config) is a folder: a design.json and its runs, no
    library code. The calibration table has no row for the toy, so the analysis says so
    in one line and measures compute to strength on iterations alone, with no compute
    figure (it once stopped on a KeyError). The final agent's paired differences are the
    fabricated ones, computed here by hand."""
    from warmjax import report

    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    folder, seeds, its = tmp_path / "toy_study", (0, 1, 2), 6
    lift = {"baseline": {s: 0.0 for s in seeds}, "warm": {0: 0.04, 1: 0.06, 2: 0.05}}
    for arm, (mode, enhancement) in {"baseline": ("none", "rollout"),
                                     "warm": ("adaptive", "rollout")}.items():
        for s in seeds:
            policy = [0.30 + 0.03 * it + 0.01 * s + lift[arm][s] for it in range(1, its + 1)]
            write_study_run(folder / "toy" / f"arm={arm},seed={s}", "toy_three", {}, mode,
                            enhancement, s, its, [
                metric_row(iteration=it, oracle_policy=p, oracle_optimal=0.5 + p / 2,
                           seconds_total=10.0, count_games_selfplay=50,
                           count_evals_selfplay=1000, count_evals_arena=0, count_evals_probe=0,
                           count_playout_steps=0, count_train_samples=2000)
                for it, p in zip(range(1, its + 1), policy)], module="toy_three")
    (folder / "design.json").write_text(json.dumps({
        **DESIGN, "question": "Does warm start help on the toy?",
        "arms": {"baseline": "warm start off", "warm": "adaptive, Rollout"},
        "seeds": list(seeds), "iterations": its, "cut_order": [],
        "boards": [{"name": "toy", "title": "Toy three",
                    "ladder": {"policy": [0.40, 0.50], "search": [0.70]}}]}))
    capsys.readouterr()
    report.main(["--design", str(folder)])
    err = capsys.readouterr().err
    assert "has no row for toy_three" in err and "iterations only" in err
    record = json.loads((folder / "analysis.json").read_text())
    assert record["complete"] and record["figures"] == {}
    assert not list(folder.glob("compute_*.png"))
    (speed,) = record["speed"]["ledger"]
    assert list(speed["axes"]) == ["iterations"]
    diffs = [lift["warm"][s] for s in seeds]
    t = stats.ttest_1samp(diffs, 0.0)
    for measure, scale in (("policy", 1.0), ("search", 0.5)):
        row = _final(record, "toy", measure)
        assert row["comparison"]["diff"] == pytest.approx(scale * np.mean(diffs), abs=1e-6)
        assert row["comparison"]["p"] == pytest.approx(t.pvalue, abs=1e-6)
    text = (folder / "analysis.md").read_text()
    assert text.startswith("# Does warm start help on the toy?") and "Toy three" in text
