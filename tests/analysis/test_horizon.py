"""The horizon analysis (analysis/horizon.py: Elo at horizons, compute to strength and its
growth over boards; `report --design` on a horizon design such as studies/long_horizon's)
on fabricated studies whose numbers are set by hand: each test checks its figures against
scipy or statsmodels, or against values worked out here."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from warmjax.analysis import horizon, registered, render, strength, study, survival, verdicts
from warmjax.analysis.stats import CONTRADICTED, REPRODUCED, UNRESOLVED, Decision
from warmjax.analysis.tournaments import Tournament
from warmjax.matches.tournament_folder import (
    AnchorEntry,
    GameRecord,
    Header,
    NetworkEntry,
    PairResult,
    Settings,
    TournamentFolder,
)
from warmjax.train import run_folder

from ..helpers import metric_row
from .synthetic import ledger_curve, write_study_run
from .test_tools import load_tool

DESIGN = load_tool("studies/long_horizon/design").DESIGN  # the registered design

ITERATIONS = 20
SEEDS = (0, 1, 2, 3)
STUDIES = {"c4_long": ("connect_four", {}, ("baseline", "fixed", "adaptive")),
           "hex_5x5_long": ("hex", {"size": 5}, ("baseline", "adaptive")),
           "hex_7x7_long": ("hex", {"size": 7}, ("baseline", "adaptive"))}
WARMSTART = {"baseline": ("none", "rollout"), "fixed": ("fixed", "wrora"),
             "adaptive": ("adaptive", "wrora")}
NOISE = {0: 0.0, 1: 0.01, 2: -0.01, 3: 0.005}
FIXED_OWN = {0: 0.004, 1: -0.006, 2: 0.002, 3: 0.0}  # the fixed arm's own noise, mean 0
# The policy head's rate: start + slope · iteration + NOISE[seed] + the arm's shift. Hex 7×7's
# baseline stays at a random move's rate (16.5%): it did not learn.
CURVES = {"c4_long": (0.40, 0.015, {"baseline": 0.0, "fixed": 0.0, "adaptive": 0.05}),
          "hex_5x5_long": (0.25, 0.03, {"baseline": 0.0, "adaptive": 0.04}),
          "hex_7x7_long": (0.165, 0.0, {"baseline": 0.0, "adaptive": 0.03})}
RANDOM = {"c4_long": 0.30, "hex_5x5_long": 0.25, "hex_7x7_long": 0.165}
# Per seed, the arm's Elo minus the baseline's in the final round robin, and at iteration 15.
ELO = {("c4_long", "adaptive"): [80, 95, 70, 90], ("c4_long", "fixed"): [5, -8, 3, -2],
       ("hex_5x5_long", "adaptive"): [40, -30, 90, 10],
       ("hex_7x7_long", "adaptive"): [120, 60, 150, 90]}
ELO_15 = {k: [v / 2 for v in vs] for k, vs in ELO.items()}
SECONDS = {"baseline": 10.0, "fixed": 12.0, "adaptive": 11.0}  # compute per iteration


def rate(name: str, role: str, seed: int, it: int) -> float:
    start, slope, shift = CURVES[name]
    own = FIXED_OWN[seed] if role == "fixed" else 0.0
    return start + slope * it + NOISE[seed] + shift[role] + own


def fabricate(root: Path, skip: tuple = ()) -> None:
    """The three studies' run folders under `root` (`skip`: (study, role, seed) left out)."""
    for name, (game, params, roles) in STUDIES.items():
        for role in roles:
            for seed in SEEDS:
                if (name, role, seed) in skip:
                    continue
                mode, enhancement = WARMSTART[role]
                write_study_run(root / name / f"arm={role},seed={seed}", game, params, mode,
                                enhancement, seed, ITERATIONS, [
                    metric_row(iteration=it, oracle_policy=rate(name, role, seed, it),
                               oracle_optimal=0.5 + rate(name, role, seed, it) / 2,
                               seconds_total=SECONDS[role], count_games_selfplay=50,
                               count_games_arena=40, count_evals_selfplay=1000 * it,
                               count_evals_arena=500, count_evals_probe=100,
                               count_playout_steps=0, count_train_samples=2000)
                    for it in range(1, ITERATIONS + 1)])


