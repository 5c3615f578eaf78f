"""The reporting tools in tools/ on fabricated run folders, against hand-computed values."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil

import numpy as np
import pytest

from warmjax.train import run_folder

from ..helpers import ROOT, fabricate_run, metric_row


def load_tool(name: str):
    """A tool by name (`tools/<name>.py`), or a study's module by its path from the
    repository ("studies/long_horizon/design")."""
    path = ROOT / f"{name}.py" if "/" in name else ROOT / "tools" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name.replace("/", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_strength_per_minute(tmp_path, capsys):
    tool = load_tool("studies/strength_per_minute/clock")
    # 90 s per iteration; the policy head reaches 60% at iteration 3, never 70%.
    policy = [0.40, 0.55, 0.61, 0.65]
    search = [0.80, 0.86, 0.88, 0.91]
    rows = [metric_row(iteration=i + 1, seconds_total=90.0, oracle_policy=p, oracle_optimal=s)
            for i, (p, s) in enumerate(zip(policy, search))]
    assert tool.first_minutes(rows, "oracle_policy", 0.60) == "4.5 (it 3)"
    assert tool.first_minutes(rows, "oracle_policy", 0.70) == "—"
    assert tool.first_minutes(rows, "oracle_optimal", 0.80) == "1.5 (it 1)"
    fabricate_run(tmp_path / "run", network=False, metrics=rows)
    tool.main([str(tmp_path / "run"), "--policy", "60", "--search", "90"])
    out = capsys.readouterr().out
    assert "| Baseline s0 | mcts, m = 24 | 4 | 6.0 | 91.0 | 65.0 | 4.5 (it 3) | 6.0 (it 4) |" in out
    # Against the targets, from the run's oracle.json (written here by hand, as the oracle
    # command writes it): 6 minutes, search 96% (quiet 89%), policy head 84% (quiet 81%).
    (tmp_path / "run" / "oracle.json").write_text(json.dumps({"players": {
        "search": {"optimal": 0.96, "quiet_optimal": 0.89},
        "policy_head": {"optimal": 0.84, "quiet_optimal": 0.81}}}))
    tool.main([str(tmp_path / "run"), "--targets",
               "minutes=15 search=95 policy=85 search_quiet=90 policy_quiet=80",
               "--figure", str(tmp_path / "strength.png"),
               "--calibration", str(ROOT / "results" / "calibration" / "cpu.json")])
    out = capsys.readouterr().out
    assert "| Baseline s0 | 6.0 ✓ | 96.0 ✓ | 84.0 ✗ | 89.0 ✗ | 81.0 ✓ | — |" in out
    # Hex's target on the quiet positions: the search 10 points above pure MCTS-100's
    # 72% there; 89% is 17 above.
    judged = json.loads((tmp_path / "run" / "oracle.json").read_text())
    judged["players"]["pure_mcts"] = {"optimal": 0.80, "quiet_optimal": 0.72}
    (tmp_path / "run" / "oracle.json").write_text(json.dumps(judged))
    tool.main([str(tmp_path / "run"), "--targets", "search=95 quiet_over_pure=10"])
    out = capsys.readouterr().out
    assert "quiet_over_pure (≥ +10 points)" in out
    assert "| Baseline s0 | 6.0 | 96.0 ✓ | 84.0 | 89.0 | 81.0 | +17.0 ✓ |" in out
    assert (tmp_path / "strength.png").stat().st_size > 0
    # The figure's compute axis: the fabricated rows carry no ledger, so their compute is
    # reconstructed: (m + 1) evaluations per searched position, on the table's CPU row.
    (drawn,) = tool.figure_runs(run_folder.find_runs([tmp_path / "run"]),
                                str(ROOT / "results" / "calibration" / "cpu.json"))
    assert drawn["minutes"] == pytest.approx([1.5, 3.0, 4.5, 6.0])
    assert drawn["compute_source"] == "reconstructed"
    with pytest.raises(ValueError, match="unknown target 'elo'"):
        tool.parse_targets("elo=100")


def test_screen_rows_and_table(tmp_path, capsys):
    """The rows file is read or its faults named; the table's cells from two seeds' runs,
    by hand: search 90 and 92 (mean 91.0), policy head 70 and 76 (73.0), immediate wins
    0.5 and 0.6, 2 and 1 candidates accepted of 3, 3 × 60 s = 3.0 minutes, and 3 × 1.5 M
    evaluations = 4.50 M."""
    from warmjax import screen as tool
    rows = tmp_path / "rows.txt"
    rows.write_text("# the rows\nquick |\nnogate | arena.gate=false  # no gate\n")
    assert tool.read_rows(rows) == [("quick", ""), ("nogate", "arena.gate=false")]
    for bad, needle in (("quick\n", "a row is 'name | settings'"),
                        ("a | x=1\na | x=2\n", "row 'a' is named twice")):
        (tmp_path / "bad.txt").write_text(bad)
        with pytest.raises(ValueError, match=needle):
            tool.read_rows(tmp_path / "bad.txt")
    out = tmp_path / "out"
    train, judge = tool.commands(tool.BASE, "nogate", "arena.gate=false", 1, out)
    assert train[-4:] == ["arena.gate=false", "seed=1", "tensorboard=false",
                          f"run_dir={out / 'nogate_s1'}"] and judge[-1] == str(out / "nogate_s1")
    for seed, (search, policy, taken, accepted) in enumerate(((0.90, 0.70, 0.5, (1, 1, 0)),
                                                              (0.92, 0.76, 0.6, (0, 1, 0)))):
        metrics = [metric_row(iteration=i + 1, seconds_total=60.0, accepted=bool(a),
                              count_evals_selfplay=1_000_000, count_evals_arena=500_000,
                              count_evals_probe=10, count_playout_steps=0,
                              count_train_samples=100, count_games_selfplay=10,
                              count_games_arena=4)
                   for i, a in enumerate(accepted)]
        run = fabricate_run(out / f"quick_s{seed}", network=False, metrics=metrics, seed=seed)
        (run / "oracle.json").write_text(json.dumps({"players": {
            "search": {"optimal": search, "quiet_optimal": search - 0.1},
            "policy_head": {"optimal": policy, "quiet_optimal": policy - 0.1,
                            "immediate_win_taken": taken}}}))
    # a run still training (metrics, no oracle.json) is not counted
    fabricate_run(out / "nogate_s1", network=False, seed=1, metrics=[metric_row(
        iteration=1, seconds_total=30.0, accepted=True)])
    tool.main([str(rows), "--seeds", "0", "1", "--out", str(out), "--table-only",
               "--calibration", ""])
    text = capsys.readouterr().out
    assert ("| quick | — | 90.0 / 92.0 (91.0) | 70.0 / 76.0 (73.0) | 80.0 / 82.0 (81.0) | "
            "60.0 / 66.0 (63.0) | 50.0 / 60.0 (55.0) | 2 / 1 | 3.0 / 3.0 (3.0) | "
            "4.50 / 4.50 (4.50) | — / — |") in text
    assert "| nogate | `arena.gate=false` | 0 of 2 seeds |" in text
    # one of a row's seeds complete: its figures, and the row says it is short
    shutil.copytree(out / "quick_s0", out / "nogate_s0")
    tool.main([str(rows), "--seeds", "0", "1", "--out", str(out), "--table-only",
               "--calibration", ""])
    assert ("| nogate (1 of 2 seeds) | `arena.gate=false` | 90.0 | 70.0 | 80.0 | 60.0 | "
            "50.0 | 2 | 3.0 | 4.50 | — |") in capsys.readouterr().out
    # --against: a row paired by seed with the reference. With one common seed there is
    # nothing to test; with nogate's search at 91 and 94 against quick's 90 and 92 the
    # differences are 1 and 2: mean 1.5, SD √½, so t = 1.5 / 0.5 = 3 on one degree of
    # freedom, p = 1 − 2·atan(3)/π = 0.205, and the 95% interval 1.5 ± 12.706 · 0.5.
    tool.main([str(rows), "--seeds", "0", "1", "--out", str(out), "--table-only",
               "--calibration", "", "--against", "quick"])
    assert "no row shares two complete seeds with `quick`" in capsys.readouterr().out
    shutil.rmtree(out / "nogate_s1")
    for seed, search in ((0, 0.91), (1, 0.94)):
        shutil.copytree(out / f"quick_s{seed}", out / f"nogate_s{seed}", dirs_exist_ok=True)
        judged = json.loads((out / f"nogate_s{seed}" / "oracle.json").read_text())
        judged["players"]["search"]["optimal"] = search
        (out / f"nogate_s{seed}" / "oracle.json").write_text(json.dumps(judged))
    tool.main([str(rows), "--seeds", "0", "1", "--out", str(out), "--table-only",
               "--calibration", "", "--against", "quick"])
    from statsmodels.stats.power import TTestPower
    p = 1 - 2 * math.atan(3) / math.pi  # Student's t on one degree of freedom is Cauchy
    low, high = 1.5 - 12.706 * 0.5, 1.5 + 12.706 * 0.5  # t(0.975, 1) = 12.706
    detects = math.sqrt(0.5) * TTestPower().solve_power(nobs=2, alpha=0.05, power=0.8)
    assert (f"| nogate | 2 | +1.5 [{low:+.1f}, {high:+.1f}] | {p:.2f} | {detects:.1f} | "
            "+0.0 [+0.0, +0.0] | 1.00 | 0.0 |") in capsys.readouterr().out


def test_screen_on_pons_benchmark(tmp_path, capsys):
    """`--benchmark pons`: the judging command asks for the benchmark, and the table's cells
    come from each seed's pons.json, by hand: end_easy's search 1% and 0% (mean 0.5), its
    policy head 8% and 6% (7.0); seed 1 is at or below AlphaZero.jl's upper figure on all
    six sets, seed 0 not (end_easy 1% > 0%). Both finals are at or below the depth-5
    minimax on every set; seed 0's network after iteration 1 already was (1 of its two 90 s
    iterations: 1.5 minutes), and one after iteration 1 above it on one set does not count.
    With milestones the commands keep those networks and judge them before the final one."""
    from warmjax import screen as tool
    from warmjax.perfect import pons
    rows = tmp_path / "rows.txt"
    rows.write_text("fast7 |\n")
    out = tmp_path / "out"
    _, judge = tool.commands(tool.BASE, "fast7", "", 0, out, "pons")
    assert judge[-4:] == [str(out / "fast7_s0"), "--benchmark", "pons", "--no-pure-mcts"]
    train, at_20, at_40, final = tool.commands(tool.BASE, "fast7", "", 0, out, "pons",
                                               (20, 40), 100)
    assert "keep_networks=[20,40]" in train and final == judge
    assert at_40[-6:] == ["pons", "--no-pure-mcts", "--iteration", "40", "--positions", "100"]
    for seed, end in ((0, (0.01, 0.08)), (1, (0.0, 0.06))):
        run = fabricate_run(out / f"fast7_s{seed}", network=False, seed=seed, metrics=[
            metric_row(iteration=i + 1, seconds_total=90.0) for i in range(2)])
        sets = {spec.name: {"deep_search": spec.alphazero_jl[1], "policy_head": 0.5}
                for spec in pons.SETS}
        sets["end_easy"] = {"deep_search": end[0], "policy_head": end[1]}
        (run / "pons.json").write_text(json.dumps({"sets": sets}))
        early = {spec.name: {"deep_search": spec.minimax5} for spec in pons.SETS}
        if seed == 1:
            early["beginning_hard"]["deep_search"] = 0.3  # above the minimax's 23.5%
        (run / "pons_iteration_001.json").write_text(json.dumps({"sets": early}))
    fabricate_run(out / "fast7_s2", network=False, seed=2, metrics=[metric_row()])  # unjudged
    tool.main([str(rows), "--seeds", "0", "1", "2", "--out", str(out), "--table-only",
               "--benchmark", "pons"])
    text = capsys.readouterr().out
    assert "end_easy: search m = 600 (AlphaZero.jl 0.0)" in text
    assert "beginning_hard: search m = 600 (AlphaZero.jl 6.5–7.0)" in text
    line = next(x for x in text.splitlines() if x.startswith("| fast7"))
    assert line.startswith(
        "| fast7 (2 of 3 seeds) | — | 1.0 / 0.0 (0.5) | 8.0 / 6.0 (7.0) | 0.1 / 0.1 (0.1) | "
        "50.0 / 50.0 (50.0) |")
    assert line.endswith("| 3.0 / 3.0 (3.0) | 1 of 2 | iteration 1 (1.5 min) / iteration 2 "
                         "(3.0 min) |")
    with pytest.raises(SystemExit):
        tool.main([str(rows), "--out", str(out), "--table-only", "--against", "nothing"])


def test_screen_refuses_unfit_rows_before_training(tmp_path, capsys, monkeypatch):
    """Each row's command is composed before any run starts: on Pons' benchmark a row that
    trains Connect Four 6×6 (the default base) is refused with the override to add, and so
    is a misspelt setting on any benchmark; neither starts a subprocess."""
    from warmjax import screen as tool
    seven = "+experiment=adaptive_c4 profile=fast game.params.cols=7"
    assert tool.refuse_unfit(tool.BASE, [("fast7", "")], "pons") == (
        "row fast7: --benchmark pons scores Connect Four 7 columns × 6 rows, and this row "
        "trains connect_four 6×6 (add game.params.cols=7 to --base)")
    assert tool.refuse_unfit(seven, [("fast7", ""), ("decay", "train.explore_decay=40")],
                             "pons") is None
    assert tool.refuse_unfit(tool.BASE, [("quick", "")], None) is None
    assert tool.refuse_unfit(seven, [("typo", "train.iteratons=3")], "pons").startswith(
        "row typo: its settings do not compose: Could not override 'train.iteratons'")
    monkeypatch.setattr(tool.subprocess, "run", lambda *a, **k: pytest.fail("trained"))
    rows = tmp_path / "rows.txt"
    rows.write_text("fast7 |\n")
    with pytest.raises(SystemExit):
        tool.main([str(rows), "--seeds", "0", "--out", str(tmp_path / "out"),
                   "--benchmark", "pons"])
    assert "add game.params.cols=7 to --base" in capsys.readouterr().err


def test_screen_pons_figure_curves_by_hand(tmp_path, capsys):
    """`--figure ROW PNG`: each seed's judged networks (its milestones, then pons.json, which
    replaces a milestone at the last iteration) at the wall minutes of training up to them
    (60 s and 120 s iterations: 1, 2, 3 minutes and 2, 4, 6), with their rates and position
    counts as written; the figure is drawn, and asked for without the benchmark, or for a
    row not in the file, it is refused."""
    from warmjax import screen as tool
    from warmjax.perfect import pons
    rows = tmp_path / "rows.txt"
    rows.write_text("fast7 |\nother | train.explore_decay=40\n")
    out = tmp_path / "out"

    def sets(rate: float, positions: int) -> dict:
        return {spec.name: {"deep_search": rate + k / 100, "policy_head": 2 * rate,
                            "positions": positions} for k, spec in enumerate(pons.SETS)}

    for seed, seconds in ((0, 60.0), (1, 120.0)):
        run = fabricate_run(out / f"fast7_s{seed}", network=False, seed=seed, metrics=[
            metric_row(iteration=i + 1, seconds_total=seconds) for i in range(3)])
        (run / "pons_iteration_001.json").write_text(json.dumps({"sets": sets(0.3, 200)}))
        (run / "pons_iteration_003.json").write_text(json.dumps({"sets": sets(0.9, 200)}))
        (run / "pons.json").write_text(json.dumps({"sets": sets(0.1 + seed / 10, 1000)}))
    runs = [r for seed in (0, 1) for r in run_folder.find_runs([out / f"fast7_s{seed}"])]
    first, second = tool.pons_curves(runs, pons.SETS)
    assert first["label"] == "seed 0" and second["label"] == "seed 1"
    assert first["iterations"] == [1, 3] and first["minutes"] == pytest.approx([1.0, 3.0])
    assert second["minutes"] == pytest.approx([2.0, 6.0])
    assert first["deep_search"]["end_easy"] == pytest.approx([0.3, 0.1])
    assert second["deep_search"]["beginning_hard"] == pytest.approx([0.35, 0.25])
    assert second["policy_head"]["middle_easy"] == pytest.approx([0.6, 0.4])
    assert first["positions"]["middle_medium"] == [200, 1000]
    png = tmp_path / "pons.png"
    tool.main([str(rows), "--seeds", "0", "1", "--out", str(out), "--table-only",
               "--benchmark", "pons", "--figure", "fast7", str(png)])
    assert f"wrote {png}" in capsys.readouterr().out and png.stat().st_size > 10_000
    for argv, message in ((["--figure", "fast7", str(png)], "--figure needs --benchmark"),
                          (["--benchmark", "pons", "--figure", "nope", str(png)],
                           "--figure names no row"),
                          (["--benchmark", "pons", "--figure", "other", str(png)],
                           "row other has no complete run")):
        with pytest.raises(SystemExit):
            tool.main([str(rows), "--seeds", "0", "1", "--out", str(out), "--table-only",
                       *argv])
        assert message in capsys.readouterr().err


def test_search_misses_by_hand():
    """Four positions with labels set by hand, and a "search" that misses three of them:
    the kinds from the labels, the quiet flag and the policy head as set, and the gift from
    the position itself (X's three stacked in column 0, O to move: column 2 hands X the
    win; in the others no move can, with at most three stones down)."""
    from warmjax.perfect import positions
    from warmjax.perfect.connect_four_solver import DRAW, LOSS, WIN
    from warmjax.probe import misses as tool
    made = positions._pack(
        [[0, 1, 0, 1, 0], [2, 3], [2, 3, 2], [4, 4]],
        [[DRAW, LOSS, LOSS, LOSS, LOSS, LOSS], [WIN, WIN, DRAW, WIN, WIN, WIN],
         [WIN, DRAW, WIN, WIN, WIN, WIN], [DRAW, DRAW, DRAW, DRAW, DRAW, DRAW]],
        {"name": "connect_four", "rows": 6, "cols": 6, "win_length": 4}, {})
    search = np.array([2, 2, 1, 0])    # a loss for a draw, a draw for a win, twice; right
    policy = np.array([2, 0, 1, 3])    # wrong where the search is, but on position 1
    calm = np.array([False, True, True, True])
    result = tool.misses(made, search, policy, calm)
    assert result["positions"] == 4 and result["misses"] == 3
    assert result["by_kind"] == {"won → drawn": 2, "won → lost": 0, "drawn → lost": 1}
    assert result["quiet"] == 2 and result["gives_immediate_win"] == 1
    assert result["policy_head_misses_too"] == 2
    assert result["plies_of_misses"] == [2.5, 3.0, 4.0]   # plies 5, 2, 3
    assert "| misses handing the opponent a win at once | 1 |" in tool.markdown(result)


DESIGN_PY = """
from warmjax.analysis.measures import Auc, FinalRate
from warmjax.analysis.registered import PAPERS_ROLES, Board, Design, Hypothesis

