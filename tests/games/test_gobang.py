"""Gobang: scripted positions, a plain-Python reference and the dihedral symmetries."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import EMPTY, FIRST, SECOND, make
from warmjax.games.gobang import Gobang

from ..game_helpers import (
    FULL_NO_LINE,
    ReferenceLineGame,
    assert_ongoing,
    assert_win,
    check_equivariance,
    item,
    play,
    random_play,
    replay_line_games,
)

ENV = make("gobang")  # 6x6, four in a row
STEP = jax.jit(ENV.step)


def cell(env, label):
    return env.parse_action(label)


# --------------------------------------------------------------------------------------
# Scripted positions. Labels are "<column letter><row number>", row 1 at the top.


def test_initial_position_and_placement():
    state = ENV.init(jax.random.PRNGKey(3))
    assert ENV.num_actions == 36 and ENV.observation_shape == (6, 6, 2)
    assert state.legal_action_mask.all()
    state = STEP(state, jnp.int32(cell(ENV, "b3")))
    board = ENV.board_array(state)
    assert board[2, 1] == FIRST and (board != EMPTY).sum() == 1
    assert not state.legal_action_mask[2 * 6 + 1] and state.legal_action_mask.sum() == 35
    assert ENV.colour_to_move(state) == SECOND


HORIZONTAL = """
   a b c d e f
 1 . . . . . .
 2 . O O O . .
 3 X X . X . .
 4 . . . . . .
 5 . . . . . .
 6 . . . . . .
"""


@pytest.mark.parametrize("label, wins", [("c3", True), ("e3", False), ("a1", False)])
def test_horizontal_win_by_the_middle_stone(label, wins):
    _, after = play(ENV, STEP, HORIZONTAL, "X", label, current_player=1)
    if wins:
        assert_win(after, winner_id=1)
        assert "X wins" in ENV.render(after)
    else:
        assert_ongoing(after)


def test_vertical_win():
    text = """
        . . . . . .
        . . . . X .
        . O . . X .
        . O . . . .
        . . . . X .
        O . X . . O
    """
    _, after = play(ENV, STEP, text, "O", "b5", current_player=0)
    assert_ongoing(after)  # O O O in b3..b5 is only three
    _, after = play(ENV, STEP, text, "X", "e4", current_player=0)
    assert_win(after, winner_id=0)


def test_diagonal_down_right_win():
    # "\" from a1 to d4; O fills b2, an inner cell.
    text = """
        O . . . . .
        . . X . . .
        . . O X . .
        . . . O . .
        . . . X . .
        . . . . . X
    """
    _, after = play(ENV, STEP, text, "O", "b2", current_player=1)
    assert_win(after, winner_id=1)


def test_diagonal_up_right_win():
    # "/" from b6 to e3; X completes it at the top end e3.
    text = """
        . . . . . .
        . . . . . .
        . . . . . .
        . . . X O .
        . . X O . .
        . X O O . .
    """
    _, after = play(ENV, STEP, text, "X", "e3", current_player=0)
    assert_win(after, winner_id=0)


def test_overline_wins():
    text = """
        . . . . . .
        X X . X X .
        . . . . . .
        O O . O . .
        . . . . O .
        . . . . . .
    """
    _, after = play(ENV, STEP, text, "X", "c2", current_player=0)  # five in a row
    assert_win(after, winner_id=0)


def test_occupied_cell_is_illegal_and_ends_the_game():
    before, after = play(ENV, STEP, HORIZONTAL, "X", "b2", current_player=0)
    assert not before.legal_action_mask[cell(ENV, "b2")]
    assert before.legal_action_mask.sum() == 36 - 6
    assert_win(after, winner_id=1)  # the mover (id 0) loses
    np.testing.assert_array_equal(ENV.board_array(after), ENV.board_array(before))


def test_full_board_draw():
    board = FULL_NO_LINE.copy()
    assert board[3, 0] == SECOND
    board[3, 0] = EMPTY
    before = ENV.from_board(board, SECOND, current_player=1)
    assert before.legal_action_mask.tolist() == [c == 3 * 6 for c in range(36)]
    after = STEP(before, jnp.int32(3 * 6))
    assert bool(after.terminated)
    np.testing.assert_array_equal(after.rewards, [0.0, 0.0])
    assert "draw" in ENV.render(after)
    full = ENV.from_board(FULL_NO_LINE, FIRST)
    assert bool(full.terminated) and not full.rewards.any()


def test_from_board_with_a_line_is_over_and_its_owner_wins():
    text = """
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . O O O . .
        X X X X . .
    """
    state = ENV.from_ascii(text, "O", current_player=1)  # O (id 1) to move, X (id 0) won
    assert_win(state, winner_id=0)
    assert "X wins" in ENV.render(state)


def test_from_board_rejects_bad_boards():
    both = np.zeros((6, 6), np.int8)
    both[0, :4], both[5, 2:] = FIRST, SECOND
    with pytest.raises(ValueError, match="both colours"):
        ENV.from_board(both, FIRST)
    with pytest.raises(ValueError, match="cells"):
        ENV.from_board(np.full((6, 6), 3, np.int8), FIRST)
    with pytest.raises(ValueError, match="current_player"):
        ENV.from_board(np.zeros((6, 6), np.int8), FIRST, current_player=2)


@pytest.mark.parametrize(
    "params, problem",
    [({"size": 3}, "win_length"), ({"win_length": 7}, "win_length"), ({"size": 0}, "board")],
)
def test_constructor_errors(params, problem):
    with pytest.raises(ValueError, match=problem):
        Gobang(**params)


def test_make_rejects_unknown_settings():
    with pytest.raises(ValueError, match="settings"):
        make("gobang", rows=6)


SEVEN_FOUR = """
    . . . . . . X
    . X . . . . X
    . . X . . . .
    . . . X . . .
    . . . . . . .
    . . . . . . .
    O O O . O O .