def boards():
    """The registered boards on the fabricated seeds and iterations; the decline rule's
    window before the late iterations 19–20 of 20."""
    return tuple(dataclasses.replace(p, seeds=SEEDS, iterations=ITERATIONS,
                                     decline_window=(5, 8)) for p in DESIGN.boards)


def quick(design: registered.Design) -> registered.Design:
    """The design with 200 bootstrap resamples for the speed-ups (no test reads their
    intervals), to keep the analyses quick."""
    return dataclasses.replace(design, measures={
        **design.measures, "compute": dataclasses.replace(design.measures["compute"],
                                                          resamples=200)})


def fabricated() -> registered.Design:
    """The study's design on the fabricated boards, quick."""
    return quick(dataclasses.replace(DESIGN, boards=boards()))


def players(name: str, elo: dict) -> tuple[dict, dict[str, float]]:
    """A round robin's players of study `name` and their ratings: the baseline at 1000·seed,
    each arm `elo[(name, role)][seed]` above it."""
    game, _, roles = STUDIES[name]
    entries, ratings = {}, {}
    for role in roles:
        mode, enhancement = WARMSTART[role]
        for seed in SEEDS:
            key = f"{role} s{seed}"
            entries[key] = NetworkEntry(f"{name}/{role}/{seed}", game=game, mode=mode,
                                        enhancement=enhancement if mode != "none" else None,
                                        iprime=5 if mode == "fixed" else None, seed=seed)
            ratings[key] = 1000.0 * seed + (0.0 if role == "baseline"
                                            else elo[(name, role)][seed])
    return entries, ratings


def tournament(name: str, elo: dict) -> Tournament:
    entries, ratings = players(name, elo)
    return Tournament(name, name, STUDIES[name][0], tuple(entries), tuple(ratings.values()),
                      (0.0,) * len(entries), (0.0,) * len(entries), entries)


def read(root: Path, skip_tournament: tuple = ()) -> tuple[list, dict]:
    """The fabricated studies as `StudyData`, and their compute curves (SECONDS per
    iteration)."""
    data, curves = [], {}
    for board in boards():
        runs = run_folder.find_runs([root / board.name])
        final = [] if board.name in skip_tournament else [tournament(board.name, ELO)]
        (family,) = study.families(runs, final, DESIGN.measures["auc"].iterations, tables=False)
        (at15,) = study.families(runs, [tournament(board.name, ELO_15)],
                                 DESIGN.measures["auc"].iterations, tables=False)
        data.append(horizon.StudyData(board, family, {15: at15}, RANDOM[board.name]))
        for r in runs:
            curves[r.path] = ledger_curve(
                SECONDS[next(k for k, v in WARMSTART.items() if v[0] == r.id.mode)], ITERATIONS)
    return data, curves


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """The analysis of the fabricated studies; the speed-ups' bootstrap with 200 resamples
    (no test reads its intervals), and no measured-seconds axis, to keep it quick."""
    root = tmp_path_factory.mktemp("long")
    fabricate(root)
    data, curves = read(root)
    return horizon.analyse(data, fabricated(), curves, {}), data


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_final_elo_by_paired_t_and_bh_over_the_four(analysed):
    """(a): each comparison's paired t equals scipy's on the per-seed leads; the four p's
    adjusted together equal statsmodels' Benjamini–Hochberg; the verdicts follow the rule
    with δ = 50 Elo: a clear lead is reproduced, leads within ±8 Elo are 'no gain', a
    spread of −30 … +90 is open, and Hex 7×7, whose baseline did not learn, decides
    nothing."""
    record, _ = analysed
    keys = ["c4_adaptive", "c4_fixed", "hex5_adaptive", "hex7_adaptive"]
    leads = [ELO[("c4_long", "adaptive")], ELO[("c4_long", "fixed")],
             ELO[("hex_5x5_long", "adaptive")], ELO[("hex_7x7_long", "adaptive")]]
    p = [stats.ttest_1samp(x, 0.0).pvalue for x in leads]
    bh = multipletests(p, method="fdr_bh")[1]
    for key, x, p_t, p_bh in zip(keys, leads, p, bh):
        row = record["elo"][key]
        assert row["diff"] == pytest.approx(np.mean(x), abs=1e-6)
        assert row["p"] == pytest.approx(p_t, abs=1e-6)
        assert row["p_adjusted"] == pytest.approx(p_bh, abs=1e-6)
    assert record["elo"]["c4_adaptive"]["verdict"] == "reproduced"
    assert record["elo"]["c4_fixed"]["verdict"] == "contradicted (no gain ≥ δ)"
    assert record["elo"]["hex5_adaptive"]["verdict"].startswith("not resolvable")
    assert record["elo"]["hex7_adaptive"]["verdict"] == \
        "not informative: the baseline did not learn"
    # The horizon's leads are half the final ones; decided nothing.
    h15 = record["elo_horizons"]["15"]["c4_adaptive"]
    assert h15["diff"] == pytest.approx(np.mean(ELO_15[("c4_long", "adaptive")]), abs=1e-6)
    assert "verdict" not in h15 and record["elo_horizons"]["30"]["c4_adaptive"] is None


