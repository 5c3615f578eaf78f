"""Helpers shared by the game tests: random play, pgx and reference comparisons, symmetries.

Imported as `from .game_helpers import ...` (the tests are a package).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.games import EMPTY, FIRST, SECOND, conformance

# The fields compared with pgx's games; `compare_with_pgx` returns a mismatch flag for each.
PGX_FIELDS = ("legal_action_mask", "terminated", "rewards", "observation", "current_player")

FULL_NO_LINE = np.array(
    [[FIRST if (c // 2 + r) % 2 == 0 else SECOND for c in range(6)] for r in range(6)],
    dtype=np.int8,
)  # rows alternate X X O O X X / O O X X O O: never three in a row in any direction


# --------------------------------------------------------------------------------------
# States and scripted moves.


def item(states, *index):
    """One state (or a sub-batch) of a batched state: `x[index]` on every field."""
    return jax.tree.map(lambda x: x[index], states)


def play(env, step, text, to_move, action, current_player=0):
    """Scripted position, one move (an action or a label like "c4"); returns (before, after)."""
    before = env.from_ascii(text, to_move, current_player)
    if isinstance(action, str):
        action = env.parse_action(action)
    return before, step(before, jnp.int32(action))


def assert_win(after, winner_id):
    assert bool(after.terminated)
    expected = np.full(2, -1.0, np.float32)
    expected[winner_id] = 1.0
    np.testing.assert_array_equal(after.rewards, expected)
    assert after.legal_action_mask.all()


def assert_ongoing(after):
    assert not bool(after.terminated)
    np.testing.assert_array_equal(after.rewards, [0.0, 0.0])


# --------------------------------------------------------------------------------------
# Random play.


def random_play(env, num_games: int, num_plies: int):
    """Jitted: `key -> (states [T+1, B], actions [T, B])`, uniformly random legal moves
    (`warmjax.games.conformance.random_play`; finished games keep stepping)."""
    return conformance.random_play(env, num_games, num_plies)


def compare_with_pgx(ours, theirs, num_games: int, num_plies: int, key):
    """Plays the same random moves in our game and pgx's, from the same init keys.

    Moves are drawn from pgx's legal mask, so a mask mismatch shows up as a mismatch flag
    rather than as an illegal move in our game.

    Returns:
      A dict of NumPy arrays `[T+1, B]`, row 0 the initial states: a mismatch flag per
      field of `PGX_FIELDS`, and pgx's `pgx_terminated`, `pgx_rewards` (`[T+1, B, 2]`)
      and the `action` played into each row (-1 in row 0).
    """

    def compare(a, b, action):
        return {
            "legal_action_mask": (a.legal_action_mask != b.legal_action_mask).any(-1),
            "terminated": a.terminated != b.terminated,
            "rewards": (a.rewards != b.rewards).any(-1),
            "observation": (a.observation != b.observation).any((-1, -2, -3)),
            "current_player": a.current_player != b.current_player,
            "pgx_terminated": b.terminated,
            "pgx_rewards": b.rewards,
            "action": action,
        }

    def run(key):
        init_key, play_key = jax.random.split(key)
        keys = jax.random.split(init_key, num_games)
        a, b = jax.vmap(ours.init)(keys), jax.vmap(theirs.init)(keys)

        def body(carry, key):
            a, b = carry
            logits = jnp.where(b.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)
            a, b = jax.vmap(ours.step)(a, action), jax.vmap(theirs.step)(b, action)
            return (a, b), compare(a, b, action)

        first = compare(a, b, jnp.full(num_games, -1, jnp.int32))
        _, rest = jax.lax.scan(body, (a, b), jax.random.split(play_key, num_plies))
        return jax.tree.map(lambda x0, xs: jnp.concatenate([x0[None], xs]), first, rest)

    return jax.tree.map(np.asarray, jax.jit(run)(key))


# --------------------------------------------------------------------------------------
# A plain-Python reference for the line games (nested loops, no tables).


class ReferenceLineGame:
    """Obviously correct, slow k-in-a-row on lists of lists.

    Subclasses give `legal(board) -> [A] bool` and `play(board, action, colour)`, which
    puts the stone in place (and fails on an illegal action).
    """

    def __init__(self, rows, cols, win_length):
        self.rows, self.cols, self.k = rows, cols, win_length

    def empty(self):
        return [[EMPTY] * self.cols for _ in range(self.rows)]

    def has_line(self, board, colour):
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    n, rr, cc = 0, r, c
                    while 0 <= rr < self.rows and 0 <= cc < self.cols and board[rr][cc] == colour:
                        n, rr, cc = n + 1, rr + dr, cc + dc
                    if n >= self.k:
                        return True
        return False

    def full(self, board):
        return all(cell != EMPTY for row in board for cell in row)


def replay_line_games(env, ref, states, actions):
    """Replays recorded games in `ref`, asserting each state and result on the way.

    Args:
      env: the line game that recorded the games.
      ref: a `ReferenceLineGame` of the same settings.
      states, actions: NumPy `[T+1, B]` states and `[T, B]` actions from `random_play`.

    Returns:
      `(outcomes, plies)`: the set of "win"/"draw" seen and the number of plies checked.
    """
    outcomes, plies = set(), 0
    for g in range(actions.shape[1]):
        board, colour = ref.empty(), FIRST
        player = int(states.current_player[0, g])
        for t in range(actions.shape[0]):
            before, after = item(states, t, g), item(states, t + 1, g)
            assert env.board_array(before).tolist() == board
            assert env.colour_to_move(before) == colour and int(before.current_player) == player
            assert before.legal_action_mask.tolist() == ref.legal(board), (g, t)
            ref.play(board, int(actions[t, g]), colour)
            won, full = ref.has_line(board, colour), ref.full(board)
            rewards = [0.0, 0.0]
            if won:
                rewards[player], rewards[1 - player] = 1.0, -1.0
            assert env.board_array(after).tolist() == board, (g, t)
            assert bool(after.terminated) == (won or full), (g, t)
            assert after.rewards.tolist() == rewards, (g, t)
            plies += 1
            if won or full:
                outcomes.add("win" if won else "draw")
                break
            colour, player = SECOND if colour == FIRST else FIRST, 1 - player
    return outcomes, plies


# --------------------------------------------------------------------------------------
# Symmetries.


def transform_board(board, cell_perm):
    """The image of a `[rows, cols]` board under one transform: cell `i` moves to `perm[i]`."""
    flat = board.reshape(-1)
    out = np.empty_like(flat)
    out[cell_perm] = flat
    return out.reshape(board.shape)


def check_equivariance(env, successors, state) -> int:
    """Asserts that every symmetric image of `state` steps to the images of its successors.

    For each transform: the image's legal mask is the permuted mask, each legal move's
    image gives the transformed board, and terminated and rewards agree for every action
    (illegal ones included).

    Args:
      env: the game.
      successors: jitted `(state, actions [A]) -> states [A]`, e.g.
        `jax.jit(jax.vmap(env.step, in_axes=(None, 0)))`.
      state: an unbatched, live NumPy state.

    Returns:
      The number of transforms checked.
    """
    cell_perm, action_perm = env.symmetry_tables()
    actions = jnp.arange(env.num_actions, dtype=jnp.int32)
    board, colour = env.board_array(state), env.colour_to_move(state)
    nexts = jax.tree.map(np.asarray, successors(state, actions))
    next_boards = [env.board_array(item(nexts, a)) for a in range(env.num_actions)]
    for s in range(cell_perm.shape[0]):
        image = env.from_board(
            transform_board(board, cell_perm[s]), colour, int(state.current_player)
        )
        np.testing.assert_array_equal(
            image.legal_action_mask[action_perm[s]], state.legal_action_mask
        )
        image_nexts = jax.tree.map(np.asarray, successors(image, actions[action_perm[s]]))
        for a in np.flatnonzero(state.legal_action_mask):
            np.testing.assert_array_equal(
                env.board_array(item(image_nexts, a)), transform_board(next_boards[a], cell_perm[s])
            )
        np.testing.assert_array_equal(image_nexts.terminated, nexts.terminated)
        np.testing.assert_array_equal(image_nexts.rewards, nexts.rewards)
    return cell_perm.shape[0]


# Positions from random play with several outcomes left, and the side to move.
NEAR_END = {
    "connect_four": ("""
        X . . . . X
        X . O . . O
        O X X X O X
        O O O X O X
        X O X O X O
        X O O X X O
        """, "O"),
    "gobang": ("""
        O . O X O .
        O X X O O X
        X . X X X O
        X X X O X .
        . O O X O O
        O O X . X .
        """, "O"),
    "othello": ("""
        X O O O O .
        X O O X X X
        X O X O O X
        . O O X O O
        O O X X X O
        . . X . . X
        """, "X"),
}
