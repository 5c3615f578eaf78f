"""The report's tables and plots (warmjax.analysis.tables, warmjax.report) on fabricated run
folders and tournaments: switch iterations, r balances, Elo per arm and per I′, and the
judged runs."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from warmjax import report
from warmjax.analysis import tables
from warmjax.analysis.tournaments import load_tournament
from warmjax.train import run_folder
from warmjax.train.metrics import MetricRow

from ..helpers import ROOT, fabricate_run, metric_row

# A tournament as the code wrote it, committed with its study: three seeds each of the
# baseline, fixed I′ = 5 and adaptive arms (its elo.json and players.json).
COMMITTED = ROOT / "results/c4_repro/tournament"


def adaptive_metrics(balances: list[float], switch: int | None,
                     iterations: int) -> list[MetricRow]:
    """metrics.jsonl rows of an adaptive run: warm start until `switch` (or throughout)."""
    rows = []
    for it in range(1, iterations + 1):
        active = switch is None or it <= switch
        switched = switch is not None and it >= switch
        rows.append(metric_row(iteration=it, warmstart_active=active,
                               weight=1.0 / it if active else 0.0, switched=switched,
                               switch_iteration=switch if switched else -1,
                               r_balance=balances[it - 1] if active else 0.0, accepted=True))
    return rows


@pytest.fixture(scope="module")
def adaptive_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("adaptive")
    specs = [  # game, enhancement, seed, r per warm-start iteration, switch, iterations
        ("connect_four", "rollout", 0, [-2, 0, 2], 3, 6),
        ("connect_four", "rollout", 1, [-4, -2, -1, 0, 1], 5, 6),
        ("connect_four", "rollout", 2, [-1, -1, -2, 0, -3, 0], None, 6),
        ("connect_four", "rave", 0, [2], 1, 4),
        ("connect_four", "rave", 1, [-1, 0, 3], 3, 4),
        ("othello", "rollout", 0, [-2, 4], 2, 3),
    ]
    for game, enh, seed, balances, switch, iterations in specs:
        fabricate_run(root / f"{game}_{enh}_s{seed}", game=game, mode="adaptive",
                      enhancement=enh, seed=seed, network=False,
                      metrics=adaptive_metrics(balances, switch, iterations))
    fabricate_run(root / "fixed", mode="fixed", network=False,
                  metrics=adaptive_metrics([0, 0], None, 2))
    return root


def test_switch_table(adaptive_runs):
    runs = [run_folder.read_run(p) for p in sorted(adaptive_runs.iterdir())]
    cells = {(c.game, c.enhancement): c for c in tables.switch_table(runs)}
    # The papers' order of games, then of enhancements.
    assert list(cells) == [("othello", "rollout"), ("connect_four", "rollout"),
                           ("connect_four", "rave")]
    c4 = cells[("connect_four", "rollout")]
    assert c4.switches == (3, 5) and c4.never == 1 and c4.never_after == 6
    # Population std (ddof = 0) of (3, 5) is 1; the sample std is √2.
    assert c4.mean == 4.0 and c4.std == pytest.approx(1.0)
    assert c4.sample_std == pytest.approx(math.sqrt(2.0))
    assert c4.text() == "4.0 ± 1.0 (2/3; 1 > 6)"
    assert cells[("connect_four", "rave")].text() == "2.0 ± 1.0"
    assert cells[("othello", "rollout")].text() == "2.0"  # one seed: no spread
    md = tables.switch_markdown(list(cells.values()), runs)
    assert "| Enhancement | Othello | Connect Four |" in md
    assert "| Rollout | 2.0 | 4.0 ± 1.0 (2/3; 1 > 6) |" in md
    assert "| Rave | — | 2.0 ± 1.0 |" in md
    assert "| > 6 | 6 |" in md  # the seed that never switched
    never = tables.SwitchCell("gobang", "wro", (), 2, 100, math.nan, math.nan)
    assert never.text() == "> 100 (0/2)"


def test_balance_series(adaptive_runs):
    runs = [run_folder.read_run(p) for p in sorted(adaptive_runs.iterdir())]
    series = {(s.game, s.enhancement): s for s in tables.balance_series(runs)}
    c4 = series[("connect_four", "rollout")]
    assert c4.iterations == (1, 2, 3, 4, 5, 6)
    assert c4.count == (3, 3, 3, 2, 2, 1)
    np.testing.assert_allclose(c4.mean, [-7 / 3, -1, -1 / 3, 0, -1, 0])
    assert c4.runs["s0"] == [(1, -2.0), (2, 0.0), (3, 2.0)]  # up to and including the switch
    assert series[("connect_four", "rave")].mean == (0.5, 0.0, 3.0)
    assert "| 1 | -2.33 | 3 |" in tables.balance_markdown([tables.balance_json(c4)])


def fake_elo(folder: Path) -> Path:
    """A tournament's elo.json with hand-picked ratings."""
    players, ratings = {}, {}

    def net(name, mode, enh, iprime, seed, rating):
        players[name] = {"kind": "network", "run_dir": name, "mode": mode, "enhancement": enh,
                         "iprime": iprime, "seed": seed, "game": "connect_four"}
        ratings[name] = rating

    net("b/s0", "none", None, None, 0, 10.0)
    net("b/s1", "none", None, None, 1, 30.0)
    net("ro/I1/s0", "fixed", "rollout", 1, 0, -50.0)
    net("ro/I1/s1", "fixed", "rollout", 1, 1, -30.0)
    net("ro/I3/s0", "fixed", "rollout", 3, 0, 40.0)
    net("ro/I3/s1", "fixed", "rollout", 3, 1, 60.0)
    net("ra/I3/s0", "fixed", "rave", 3, 0, 20.0)
    net("ra/ad/s0", "adaptive", "rave", None, 0, 5.0)
    players["random"] = {"kind": "anchor", "player": "random", "playouts": None}
    ratings["random"] = -85.0
    names = list(players)
    folder.mkdir(parents=True, exist_ok=True)
    payload = {"names": names, "ratings": [ratings[n] for n in names],
               "lower": [ratings[n] - 50 for n in names],
               "upper": [ratings[n] + 50 for n in names], "players": players,
               "settings": {"game": {"name": "connect_four", "params": {}}, "games": 20,
                            "simulations": 100, "c_puct": 1.0, "temperature_moves": 15,
                            "playouts": 100, "seed": 0}}
    (folder / "elo.json").write_text(json.dumps(payload))
    return folder