def test_auc_and_its_windows(analysed):
    """(c): the AUC over iterations 1–8 of a straight line is its value at 4.5, so each
    arm's lead is its shift: C4 adaptive +5 points in every seed (p = 0) is a gain; C4
    fixed leads by its own noise alone, mean 0 and SD 0.43 points, so its interval lies
    below δ = 2 (no gain); Hex 5×5 +4 a gain; every window gives the same verdicts."""
    record, _ = analysed
    auc = record["auc"]
    assert auc["c4_adaptive"]["diff"] == pytest.approx(0.05)
    assert auc["c4_fixed"]["diff"] == pytest.approx(0.0, abs=1e-9)
    half = stats.t.ppf(0.975, 3) * np.std(list(FIXED_OWN.values()), ddof=1) / 2
    assert auc["c4_fixed"]["ci"] == pytest.approx([-half, half], abs=1e-6)
    assert auc["c4_adaptive"]["verdict"] == "reproduced"
    assert auc["c4_fixed"]["verdict"] == "contradicted (no gain ≥ δ)"
    assert auc["hex5_adaptive"]["verdict"] == "reproduced"
    assert auc["hex7_adaptive"]["verdict"].startswith("not informative")
    robust = record["auc_robustness"]
    assert robust["windows"] == list(range(3, 16)) + [ITERATIONS]
    assert robust["verdicts"]["c4_adaptive"]["holds_over"] == {"reproduced": "3–15, 20"}


def test_robustness_groups_windows_by_the_verdict_not_its_power_figure():
    """"Not resolvable" carries the effect 80% power needed, which differs at every k;
    each row also records the verdict alone ("decided"), and the windows over which a
    verdict holds are grouped by that (the registered analysis's first table listed one
    group per k)."""
    decisions = {3: Decision(UNRESOLVED, "open", (), 0.060),
                 4: Decision(UNRESOLVED, "open", (), 0.058),
                 5: Decision(REPRODUCED, "all better", ()),
                 6: Decision(CONTRADICTED, "no gain", ()),
                 7: Decision(UNRESOLVED, "open", ()),
                 8: Decision(UNRESOLVED, "open", (), 54.0)}
    worded = {k: verdicts.verdict_words(d, False, "Elo" if k == 8 else "points")
              for k, d in decisions.items()}
    assert worded[3] == "not resolvable (80% power needed 6.0 points)"
    assert worded[4] == "not resolvable (80% power needed 5.8 points)"
    assert worded[8] == "not resolvable (80% power needed 54 Elo)"
    kinds = {k: verdicts.verdict_words(d, False, None) for k, d in decisions.items()}
    assert kinds == {3: "not resolvable", 4: "not resolvable", 5: REPRODUCED,
                     6: "contradicted (no gain ≥ δ)", 7: "not resolvable",
                     8: "not resolvable"}
    assert strength.holds_over(kinds, "not resolvable") == "3–4, 7–8"


