"""The labelled positions, scoring against them, the logged oracle curve and the command."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest
from hydra import compose, initialize_config_dir

from warmjax import oracle as oracle_cmd
from warmjax.games import make
from warmjax.matches import oracle_run as oracle_body
from warmjax.perfect import positions
from warmjax.perfect.connect_four_solver import DRAW, LOSS, WIN, Solver
from warmjax.probe import score
from warmjax.run import CONF_DIR, to_run_config
from warmjax.search import make_player
from warmjax.train.iteration import Trainer
from warmjax.train.loop import train
from warmjax.train.network_io import load_network

from ..helpers import compose_config, metric_row, write_tiny_run


@pytest.fixture(scope="module")
def shipped():
    return positions.load()


def test_shipped_set_is_as_documented(shipped):
    assert len(shipped) >= 1000
    assert shipped.game == {"name": "connect_four", "rows": 6, "cols": 6, "win_length": 4}
    assert shipped.plies.min() >= 8 and shipped.plies.max() <= 24
    legal = shipped.values != positions.ILLEGAL
    for row, mask in zip(shipped.values, legal):
        assert len(set(row[mask].tolist())) >= 2  # the moves do not all have one value
    keys = {tuple(m[:n]) for m, n in zip(shipped.moves, shipped.plies)}
    assert len(keys) == len(shipped)
    assert "python -m warmjax.labels" in shipped.meta["command"]


def test_shipped_labels_agree_with_a_fresh_solve(shipped):
    solver = Solver(6, 6, 4)
    rng = np.random.default_rng(3)
    for i in rng.choice(len(shipped), 12, replace=False):
        moves = shipped.moves[i, :shipped.plies[i]]
        np.testing.assert_array_equal(solver.move_values(moves), shipped.values[i])


def test_replayed_states_match_the_labels(shipped):
    env = make("connect_four")
    small = shipped.subset(200)
    states = score.replay(env, small)
    np.testing.assert_array_equal(np.asarray(states.legal_action_mask),
                                  small.values != positions.ILLEGAL)
    assert not np.asarray(states.terminated).any()
    np.testing.assert_array_equal(np.asarray(states._step_count), small.plies)
    # The stones on the board are the moves played: count per column.
    boards = np.asarray(states._board).reshape(-1, 6, 6) != 0
    for b, m, n in zip(boards, small.moves, small.plies):
        np.testing.assert_array_equal(b.sum(axis=0), np.bincount(m[:n], minlength=6))
    with pytest.raises(ValueError, match=r"labelled set is connect_four \(6, 6\); the game is "
                                         r"connect_four \(5, 6\)"):
        score.replay(make("connect_four", rows=5, cols=6), small)


def test_generate_small_set_and_round_trip(tmp_path):
    made = positions.generate(12, seed=5, rows=4, cols=5, win_length=3, min_ply=2, max_ply=8)
    path = tmp_path / "set.json"
    positions.save(made, path)
    again = positions.load(path)
    np.testing.assert_array_equal(again.values, made.values)
    np.testing.assert_array_equal(again.moves, made.moves)
    assert again.game == {"name": "connect_four", "rows": 4, "cols": 5, "win_length": 3}
    assert again.plies.min() >= 2 and again.plies.max() <= 8
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not a labelled position file"):
        positions.load(path)


def test_judge_by_hand():
    values = np.array([[WIN, DRAW, LOSS, -2],  # a win: column 0 keeps it
                       [DRAW, DRAW, LOSS, LOSS],  # a draw: columns 0, 1
                       [WIN, WIN, LOSS, DRAW]], np.int8)
    labelled = positions.LabelledSet(moves=np.zeros((3, 1), np.int32),
                                     plies=np.ones(3, np.int32), values=values,
                                     game={"rows": 4, "cols": 4, "win_length": 3}, meta={})
    immediate = np.array([[True, False, False, False], [False] * 4,
                          [True, False, False, False]])
    r = score.judge(labelled, [1, 2, 0], immediate)
    assert r["optimal"] == pytest.approx(1 / 3)  # only position 2's move is optimal
    assert r["win_to_draw"] == pytest.approx(1 / 3)
    assert r["draw_to_loss"] == pytest.approx(1 / 3)
    assert r["win_to_loss"] == 0.0
    # Immediate wins exist in positions 0 and 2; only position 0's was missed.
    assert r["immediate_win_positions"] == 2 and r["immediate_win_taken"] == 0.5


def test_immediate_wins_are_wins(shipped):
    small = shipped.subset(150)
    immediate = positions.immediate_wins(small)
    assert immediate.any()
    assert np.all(small.values[immediate] == WIN)
    # Column 0 completes four after X stacks three there.
    made = positions._pack([[0, 1, 0, 1, 0, 1]], [[WIN, LOSS, LOSS, LOSS, LOSS, LOSS]],
                           shipped.game, {})
    np.testing.assert_array_equal(positions.immediate_wins(made)[0],
                                  [True, False, False, False, False, False])


def test_a_move_that_hands_over_a_win_loses(shipped):
    """Every legal move that leaves the opponent a win at once is labelled a loss by the
    full solve; and by hand: with X's three stacked in column 0, O's every move but the
    block there hands X the win."""
    small = shipped.subset(150)
    wins = positions.immediate_wins(small)
    found = 0
    for action in range(small.values.shape[1]):
        playable = (small.values[:, action] != positions.ILLEGAL) & ~wins[:, action]
        gifts = positions.gives_immediate_win(small.take(playable),
                                              np.full(playable.sum(), action))
        assert np.all(small.values[playable][gifts, action] == LOSS)
        found += int(gifts.sum())
    assert found > 50
    made = positions._pack([[0, 1, 0, 1, 0]], [[DRAW, LOSS, LOSS, LOSS, LOSS, LOSS]],
                           shipped.game, {})  # (the labels are not read here)
    given = [positions.gives_immediate_win(made, np.array([a]))[0] for a in range(6)]
    assert given == [False, True, True, True, True, True]


# --------------------------------------------------------------------------------------
# The logged curve and the command, on one smoke run.


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("oracle_run")
    overrides = ["+experiment=baseline_c4", "profile=smoke", "tensorboard=false",
                 "probe.positions=40", f"run_dir={run_dir}"]
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        config = to_run_config(compose(config_name="config", overrides=overrides))
    train(config, log=lambda _: None)
    return run_dir


@pytest.mark.slow
def test_logged_oracle_is_the_networks_score(smoke_run, shipped):
    rows = [json.loads(x) for x in (smoke_run / "metrics.jsonl").read_text().splitlines()]
    assert all("oracle_optimal" in r and "oracle_policy" in r for r in rows)
    # Recompute the last row from the saved network, through the command's path.
    env, network, variables = load_network(smoke_run)
    small = shipped.subset(40)
    states = score.replay(env, small)
    player = make_player("mcts", env, network.apply, simulations=4)
    actions = player(variables, jax.random.PRNGKey(0), states).action
    assert rows[-1]["oracle_optimal"] == pytest.approx(score.judge(small, actions)["optimal"])
    head = score.policy_head_actions(network.apply, variables, states)
    logits, _ = network.apply(variables, states.observation)
    masked = np.where(np.asarray(states.legal_action_mask), np.asarray(logits), -np.inf)
    np.testing.assert_array_equal(np.asarray(head), masked.argmax(axis=1))
    assert rows[-1]["oracle_policy"] == pytest.approx(score.judge(small, head)["optimal"])
    # And on the quiet positions alone.
    calm = positions.quiet(small)
    assert 0 < calm.sum() < 40
    assert rows[-1]["oracle_optimal_quiet"] == pytest.approx(
        score.judge(small, actions, None, calm)["quiet_optimal"])
    assert rows[-1]["oracle_policy_quiet"] == pytest.approx(
        score.judge(small.take(calm), np.asarray(head)[calm])["optimal"])


@pytest.mark.slow
def test_oracle_command(smoke_run, capsys):
    out = smoke_run / "o.json"
    oracle_cmd.main([str(smoke_run), "--positions", "60", "--simulations", "4",
                     "--playouts", "8", "--out", str(out)])
    printed = capsys.readouterr().out
    assert "| trained network + MCTS (m = 4) |" in printed and "immediate win taken" in printed
    result = json.loads(out.read_text())
    assert set(result["players"]) == set(oracle_body.PLAYERS)
    for r in result["players"].values():
        assert r["positions"] == 60
        total = r["optimal"] + r["win_to_draw"] + r["win_to_loss"] + r["draw_to_loss"]
        assert total == pytest.approx(1.0)  # no loss positions in the set: nothing else
    # Random play over 6 columns is far from perfect; even 8 playouts of search do better.
    players = result["players"]
    assert players["random"]["optimal"] < 0.6
    assert players["pure_mcts"]["optimal"] > players["random"]["optimal"]


@pytest.mark.slow
@pytest.mark.parametrize("args,message", [
    (["no/such/run"], "no run folder no/such/run"),
    (["{run}", "--players", "nobody"], "invalid choice"),
])
def test_oracle_command_errors(smoke_run, capsys, args, message):
    args = [a.format(run=smoke_run) for a in args]
    with pytest.raises(SystemExit) as exit_info:
        oracle_cmd.main(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_oracle_refuses_other_games(tmp_path):
    # Gobang 5×5 has no shipped labelled set (6×6 has).
    overrides = ["+experiment=baseline_gobang", "profile=smoke", "game.params.size=5",
                 f"run_dir={tmp_path}"]
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        config = to_run_config(compose(config_name="config", overrides=overrides))
    # Such a run has no oracle, so its metrics carry no oracle scores (train/loop.py).
    assert Trainer(config).probe is None
    run_dir = write_tiny_run(tmp_path / "gobang", game="gobang", params={"size": 5})
    with pytest.raises(ValueError, match="trained gobang 5x5, which has no labelled perfect-play"):
        oracle_body.oracle(run_dir)


def test_report_plots_oracle_curves_per_variant(tmp_path):
    from warmjax.analysis import report

    def fake_run(name, seed, mode, points):
        run = tmp_path / name
        run.mkdir()
        ws = {"mode": mode, "enhancement": "rollout", "iprime": 5}
        (run / "config.yaml").write_text(json.dumps({
            "game": {"name": "connect_four"}, "warmstart": ws, "seed": seed,
            "train": {"iterations": 2}, "experiment_name": f"{mode}_c4"}))
        rows = [metric_row(iteration=i, oracle_optimal=o, oracle_policy=p)
                for i, (o, p) in enumerate(points, start=1)]
        (run / "metrics.jsonl").write_text("".join(json.dumps(r.to_json()) + "\n"
                                                   for r in rows))

    fake_run("a0", 0, "adaptive", [(0.5, 0.4), (0.7, 0.5)])
    fake_run("a1", 1, "adaptive", [(0.6, 0.3), (0.9, 0.7)])
    fake_run("b0", 0, "none", [(0.55, 0.45)])
    written = report.write_runs([str(tmp_path / "*")], out=str(tmp_path / "out"),
                                  log=lambda _: None)
    assert "probe_connect_four.png" in written
    table = (tmp_path / "out" / "probe.md").read_text()
    # adaptive at iteration 2: search (0.7, 0.9) → 80.0 ± 14.1, policy (0.5, 0.7) → 60.0 ± 14.1
    # The variants are named by RunId.label, as everywhere.
    assert "| Connect Four | Rollout adaptive | 2 | 2 | 80.0 ± 14.1 | 60.0 ± 14.1 |" in table
    assert "| Connect Four | Baseline | 1 | 1 | 55.0 | 45.0 |" in table


@pytest.mark.slow
@pytest.mark.parametrize("game,short", [("othello", "othello"), ("gobang", "gobang")])
def test_oracle_in_every_game(tmp_path, game, short):
    # Training builds the per-iteration probe on the game's set, and the oracle command's
    # body scores a run folder of the game.
    config = compose_config([f"+experiment=baseline_{short}", "profile=smoke"], tmp_path / "r")
    trainer = Trainer(config)
    assert trainer.probe is not None
    assert int(trainer.probe_states.current_player.shape[0]) == 64  # smoke: probe.positions
    run = write_tiny_run(tmp_path / "tiny", game=game)
    # Three of the five players (each compiles its own program): the search, the policy
    # head and random play; tests/perfect/test_oracle.py's command tests cover the others.
    result = oracle_body.oracle(run, simulations=4, playouts=4, count=24,
                                players=("search", "policy_head", "random"), keep_actions=True)
    assert result["settings"]["positions"] == 24
    assert result["settings"]["labelled_set"].endswith(f"{game}_6x6.json")
    labelled = positions.load(positions.path_for(make(game))).subset(24)
    for name, rates in result["players"].items():
        assert 0.0 <= rates["optimal"] <= 1.0 and rates["illegal"] == 0.0, name
        # the moves kept are the ones scored: their optimal share, from the labels
        moves = result["actions"][name]
        assert moves.shape == (24,)
        assert rates["optimal"] == pytest.approx(
            np.mean(labelled.optimal[np.arange(24), moves]))
    # Uniform random play's optimal rate is near the share of optimal moves among the legal.
    legal = labelled.values != positions.ILLEGAL
    share = np.mean(labelled.optimal.sum(1) / legal.sum(1))
    assert abs(result["players"]["random"]["optimal"] - share) < 0.3
