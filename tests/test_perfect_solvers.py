"""The exact Othello and Gobang solvers (warmjax.perfect) against plain minimax, the game
environments' own rules, and published results for m,n,k games."""

from __future__ import annotations

import functools
import random

import jax
import numpy as np
import pytest

from warmjax.games import make
from warmjax.perfect import gobang_solver, othello_solver

# --- plain minimax references, written from the rules (method.md §1), no pruning ---------

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def othello_reference(n):
    """`value(board, me)` of n×n Othello by exhaustive minimax; `board` a tuple of rows of
    0 (empty), 1, 2."""

    def moves(board, me):
        out = []
        for r in range(n):
            for c in range(n):
                if board[r][c]:
                    continue
                for dr, dc in DIRECTIONS:
                    rr, cc, seen = r + dr, c + dc, 0
                    while 0 <= rr < n and 0 <= cc < n and board[rr][cc] == 3 - me:
                        rr, cc, seen = rr + dr, cc + dc, seen + 1
                    if seen and 0 <= rr < n and 0 <= cc < n and board[rr][cc] == me:
                        out.append((r, c))
                        break
        return out

    def play(board, me, r, c):
        b = [list(row) for row in board]
        b[r][c] = me
        for dr, dc in DIRECTIONS:
            rr, cc, run = r + dr, c + dc, []
            while 0 <= rr < n and 0 <= cc < n and b[rr][cc] == 3 - me:
                run.append((rr, cc))
                rr, cc = rr + dr, cc + dc
            if run and 0 <= rr < n and 0 <= cc < n and b[rr][cc] == me:
                for x, y in run:
                    b[x][y] = me
        return tuple(tuple(row) for row in b)

    @functools.lru_cache(maxsize=None)
    def value(board, me):
        options = moves(board, me)
        if not options:
            if not moves(board, 3 - me):  # neither can move: count the discs
                diff = sum(v == me for row in board for v in row) - \
                    sum(v == 3 - me for row in board for v in row)
                return (diff > 0) - (diff < 0)
            return -value(board, 3 - me)  # a pass
        return max(-value(play(board, me, r, c), 3 - me) for r, c in options)

    return moves, play, value


def random_play(solver, rng, position, done):
    """Uniformly random legal actions from `position` until `done(own, other, plies)` or the
    game ends; returns `(own, other)`."""
    (own, other), plies = position, 0
    while not done(own, other, plies):
        legal = solver.legal_moves(own, other)
        if not legal:
            break
        own, other = solver.play(own, other, rng.choice(legal))
        plies += 1
    return own, other


def to_board(n, own, other):
    return tuple(tuple(1 if own >> (r * n + c) & 1 else 2 if other >> (r * n + c) & 1 else 0
                       for c in range(n)) for r in range(n))


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


def test_othello_6x6_endgames_match_minimax():
    moves, play, value = othello_reference(6)
    solver, rng, checked = othello_solver.Solver(6), random.Random(3), 0
    while checked < 15:
        # 7 empty cells at most
        own, other = random_play(solver, rng, solver.start(),
                                 lambda o, p, plies: bin(o | p).count("1") >= 29)
        if solver.game_over(own, other):
            continue
        assert solver.value(own, other) == value(to_board(6, own, other), 1)
        checked += 1


def gobang_reference(n, k):
    """`value(board)` of n×n k-in-a-row by exhaustive minimax; the mover's stones are 1."""
    lines = []
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= x < n and 0 <= y < n for x, y in cells):
                    lines.append([x * n + y for x, y in cells])

    @functools.lru_cache(maxsize=None)
    def value(board):
        empty = [i for i, v in enumerate(board) if v == 0]
        best = 0 if not empty else -1
        for i in empty:
            b = list(board)
            b[i] = 1
            if any(all(b[j] == 1 for j in line) for line in lines):
                return 1
            best = max(best, -value(tuple({0: 0, 1: 2, 2: 1}[v] for v in b)))
        return best

    return value


@pytest.mark.parametrize("n,k,plies", [(3, 3, 0), (4, 3, 3), (4, 3, 5), (4, 4, 6), (5, 4, 14)])
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


# --- the labelled sets of Othello and Gobang (warmjax.perfect.positions) ------------------


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


@pytest.mark.parametrize("name,depth", [("othello", (12, 20)), ("gobang", (8, 20))])
def test_shipped_sets_replay_in_the_env(name, depth):
    from warmjax.perfect import positions, score

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


@pytest.mark.parametrize("game,short", [("othello", "othello"), ("gobang", "gobang")])
def test_oracle_in_every_game(tmp_path, game, short):
    # Training builds the per-iteration probe on the game's set, and the oracle command's
    # body scores a run folder of the game.
    from warmjax.matches import perfect_play
    from warmjax.perfect import positions
    from warmjax.train.iteration import Trainer

    from .helpers import compose_config, write_tiny_run

    config = compose_config([f"+experiment=baseline_{short}", "profile=smoke"], tmp_path / "r")
    trainer = Trainer(config)
    assert trainer.oracle is not None
    assert int(trainer.oracle_states.current_player.shape[0]) == 64  # smoke: oracle.positions
    run = write_tiny_run(tmp_path / "tiny", game=game)
    result = perfect_play.oracle(run, simulations=4, playouts=4, count=24)
    assert result["settings"]["positions"] == 24
    assert result["settings"]["labelled_set"].endswith(f"{game}_6x6.json")
    labelled = positions.load(positions.path_for(make(game))).subset(24)
    for name, rates in result["players"].items():
        assert 0.0 <= rates["optimal"] <= 1.0 and rates["illegal"] == 0.0, name
    # Uniform random play's optimal rate is near the share of optimal moves among the legal.
    legal = labelled.values != positions.ILLEGAL
    share = np.mean(labelled.optimal.sum(1) / legal.sum(1))
    assert abs(result["players"]["random"]["optimal"] - share) < 0.3