def test_the_floor(analysed):
    record, _ = analysed
    floors = record["floor"]
    assert floors["c4_long"]["learned"] and floors["hex_5x5_long"]["learned"]
    hex7 = floors["hex_7x7_long"]
    assert not hex7["learned"]
    rates = [0.165 + NOISE[s] for s in SEEDS]
    assert hex7["p"] == pytest.approx(
        stats.ttest_1samp(rates, 0.165, alternative="greater").pvalue, rel=1e-6)


def test_the_decline_rule_and_the_exact_sign_flips(analysed):
    """Every fabricated curve rises, so no study declines; each Elo row carries the exact
    sign-flip p over the 2⁴ sign patterns of its leads, adjusted by BH over the four."""
    record, _ = analysed
    assert set(record["decline"]) == set(STUDIES)
    c4 = record["decline"]["c4_long"]
    assert c4["window"] == [5, 8] and c4["late"] == [19, 20] and not c4["declines"]
    # The baseline's mean over 5-8 and 19-20: the line at 6.5 and at 19.5.
    assert c4["window_rates"] == pytest.approx([0.40 + 0.015 * 6.5 + NOISE[s] for s in SEEDS])
    assert c4["diff"] == pytest.approx(0.015 * 13)
    assert "declines" not in record["elo"]["c4_adaptive"]["verdict"]
    flips = []
    for key, lead in [("c4_adaptive", ELO[("c4_long", "adaptive")]),
                      ("c4_fixed", ELO[("c4_long", "fixed")]),
                      ("hex5_adaptive", ELO[("hex_5x5_long", "adaptive")]),
                      ("hex7_adaptive", ELO[("hex_7x7_long", "adaptive")])]:
        signs = np.array(np.meshgrid(*[[-1, 1]] * 4)).reshape(4, -1).T
        means = np.abs((signs * np.array(lead)).mean(axis=1))
        flips.append(np.mean(means >= abs(np.mean(lead)) - 1e-9))
        assert record["elo"][key]["p_permutation"] == pytest.approx(flips[-1], abs=1e-6)
    assert flips[0] == 2 / 16  # four leads of one sign: 2 of the 16 patterns
    assert [record["elo"][k]["p_permutation_adjusted"] for k in record["elo"]] == \
        pytest.approx(list(multipletests(flips, method="fdr_bh")[1]), abs=1e-6)


@pytest.mark.slow
def test_a_declining_study_labels_its_horizon_verdicts_only(tmp_path, monkeypatch):
    """Where Connect Four's baseline declines, its final-Elo and compute-to-strength
    verdicts carry the label and keep their verdict; its early-learning AUC and the Hex
    studies do not."""
    fabricate(tmp_path)
    data, curves = read(tmp_path)
    rule = strength.decline

    def declining(family, window):
        found = rule(family, window)
        return dataclasses.replace(found, declines=True) if family.game == "connect_four" \
            else found

    monkeypatch.setattr(strength, "decline", declining)
    record = horizon.analyse(data, fabricated(), curves, {})
    assert record["elo"]["c4_adaptive"]["verdict"] == f"reproduced; {strength.DECLINING}"
    assert record["elo"]["c4_adaptive"]["decided"] == "reproduced"
    assert record["elo"]["hex5_adaptive"]["verdict"].startswith("not resolvable")
    assert strength.DECLINING not in record["elo"]["hex5_adaptive"]["verdict"]
    assert strength.DECLINING not in record["auc"]["c4_adaptive"]["verdict"]
    for r in record["speed"]["ledger"]:
        for c in r["axes"]["compute"]["comparisons"]:
            assert (strength.DECLINING in c["verdict"]) == (r["study"] == "c4_long")
    text = render.markdown(record, "the command")
    assert "## The decline rule" in text and "| **declines** |" in text