"""
SEVEN_FIVE = """
    . . . . . . X
    . X . . . . .
    . . X . . . .
    . . . X . . .
    . . . . . . .
    . . . . . X .
    O O O . O O .
"""
SEVEN_SIX = """
    . . . . . . X
    . X . . . . X
    . . X . . . X
    . . . X . . .
    . . . . . . .
    . . . . . . .
    O O O . O O .
"""


@pytest.mark.parametrize(
    "text, to_move, label, wins",
    [
        (SEVEN_FOUR, "X", "e5", False),  # b2 c3 d4 e5: four is not enough
        (SEVEN_FIVE, "X", "e5", True),  # b2 .. f6: five, completed by an inner stone
        (SEVEN_SIX, "O", "d7", True),  # a7 .. f7: six in a row, an overline, wins
        (SEVEN_SIX, "O", "g7", False),  # e7 f7 g7: three
    ],
)
def test_five_in_a_row_on_seven_by_seven(seven, text, to_move, label, wins):
    env, step = seven
    _, after = play(env, step, text, to_move, label, current_player=1)
    if wins:
        assert_win(after, winner_id=1)
    else:
        assert_ongoing(after)


@pytest.fixture(scope="module")
def seven():
    env = make("gobang", size=7, win_length=5)
    assert env.num_actions == 49 and env.observation_shape == (7, 7, 2)
    return env, jax.jit(env.step)


# --------------------------------------------------------------------------------------
# Random play, shared by the reference and symmetry tests.


@pytest.fixture(scope="module")
def trajectories():
    states, actions = random_play(ENV, num_games=300, num_plies=36)(jax.random.key(11))
    return jax.tree.map(np.asarray, states), np.asarray(actions)


def test_all_random_games_finish(trajectories):
    states, _ = trajectories
    assert states.terminated[-1].all()


# --------------------------------------------------------------------------------------
# Differential test against a plain-Python reference (nested loops, no tables).


class ReferenceGobang(ReferenceLineGame):
    """Obviously correct, slow Gobang on lists of lists."""

    def __init__(self, size, win_length):
        super().__init__(size, size, win_length)

    def legal(self, board):
        return [board[r][c] == EMPTY for r in range(self.rows) for c in range(self.cols)]

    def play(self, board, action, colour):
        r, c = divmod(action, self.cols)
        assert board[r][c] == EMPTY
        board[r][c] = colour


def test_matches_plain_python_reference(trajectories):
    states, actions = trajectories
    outcomes, plies = replay_line_games(ENV, ReferenceGobang(6, 4), states, actions)
    assert "win" in outcomes and plies > 300 * 10


# --------------------------------------------------------------------------------------
# Symmetry: a transformed position, played in the transformed cell, gives the transformed
# successor, for each of the 8 dihedral transforms.


def test_dihedral_equivariance(trajectories):
    states, _ = trajectories
    cell_perm, _ = ENV.symmetry_tables()
    assert cell_perm.shape[0] == 8
    successors = jax.jit(jax.vmap(ENV.step, in_axes=(None, 0)))
    rng = np.random.default_rng(1)
    checked = 0  # positions
    for t, g in zip(rng.integers(0, 25, 25), rng.integers(0, 300, 25)):
        state = item(states, t, g)
        if state.terminated:
            continue
        assert check_equivariance(ENV, successors, state) == 8
        checked += 1
    assert checked > 15
