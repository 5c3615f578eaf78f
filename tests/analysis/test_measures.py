"""The registered designs' measures as plug-ins (`warmjax.analysis.measures`): each
measure's values per seed against the fabricated runs' known curves, a measure of one's
own in a design with no library edit, and the Benjamini–Hochberg groups a design declares
(statsmodels' adjustment as the independent reference)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from warmjax.analysis import measures, study
from warmjax.train import run_folder

from .synthetic import ITERATIONS, NOISE, base_curve, write_run

SHIFT = {0: 0.05, 1: 0.06, 2: 0.04, 3: 0.05}  # the adaptive arm's lead per seed


def _family(root):
    for seed in range(4):
        write_run(root, "none", "rollout", seed, 0.0)
        write_run(root, "adaptive", "wrora", seed, SHIFT[seed])
    (family,) = study.families(run_folder.find_runs([root]), [], 3, tables=False)
    return family


def test_each_measure_states_its_values_per_seed(tmp_path):
    """Against the runs' curves by hand: the policy head is `base_curve(it) + noise +
    shift`, the search half of it + 0.4."""
    family = _family(tmp_path)
    arm = family.main[0]
    auc = measures.Auc("AUC 1–3", 0.02, iterations=3)
    want = {s: np.mean([base_curve(i) for i in (1, 2, 3)]) + NOISE[s] + SHIFT[s]
            for s in range(4)}
    assert auc.values(arm, ITERATIONS) == pytest.approx(want)
    assert auc.at(2).values(arm, ITERATIONS) == pytest.approx(
        {s: np.mean([base_curve(1), base_curve(2)]) + NOISE[s] + SHIFT[s] for s in range(4)})
    last = measures.FinalRate("final", 0.02)
    assert last.values(arm, ITERATIONS) == pytest.approx(
        {s: base_curve(ITERATIONS) + NOISE[s] + SHIFT[s] for s in range(4)})
    search_at_4 = measures.FinalRate("search at 4", 0.02, metric="search", at=4)
    assert search_at_4.values(arm, ITERATIONS) == pytest.approx(
        {s: (base_curve(4) + NOISE[s] + SHIFT[s]) / 2 + 0.4 for s in range(4)})
    assert measures.FinalElo("Elo", 50.0).values(arm, ITERATIONS) == {}  # no round robin
    with pytest.raises(ValueError, match="needs its iterations"):
        measures.Auc("no window").values(arm, ITERATIONS)
    with pytest.raises(TypeError, match="not one number per run"):
        measures.ComputeToStep("compute").values(arm, ITERATIONS)


def test_a_design_groups_its_measures_for_the_adjustment():
    """A measure without a group is a group of its own; measures that name one group share
    it, in the design's order; a group whose measures differ in δ is refused."""
    from warmjax.analysis.stats import compare_by_seed
    from warmjax.analysis.verdicts import decide_each, decide_groups

    ms = {"a": measures.FinalRate("a", 0.02, group="g"), "b": measures.Auc("b", 0.02),
          "c": measures.FinalRate("c", 0.02, group="g", metric="search")}
    assert measures.groups(ms) == {"g": ["a", "c"], "b": ["b"]}
    base = {s: 0.5 for s in range(4)}
    lifts = {"a": [0.05, 0.06, 0.04, 0.05], "b": [0.01, 0.04, -0.02, 0.01],
             "c": [0.03, -0.01, 0.02, 0.02]}
    comps = {(m, "H"): (m, "x − base", compare_by_seed(
        {s: 0.5 + v[s] for s in range(4)}, base)) for m, v in lifts.items()}
    out = decide_groups(ms, comps)
    assert list(out) == list(comps)
    together = decide_each({k: comps[k][1:] for k in [("a", "H"), ("c", "H")]}, 0.02)
    alone = decide_each({("b", "H"): comps["b", "H"][1:]}, 0.02)
    for k, x in {**together, **alone}.items():
        assert out[k].p_adjusted == x.p_adjusted
    ms["c"] = measures.FinalRate("c", 0.05, group="g")
    with pytest.raises(ValueError, match="mixes δs"):
        decide_groups(ms, comps)


DESIGN_PY = """
from warmjax.analysis.measures import Auc, Measure
from warmjax.analysis.model import curve
from warmjax.analysis.registered import PAPERS_ROLES, Board, Design, Hypothesis


class SquaredLast(Measure):
    '''A measure of this study's own: the square of the policy head's last rate.'''

    def values(self, arm, iterations):
        return {r.id.seed: curve(r, "policy")[iterations] ** 2 for r in arm.runs}


DESIGN = Design(
    title="A study with a measure of its own", registration="REGISTRATION.md",
    boards=(Board("data", "Connect Four 6×6", (0, 1, 2, 3), ITERATIONS,
                  ("baseline", "adaptive")),),
    hypotheses=(Hypothesis("H1", "adaptive WRoRa − baseline", "adaptive"),),
    measures={"auc": Auc("AUC, iterations 1–3", 0.02, iterations=3, group="both"),
              "squared": SquaredLast("the last rate, squared", 0.02, group="both")},
    roles=PAPERS_ROLES)
"""


def test_a_measure_of_ones_own_and_its_group_through_the_one_command(tmp_path):
    """A design declares a measure class of its own and puts it in one Benjamini–Hochberg
    group with the AUC: `report --design` decides both with no library edit, each p
    adjusted over the two (scipy's paired t and statsmodels' adjustment by hand)."""
    from warmjax import report

    folder = tmp_path / "study"
    _family(folder / "data")
    (folder / "design.py").write_text(f"ITERATIONS = {ITERATIONS}\n" + DESIGN_PY)
    report.main(["--design", str(folder)])
    result = json.loads((folder / "registered.json").read_text())

    def policy(seed, it, shift):
        return base_curve(it) + NOISE[seed] + shift

    values = {
        "auc": [(np.mean([policy(s, i, SHIFT[s]) for i in (1, 2, 3)]),
                 np.mean([policy(s, i, 0.0) for i in (1, 2, 3)])) for s in range(4)],
        "squared": [(policy(s, ITERATIONS, SHIFT[s]) ** 2, policy(s, ITERATIONS, 0.0) ** 2)
                    for s in range(4)]}
    p = {m: stats.ttest_rel(*zip(*v)).pvalue for m, v in values.items()}
    adjusted = dict(zip(p, multipletests(list(p.values()), method="fdr_bh")[1]))
    for m, v in values.items():
        row = result["measures"][m]["H1"]
        assert row["diff"] == pytest.approx(np.mean([a - b for a, b in v]), abs=1e-6)
        assert row["p"] == pytest.approx(p[m], abs=1e-6)
        assert row["p_adjusted"] == pytest.approx(adjusted[m], abs=1e-6)
    assert adjusted["auc"] != pytest.approx(p["auc"])  # the group changed the adjustment
    assert "The last rate, squared" in (folder / "registered.md").read_text()


class _Rated:
    """An arm as `Growth.leads` reads it: its final networks' Elo by seed."""

    def __init__(self, elo):
        self.elo = elo

    def by_seed(self, metric):
        assert metric == "elo"
        return dict(self.elo)


def test_growth_states_each_boards_leads_per_seed_both_arms_rated():
    """By hand: the arm's Elo minus the reference's on each seed both rated, per board,
    larger first; None where a board lacks an arm or has fewer than two leads."""
    growth = measures.Growth("growth", 50.0, unit="Elo", larger="big", smaller="small")
    arms = {"big": {"adaptive": _Rated({1: 120.0, 2: 80.0, 3: 10.0}),
                    "baseline": _Rated({1: 20.0, 2: 30.0})},
            "small": {"adaptive": _Rated({5: 40.0, 6: -5.0}),
                      "baseline": _Rated({5: 10.0, 6: 5.0, 7: 0.0})}}
    families = {name: name for name in arms}  # a board's family, as the roles read it

    def roles(table):
        return lambda family: table[family]

    assert growth.leads(families, roles(arms)) == {"big": [100.0, 50.0],
                                                   "small": [30.0, -10.0]}
    assert growth.boards == ("big", "small")
    lacking = {**arms, "small": {"adaptive": arms["small"]["adaptive"]}}
    assert growth.leads(families, roles(lacking)) is None
    one_seed = {**arms, "big": {"adaptive": _Rated({1: 5.0}), "baseline": _Rated({1: 0.0})}}
    assert growth.leads(families, roles(one_seed)) is None
