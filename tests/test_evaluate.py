"""Tournaments (batched pairs, game records, Elo, resume) and the report's tables and plots.

Run folders are fabricated: freshly initialised networks saved with `save_network` next to
a hand-written `config.yaml` (and `metrics.jsonl` for the tables), which is all the
evaluation tools read. One tournament runs per module and the resume tests reuse its
compiled matches.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import jax
import numpy as np
import pytest

from warmjax import report
from warmjax import tournament as tournament_command
from warmjax.analysis import tables
from warmjax.games import make
from warmjax.matches.batches import plan_batches
from warmjax.matches.entrants import (
    Entrant,
    anchor_entrants,
    expand_runs,
    load_runs,
    unique_names,
)
from warmjax.matches.round_robin import TournamentConfig, run_tournament
from warmjax.matches.tournament_folder import (
    AnchorEntry,
    NetworkEntry,
    TournamentFolder,
    entry_to_json,
)
from warmjax.nets import make_network
from warmjax.train import run_folder
from warmjax.train.metrics import MetricRow
from warmjax.train.network_io import save_network
from warmjax.train.run_config import (
    GameConfig,
    ModelConfig,
    RunConfig,
    SearchConfig,
    WarmstartConfig,
)

from .helpers import metric_row

GAMES = 6  # per pair
SIMULATIONS = 24
MAX_GAMES_PER_CALL = 12  # two pairs per call: 3 network pairs need a padded second call


def fabricate_run(folder: Path, *, game="connect_four", mode="none", enhancement="rollout",
                  iprime=5, seed=0, simulations=SIMULATIONS, temperature_moves=4,
                  profile="smoke", metrics=None, network=True) -> Path:
    """A run folder as training leaves it (config.yaml, network, optional metrics.jsonl)."""
    short = {"connect_four": "c4"}.get(game, game)
    config = RunConfig(
        game=GameConfig(game), model=ModelConfig("small", 8, (16, 16)),
        search=SearchConfig(simulations=simulations, temperature_moves=temperature_moves),
        warmstart=WarmstartConfig(mode, enhancement, iprime), seed=seed,
        experiment_name=f"{ {'none': 'baseline'}.get(mode, mode)}_{short}",
        profile_name=profile, run_dir=str(folder))
    folder.mkdir(parents=True, exist_ok=True)
    run_folder.write_config(folder, config)
    if network:
        env = make(game)
        net = make_network(env.num_actions, env.observation_shape, None, channels=8,
                           fc=(16, 16))
        save_network(folder, config, net, net.init(jax.random.PRNGKey(100 + seed)), 2)
    if metrics is not None:
        run_folder.write_metrics(folder, metrics)
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    fabricate_run(root / "base_s0", mode="none", seed=0)
    fabricate_run(root / "rave_I3_s0", mode="fixed", enhancement="rave", iprime=3, seed=0)
    fabricate_run(root / "rollout_adaptive_s1", mode="adaptive", enhancement="rollout", seed=1)
    return root


def config_for(runs: Path, out: Path, **kwargs) -> TournamentConfig:
    settings = {"runs": (str(runs / "*"),), "out": str(out), "anchors": ("random",),
                "games": GAMES, "max_games_per_call": MAX_GAMES_PER_CALL, "fast_compile": True}
    settings.update(kwargs)
    return TournamentConfig(**settings)


@pytest.fixture(scope="module")
def full(runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("tournament")
    return out, run_tournament(config_for(runs, out), log=lambda s: None)


def test_names_and_mapping(full):
    out, result = full
    # Players are named by their runs' variant labels (RunVariant.label) and seeds.
    assert result.names == ("Baseline s0", "Rave I′=3 s0", "Rollout adaptive s1", "random")
    players = json.loads((out / "players.json").read_text())
    assert TournamentFolder(out).read_players() == result.players
    assert players["Rave I′=3 s0"]["run_dir"].endswith("rave_I3_s0")
    assert players["Rave I′=3 s0"]["iprime"] == 3 and players["Rave I′=3 s0"]["departures"] == []
    assert players["Rave I′=3 s0"]["label"] == "Rave I′=3"
    assert players["random"] == {"kind": "anchor", "player": "random", "playouts": None}
    rave = result.players["Rave I′=3 s0"]
    assert isinstance(rave, NetworkEntry) and rave.variant().iprime == 3
    assert result.players["random"] == AnchorEntry("random", None)
    settings = json.loads((out / "tournament.json").read_text())["settings"]
    # One common m and T′: the runs' own (they agree).
    assert settings["simulations"] == SIMULATIONS and settings["temperature_moves"] == 4


def test_every_pair_plays_g_games_each_side_first_in_half(full):
    out, result = full
    pairs = json.loads((out / "pairs.json").read_text())
    games = json.loads((out / "games.json").read_text())
    names = result.names
    assert len(pairs) == math.comb(len(names), 2) == 6
    assert {frozenset((p["a"], p["b"])) for p in pairs} == {
        frozenset((a, b)) for i, a in enumerate(names) for b in names[i + 1:]}
    for p in pairs:
        mine = [g for g in games if {g["first"], g["second"]} == {p["a"], p["b"]}]
        assert len(mine) == p["games"] == GAMES
        assert sum(g["first"] == p["a"] for g in mine) == GAMES // 2
        a_results = [g["result"] if g["first"] == p["a"] else -g["result"] for g in mine]
        assert (p["wins"], p["draws"], p["losses"]) == (
            a_results.count(1), a_results.count(0), a_results.count(-1))
        assert p["score_a"] == pytest.approx((p["wins"] + p["draws"] / 2) / GAMES)
    # The batches: 3 network pairs in calls of 2, then 3 network-vs-random pairs likewise.
    assert result.played_batches == 4
    assert len(list((out / "batches").glob("batch-*.json"))) == 4


def test_records_replay_to_their_results(full):
    _, result = full
    env = make("connect_four")
    step = jax.jit(env.step)
    start = env.init(jax.random.PRNGKey(0))
    first_id = int(start.current_player)
    assert len(result.games) == 6 * GAMES
    for game in result.games:
        state = start
        for ply, action in enumerate(game.moves):
            assert not bool(state.terminated), (game, ply)
            assert bool(state.legal_action_mask[action]), (game, ply)
            state = step(state, action)
        assert bool(state.terminated), game
        assert int(state.rewards[first_id]) == game.result, game


def test_random_anchor_is_rated_lowest(full):
    out, result = full
    elo = result.elo
    random = elo.names.index("random")
    assert elo.ratings[random] == elo.ratings.min()
    assert elo.score[random] / elo.games[random] < 0.5
    saved = json.loads((out / "elo.json").read_text())
    assert saved["names"] == list(elo.names)
    np.testing.assert_allclose(saved["ratings"], elo.ratings)
    assert saved["players"]["random"]["kind"] == "anchor"
    md = (out / "elo.md").read_text()
    assert "| Rank | Name | Elo |" in md and "rave_I3_s0" in md


def test_resume_skips_finished_pairs(full, runs, tmp_path):
    out_full, whole = full
    out = tmp_path / "resumed"
    lines = []
    first = run_tournament(config_for(runs, out), max_batches=1, log=lines.append)
    assert first.elo is None and first.played_batches == 1 and first.pending_pairs == 4
    assert not (out / "elo.json").exists()
    journal = out / "batches" / "batch-0001.json"
    stamp = journal.stat().st_mtime_ns

    second = run_tournament(config_for(runs, out), log=lines.append)
    assert second.played_batches == 3 and second.complete
    assert journal.stat().st_mtime_ns == stamp
    assert any("2 pairs played, 4 to play" in line for line in lines)
    # Same games and ratings as the uninterrupted tournament.
    assert second.games == whole.games
    assert json.loads((out / "pairs.json").read_text()) == json.loads(
        (out_full / "pairs.json").read_text())
    np.testing.assert_allclose(second.elo.ratings, whole.elo.ratings)

    third = run_tournament(config_for(runs, out), log=lines.append)
    assert third.played_batches == 0 and third.games == whole.games


def test_compressed_journal_reads_and_resumes_as_the_plain_one(full, runs, tmp_path):
    out_full, whole = full
    out = tmp_path / "compressed"
    shutil.copytree(out_full, out)
    folder = TournamentFolder(out)
    plain = folder.read_journal()
    folder.compress_journal()
    names = sorted(p.name for p in (out / "batches").iterdir())
    assert names == [f"batch-{n:04d}.json.gz" for n in range(1, 5)]
    assert folder.read_journal() == plain
    again = run_tournament(config_for(runs, out))
    assert again.played_batches == 0 and again.games == whole.games
    (out / "batches" / "batch-0002.json.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="batch-0002.json.gz is corrupt"):
        folder.read_journal()


SHIPPED = sorted(Path(__file__).parents[1].glob("docs/results/*/tournament")) + sorted(
    Path(__file__).parents[1].glob("docs/results/study/*/tournament"))


def test_committed_tournament_folders_are_found():
    assert len(SHIPPED) == 6  # the superseded c4_repro study and the five CPU studies


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.parent.name)
def test_committed_tournament_folders_load_and_round_trip(path):
    """Folders written by earlier versions (no `pairing`, players without departures,
    plain and compressed batches) load as typed records, and their players write back with
    every key they had, unchanged (a key they lacked is written at its default)."""
    folder = TournamentFolder(path)
    header = folder.read_header()
    raw = json.loads((path / "tournament.json").read_text())
    assert set(header.players) == set(raw["players"])
    for name, entry in header.players.items():
        written = entry_to_json(entry)
        assert {k: written[k] for k in raw["players"][name]} == raw["players"][name]
        assert all(written[k] in (None, [], ()) for k in set(written) - set(raw["players"][name]))
    assert header.settings.pairing == raw["settings"].get("pairing", "all")
    pairs = folder.read_journal()
    assert pairs and all(p.wins + p.draws + p.losses == p.games == len(p.records)
                         for p in pairs)
    if (path / "elo.json").exists():
        elo = folder.read_elo()
        assert set(elo.names) <= set(header.players) and len(elo.ratings) == len(elo.names)


def test_command_line(full, runs, tmp_path, capsys):
    _, whole = full
    out = tmp_path / "cli"
    argv = [str(runs / "*"), "--games", str(GAMES), "--max-games-per-call",
            str(MAX_GAMES_PER_CALL), "--fast-compile", "--out", str(out)]
    tournament_command.main([*argv, "--max-batches", "3"])
    assert "1 pair still to play" in capsys.readouterr().out  # calls of 2, 1 and 2 pairs
    tournament_command.main(argv)  # resumes; the default anchor is random
    printed = capsys.readouterr().out
    assert "Rank  Name" in printed and "random" in printed
    assert [g for _, _, g in TournamentFolder(out).read_games()] == whole.games


def test_resume_rejects_other_settings(full, runs):
    out, _ = full
    with pytest.raises(ValueError, match="other settings.*games: 6 there, 8 now"):
        run_tournament(config_for(runs, out, games=8), log=lambda s: None)


def test_tournament_errors(runs, tmp_path, capsys):
    other = tmp_path / "other"
    fabricate_run(other / "othello", game="othello")
    with pytest.raises(ValueError, match="same game.*othello"):
        load_runs([runs / "base_s0", other / "othello"])
    # Default settings spelled out or left out: the same game.
    explicit = fabricate_run(other / "explicit")
    meta = json.loads((explicit / "network.json").read_text())
    meta["game"]["params"] = {"rows": 6, "cols": 6, "win_length": 4}
    (explicit / "network.json").write_text(json.dumps(meta))
    _, game, _, _ = load_runs([runs / "base_s0", explicit])
    assert game == {"name": "connect_four", "params": {"cols": 6, "rows": 6, "win_length": 4}}
    fabricate_run(other / "untrained", network=False)
    with pytest.raises(ValueError, match="no network.json"):
        load_runs([other / "untrained"])
    (other / "corrupt").mkdir()
    for name in ("config.yaml", "network.json"):
        (other / "corrupt" / name).write_bytes((runs / "base_s0" / name).read_bytes())
    (other / "corrupt" / "network.msgpack").write_bytes(b"not msgpack")
    with pytest.raises(ValueError, match="corrupt"):
        load_runs([other / "corrupt"])
    with pytest.raises(ValueError, match="matches no run folder"):
        expand_runs([str(tmp_path / "nothing*")])
    fabricate_run(other / "m8", simulations=8)
    config = TournamentConfig(runs=(str(runs / "base_s0"), str(other / "m8")),
                              out=str(tmp_path / "t"))
    with pytest.raises(ValueError, match="differ in search.simulations.*--simulations"):
        run_tournament(config, log=lambda s: None)
    with pytest.raises(ValueError, match="even"):
        TournamentConfig(runs=(), out="x", games=3)
    with pytest.raises(ValueError, match="too few for rhea"):
        TournamentConfig(runs=(), out="x", anchors=("rhea",), playouts=8)
    with pytest.raises(SystemExit) as exit_info:
        tournament_command.main([str(runs / "base_s0"), str(other / "othello"), "--out",
                                 str(tmp_path / "t")])
    assert exit_info.value.code == 2
    assert re.search("tournament: error: .*same game", capsys.readouterr().err)


def test_plan_batches_groups_matchups_within_limits():
    net, other = ("network", 8, (16, 16)), ("network", 16, (16, 16))
    entrants = [Entrant(f"n{i}", {}, net) for i in range(4)]
    entrants += [Entrant("m", {}, other), Entrant("random", {}, ("anchor", "random"))]
    todo = [(i, j) for i in range(6) for j in range(i + 1, 6)]
    batches = plan_batches(entrants, todo, games=20, max_games_per_call=100,
                                max_pairs_per_call=4)
    played = sorted(p for b in batches for p in b.pairs)
    assert played == todo  # every pair exactly once
    for b in batches:
        assert 0 < len(b.pairs) <= b.size <= 4  # 100 // 20 = 5 games-wise, 4 pairs-wise
        assert all((entrants[i].kind, entrants[j].kind) == (b.kind_a, b.kind_b)
                   for i, j in b.pairs)
    sizes = {(b.kind_a, b.kind_b): [] for b in batches}
    for b in batches:
        sizes[(b.kind_a, b.kind_b)].append(len(b.pairs))
    assert sizes[(net, net)] == [4, 2]  # 6 pairs among n0..n3
    assert sizes[(net, ("anchor", "random"))] == [4]
    assert sizes[(other, ("anchor", "random"))] == [1]


def test_unique_names():
    assert unique_names(["x/s0", "x/s0", "y/s0"], [["quick", "a"], ["paper", "b"],
                                                        ["quick", "c"]]) == [
        "x/s0/quick", "x/s0/paper", "y/s0"]
    assert unique_names(["x", "x"], [["p", "a"], ["p", "b"]]) == ["x/p/a", "x/p/b"]
    assert unique_names(["x", "x"], [["p"], ["p"]]) == ["x/p#1", "x/p#2"]
    assert [e.name for e in anchor_entrants(["random", "pure_mcts"], 50)] == [
        "random", "pure_mcts(50)"]


# --- the report --------------------------------------------------------------------------


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
    assert "| 1 | -2.33 | 3 |" in tables.balance_markdown([c4])


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
    t = tables.load_tournament(fake_elo(tmp_path / "c4"))
    rows = tables.elo_by_variant(t)
    assert [r.variant.label for r in rows] == [
        "Baseline", "Rollout I′=1", "Rollout I′=3", "Rave I′=3", "Rave adaptive", "random"]
    means = {r.variant.label: (r.mean, r.std, len(r.ratings)) for r in rows}
    assert means["Baseline"][:2] == (20.0, pytest.approx(math.sqrt(200.0)))
    assert means["Rollout I′=3"][0] == 50.0 and means["Rave adaptive"][2] == 1
    assert "| Baseline | 2 | 20 ± 14 | 10 | 30 |" in tables.variant_elo_markdown(rows)
    sweep = tables.elo_by_iprime(rows)
    assert list(sweep.curves) == ["rollout", "rave"]
    assert [(p, m, n) for p, m, _, n in sweep.curves["rollout"]] == [(1, -40.0, 2),
                                                                     (3, 50.0, 2)]
    assert [r.variant.label for r in sweep.references] == ["Baseline", "Rave adaptive",
                                                           "random"]
    md = tables.iprime_elo_markdown(sweep)
    assert "| Rollout | -40 ± 14 | 50 ± 14 |" in md and "| Rave | — | 20 |" in md


def _is_png(path: Path) -> bool:
    data = path.read_bytes()
    return data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_report_writes_pngs_and_summary(adaptive_runs, full, tmp_path):
    out_tournament, _ = full
    fake = fake_elo(tmp_path / "sweep")
    out = tmp_path / "report"
    report.main(["--runs", str(adaptive_runs / "*"), "--tournaments", str(fake),
                 str(out_tournament), "--out", str(out)])
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == sorted(["elo_sweep.png", "iprime_sweep_sweep.png",
                           f"elo_{out_tournament.name}.png",
                           f"iprime_sweep_{out_tournament.name}.png",
                           "r_balance_connect_four.png", "r_balance_othello.png"])
    assert all(_is_png(out / p) for p in pngs)
    summary = (out / "summary.md").read_text()
    for name in [*pngs, "switch_iterations.md", "r_balance.md", "elo_sweep.md"]:
        assert f"({name})" in summary, name
    assert "| Rollout | 2.0 | 4.0 ± 1.0 (2/3; 1 > 6) |" in summary
    elo_link = f"{out_tournament.name}/elo.md"
    assert elo_link in summary


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
    assert tables.judged_markdown([run_folder.read_run(fabricate_run(
        tmp_path / "c", network=False))]) == ""