def test_elo_by_variant_and_sweep(tmp_path):
    t = load_tournament(fake_elo(tmp_path / "c4"))
    rows = tables.elo_by_arm(t)
    assert [r.arm.label for r in rows] == [
        "Baseline", "Rollout I′=1", "Rollout I′=3", "Rave I′=3", "Rave adaptive", "random"]
    means = {r.arm.label: (r.mean, r.std, len(r.ratings)) for r in rows}
    assert means["Baseline"][:2] == (20.0, pytest.approx(math.sqrt(200.0)))
    assert means["Rollout I′=3"][0] == 50.0 and means["Rave adaptive"][2] == 1
    assert "| Baseline | 2 | 20 ± 14 | 10 | 30 |" in tables.arm_elo_markdown(rows)
    sweep = tables.elo_by_iprime(rows)
    assert list(sweep.curves) == ["rollout", "rave"]
    assert [(p, m, n) for p, m, _, n in sweep.curves["rollout"]] == [(1, -40.0, 2),
                                                                     (3, 50.0, 2)]
    assert [r.arm.label for r in sweep.references] == ["Baseline", "Rave adaptive",
                                                           "random"]
    md = tables.iprime_elo_markdown(sweep)
    assert "| Rollout | -40 ± 14 | 50 ± 14 |" in md and "| Rave | — | 20 |" in md


def _is_png(path: Path) -> bool:
    data = path.read_bytes()
    return data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_report_writes_pngs_and_summary(adaptive_runs, tmp_path):
    fake = fake_elo(tmp_path / "sweep")
    out = tmp_path / "report"
    report.main(["--runs", str(adaptive_runs / "*"), "--tournaments", str(fake),
                 str(COMMITTED), "--out", str(out)])
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == sorted(["elo_sweep.png", "iprime_sweep_sweep.png",
                           "elo_tournament.png", "iprime_sweep_tournament.png",
                           "r_balance_connect_four.png", "r_balance_othello.png",
                           "training_connect_four.png", "training_othello.png"])
    assert all(_is_png(out / p) for p in pngs)
    summary = (out / "summary.md").read_text()
    for name in [*pngs, "switch_iterations.md", "r_balance.md", "elo_sweep.md"]:
        assert f"({name})" in summary, name
    assert "| Rollout | 2.0 | 4.0 ± 1.0 (2/3; 1 > 6) |" in summary
    assert "tournament/elo.md" in summary
    # The committed tournament's arms, three seeds each, by enhancement.
    committed = (out / "elo_tournament.md").read_text()
    labels = re.findall(r"^\| ([^|]+?) \| 3 \|", committed, flags=re.M)
    assert labels == ["Baseline", "Rollout I′=5", "Rollout adaptive", "RoRa I′=5",
                      "RoRa adaptive"]
    assert "| Arm | Seeds | Elo (mean ± std) |" in committed


