"""The exact Hex solver (warmjax.perfect.hex_solver) against plain minimax, pgx's Hex, and
the strategy-stealing theorem; Hex's labelled sets."""

from __future__ import annotations

import random

import jax
import numpy as np
import pytest

from warmjax.games import make
from warmjax.perfect import hex_solver, positions

from .references import hex_reference, random_play


def board_of(solver, own, other):
    """The reference's board: 1 for the first mover's stones, 2 for the second's; and the
    player to move."""
    first, second = (own, other) if own & hex_solver.FIRST else (other, own)
    board = tuple(1 if first >> i & 1 else 2 if second >> i & 1 else 0
                  for i in range(solver.cells))
    return board, 1 if own & hex_solver.FIRST else 2


@pytest.mark.parametrize("n,plies", [(3, 0), (3, 2), (3, 4), (4, 6), (4, 8)])
def test_hex_matches_minimax(n, plies):
    joined, value = hex_reference(n)
    solver, rng, checked = hex_solver.Solver(n), random.Random(n * 10 + plies), 0
    for _ in range(12 if plies else 1):
        own, other = random_play(solver, rng, solver.start(), lambda o, p, done: done >= plies)
        if solver.ended(own, other):
            continue
        board, me = board_of(solver, own, other)
        expected = np.full(n * n + 1, -2)  # the swap is never legal in the solver's positions
        for a in range(n * n):
            if board[a] == 0:
                after = board[:a] + (me,) + board[a + 1:]
                expected[a] = 1 if joined(after, me) else -value(after, 3 - me)
        np.testing.assert_array_equal(solver.move_values(own, other), expected)
        assert solver.value(own, other) == expected.max()
        checked += 1
    assert checked >= (1 if plies == 0 else 8)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_first_mover_wins_hex(n):
    # Nash's strategy-stealing argument: without the swap, the first mover wins on every
    # n×n board.
    solver = hex_solver.Solver(n)
    assert solver.value(*solver.start()) == hex_solver.WIN


def test_hex_moves_follow_pgx():
    env = make("hex", size=5)
    solver = hex_solver.Solver(5)
    step = jax.jit(env.step)
    rng = random.Random(3)
    for game in range(4):
        state = env.init(jax.random.PRNGKey(game))
        own, other = solver.start()
        ply = 0
        while not bool(state.terminated):
            mask = np.asarray(state.legal_action_mask)
            assert solver.legal_moves(own, other) == list(np.flatnonzero(mask[:-1]))
            assert mask[-1] == (ply == 1)  # pgx offers the swap at ply 1 only
            action = rng.choice(solver.legal_moves(own, other))
            state = step(state, action)
            own, other = solver.play(own, other, action)
            ply += 1
        # The game ends where the solver says, won by the player who just moved.
        assert solver.ended(own, other) and solver.has_line(other)
        assert not solver.has_line(own)
    with pytest.raises(ValueError, match="2 to 7 cells"):
        hex_solver.Solver(11)


def test_small_hex_set_round_trip(tmp_path):
    made = positions.generate_placement_game("hex", 10, 5, {"size": 4}, 4, 8)
    path = tmp_path / "hex.json"
    positions.save(made, path)
    again = positions.load(path)
    np.testing.assert_array_equal(again.values, made.values)
    assert again.game == {"name": "hex", "size": 4}
    joined, value = hex_reference(4)
    solver = positions._solver(again.game)
    for m, n, values in zip(again.moves, again.plies, again.values):
        own, other = solver.position(m[:n])
        assert 4 <= 16 - n <= 8 and values[-1] == positions.ILLEGAL
        board, me = board_of(solver, own, other)
        for a in np.flatnonzero(values != positions.ILLEGAL):
            after = board[:a] + (me,) + board[a + 1:]
            assert values[a] == (1 if joined(after, me) else -value(after, 3 - me))
        assert set(values[values != positions.ILLEGAL].tolist()) == {-1, 1}


@pytest.mark.parametrize("size", [5, 7])
def test_shipped_hex_sets(size):
    # python -m warmjax.labels --game hex --size N --count 1000 --seed 0 (10-16 empties)
    env = make("hex", size=size)
    path = positions.path_for(env)
    assert path is not None and path.name == f"hex_{size}x{size}.json"
    shipped = positions.load(path)
    assert len(shipped) >= 1000 and shipped.game == {"name": "hex", "size": size}
    from warmjax.probe import score

    small = shipped.subset(100)
    states = score.replay(env, small)
    np.testing.assert_array_equal(np.asarray(states.legal_action_mask),
                                  small.values != positions.ILLEGAL)
    assert not np.asarray(states.terminated).any()
    empties = size * size - np.asarray(states.observation)[..., :2].sum(axis=(1, 2, 3))
    assert 10 <= empties.min() and empties.max() <= 16
    # The mover wins in every kept position (Hex has no draws, and a lost position's moves
    # all lose); the quiet ones, by the reference's rules, are those with no join in one
    # for either side.
    assert (shipped.best == 1).all()
    joined, _ = hex_reference(size)
    solver = positions._solver(shipped.game)
    calm = positions.quiet(small)
    for i in range(len(small)):
        own, other = solver.position(small.moves[i, :small.plies[i]])
        board, me = board_of(solver, own, other)
        empty = [a for a in range(size * size) if board[a] == 0]
        wins = any(joined(board[:a] + (me,) + board[a + 1:], me) for a in empty)
        threat = any(joined(board[:a] + (3 - me,) + board[a + 1:], 3 - me) for a in empty)
        assert calm[i] == (not wins and not threat)
    assert 0.1 < calm.mean() < 0.95
    for i in np.random.default_rng(0).choice(len(shipped), 8, replace=False):
        own, other = solver.position(shipped.moves[i, :shipped.plies[i]])
        np.testing.assert_array_equal(solver.move_values(own, other), shipped.values[i])


def test_training_probes_hex_on_its_board(tmp_path):
    # A Hex run builds its per-iteration probe on its board's set, and the probe's
    # positions are those of the set, replayed.
    from warmjax.train.iteration import Trainer

    from ..helpers import compose_config

    config = compose_config(["+experiment=baseline", "game=hex", "game.params.size=7",
                             "profile=smoke"], tmp_path / "r")
    trainer = Trainer(config)
    assert trainer.probe is not None
    states = trainer.probe_states
    labelled = positions.load(positions.path_for(make("hex", size=7))).subset(64)
    assert int(states.current_player.shape[0]) == 64  # smoke: probe.positions
    np.testing.assert_array_equal(np.asarray(states.legal_action_mask),
                                  labelled.values != positions.ILLEGAL)
