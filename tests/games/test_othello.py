"""Othello: scripted positions, pgx move for move, a plain-Python reference, symmetries.

Boards in the scripted tests are 6x6 ASCII (row 1 at the top, columns a-f); moves are
labelled "<column letter><row number>" as `GameEnv.action_label` prints them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pgx
import pytest

from warmjax.games import EMPTY, FIRST, SECOND, make
from warmjax.games.othello import Othello

from ..game_helpers import PGX_FIELDS, compare_with_pgx, item, random_play, transform_board

ENV = make("othello")  # 6x6
STEP = jax.jit(ENV.step)
PASS = 36


def cell(label: str) -> int:
    return ENV.parse_action(label)


def legal_labels(state) -> set[str]:
    return {ENV.action_label(a) for a in np.flatnonzero(np.asarray(state.legal_action_mask))}


def step(state, action):
    return STEP(state, jnp.int32(action))


def other(colour: int) -> int:
    return FIRST + SECOND - colour


# --------------------------------------------------------------------------------------
# Construction.


def test_make_and_sizes():
    assert isinstance(ENV, Othello) and ENV.size == 6
    env8 = make("othello", size=8)
    assert isinstance(env8, Othello) and env8.size == 8
    assert env8.num_actions == 65 and env8.observation_shape == (8, 8, 2)
    assert ENV.num_actions == 37 and ENV.board_shape == (6, 6)
    assert ENV.id == "warmjax/othello" and ENV.name == "othello" and ENV.symmetry == "dihedral"
    assert ENV.init(jax.random.key(0)).env_id == "warmjax/othello"


@pytest.mark.parametrize(
    "size, problem",
    [
        (5, "even"),
        (2, "between 4"),
        (0, "between 4"),
        (18, "between 4"),
        (32, "between 4"),
        (6.0, "int"),
        (True, "int"),
        ("6", "int"),
    ],
)
def test_bad_sizes(size, problem):
    with pytest.raises(ValueError, match=problem):
        Othello(size)
    with pytest.raises(ValueError):
        make("othello", size=size)


# --------------------------------------------------------------------------------------
# Scripted positions.

START = """\
   a b c d e f
 1 . . . . . .
 2 . . . . . .
 3 . . O X . .
 4 . . X O . .
 5 . . . . . .
 6 . . . . . .
