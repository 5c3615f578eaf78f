"""The exact Othello solver (warmjax.perfect.othello_solver) against plain minimax and the
game environment's own rules."""

from __future__ import annotations

import random

import jax
import numpy as np
import pytest

from warmjax.games import make
from warmjax.perfect import othello_solver

from .references import othello_reference, random_play, to_board


def test_othello_4x4_from_the_start_is_a_second_player_win():
    # The known result, and the reference's: every first move loses.
    moves, play, value = othello_reference(4)
    solver = othello_solver.Solver(4)
    own, other = solver.start()
    board = to_board(4, own, other)
    assert value(board, 1) == -1 == solver.value(own, other)
    expected = np.full(17, -2)
    for r, c in moves(board, 1):
        expected[r * 4 + c] = -value(play(board, 1, r, c), 2)
    np.testing.assert_array_equal(solver.move_values(own, other), expected)


def test_othello_random_positions_match_minimax():
    moves, play, value = othello_reference(4)
    solver, rng, checked = othello_solver.Solver(4), random.Random(1), 0
    for _ in range(60):
        count = rng.randint(0, 9)
        own, other = random_play(solver, rng, solver.start(), lambda o, p, plies: plies >= count)
        if solver.game_over(own, other):
            continue
        assert solver.value(own, other) == value(to_board(4, own, other), 1)
        checked += 1
    assert checked > 40


def test_othello_moves_and_flips_follow_the_env():
    # 6×6 random games: the solver's legal actions (pass included) and positions agree with
    # warmjax.games.othello at every ply.
    env = make("othello")
    solver = othello_solver.Solver(6)
    step = jax.jit(env.step)
    rng = random.Random(2)
    for game in range(3):
        state = env.init(jax.random.PRNGKey(game))
        own, other = solver.start()
        while not bool(state.terminated):
            legal = list(np.flatnonzero(np.asarray(state.legal_action_mask)))
            assert solver.legal_moves(own, other) == legal
            board = env.board_array(state)
            mover = env.colour_to_move(state)
            mine = sum(1 << i for i, v in enumerate(board.ravel()) if v == mover)
            theirs = sum(1 << i for i, v in enumerate(board.ravel()) if v == 3 - mover)
            assert (own, other) == (mine, theirs)
            action = rng.choice(legal)
            state = step(state, action)
            own, other = solver.play(own, other, action)
        assert solver.game_over(own, other)


@pytest.mark.parametrize("size,empties,count,seed", [(6, 7, 15, 3), (8, 6, 6, 5)])
def test_othello_endgames_match_minimax(size, empties, count, seed):
    # Random endgames with few enough empty cells for plain minimax: 6×6, and the standard
    # 8×8 board (whose labelled set has 10-16 empty cells).
    moves, play, value = othello_reference(size)
    solver, rng, checked = othello_solver.Solver(size), random.Random(seed), 0
    filled = size * size - empties
    while checked < count:
        own, other = random_play(solver, rng, solver.start(),
                                 lambda o, p, plies: bin(o | p).count("1") >= filled)
        if solver.game_over(own, other):
            continue
        assert solver.value(own, other) == value(to_board(size, own, other), 1)
        checked += 1