def test_compute_to_strength_bh_over_sixteen(analysed):
    """(b): 16 policy-head comparisons on the compute axis (C4: two arms × four steps; each
    Hex board: one × four), adjusted together; C4 adaptive's first passage over 50% by
    hand: the baseline's seed 0 reaches it at iteration 7 (0.40 + 0.105), the arm's at
    iteration 4 (0.45 + 0.06); at 10 and 11 compute-seconds per iteration: 70 and 44."""
    record, _ = analysed
    rows = [(r["study"], c) for r in record["speed"]["ledger"]
            for c in r["axes"]["compute"]["comparisons"] if c["measure"] == "policy"]
    assert len(rows) == 16
    p = [c["logrank_p"] for _, c in rows]
    bh = multipletests(p, method="fdr_bh")[1]
    assert [c["p_adjusted"] for _, c in rows] == pytest.approx(list(bh))
    (c4,) = [r for r in record["speed"]["ledger"] if r["study"] == "c4_long"]
    seed0 = {(e["arm"], e["seed"]): e for e in c4["runs"]}
    base = seed0[("Baseline", 0)]["policy"][0]
    arm = seed0[("WRoRa adaptive", 0)]["policy"][0]
    assert (base["iteration"], base["compute"]) == (7, 70.0)
    assert (arm["iteration"], arm["compute"]) == (4, 44.0)
    assert all(c["verdict"].startswith("not informative") for s, c in rows
               if s == "hex_7x7_long")


def test_growth_with_the_board(analysed):
    """Welch on the per-seed Elo leads (Hex 7×7 against 5×5) equals scipy's; under the floor
    rule (Hex 7×7's baseline did not learn) both growth verdicts read 'no evidence either
    way'."""
    record, _ = analysed
    g = record["growth"]
    welch = stats.ttest_ind(ELO[("hex_7x7_long", "adaptive")],
                            ELO[("hex_5x5_long", "adaptive")], equal_var=False)
    assert g["elo"]["p"] == pytest.approx(welch.pvalue, rel=1e-5)
    assert g["elo"]["verdict"].startswith("no evidence either way")
    assert g["speedup"]["verdict"].startswith("no evidence either way")


def test_speedup_growth_by_hand():
    """Large board: the reference reaches the step at 8 in every seed, the arm at 4
    (speed-up 2); small board: both at 6 (speed-up 1): growth 2, and every resample gives
    exactly 2, so the interval is [2, 2]."""
    p = survival.Passage
    large = ({s: p(8.0, True) for s in SEEDS}, {s: p(4.0, True) for s in SEEDS}, 10.0)
    small = ({s: p(6.0, True) for s in SEEDS}, {s: p(6.0, True) for s in SEEDS}, 10.0)
    g = survival.speedup_growth(large, small, resamples=200)
    assert (g.ratio, g.large, g.small) == pytest.approx((2.0, 2.0, 1.0))
    assert g.ci == pytest.approx((2.0, 2.0))
    with pytest.raises(ValueError, match="two seeds"):
        survival.speedup_growth(({0: p(1.0, True)}, {0: p(1.0, True)}, 5.0), small)


@pytest.mark.slow
def test_gaps_and_no_verdict(tmp_path, monkeypatch):
    """A missing run and an unrated final round robin are named, and every verdict reads
    'incomplete: no verdict'."""
    fabricate(tmp_path, skip=(("hex_5x5_long", "adaptive", 3),))
    data, curves = read(tmp_path, skip_tournament=("c4_long",))
    gaps = horizon.gaps(data, fabricated())
    assert "hex_5x5_long adaptive: no run of seed(s) 3" in gaps
    assert any(g.startswith("c4_long: the final round robin rated no network") for g in gaps)
    record = horizon.analyse(data, fabricated(), curves, {})
    assert not record["complete"]
    verdicts = [r["verdict"] for r in record["auc"].values() if r is not None]
    assert verdicts and set(verdicts) == {horizon.INCOMPLETE}
    assert record["growth"]["speedup"]["verdict"] == horizon.INCOMPLETE