DESIGN = Design(
    title="A three-arm study written in a test", registration="REGISTRATION.md",
    boards=(Board("data", "Connect Four 6×6", SEEDS, ITERATIONS,
                  ("baseline", "fixed", "adaptive")),),
    hypotheses=(Hypothesis("H1", "adaptive WRoRa − baseline", "adaptive"),
                Hypothesis("H2", "fixed WRoRa I′ = 5 − baseline", "fixed"),
                Hypothesis("H3", "adaptive WRoRa − fixed WRoRa I′ = 5", "adaptive", "fixed")),
    measures={"auc": Auc("primary: policy head's AUC, iterations 1–3", 0.02,
                             iterations=3),
              "final": FinalRate("secondary: the policy head's final rate", 0.02)},
    roles=PAPERS_ROLES,
    claims={"claim 1 (H1 and H2)": ("H1", "H2"), "claim 3 (H3)": ("H3",)})
"""


def test_a_study_written_as_a_design_runs_through_the_one_command(tmp_path, capsys):
    """A new registered study is a folder (its `design.py` and its runs): `report --design`
    analyses it with no library code of its own. Its three hypotheses are adjusted together
    per measure (Benjamini–Hochberg by hand below)."""
    from scipy import stats

    from warmjax import report
    from warmjax.analysis import stats as verdicts

    from .synthetic import ITERATIONS, write_run

    folder = tmp_path / "study"
    # Per seed: adaptive leads the baseline by 5 points (± 1), fixed by 1 point (± 3);
    # every iteration is shifted alike, so each measure's paired differences are these.
    adaptive = {0: 0.05, 1: 0.06, 2: 0.04, 3: 0.05}
    fixed = {0: 0.01, 1: 0.04, 2: -0.02, 3: 0.01}
    for seed in range(4):
        write_run(folder / "data", "none", "rollout", seed, 0.0)
        write_run(folder / "data", "adaptive", "wrora", seed, adaptive[seed])
        write_run(folder / "data", "fixed", "wrora", seed, fixed[seed])
    (folder / "design.py").write_text(f"SEEDS, ITERATIONS = (0, 1, 2, 3), {ITERATIONS}\n"
                                      + DESIGN_PY)
    report.main(["--design", str(folder)])
    result = json.loads((folder / "registered.json").read_text())
    diffs = {"H1": list(adaptive.values()), "H2": list(fixed.values()),
             "H3": [adaptive[s] - fixed[s] for s in range(4)]}
    p = {h: 2 * stats.t.sf(abs(np.mean(d) / (np.std(d, ddof=1) / 2)), 3)
         for h, d in diffs.items()}
    order = sorted(p, key=p.get)  # BH by hand over three: p(i) · 3 / i, monotone from the top
    adj = {order[2]: p[order[2]]}
    adj[order[1]] = min(p[order[1]] * 3 / 2, adj[order[2]])
    adj[order[0]] = min(p[order[0]] * 3, adj[order[1]])
    for measure in ("auc", "final"):
        rows = result["measures"][measure]
        for h in diffs:
            assert rows[h]["diff"] == pytest.approx(np.mean(diffs[h]), abs=1e-6)
            assert rows[h]["p"] == pytest.approx(p[h], abs=1e-6)  # JSON keeps 6 decimals
            assert rows[h]["p_adjusted"] == pytest.approx(adj[h], abs=1e-6)
    primary = result["measures"]["auc"]
    assert primary["H1"]["verdict"] == verdicts.REPRODUCED  # p ≈ 0.001, adjusted below 0.05
    assert primary["H2"]["verdict"].startswith("not resolvable")  # +1 ± 2.5: open
    assert result["claims"]["auc"]["claim 1 (H1 and H2)"].startswith("not resolvable")
    text = (folder / "registered.md").read_text()
    assert result["complete"] and "Incomplete" not in text
    assert f"Computed by `python -m warmjax.report --design {folder}`" in text
    # A seed the design registers and the data lack: refused in one line, unless asked
    # for, and then no verdict.
    (folder / "design.py").write_text(f"SEEDS, ITERATIONS = (0, 1, 2, 3, 4), {ITERATIONS}\n"
                                      + DESIGN_PY)
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        report.main(["--design", str(folder)])
    err = capsys.readouterr().err.strip().splitlines()
    assert refused.value.code == 2 and len(err) == 1 and "no interim look" in err[0]
    report.main(["--design", str(folder), "--incomplete"])
    partial = json.loads((folder / "registered.json").read_text())
    assert partial["gaps"] == ["baseline: no run of seed(s) 4", "fixed: no run of seed(s) 4",
                               "adaptive: no run of seed(s) 4"]
    assert partial["measures"]["auc"]["H1"]["verdict"] == "incomplete: no verdict"


@pytest.mark.slow
def test_an_exploratory_design_writes_the_papers_report_of_its_folders(tmp_path, capsys,
                                                                      monkeypatch):
    """A `design.py` listing `PAPERS` (`registered.Papers`): `report --design` writes the
    report `report --study` writes from the same folders, named as the working folder names
    them, into the design's `out`. A design with neither `PAPERS` nor `DESIGN` is refused
    in one line, exit 2."""
    from warmjax import report

    from .synthetic import write_run

    for seed in range(2):
        for mode, enhancement, shift in (("none", "rollout", 0.0), ("adaptive", "wrora", 0.04)):
            write_run(tmp_path / "study" / "data", mode, enhancement, seed, shift)
    (tmp_path / "study" / "design.py").write_text(
        "from warmjax.analysis.registered import Papers\n"
        "PAPERS = (Papers(('data',), 'claims'),)\n")
    monkeypatch.chdir(tmp_path)
    report.main(["--design", "study"])
    report.main(["--study", "study/data", "--out", "direct"])
    capsys.readouterr()
    text = (tmp_path / "study" / "claims" / "study.md").read_text()
    assert text == (tmp_path / "direct" / "study.md").read_text()
    assert "runs from study/data;" in text
    (tmp_path / "study" / "design.py").write_text("X = 1\n")
    with pytest.raises(SystemExit) as stop:
        report.main(["--design", "study"])
    assert stop.value.code == 2
    assert "defines neither DESIGN nor PAPERS" in capsys.readouterr().err
    (tmp_path / "study" / "design.py").unlink()
    (tmp_path / "study" / "design.json").write_text("{}\n")
    with pytest.raises(SystemExit) as stop:
        report.main(["--design", "study", "--papers"])
    assert stop.value.code == 2
    assert "--papers writes a design.py's PAPERS; study has design.json" in (
        capsys.readouterr().err)


def test_every_committed_study_report_is_made_by_a_design():
    """`tools/reports.py` checks every committed `study.md` under studies/: each folder
    holding one is the `out` of some study's `PAPERS`, and no design names a folder that
    holds none."""
    reports = load_tool("reports")
    committed = {str(p.parent.relative_to(ROOT / "studies"))
                 for p in (ROOT / "studies").glob("*/*/study.md")}
    assert committed == set(reports.REPORTS)
    assert reports.command("cpu/report", "out")[3:5] == ["--study", "studies/cpu/othello_cpu"]


def test_every_registered_design_is_checked():
    """`tools/reports.py --check` covers every registered analysis committed under
    studies/: each folder whose design is a `design.json`, or a `design.py` with a `DESIGN`,
    is one of its designs (a study analysed but left out would go unchecked)."""
    import re

    reports = load_tool("reports")
    folders = {p.parent.name for p in (ROOT / "studies").glob("*/design.json")}
    folders |= {p.parent.name for p in (ROOT / "studies").glob("*/design.py")
                if re.search(r"^DESIGN\b", p.read_text(), re.MULTILINE)}
    assert {"c4_confirm", "fast_recipe", "where_it_helps"} <= folders
    assert folders == set(reports.DESIGNS)
    for name, (record, _) in reports.DESIGNS.items():
        assert (ROOT / "studies" / name / f"{record}.json").is_file()


def test_export_keeps_the_committed_round_robin(tmp_path):
    # A seed's round robin played into a runs folder without the earlier seeds' journal (a
    # fresh machine) must not be exported over the committed journal: the export stops with
    # one line, and goes ahead once the committed journal is copied in and the block joins it.
    import shutil

    from warmjax.matches import study_runs as tool
    from warmjax.matches.tournament_folder import (
        AnchorEntry,
        Header,
        PairResult,
        Settings,
        TournamentFolder,
    )
    settings = Settings({"name": "connect_four", "params": {}}, 2, 4, 1.0, 0, 4, 0, "seed")
    players = {"random": AnchorEntry("random"), "pure_mcts(4)": AnchorEntry("pure_mcts", 4),
               "pure_rave(4)": AnchorEntry("pure_rave", 4)}

    def journal(folder, number, b):
        tf = TournamentFolder(folder)
        if not tf.has_header():
            tf.write_header(Header(settings, players))
        tf.write_batch(number, [], [PairResult("random", b, 2, 0, 0, 2, 0.0)])

    journal(tmp_path / "committed" / "tournament", 1, "pure_mcts(4)")
    journal(tmp_path / "runs" / "tournament", 1, "pure_rave(4)")
    with pytest.raises(tool.ExportError, match="holds 1 pairs that .* lacks .*random vs pure_mcts"):
        tool.export(tmp_path / "runs", tmp_path / "committed")
    assert [(p.a, p.b) for p in TournamentFolder(tmp_path / "committed" / "tournament")
            .read_journal()] == [("random", "pure_mcts(4)")]  # untouched
    shutil.rmtree(tmp_path / "runs")
    shutil.copytree(tmp_path / "committed", tmp_path / "runs")
    journal(tmp_path / "runs" / "tournament", 2, "pure_rave(4)")
    tool.export(tmp_path / "runs", tmp_path / "committed")
    assert [(p.a, p.b) for p in TournamentFolder(tmp_path / "committed" / "tournament")
            .read_journal()] == [("random", "pure_mcts(4)"), ("random", "pure_rave(4)")]


def test_study_progress_prints_counts_and_seconds_only(tmp_path, capsys):
    """The progress a registered study is checked by (`python -m warmjax.study progress`):
    iterations and seconds, summed by hand, and none of the rates, losses or arena results
    the rows also carry."""
    from warmjax import study as command

    study = tmp_path / "study"
    rows = [metric_row(iteration=i + 1, seconds_total=30.0, oracle_policy=0.4321,
                       oracle_optimal=0.8765) for i in range(4)]
    fabricate_run(study / "arm=baseline,seed=3", network=False, metrics=rows)
    fabricate_run(study / "arm=adaptive_wrora,seed=3", network=False, metrics=rows[:2])
    (study / "arm=baseline,seed=4").mkdir()  # made by the sweep, not started
    command.main(["progress", str(study), "--iterations", "4"])
    out = capsys.readouterr().out
    assert "arm=baseline,seed=3" in out and "4 iterations" in out and "2.0 min" in out
    assert "arm=adaptive_wrora,seed=3" in out and "1.0 min" in out
    # 6 iterations in 180 s; 2 + 4 left at 30 s each is 0.05 h.
    assert "in all: 6 iterations, 0.05 h; 6 left, about 0.1 h at 30 s each" in out
    assert "43.2" not in out and "87.6" not in out and "0.4321" not in out
    # Under a cut to seed 3, seed 4's folder is not counted: 2 left, not 6.
    command.main(["progress", str(study), "--iterations", "4", "--seeds", "3"])
    out = capsys.readouterr().out
    assert "in all: 6 iterations, 0.05 h; 2 left, about 0.0 h at 30 s each" in out
    for argv, message in ((["progress", str(study), "--seeds", "3-x"],
                           "seeds must read like 8-13"),
                          (["progress", str(tmp_path / "missing")], "no study folder"),
                          (["export", str(tmp_path / "missing"), str(tmp_path / "to")],
                           "no runs folder")):
        with pytest.raises(SystemExit) as stopped:
            command.main(argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert stopped.value.code == 2 and len(err) == 1 and message in err[0]


def test_export_copies_finished_runs_and_says_which_it_left_out(tmp_path, capsys):
    from warmjax import study as command
    from warmjax.train.run_config import TrainConfig

    rows = [metric_row(iteration=i + 1) for i in range(TrainConfig().iterations)]
    fabricate_run(tmp_path / "runs" / "arm=baseline,seed=0", network=False, metrics=rows)
    fabricate_run(tmp_path / "runs" / "arm=baseline,seed=1", network=False, metrics=rows[:2])
    command.main(["export", str(tmp_path / "runs"), str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert "left out (still training):" in out and "seed=1" in out
    copied = sorted(p.relative_to(tmp_path / "out").as_posix()
                    for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert copied == ["arm=baseline,seed=0/config.yaml", "arm=baseline,seed=0/metrics.jsonl"]


def _collapse_run(folder, seed, drop, draws, health=None):
    """A 40-iteration baseline run of seed `seed`: policy head 0.50 at iterations 1–30,
    then 0.50 − drop[seed]; search 0.30 above it; arena 40 games a row, `draws` of them
    drawn at iterations 37–40 (the late tenth), 4 before; `health`: self-play draws."""
    from warmjax.train.run_config import GameConfig, RunConfig, TrainConfig

    folder.mkdir(parents=True)
    config = RunConfig(game=GameConfig("connect_four", {}), seed=seed,
                       train=TrainConfig(iterations=40, games=50), run_dir=str(folder))
    run_folder.write_config(folder, config)
    rows = []
    for it in range(1, 41):
        p = 0.50 - (drop if it > 30 else 0.0)
        d = draws if it >= 37 else 4
        extra = {} if health is None else {"selfplay_draws": health, "selfplay_mean_plies": 30.0,
                                           "selfplay_openings": 0.5,
                                           "selfplay_target_entropy": 0.25}
        rows.append(metric_row(iteration=it, oracle_policy=p, oracle_optimal=p + 0.3,
                               arena_wins=40 - d - 2, arena_draws=d, arena_losses=2, **extra))
    run_folder.write_metrics(folder, rows)


def test_draw_collapse_reads_the_prediction_by_hand(tmp_path):
    """Without noise the policy head falls 4, 7 and 5 points after iteration 30 and 36 of
    40 arena games are drawn late: the rule finds a decline (p as scipy's one-sided paired
    t). With noise it moves +1, −1 and 0 points (no decline) and 12 of 40 are drawn: the
    prediction holds; at 24 of 40 in one seed it would not."""
    from scipy import stats

    tool = load_tool("studies/draw_collapse/analysis")
    for seed, drop in ((0, 0.04), (1, 0.07), (2, 0.05)):
        _collapse_run(tmp_path / "paper" / f"s{seed}", seed, drop, 36)
    for seed, drop in ((0, -0.01), (1, 0.01), (2, 0.0)):
        _collapse_run(tmp_path / "noise" / f"s{seed}", seed, drop, 12, health=0.125)
    text = tool.report(tmp_path / "noise", tmp_path / "paper", tmp_path / "none")
    p = stats.ttest_rel([0.46, 0.43, 0.45], [0.5] * 3, alternative="less").pvalue
    assert p < 0.05
    assert f"no noise: **declines**: late − window -5.3 points, one-sided p = {p:.2g}" in text
    assert "root noise: no significant decline: late − window +0.0 points" in text
    assert "| root noise ε = 0.25 | 0 | 50.0 | 51.0 | 80.0 | 81.0 | 30.0 | 12.5 | 30.00 | " \
           "50.0 | 0.25 |" in text
    assert "| none (c4_long) | 1 | 50.0 | 43.0 | 80.0 | 73.0 | 90.0 | — | — | — | — |" in text
    # Late, noise − none: +5, +6 and +5 points.
    assert "noise − none (c4_long), paired by seed: +5.3 [" in text
    assert "retrained" not in text  # no same-machine control given
    assert "**The prediction** (no significant decline with root noise, and late arena " \
           "draws ≤ 50% in every seed): holds" in text
    # A same-machine control: seed 0 an exact copy of the committed run, seed 1 another
    # trajectory (its probe falls 2 points, not 7).
    shutil.copytree(tmp_path / "paper" / "s0", tmp_path / "again" / "s0")
    _collapse_run(tmp_path / "again" / "s1", 1, 0.02, 36)
    again = tool.report(tmp_path / "noise", tmp_path / "paper", tmp_path / "again")
    fields = len({k for row in (tmp_path / "paper" / "s0" / "metrics.jsonl").read_text()
                  .splitlines() for k in json.loads(row) if not k.startswith("seconds_")})
    assert (f"Seed 0 retrained without noise for its health figures: identical in all "
            f"{fields} fields of its 40 rows") in again
    assert "Seed 1 retrained without noise for its health figures: **differs** in " in again
    assert "| none, retrained | 1 | 50.0 | 48.0 |" in again
    # Late, noise − retrained: 51 − 46 (seed 0, the copy) and 49 − 48 (seed 1) points.
    assert "noise − none, retrained, paired by seed: +3.0 [" in again
    shutil.rmtree(tmp_path / "noise" / "s1")
    _collapse_run(tmp_path / "noise" / "s1", 1, 0.01, 24, health=0.125)
    assert "every seed: no)" in tool.report(tmp_path / "noise", tmp_path / "paper",
                                            tmp_path / "none")


@pytest.mark.slow
def test_the_committed_registered_analysis_regenerates_and_a_change_is_caught(tmp_path,
                                                                              monkeypatch):
    """`tools/reports.py --check c4_confirm`: the committed record and Markdown regenerate
    through `report --design`; a committed value edited by hand is reported as changed."""
    import shutil

    reports = load_tool("reports")
    assert reports.check_design("c4_confirm")
    copy = tmp_path / "studies" / "c4_confirm"
    shutil.copytree(ROOT / "studies" / "c4_confirm", copy,
                    ignore=shutil.ignore_patterns("report"))
    record = json.loads((copy / "registered.json").read_text())
    record["measures"]["auc"]["H1"]["diff"] += 0.001
    (copy / "registered.json").write_text(json.dumps(record, indent=1) + "\n")
    monkeypatch.setattr(reports, "ROOT", tmp_path)
    assert not reports.check_design("c4_confirm")


@pytest.mark.slow
def test_the_committed_printed_report_regenerates_and_a_change_is_caught(tmp_path,
                                                                         monkeypatch):
    """`tools/reports.py --check draw_collapse`: the script's printed Markdown is the
    committed studies/draw_collapse/analysis.md byte for byte; one number edited by hand in
    a copy of the committed file is reported as a difference."""
    import shutil

    reports = load_tool("reports")
    assert reports.check_printed("draw_collapse")
    copy = tmp_path / "studies" / "draw_collapse"
    shutil.copytree(ROOT / "studies" / "draw_collapse", copy)
    (copy / "analysis.py").unlink()  # the script still runs from the repository
    text = (copy / "analysis.md").read_text()
    assert "| 40 | 55.8 |" in text
    (copy / "analysis.md").write_text(text.replace("| 40 | 55.8 |", "| 40 | 55.9 |", 1))
    monkeypatch.setattr(reports, "PRINTED", {"draw_collapse": (
        "draw_collapse/analysis.md", str(ROOT / "studies" / "draw_collapse" / "analysis.py"))})
    monkeypatch.setattr(reports, "ROOT", tmp_path)
    assert not reports.check_printed("draw_collapse")


@pytest.mark.slow
def test_a_screens_committed_table_is_printed_again_and_a_change_is_caught(tmp_path,
                                                                           monkeypatch):
    """`tools/reports.py --check screen_pons`: every table line of the README is printed
    again from the committed runs; one number edited in a copy of the README is caught."""
    import shutil

    reports = load_tool("reports")
    assert reports.check_screen("screen_pons")
    copy = tmp_path / "studies" / "screen_pons"
    shutil.copytree(ROOT / "studies" / "screen_pons", copy)
    text = (copy / "README.md").read_text()
    assert "| fast7 | — | 1.1 | 8.1 |" in text
    (copy / "README.md").write_text(text.replace("| fast7 | — | 1.1 | 8.1 |",
                                                 "| fast7 | — | 1.1 | 8.2 |", 1))
    monkeypatch.setattr(reports, "ROOT", tmp_path)
    monkeypatch.setattr(reports, "SCREENS", {"screen_pons": (
        "screen_pons/README.md", "## The table",
        [[str(ROOT / "studies" / "screen_pons" / "rows.txt"), *reports.PONS]])})
    assert not reports.check_screen("screen_pons")