X to move"""


def test_start_position_render_and_legal_moves():
    for key in range(2):
        state = ENV.init(jax.random.key(key))
        assert ENV.render(state) == START
        assert legal_labels(state) == {"c2", "b3", "e4", "d5"}
        assert not bool(state.legal_action_mask[PASS])
        obs = np.asarray(state.observation)
        assert obs[2, 3, 0] and obs[3, 2, 0] and obs[2, 2, 1] and obs[3, 3, 1]
        assert obs.sum() == 4
    # The first move: X on c2 flips c3.
    state = step(ENV.init(jax.random.key(0)), cell("c2"))
    board = ENV.board_array(state)
    assert board[1, 2] == FIRST and board[2, 2] == FIRST and (board == SECOND).sum() == 1
    assert ENV.colour_to_move(state) == SECOND and not bool(state.terminated)


def test_render_round_trip():
    state = ENV.init(jax.random.key(3))
    again = ENV.from_ascii(ENV.render(state), "X", int(state.current_player))
    np.testing.assert_array_equal(ENV.board_array(again), ENV.board_array(state))
    np.testing.assert_array_equal(again.legal_action_mask, state.legal_action_mask)
    np.testing.assert_array_equal(again.observation, state.observation)
    assert int(again.current_player) == int(state.current_player)
    # Also after a few moves, with O to move.
    for label in ("c2", "b2", "b3"):
        state = step(state, cell(label))
    to_move = "X" if ENV.colour_to_move(state) == FIRST else "O"
    again = ENV.from_ascii(ENV.render(state), to_move, int(state.current_player))
    np.testing.assert_array_equal(ENV.board_array(again), ENV.board_array(state))
    np.testing.assert_array_equal(again.legal_action_mask, state.legal_action_mask)
    np.testing.assert_array_equal(again.observation, state.observation)


MULTI_LINE = """
X . X . . .
. O O . . .
X O . O O .
. O O X . .
O . O . . .
. . O . . .
"""
# X on c3 brackets west (b3), north (c2) and north-west (b2). East runs into an empty
# cell, south and south-west run to the edge, south-east is X's own disc: no flips there.
MULTI_LINE_AFTER = """
X . X . . .
. X X . . .
X X X O O .
. O O X . .
O . O . . .
. . O . . .
"""


def test_one_move_flips_along_three_lines():
    before = ENV.from_ascii(MULTI_LINE, "X")
    assert "c3" in legal_labels(before)
    after = step(before, cell("c3"))
    expected = ENV.from_ascii(MULTI_LINE_AFTER, "O", 1)
    np.testing.assert_array_equal(ENV.board_array(after), ENV.board_array(expected))
    np.testing.assert_array_equal(after.observation, expected.observation)
    np.testing.assert_array_equal(after.legal_action_mask, expected.legal_action_mask)
    assert not bool(after.terminated) and not np.asarray(after.rewards).any()
    assert int(after.current_player) == 1 and ENV.colour_to_move(after) == SECOND


EDGE_LINES = """
. O O O O X
. . . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
"""


def test_longest_line_flips_and_edge_run_does_not():
    before = ENV.from_ascii(EDGE_LINES, "X")
    assert legal_labels(before) == {"a1"}
    after = step(before, cell("a1"))
    assert (ENV.board_array(after)[0] == FIRST).all()
    # O now has no discs: the game ends, X (id 0) wins.
    assert bool(after.terminated)
    np.testing.assert_array_equal(after.rewards, [1.0, -1.0])
    # The same line seen by O: O cannot play a1 (its own discs, then X at the edge).
    assert legal_labels(ENV.from_ascii(EDGE_LINES, "O")) == {"pass"}


FORCED_PASS = """
X O O O O O
O . . . . .
O . . . . .
O O O X . .
O . . . . .
O . . . . .
"""


def test_forced_pass():
    before = ENV.from_ascii(FORCED_PASS, "X", 1)
    assert legal_labels(before) == {"pass"}
    after = step(before, PASS)
    assert not bool(after.terminated) and not np.asarray(after.rewards).any()
    assert ENV.colour_to_move(after) == SECOND and int(after.current_player) == 0
    np.testing.assert_array_equal(ENV.board_array(after), ENV.board_array(before))
    assert legal_labels(after) == {"e4"}
    # A pass while a placement is legal is an illegal action: the mover (O, id 0) loses.
    illegal = step(after, PASS)
    assert bool(illegal.terminated)
    np.testing.assert_array_equal(illegal.rewards, [-1.0, 1.0])


NOBODY_MOVES = """
X O O O O O
O . . . . .
O . . . . .
O . . . . .
O . . . . .
O . . . . .
"""


def test_both_pass_then_game_over():
    """Neither side can move: two forced passes (pgx's rule), then O wins 10-1."""
    state = ENV.from_ascii(NOBODY_MOVES, "X", 0)
    assert not bool(state.terminated)
    assert legal_labels(state) == {"pass"}
    state = step(state, PASS)
    assert not bool(state.terminated) and legal_labels(state) == {"pass"}
    np.testing.assert_array_equal(state.rewards, [0.0, 0.0])
    state = step(state, PASS)
    assert bool(state.terminated) and np.asarray(state.legal_action_mask).all()
    np.testing.assert_array_equal(state.rewards, [-1.0, 1.0])  # X is id 0, O id 1
    assert ENV.render(state).endswith("game over: O wins")
    # Absorbing from now on, with zero rewards.
    after = step(state, 0)
    assert bool(after.terminated) and not np.asarray(after.rewards).any()
    # The rendered finished game reads back as finished; without the "game over" line the
    # board is the position before the two passes.
    again = ENV.from_ascii(ENV.render(state), "X", 0)
    assert bool(again.terminated) and np.asarray(again.legal_action_mask).all()
    np.testing.assert_array_equal(again.rewards, state.rewards)
    with pytest.raises(ValueError, match="can still move"):
        ENV.from_ascii(START.replace("X to move", "game over: draw"))


FULL_BOARD_DRAW = """
. O X X X X
X X X X X X
X X X X X X
O O O O O O
O O O O O O
O O O O O O
"""


def test_draw_by_equal_count():
    """X's last move on a1 flips b1 only and fills the board at 18-18: rewards (0, 0)."""
    before = ENV.from_ascii(FULL_BOARD_DRAW, "X", 1)
    assert legal_labels(before) == {"a1"}
    after = step(before, cell("a1"))
    board = ENV.board_array(after)
    assert (board == FIRST).sum() == 18 and (board == SECOND).sum() == 18
    assert bool(after.terminated)
    np.testing.assert_array_equal(after.rewards, [0.0, 0.0])
    assert ENV.render(after).endswith("game over: draw")


def test_win_by_count_on_full_board():
    text = FULL_BOARD_DRAW.replace(
        "O O O O O O\nO O O O O O\nO O O O O O", "X O O O O O\nO O O O O O\nO O O O O O"
    )
    before = ENV.from_ascii(text, "X", 1)
    after = step(before, cell("a1"))
    board = ENV.board_array(after)
    assert (board == FIRST).sum() == 19 and (board == SECOND).sum() == 17
    assert bool(after.terminated)
    np.testing.assert_array_equal(after.rewards, [-1.0, 1.0])  # X is id 1
    assert ENV.render(after).endswith("game over: X wins")


def test_from_board_of_finished_positions():
    full = ENV.from_ascii(FULL_BOARD_DRAW.replace(".", "X"), "O", 0)
    assert bool(full.terminated) and np.asarray(full.legal_action_mask).all()
    np.testing.assert_array_equal(full.rewards, [1.0, -1.0])  # O (id 0) has 19, X 17
    wiped = ENV.from_ascii(EDGE_LINES.replace("O", "X"), "O", 1)
    assert bool(wiped.terminated)
    np.testing.assert_array_equal(wiped.rewards, [1.0, -1.0])  # O (id 1) has no discs
    with pytest.raises(ValueError):
        ENV.from_board(np.zeros((5, 5), np.int8), FIRST)
    with pytest.raises(ValueError):
        ENV.from_board(np.full((6, 6), 3, np.int8), FIRST)


# --------------------------------------------------------------------------------------
# Random games, recorded with jit and vmap.


def random_games(env, num_games: int, num_plies: int, key):
    """`(states [T+1, B], actions [T, B])` as NumPy: uniformly random legal moves."""
    return jax.tree.map(np.asarray, random_play(env, num_games, num_plies)(key))


# --------------------------------------------------------------------------------------
# pgx, move for move, at 8x8.

PGX_GAMES = 1024
PGX_PLIES = 2 * 64 + 4


@pytest.fixture(scope="module")
def versus_pgx():
    """Mismatch flags `[T+1, B]` per field of ours against pgx's Othello, same moves."""
    ours, theirs = make("othello", size=8), pgx.make("othello")
    return compare_with_pgx(ours, theirs, PGX_GAMES, PGX_PLIES, jax.random.key(2024))


@pytest.mark.slow
@pytest.mark.parametrize("field", PGX_FIELDS)
def test_matches_pgx_at_every_ply(versus_pgx, field):
    bad = versus_pgx[field]
    if bad.any():
        ply, game = np.argwhere(bad)[0]
        pytest.fail(f"{field}: {bad.sum()} mismatches, first at ply {ply} of game {game}")


@pytest.mark.slow
def test_pgx_games_cover_the_rules(versus_pgx):
    """The random games end, and include passes, two-pass endings, draws and wins."""
    ended = versus_pgx["pgx_terminated"]
    assert ended[-1].all()
    actions = versus_pgx["action"][1:]
    live = ~ended[:-1]
    assert (actions[live] == 64).sum() > 100
    ends_now = ended[1:] & live
    two_pass_ends = (ends_now & (actions == 64)).sum()
    results = versus_pgx["pgx_rewards"][1:][ends_now]
    draws = (results == 0).all(-1).sum()
    assert two_pass_ends > 0 and draws > 0 and (results != 0).any(-1).sum() > 900


# --------------------------------------------------------------------------------------
# A plain-Python reference.

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


class ReferenceOthello:
    """Othello with lists and loops: absolute colours, one direction walked at a time."""

    def __init__(self, size: int):
        self.n = size
        h = size // 2
        self.board = [[EMPTY] * size for _ in range(size)]
        self.board[h - 1][h] = self.board[h][h - 1] = FIRST
        self.board[h - 1][h - 1] = self.board[h][h] = SECOND
        self.to_move = FIRST
        self.passes = 0
        self.over = False
        self.winner = None  # FIRST, SECOND or EMPTY (draw) once over

    def on_board(self, r, c):
        return 0 <= r < self.n and 0 <= c < self.n

    def flips(self, r, c, colour):
        if self.board[r][c] != EMPTY:
            return []
        flipped = []
        for dr, dc in DIRECTIONS:
            line = []
            rr, cc = r + dr, c + dc
            while self.on_board(rr, cc) and self.board[rr][cc] == other(colour):
                line.append((rr, cc))
                rr, cc = rr + dr, cc + dc
            if line and self.on_board(rr, cc) and self.board[rr][cc] == colour:
                flipped += line
        return flipped

    def legal_moves(self):
        n = self.n
        return [r * n + c for r in range(n) for c in range(n) if self.flips(r, c, self.to_move)]

    def count(self, colour):
        return sum(row.count(colour) for row in self.board)

    def play(self, action):
        n, colour = self.n, self.to_move
        moves = self.legal_moves()
        if action == n * n:
            assert not moves, "pass while a placement is legal"
            self.passes += 1
        else:
            assert action in moves, f"illegal move {action}"
            r, c = divmod(action, n)
            for rr, cc in self.flips(r, c, colour) + [(r, c)]:
                self.board[rr][cc] = colour
            self.passes = 0
        self.to_move = other(colour)
        full = all(v != EMPTY for row in self.board for v in row)
        if full or self.count(self.to_move) == 0 or self.passes == 2:
            self.over = True
            mine, theirs = self.count(colour), self.count(other(colour))
            self.winner = colour if mine > theirs else other(colour) if theirs > mine else EMPTY


def check_against_reference(env, states, actions):
    """Replays every game in the reference; returns the number of games checked."""
    n = env.size
    num_plies, num_games = actions.shape
    for g in range(num_games):
        ref = ReferenceOthello(n)
        first_id = int(states.current_player[0, g])
        for t in range(num_plies + 1):
            state = item(states, t, g)
            where = f"game {g}, ply {t}"
            np.testing.assert_array_equal(env.board_array(state), np.array(ref.board), where)
            assert env.colour_to_move(state) == ref.to_move, where
            assert bool(state.terminated) == ref.over, where
            rewards = np.zeros(2, np.float32)
            if ref.over and ref.winner != EMPTY:
                winner_id = first_id if ref.winner == FIRST else 1 - first_id
                rewards[winner_id], rewards[1 - winner_id] = 1.0, -1.0
            np.testing.assert_array_equal(state.rewards, rewards, where)
            if ref.over:
                assert state.legal_action_mask.all(), where
                break
            expected = np.zeros(n * n + 1, bool)
            expected[ref.legal_moves() or [n * n]] = True
            np.testing.assert_array_equal(state.legal_action_mask, expected, where)
            assert t < num_plies, f"game {g} did not end"
            ref.play(int(actions[t, g]))
    return num_games


@pytest.fixture(scope="module")
def games6():
    return random_games(ENV, 400, 2 * 36 + 4, jax.random.key(7))


@pytest.mark.slow
def test_matches_reference_6x6(games6):
    states, actions = games6
    assert check_against_reference(ENV, states, actions) == 400
    assert (actions[~states.terminated[:-1]] == PASS).any()


def test_matches_reference_4x4():
    env = make("othello", size=4)
    states, actions = random_games(env, 60, 2 * 16 + 4, jax.random.key(4))
    check_against_reference(env, states, actions)


def test_legal_masks_match_reference_10x10():
    """Random boards at 10x10, where rows are uint16 bitmasks: the legal masks."""
    env = make("othello", size=10)
    rng = np.random.default_rng(10)
    for i in range(60):
        board = rng.choice([EMPTY, FIRST, SECOND], size=(10, 10), p=[0.4, 0.3, 0.3])
        to_move = FIRST if i % 2 else SECOND
        state = env.from_board(board.astype(np.int8), to_move)
        ref = ReferenceOthello(10)
        ref.board, ref.to_move = board.tolist(), to_move
        expected = np.zeros(101, bool)
        expected[ref.legal_moves() or [100]] = True
        np.testing.assert_array_equal(state.legal_action_mask, expected, f"board {i}")


# --------------------------------------------------------------------------------------
# Symmetries.


def test_symmetry_equivariance(games6):
    """Transform a position, play the transformed move: the transformed successor."""
    states, actions = games6
    cell_perm, action_perm = ENV.symmetry_tables()
    assert cell_perm.shape == (8, 36) and (action_perm[:, PASS] == PASS).all()
    rng = np.random.default_rng(0)
    live = np.argwhere(~states.terminated[:-1])
    picks = live[rng.choice(len(live), size=40, replace=False)]
    # Include positions whose only move is a pass.
    passes = np.argwhere(~states.terminated[:-1] & (actions == PASS))[:4]
    picks = np.concatenate([picks, passes])
    assert len(passes) > 0

    def transform(board, s):
        return transform_board(board, cell_perm[s])

    befores, moves = [], []
    for t, g in picks:
        state = item(states, t, g)
        board, colour = ENV.board_array(state), ENV.colour_to_move(state)
        action = int(rng.choice(np.flatnonzero(state.legal_action_mask)))
        for s in range(8):
            befores.append(ENV.from_board(transform(board, s), colour, int(state.current_player)))
            moves.append(action_perm[s, action])
    # STEP is compiled once for the module; a batch here would compile another program.
    results = [jax.tree.map(np.asarray, step(s, a)) for s, a in zip(befores, moves)]
    results = jax.tree.map(lambda *xs: np.stack(xs), *results)
    for i in range(len(picks)):
        # Transform 0 is the identity: the successor of the untransformed position.
        after = item(results, 8 * i)
        for s in range(1, 8):
            got, where = item(results, 8 * i + s), f"position {i}, transform {s}"
            np.testing.assert_array_equal(
                ENV.board_array(got), transform(ENV.board_array(after), s), where
            )
            mask = np.empty(37, bool)
            mask[action_perm[s]] = after.legal_action_mask
            np.testing.assert_array_equal(got.legal_action_mask, mask, where)
            assert bool(got.terminated) == bool(after.terminated), where
            np.testing.assert_array_equal(got.rewards, after.rewards, where)
    # The successors are not all alike: the test can tell transforms apart.
    boards = {ENV.board_array(item(results, 8 * i + 1)).tobytes() for i in range(len(picks))}
    assert len(boards) > len(picks) // 2
