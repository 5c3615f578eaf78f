"""The labelled sets of Othello and Gobang (warmjax.perfect.positions): generation, the
round trip through a file, and the shipped sets replayed in the environments."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from warmjax.games import make


@pytest.mark.parametrize("name,params,low,high", [
    ("othello", {"size": 4}, 3, 8), ("gobang", {"size": 4, "win_length": 3}, 2, 6)])
def test_generate_small_sets_and_round_trip(tmp_path, name, params, low, high):
    from warmjax.perfect import positions

    made = positions.generate_placement_game(name, 10, 5, params, low, high)
    path = tmp_path / "set.json"
    positions.save(made, path)
    again = positions.load(path)
    np.testing.assert_array_equal(again.values, made.values)
    np.testing.assert_array_equal(again.moves, made.moves)
    assert again.game == {"name": name, **params}
    # The quiet flags travel with the set: those of a fresh computation.
    np.testing.assert_array_equal(again.calm, positions.quiet(made))
    assert made.calm is None and again.subset(4).calm.shape == (4,)
    # Every kept position's moves differ in value, and each label is a fresh solve's.
    solver = positions._solver(again.game)
    for m, n, values in zip(again.moves, again.plies, again.values):
        own, other = solver.position(m[:n])
        np.testing.assert_array_equal(solver.move_values(own, other), values)
        legal = values[values != positions.ILLEGAL]
        assert len(set(legal.tolist())) >= 2
        if name == "othello":
            assert low <= 16 - bin(own | other).count("1") <= high
        else:
            assert low <= n <= high


@pytest.mark.slow
@pytest.mark.parametrize("name,depth", [("othello", (12, 20)), ("gobang", (8, 20))])
def test_shipped_sets_replay_in_the_env(name, depth):
    from warmjax.perfect import positions
    from warmjax.probe import score

    env = make(name)
    path = positions.path_for(env)
    assert path is not None and path.name == f"{name}_6x6.json"
    shipped = positions.load(path)
    assert len(shipped) >= 1000 and shipped.game_name == name
    assert f"python -m warmjax.labels --game {name}" in shipped.meta["command"]
    small = shipped.subset(150)
    states = score.replay(env, small)
    # The env's legal actions are the labelled ones, and no game has ended.
    np.testing.assert_array_equal(np.asarray(states.legal_action_mask),
                                  small.values != positions.ILLEGAL)
    assert not np.asarray(states.terminated).any()
    stones = np.asarray(states.observation).sum(axis=(1, 2, 3))
    if name == "othello":
        assert depth[0] <= (36 - stones).min() and (36 - stones).max() <= depth[1]
    else:
        assert depth[0] <= small.plies.min() and small.plies.max() <= depth[1]
    # A fresh solve agrees with a sample of the labels.
    solver = positions._solver(shipped.game)
    for i in np.random.default_rng(0).choice(len(shipped), 8, replace=False):
        own, other = solver.position(shipped.moves[i, :shipped.plies[i]])
        np.testing.assert_array_equal(solver.move_values(own, other), shipped.values[i])


@pytest.mark.slow
def test_every_shipped_set_stores_the_quiet_flags_a_fresh_solve_gives():
    import dataclasses

    from warmjax.perfect import positions

    files = sorted(positions.DATA_DIR.glob("*.json"))
    assert len(files) == 8
    for path in files:
        stored = positions.load(path)
        fresh = positions.quiet(dataclasses.replace(stored, calm=None))
        np.testing.assert_array_equal(stored.calm, fresh, err_msg=path.name)


def test_a_trainer_starts_without_running_a_solver(tmp_path, monkeypatch):
    # The probe's quiet flags come with the labelled set: no solver runs at start-up.
    from warmjax.perfect import positions
    from warmjax.train.iteration import Trainer

    from ..helpers import compose_config

    def no_solver(*args, **kwargs):
        raise AssertionError("a solver ran")

    monkeypatch.setattr(positions, "_wins_in_one", no_solver)
    monkeypatch.setattr(positions, "_solver", no_solver)
    for game in ("connect_four", "othello", "gobang"):
        config = compose_config([f"+experiment=adaptive_{'c4' if game == 'connect_four' else game}",
                                 "profile=smoke"], tmp_path / game)
        assert Trainer(config).probe is not None


@pytest.mark.slow
@pytest.mark.parametrize("name", ["connect_four", "gobang", "othello"])
def test_quiet_positions_agree_with_the_env(name):
    # Threats and wins in one, computed by the game environment instead of the solvers: the
    # mover's winning moves in the position, the opponent's in the same board with the
    # opponent to move (`env.from_board`).
    from warmjax.games.playout import winning_moves
    from warmjax.perfect import positions
    from warmjax.probe import score

    env = make(name)
    labelled = positions.load(positions.path_for(env)).subset(150)
    states = score.replay(env, labelled)
    wins = np.asarray(jax.jit(lambda s: winning_moves(env, s))(states)).any(axis=1)
    flipped = []
    for i in range(len(labelled)):
        one = jax.tree.map(lambda x: x[i], states)
        board = env.board_array(one)
        flipped.append(env.from_board(board, 3 - env.colour_to_move(one)))
    flipped = jax.tree.map(lambda *xs: jax.numpy.stack(xs), *flipped)
    threats = np.asarray(jax.jit(lambda s: winning_moves(env, s))(flipped)).any(axis=1)
    np.testing.assert_array_equal(positions.immediate_wins(labelled).any(axis=1), wins)
    np.testing.assert_array_equal(positions.threats(labelled), threats)
    calm = positions.quiet(labelled)
    np.testing.assert_array_equal(calm, ~wins & ~threats)
    if name == "othello":  # 12-20 empty cells: no move ends the game
        assert calm.all()
    else:  # both kinds of position occur
        assert 0.2 < calm.mean() < 0.9 and threats.any()


def test_judge_on_the_quiet_positions_by_hand():
    from warmjax.perfect import positions
    from warmjax.probe import score

    labelled = positions.load(positions.path_for(make("connect_four"))).subset(6)
    best = labelled.best
    optimal = labelled.optimal
    # Positions 0-2 quiet; the player picks an optimal move in 0, 1, 3, 4 and not in 2, 5.
    actions = np.array([np.flatnonzero(optimal[i])[0] if i in (0, 1, 3, 4)
                        else np.flatnonzero(~optimal[i] & (labelled.values[i] > -2))[0]
                        for i in range(6)])
    mask = np.array([True, True, True, False, False, False])
    out = score.judge(labelled, actions, None, mask)
    assert out["optimal"] == pytest.approx(4 / 6) and out["quiet_positions"] == 3
    assert out["quiet_optimal"] == pytest.approx(2 / 3)
    chosen = labelled.values[2, actions[2]]
    assert out["quiet_win_to_loss"] == pytest.approx((best[2] == 1 and chosen == -1) / 3)


@pytest.mark.slow
@pytest.mark.parametrize("name,params,file,depth", [
    # python -m warmjax.labels --cols 7 --count 1000 --seed 0 --min-ply 12 --max-ply 30
    ("connect_four", {"cols": 7}, "connect_four_6x7.json", ("plies", 12, 30)),
    # python -m warmjax.labels --game othello --size 8 --count 1000 --seed 0
    #     --min-empties 10 --max-empties 16
    ("othello", {"size": 8}, "othello_8x8.json", ("empties", 10, 16))])
def test_standard_board_sets_replay_and_agree_with_a_fresh_solve(name, params, file, depth):
    # The larger boards' sets: found for the game by its size, replayed in the env.
    from warmjax.perfect import positions
    from warmjax.probe import score

    env = make(name, **params)
    path = positions.path_for(env)
    assert path is not None and path.name == file
    shipped = positions.load(path)
    assert len(shipped) >= 1000 and shipped.game_params.items() >= params.items()
    small = shipped.subset(100)
    states = score.replay(env, small)
    np.testing.assert_array_equal(np.asarray(states.legal_action_mask),
                                  small.values != positions.ILLEGAL)
    assert not np.asarray(states.terminated).any()
    kind, low, high = depth
    if kind == "plies":
        measured = shipped.plies
    else:  # the stones on the board: the observation's two planes
        rows, cols = env.board_shape
        measured = rows * cols - np.asarray(states.observation).sum(axis=(1, 2, 3))
    assert low <= measured.min() and measured.max() <= high
    solver = positions._solver(shipped.game)
    for i in np.random.default_rng(0).choice(len(shipped), 3, replace=False):
        moves = shipped.moves[i, :shipped.plies[i]]
        if name == "connect_four":
            found = solver.move_values(moves)
        else:
            found = solver.move_values(*solver.position(moves))
        np.testing.assert_array_equal(found, shipped.values[i])