def test_markdown_answers_first(analysed):
    record, _ = analysed
    text = render.markdown(record, "python -m warmjax.report --design study")
    assert text.index("## The three questions, answered") < text.index("## (a)")
    for needle in ("At each study's horizon (Connect Four 6×6 at iteration 20, the "
                   "registered cut;", "save compute", "grow with the board",
                   "Connect Four 6×6: adaptive WRoRa − baseline: final Elo +84 [",
                   "## The floor rule", "did not learn"):
        assert needle in text
    assert math.isclose(np.mean(ELO[("c4_long", "adaptive")]), 83.75)


def _pair(a: str, b: str, wins: int, games: int = 20) -> PairResult:
    """`games` games of a against b, a first in half, a winning `wins` and losing the rest."""
    outcome = [1] * wins + [-1] * (games - wins)
    records = tuple(GameRecord(a, b, (), r) if i % 2 == 0 else GameRecord(b, a, (), -r)
                    for i, r in enumerate(outcome))
    return PairResult(a, b, games, wins, 0, games - wins, wins / games, records)


def _write_tournament(folder: Path, name: str, elo: dict) -> None:
    """A journal whose games give each arm about its `elo` lead: per pair within a seed,
    20 games scored by the logistic expectation of the set difference."""
    game, params, _ = STUDIES[name]
    entries, ratings = players(name, elo)
    tf = TournamentFolder(folder)
    tf.write_header(Header(Settings({"name": game, "params": dict(params) or
                                     {"cols": 6, "rows": 6, "win_length": 4}},
                                    20, 100, 1.0, 15, 100, 0, "seed"),
                           {**entries, "random": AnchorEntry("random")}))
    pairs = []
    names = list(entries)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if entries[a].seed != entries[b].seed:
                continue
            expected = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
            pairs.append(_pair(a, b, int(round(20 * expected))))
        pairs.append(_pair(a, "random", 19))
    tf.write_batch(1, [], pairs)


def write_design(folder: Path, expression: str) -> None:
    """A horizon study's `design.py` in `folder`: `DESIGN` is `expression` over this
    module's designs, its calibration table the repository's."""
    calibration = Path(__file__).parents[2] / DESIGN.calibration
    (folder / "design.py").write_text(
        "import dataclasses\n"
        "from tests.analysis.test_horizon import DESIGN as REGISTERED, SEEDS, "
        "fabricated, quick\n"
        f"DESIGN = dataclasses.replace({expression}, calibration={str(calibration)!r})\n"
        "LOOK_NOTE = 'the registered analysis (a test)'\n")


