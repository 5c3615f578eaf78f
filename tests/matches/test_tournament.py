"""Tournaments (warmjax.matches): batched pairs, game records, resume, the typed folder and
the command.

Run folders are fabricated: freshly initialised networks saved with `save_network` next to
a hand-written `config.yaml`, which is all the tournament reads. One tournament runs per
module and the resume tests reuse its compiled matches.
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

from warmjax import tournament as tournament_command
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

from ..helpers import FABRICATED_SIMULATIONS as SIMULATIONS
from ..helpers import ROOT, fabricate_run

GAMES = 6  # per pair
MAX_GAMES_PER_CALL = 12  # two pairs per call: 3 network pairs need a padded second call


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


@pytest.mark.slow
def test_names_and_mapping(full):
    out, result = full
    # Players are named by their runs' variant labels (RunId.label) and seeds.
    assert result.names == ("Baseline s0", "Rave I′=3 s0", "Rollout adaptive s1", "random")
    players = json.loads((out / "players.json").read_text())
    assert TournamentFolder(out).read_players() == result.players
    assert players["Rave I′=3 s0"]["run_dir"].endswith("rave_I3_s0")
    assert players["Rave I′=3 s0"]["iprime"] == 3 and players["Rave I′=3 s0"]["departures"] == []
    assert players["Rave I′=3 s0"]["label"] == "Rave I′=3"
    assert players["random"] == {"kind": "anchor", "player": "random", "playouts": None}
    rave = result.players["Rave I′=3 s0"]
    assert isinstance(rave, NetworkEntry) and rave.id.iprime == 3
    assert result.players["random"] == AnchorEntry("random", None)
    settings = json.loads((out / "tournament.json").read_text())["settings"]
    # One common m and T′: the runs' own (they agree).
    assert settings["simulations"] == SIMULATIONS and settings["temperature_moves"] == 4


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


SHIPPED = sorted(ROOT.glob("results/*/tournament")) + sorted(
    ROOT.glob("studies/*/*/tournament"))


def test_committed_tournament_folders_are_found():
    # The superseded c4_repro study and the CPU studies (more join as studies commit seeds).
    assert {p.parent.name for p in SHIPPED} >= {"c4_repro", "c4_cpu", "c4_cpu_departures",
                                               "othello_cpu", "gobang_cpu", "c4_confirm"}


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


@pytest.mark.slow
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


@pytest.mark.slow
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
    padded = ("SAME", "SAME", "VALID", "VALID")
    net, other = ("network", 8, (16, 16), padded), ("network", 16, (16, 16), padded)
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


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_a_padded_network_enters_a_tournament_with_its_own_layout(tmp_path):
    # A model.same_padding run's network (36 squares into the dense layer, not 4) is rebuilt
    # for its matches with its own layout: its saved variables fit the compiled player.
    from warmjax.matches.batches import _player
    from warmjax.matches.entrants import load_runs
    from warmjax.matches.tournament_folder import Settings
    from warmjax.nets import make_network
    from warmjax.search import SearchConfig
    from warmjax.train import run_folder
    from warmjax.train.network_io import save_network
    from warmjax.train.run_config import GameConfig, ModelConfig, RunConfig

    env = make("connect_four")
    config = RunConfig(game=GameConfig(name="connect_four"),
                       model=ModelConfig(preset=None, channels=4, fc=(8, 8), same_padding=True),
                       search=SearchConfig(simulations=4, temperature_moves=15))
    net = make_network(env.num_actions, env.observation_shape, None, channels=4, fc=(8, 8),
                       same_padding=True)
    save_network(tmp_path, config, net, net.init(jax.random.PRNGKey(0)), iteration=1)
    run_folder.write_config(tmp_path, config)
    _, _, _, entrants = load_runs([tmp_path])
    kind = entrants[0].kind
    assert kind[1].module.paddings == ("SAME",) * 4
    settings = Settings(game={"name": "connect_four", "params": {}}, games=2, simulations=4,
                        c_puct=1.0, temperature_moves=0, playouts=4, seed=0)
    player = _player(kind, env, settings)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), 2))
    move = player(entrants[0].variables, jax.random.PRNGKey(2), states)
    assert move.action.shape == (2,)


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
@pytest.mark.parametrize("layout", [{"same_padding": True}, {"mixed_precision": True}])
def test_a_network_plays_its_matches_as_it_was_trained(tmp_path, layout):
    # The compiled player of a tournament rebuilds each network from its entrant's kind:
    # a padded or a bfloat16 network plays as the network its run trained, move values and
    # all (the same search on the same variables and key gives the same policy and value).
    from warmjax.matches.batches import _player
    from warmjax.matches.entrants import load_runs
    from warmjax.matches.tournament_folder import Settings
    from warmjax.nets import make_network
    from warmjax.search import SearchConfig
    from warmjax.search.players import make_player
    from warmjax.train import run_folder
    from warmjax.train.network_io import save_network
    from warmjax.train.run_config import GameConfig, ModelConfig, RunConfig

    env = make("connect_four")
    config = RunConfig(game=GameConfig(name="connect_four"),
                       model=ModelConfig(preset=None, channels=4, fc=(8, 8), **layout),
                       search=SearchConfig(simulations=8, temperature_moves=15))
    net = make_network(env.num_actions, env.observation_shape, None, channels=4, fc=(8, 8),
                       **layout)
    save_network(tmp_path, config, net, net.init(jax.random.PRNGKey(0)), iteration=1)
    run_folder.write_config(tmp_path, config)
    _, _, _, entrants = load_runs([tmp_path])
    settings = Settings(game={"name": "connect_four", "params": {}}, games=2, simulations=8,
                        c_puct=1.0, temperature_moves=0, playouts=4, seed=0)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), 2))
    variables, key = entrants[0].variables, jax.random.PRNGKey(2)
    rebuilt = _player(entrants[0].kind, env, settings)(variables, key, states)
    trained = make_player("mcts", env, net.apply, simulations=8, c_puct=1.0,
                          temperature_moves=0)(variables, key, states)
    np.testing.assert_array_equal(np.asarray(rebuilt.policy), np.asarray(trained.policy))
    np.testing.assert_array_equal(np.asarray(rebuilt.value), np.asarray(trained.value))