def test_judged_runs_table(tmp_path):
    def judged(folder, seed, search, policy, versus=None):
        fabricate_run(folder, mode="adaptive", seed=seed, network=False)
        rates = lambda optimal: {"optimal": optimal, "win_to_draw": 0.01,  # noqa: E731
                                 "win_to_loss": 1 - optimal - 0.01, "draw_to_loss": 0.0,
                                 "immediate_win_taken": 1.0}
        (folder / "oracle.json").write_text(json.dumps(
            {"players": {"search": rates(search), "policy_head": rates(policy)}}))
        if versus:
            (folder / "versus.json").write_text(json.dumps(versus))
        return folder

    runs = [run_folder.read_run(judged(tmp_path / "a", 0, 0.90, 0.70,
                                       {"random": {"wins": 99, "draws": 1, "losses": 0,
                                                   "score": 0.995}})),
            run_folder.read_run(judged(tmp_path / "b", 1, 0.80, 0.60))]
    text = tables.judged_markdown(runs)
    # Means over the two seeds: (90 + 80) / 2 and (70 + 60) / 2; unjudged players show "—".
    assert "| **Rollout adaptive, mean** | n = 2 | **85.0** | **65.0** | — | — | — |" in text
    assert "| Connect Four | Rollout adaptive | policy head | 65.0% | 1.0% | 34.0% |" in text
    assert "| Connect Four | Rollout adaptive s0 | 99-1-0 | — | — |" in text
    assert "quiet" not in text  # files from before the quiet positions: no quiet table
    assert tables.judged_markdown([run_folder.read_run(fabricate_run(
        tmp_path / "c", network=False))]) == ""
    # An oracle file that judged the quiet positions apart gets its own table.
    folder = judged(tmp_path / "d", 2, 0.90, 0.70)
    raw = json.loads((folder / "oracle.json").read_text())
    for player, rate in (("search", 0.75), ("policy_head", 0.66)):
        raw["players"][player].update(quiet_positions=473, quiet_optimal=rate)
    (folder / "oracle.json").write_text(json.dumps(raw))
    text = tables.judged_markdown([run_folder.read_run(folder)])
    assert "| Connect Four | Rollout adaptive s2 | 473 | 75.0 | 66.0 | — | — | — |" in text


def test_training_curves_for_a_game_without_a_probe(tmp_path):
    # An adaptive tic-tac-toe run (no probe logged) that switched after iteration 2: the
    # table reads its first and last losses, the accepted candidates and the truncated
    # games from the rows, and the report draws its training figure.
    rows = [metric_row(iteration=it, loss_policy=2.0 - 0.25 * it, loss_value=0.5 / it,
                       arena_wins=w, arena_losses=4 - w, accepted=w >= 3,
                       warmstart_active=it <= 2, switched=it >= 2,
                       switch_iteration=2 if it >= 2 else -1, selfplay_mean_plies=plies,
                       selfplay_truncated=cut)
            for it, w, plies, cut in ((1, 3, 7.0, 0), (2, 1, 8.0, 1), (3, 4, 9.0, 2))]
    fabricate_run(tmp_path / "run", game="tic_tac_toe", mode="adaptive", metrics=rows,
                  network=False)
    runs = [run_folder.read_run(tmp_path / "run")]
    text = tables.training_markdown(runs)
    (line,) = [x for x in text.splitlines() if x.startswith("| Tic")]
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[3:] == ["3", "1.75 → 1.25", "0.50 → 0.17", "2 of 3", "after 2", "8.0", "3"]
    written = report.write_runs([str(tmp_path / "run")], out=str(tmp_path / "out"))
    assert written["training_tic_tac_toe.png"].stat().st_size > 0
    assert "## Training curves" in (tmp_path / "out" / "summary.md").read_text()