@pytest.mark.slow
def test_the_command_writes_records_the_look_and_refuses_gaps(tmp_path):
    """`report --design` on a fabricated horizon study: refuses while a round robin is
    missing, then, with every round robin there, writes the record, the Markdown and the
    figure, and records the look once (a rerun adds none and rewrites the same files)."""
    from warmjax.analysis import engine

    fabricate(tmp_path)
    out = tmp_path / "out"

    def run():
        return engine.analyse_folder(tmp_path, out=out, log=lambda _: None)

    write_design(tmp_path, "REGISTERED")
    with pytest.raises(engine.DesignError, match="c4_long: no run under"):  # seeds 40-47
        run()
    write_design(tmp_path, "quick(REGISTERED.runs(seeds=SEEDS))")
    with pytest.raises(engine.DesignError, match="the final round robin rated no network"):
        run()
    for name in STUDIES:
        _write_tournament(tmp_path / name / "tournament", name, ELO)
        _write_tournament(tmp_path / name / "tournament_at015", name, ELO_15)
    # the runs are 20 iterations long, the board's 100
    with pytest.raises(engine.DesignError, match="seed.s. 0, 1, 2, 3 short of 100 iterations"):
        run()
    assert not out.exists() and not study.read_looks(tmp_path / "c4_long")
    write_design(tmp_path, "fabricated()")
    run()
    first = (out / f"{tmp_path.name}.json").read_text()
    run()
    record = json.loads(first)
    assert record["complete"] and (out / "elo_leads.png").stat().st_size > 0
    assert (out / f"{tmp_path.name}.json").read_text() == first
    looks = study.read_looks(tmp_path / "c4_long")
    assert len(looks) == 1 and looks[0]["seeds"] == list(SEEDS)
    # Bayesian Elo from the fabricated games recovers the leads' order
    assert record["elo"]["c4_adaptive"]["diff"] > 40 > abs(record["elo"]["c4_fixed"]["diff"])
    assert "compute" in record["speed"]["ledger"][0]["axes"]


def test_a_cut_rates_its_seeds_as_if_the_others_never_played(tmp_path):
    """Hex 5×5's journals hold two seeds the registered cut leaves out; their games share
    the random anchor. The tool rates the kept seeds exactly as a journal without those
    games would, and the filter matters: with them, the kept seeds' ratings move."""
    from warmjax.analysis import engine
    from warmjax.analysis.tournaments import journal_tournament

    name = "hex_5x5_long"
    kept, with_extra = tmp_path / "kept", tmp_path / "with_extra"
    _write_tournament(kept, name, ELO)
    _write_tournament(with_extra, name, ELO)
    # two further seeds, lopsided against the anchor (their networks crush random) and
    # within the seed, journalled in a later batch as a later seed block would be
    extra = {f"{role} s{seed}": NetworkEntry(f"{name}/{role}/{seed}", game="hex", mode=mode,
                                             enhancement=None if mode == "none" else "wrora",
                                             seed=seed)
             for seed in (14, 15) for role, mode in (("baseline", "none"),
                                                     ("adaptive", "adaptive"))}
    folder = TournamentFolder(with_extra)
    header = folder.read_header()
    folder.write_header(dataclasses.replace(header, players={**header.players, **extra}))
    folder.write_batch(2, [], [_pair("baseline s14", "random", 20),
                               _pair("adaptive s14", "random", 20),
                               _pair("baseline s14", "adaptive s14", 3),
                               _pair("baseline s15", "random", 20),
                               _pair("adaptive s15", "random", 20),
                               _pair("baseline s15", "adaptive s15", 17)])

    alone = engine.round_robin(kept, SEEDS)
    cut = engine.round_robin(with_extra, SEEDS)
    assert cut.names == alone.names and "baseline s14" not in cut.names
    np.testing.assert_allclose(cut.ratings, alone.ratings, atol=1e-9)
    everything = journal_tournament(with_extra)
    assert len(everything.names) == len(alone.names) + 4
    moved = [abs(everything.ratings[everything.names.index(n)] - r)
             for n, r in zip(alone.names, alone.ratings)]
    assert max(moved) > 1.0, moved
    assert engine.round_robin(tmp_path / "none", SEEDS) is None


def test_a_horizon_design_refuses_a_group_it_would_ignore():
    """Its measures (a), (b) and (c) are each adjusted on their own: a design that joins
    the AUC and the final Elo in one Benjamini–Hochberg group is refused in one line, not
    analysed as if the group were not there."""
    measures = dict(DESIGN.measures)
    measures["auc"] = dataclasses.replace(measures["auc"], group="early and final")
    measures["elo"] = dataclasses.replace(measures["elo"], group="early and final")
    with pytest.raises(ValueError, match="the group.s. early and final join"):
        horizon.analyse([], dataclasses.replace(DESIGN, measures=measures), {}, {})
