"""Connect Four: scripted positions, pgx parity, a plain-Python reference and symmetry."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pgx
import pytest

from warmjax.games import EMPTY, FIRST, SECOND, make
from warmjax.games.connect_four import ConnectFour

from ..game_helpers import (
    FULL_NO_LINE,
    PGX_FIELDS,
    ReferenceLineGame,
    assert_ongoing,
    assert_win,
    check_equivariance,
    compare_with_pgx,
    item,
    play,
    random_play,
    replay_line_games,
)

ENV = make("connect_four")  # 6x6, four in a row
STEP = jax.jit(ENV.step)


# --------------------------------------------------------------------------------------
# Scripted positions.


def test_initial_position():
    state = ENV.init(jax.random.PRNGKey(0))
    assert ENV.board_array(state).tolist() == [[EMPTY] * 6] * 6
    assert ENV.colour_to_move(state) == FIRST
    np.testing.assert_array_equal(state.legal_action_mask, [True] * 6)
    assert ENV.num_actions == 6 and ENV.observation_shape == (6, 6, 2)


def test_stone_falls_to_bottom_then_stacks():
    state = ENV.init(jax.random.PRNGKey(0))
    state = STEP(state, jnp.int32(2))
    state = STEP(state, jnp.int32(2))
    board = ENV.board_array(state)
    assert board[5, 2] == FIRST and board[4, 2] == SECOND
    assert (board != EMPTY).sum() == 2
    assert ENV.colour_to_move(state) == FIRST


@pytest.mark.parametrize("column", [2, 0, 3])
def test_horizontal_win_including_middle_stone(column):
    # X to play: column 2 fills the gap of X X . X, column 0 and 3 do not complete a line.
    text = """
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . O
        X X . X O O
    """
    _, after = play(ENV, STEP, text, "X", column, current_player=1)
    if column == 2:
        assert_win(after, winner_id=1)
    else:
        assert_ongoing(after)


def test_vertical_win():
    text = """
        . . . . . .
        . . . . . .
        . . X . . .
        . . X O . .
        . . X O . .
        . . O O X .
    """
    # X drops onto its three stones: four in a column from row 1 down to row 4.
    _, after = play(ENV, STEP, text, "X", 2, current_player=0)
    assert_win(after, winner_id=0)
    assert ENV.board_array(after)[1, 2] == FIRST


def test_vertical_three_does_not_win():
    text = """
        . . . . . .
        . . . . . .
        . . . . . .
        . . X . . .
        . . X O . .
        . . O O X .
    """
    _, after = play(ENV, STEP, text, "X", 2)
    assert_ongoing(after)


def test_diagonal_down_right_win_with_middle_stone():
    # The "\" diagonal (2,1) (3,2) (4,3) (5,4): O drops into (3,2), an inner cell.
    text = """
        . . . . . .
        . . . . . .
        . O . . . .
        . X . . . .
        . X X O . .
        . O X X O .
    """
    before, after = play(ENV, STEP, text, "O", 2, current_player=1)
    assert ENV.board_array(after)[3, 2] == SECOND
    assert_win(after, winner_id=1)
    assert ENV.colour_to_move(before) == SECOND


def test_diagonal_up_right_win():
    # The "/" diagonal (5,1) (4,2) (3,3) (2,4): X completes it at the top end.
    text = """
        . . . . . .
        . . . . . .
        . . . . . .
        . . . X O .
        . . X O X .
        O X O O X .
    """
    _, after = play(ENV, STEP, text, "X", 4, current_player=0)
    assert ENV.board_array(after)[2, 4] == FIRST
    assert_win(after, winner_id=0)


def test_overline_wins():
    # X X . X X on the bottom row: the middle stone makes five, which still wins.
    text = """
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . O . O O .
        X X . X X O
    """
    _, after = play(ENV, STEP, text, "X", 2, current_player=1)
    assert_win(after, winner_id=1)


def test_full_column_is_illegal_and_ends_the_game():
    text = """
        . . . O . .
        . . . X . .
        . . . O . .
        . . . X . .
        . . . O . .
        . . X X O .
    """
    before, after = play(ENV, STEP, text, "X", 3, current_player=0)
    np.testing.assert_array_equal(before.legal_action_mask, [1, 1, 1, 0, 1, 1])
    # pgx's rule: an illegal move loses at once; the board is left as it was.
    assert_win(after, winner_id=1)
    np.testing.assert_array_equal(ENV.board_array(after), ENV.board_array(before))


def test_full_board_draw():
    board = FULL_NO_LINE.copy()
    assert board[0, 2] == SECOND
    board[0, 2] = EMPTY  # O's last move goes there
    before = ENV.from_board(board, SECOND, current_player=1)
    np.testing.assert_array_equal(before.legal_action_mask, [0, 0, 1, 0, 0, 0])
    after = STEP(before, jnp.int32(2))
    assert bool(after.terminated)
    np.testing.assert_array_equal(after.rewards, [0.0, 0.0])
    np.testing.assert_array_equal(ENV.board_array(after), FULL_NO_LINE)
    full = ENV.from_board(FULL_NO_LINE, FIRST)
    assert bool(full.terminated) and not full.rewards.any()


def test_from_board_with_a_line_is_over_and_its_owner_wins():
    text = """
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        O O O . . .
        X X X X . .
    """
    state = ENV.from_ascii(text, "O", current_player=0)  # O (id 0) to move, X (id 1) won
    assert_win(state, winner_id=1)
    assert "X wins" in ENV.render(state)


def test_from_board_rejects_bad_boards():
    floating = np.zeros((6, 6), np.int8)
    floating[3, 0] = FIRST
    with pytest.raises(ValueError, match="floating"):
        ENV.from_board(floating, SECOND)
    both = np.zeros((6, 6), np.int8)
    both[5, :4], both[4, :4] = FIRST, SECOND
    with pytest.raises(ValueError, match="both colours"):
        ENV.from_board(both, FIRST)
    with pytest.raises(ValueError, match="shape"):
        ENV.from_board(np.zeros((6, 7), np.int8), FIRST)
    with pytest.raises(ValueError, match="to_move"):
        ENV.from_board(np.zeros((6, 6), np.int8), 3)


@pytest.mark.parametrize(
    "params, problem",
    [
        ({"win_length": 7}, "win_length"),
        ({"win_length": 1}, "win_length"),
        ({"rows": 0}, "board"),
    ],
)
def test_constructor_errors(params, problem):
    with pytest.raises(ValueError, match=problem):
        ConnectFour(**params)


def test_make_rejects_unknown_settings():
    with pytest.raises(ValueError, match="settings"):
        make("connect_four", size=6)


def test_win_length_five_on_seven_by_seven():
    env = make("connect_four", rows=7, cols=7, win_length=5)
    step = jax.jit(env.step)
    empty_rows = ". . . . . . .\n" * 5
    four = empty_rows + "O O . . . . .\nX X X . . O .\n"
    _, after = play(env, step, four, "X", 3)
    assert_ongoing(after)  # four in a row is not enough
    five = empty_rows + "O O . . O . .\nX X X . X O .\n"
    _, after = play(env, step, five, "X", 3, current_player=1)
    assert_win(after, winner_id=1)
    assert env.num_actions == 7 and env.observation_shape == (7, 7, 2)


# --------------------------------------------------------------------------------------
# Random play: trajectories shared by the differential and symmetry tests.


@pytest.fixture(scope="module")
def trajectories():
    states, actions = random_play(ENV, num_games=300, num_plies=36)(jax.random.key(7))
    return jax.tree.map(np.asarray, states), np.asarray(actions)


def test_all_random_games_finish(trajectories):
    states, _ = trajectories
    assert states.terminated[-1].all()


# --------------------------------------------------------------------------------------
# Differential test against pgx's connect_four (6x7), move for move.


def test_matches_pgx_move_for_move():
    ours, theirs = make("connect_four", rows=6, cols=7), pgx.make("connect_four")
    flags = compare_with_pgx(ours, theirs, num_games=1000, num_plies=42, key=jax.random.key(2024))
    for field in PGX_FIELDS:
        count = int(flags[field].sum())
        assert count == 0, f"{field}: {count} (ply, game) mismatches with pgx"
    assert flags["pgx_terminated"][-1].all()
    # The comparison covers wins by either player id.
    wins = flags["pgx_rewards"][1:].max(axis=0)
    assert (wins[:, 0] > 0).sum() > 100 and (wins[:, 1] > 0).sum() > 100


# --------------------------------------------------------------------------------------
# Differential test against a plain-Python reference (nested loops, no tables).


class ReferenceConnectFour(ReferenceLineGame):
    """Obviously correct, slow Connect Four on lists of lists."""

    def legal(self, board):
        return [board[0][c] == EMPTY for c in range(self.cols)]

    def play(self, board, col, colour):
        for r in range(self.rows - 1, -1, -1):
            if board[r][col] == EMPTY:
                board[r][col] = colour
                return
        raise AssertionError("full column")


def test_matches_plain_python_reference(trajectories):
    states, actions = trajectories
    outcomes, plies = replay_line_games(ENV, ReferenceConnectFour(6, 6, 4), states, actions)
    assert "win" in outcomes and plies > 300 * 10


# --------------------------------------------------------------------------------------
# Symmetry: the mirror image of a position, played in the mirrored column, gives the
# mirror image of the successor.


def test_mirror_equivariance(trajectories):
    states, _ = trajectories
    cell_perm, _ = ENV.symmetry_tables()
    assert cell_perm.shape[0] == 2
    successors = jax.jit(jax.vmap(ENV.step, in_axes=(None, 0)))
    rng = np.random.default_rng(0)
    picked = [(t, g) for t, g in zip(rng.integers(0, 30, 60), rng.integers(0, 300, 60))]
    checked = 0  # (position, transform) pairs
    for t, g in picked:
        state = item(states, t, g)
        if state.terminated:
            continue
        checked += check_equivariance(ENV, successors, state)
    assert checked > 40
