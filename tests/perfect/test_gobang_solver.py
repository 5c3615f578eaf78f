"""The exact Gobang solver (warmjax.perfect.gobang_solver) against plain minimax, the game
environment's own rules and published results for m,n,k games."""

from __future__ import annotations

import random

import jax
import numpy as np
import pytest

from warmjax.games import make
from warmjax.perfect import gobang_solver

from .references import gobang_reference, random_play


@pytest.mark.slow
@pytest.mark.parametrize("n,k,plies", [  # two of the 4×4 boards (10 s each) are heavy
    (3, 3, 0), pytest.param(4, 3, 4, marks=pytest.mark.heavy), (4, 3, 5),
    pytest.param(4, 4, 6, marks=pytest.mark.heavy), (5, 4, 14)])
def test_gobang_matches_minimax(n, k, plies):
    value = gobang_reference(n, k)
    solver, rng, checked = gobang_solver.Solver(n, k), random.Random(n * 10 + k), 0
    for _ in range(20 if plies else 1):
        own, other = random_play(solver, rng, (0, 0), lambda o, p, done: done >= plies)
        if solver.ended(own, other):
            continue
        board = tuple(1 if own >> i & 1 else 2 if other >> i & 1 else 0 for i in range(n * n))
        expected = np.full(n * n, -2)
        for a in range(n * n):
            if board[a] == 0:
                after = list(board)
                after[a] = 1
                expected[a] = 1 if solver.has_line(own | 1 << a) else \
                    -value(tuple({0: 0, 1: 2, 2: 1}[v] for v in after))
        np.testing.assert_array_equal(solver.move_values(own, other), expected)
        checked += 1
    assert checked >= (1 if plies == 0 else 10)


@pytest.mark.slow
def test_gobang_published_results():
    # Four in a row: a draw on 5×5 and a first-player win on 6×6 (m,n,k-games, solved).
    assert gobang_solver.Solver(5, 4).value(0, 0) == 0
    assert gobang_solver.Solver(6, 4).value(0, 0) == 1
    # Three in a row: a draw on 3×3 (tic-tac-toe), a first-player win on 4×4.
    assert gobang_solver.Solver(3, 3).value(0, 0) == 0
    assert gobang_solver.Solver(4, 3).value(0, 0) == 1


def test_gobang_moves_follow_the_env():
    env = make("gobang")
    solver = gobang_solver.Solver(6, 4)
    step = jax.jit(env.step)
    rng = random.Random(4)
    for game in range(3):
        state = env.init(jax.random.PRNGKey(game))
        own, other = 0, 0
        while not bool(state.terminated):
            legal = list(np.flatnonzero(np.asarray(state.legal_action_mask)))
            assert solver.legal_moves(own, other) == legal
            action = rng.choice(legal)
            state = step(state, action)
            own, other = solver.play(own, other, action)
        assert solver.ended(own, other)
        # A line ends it for the env exactly where it does for the solver.
        assert bool(np.any(np.asarray(state.rewards) != 0)) == solver.has_line(other)
