"""The Connect Four solver against plain minimax on boards small enough to enumerate."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from warmjax.perfect.connect_four_solver import DRAW, LOSS, WIN, Solver


class Minimax:
    """Obviously correct reference: minimax over explicit boards, memoised on the board."""

    def __init__(self, rows, cols, win_length):
        self.rows, self.cols, self.k = rows, cols, win_length

    def line_through(self, board, row, col):
        """True if the stone at (row, col) lies in `win_length` in a row of its colour."""
        player = board[row][col]
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            count = 1
            for sign in (1, -1):
                r, c = row + sign * dr, col + sign * dc
                while 0 <= r < self.rows and 0 <= c < self.cols and board[r][c] == player:
                    count += 1
                    r, c = r + sign * dr, c + sign * dc
            if count >= self.k:
                return True
        return False

    def play(self, board, col, player):
        """`(new board, True if the move completes a line)`, or None for a full column."""
        for r in range(self.rows - 1, -1, -1):  # row 0 is the top
            if board[r][col] == 0:
                rows = [list(row) for row in board]
                rows[r][col] = player
                board = tuple(tuple(row) for row in rows)
                return board, self.line_through(board, r, col)
        return None

    def after(self, moves):
        board = tuple((0,) * self.cols for _ in range(self.rows))
        for i, col in enumerate(moves):
            board, _ = self.play(board, col, 1 + i % 2)
        return board, 1 + len(moves) % 2

    @functools.lru_cache(maxsize=None)
    def value(self, board, player):
        """Value for `player`, to move on `board` (no line on it yet)."""
        children = [self.play(board, c, player) for c in range(self.cols)]
        children = [child for child in children if child is not None]
        if not children:
            return 0
        best = -1
        for child, won in children:
            best = max(best, 1 if won else -self.value(child, 3 - player))
            if best == 1:
                break
        return best

    def move_values(self, moves):
        board, player = self.after(moves)
        out = []
        for c in range(self.cols):
            child = self.play(board, c, player)
            if child is None:
                out.append(-2)
            elif child[1]:
                out.append(WIN)
            else:
                out.append(-self.value(child[0], 3 - player))
        return out


def random_positions(reference, rng, count, max_plies):
    """Move sequences of random play that have not ended, at random lengths."""
    found = []
    while len(found) < count:
        moves = []
        target = int(rng.integers(0, max_plies + 1))
        board, player = reference.after(moves)
        while len(moves) < target:
            legal = [c for c in range(reference.cols) if board[0][c] == 0]
            col = int(rng.choice(legal))
            board, won = reference.play(board, col, player)
            if won or all(board[0][c] for c in range(reference.cols)):
                break
            moves.append(col)
            player = 3 - player
        else:
            found.append(moves)
    return found


@pytest.mark.parametrize("rows,cols,k", [(4, 4, 4), (4, 4, 3), (5, 3, 3), (3, 5, 3)])
def test_move_values_match_minimax(rows, cols, k):
    reference = Minimax(rows, cols, k)
    solver = Solver(rows, cols, k)
    rng = np.random.default_rng(rows * 100 + cols * 10 + k)
    positions = [[]] + random_positions(reference, rng, 60, rows * cols - 2)
    for moves in positions:
        expected = reference.move_values(moves)
        np.testing.assert_array_equal(solver.move_values(moves), expected, err_msg=str(moves))


def test_values_cover_all_outcomes():
    # The checks above must not pass by every value being the same.
    reference = Minimax(4, 4, 4)
    rng = np.random.default_rng(1)
    seen = set()
    for moves in random_positions(reference, rng, 80, 14):
        seen.update(v for v in reference.move_values(moves) if v != -2)
    assert seen == {WIN, DRAW, LOSS}


def test_late_six_by_six_positions_match_minimax():
    # 6×6 is too big to enumerate from the start, but not from 13 or fewer empty cells.
    reference = Minimax(6, 6, 4)
    solver = Solver(6, 6, 4)
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 6:
        moves = random_positions(reference, rng, 1, 30)[0]
        if len(moves) < 23:
            continue
        np.testing.assert_array_equal(solver.move_values(moves), reference.move_values(moves))
        checked += 1


def test_value_of_a_won_position_and_bad_sequences():
    solver = Solver(6, 6, 4)
    # X stacks column 0 three times while O plays column 1: X wins at once in column 0.
    values = solver.move_values([0, 1, 0, 1, 0, 1])
    assert values[0] == WIN
    assert solver.value([0, 1, 0, 1, 0, 1, 0]) == LOSS  # O to move, X has four
    with pytest.raises(ValueError, match="full"):
        solver.position([0] * 7)
    with pytest.raises(ValueError, match="off the board"):
        solver.position([6])
    with pytest.raises(ValueError, match="ends the game"):
        solver.position([0, 1, 0, 1, 0, 1, 0, 2])
    with pytest.raises(ValueError, match="game is over"):
        solver.move_values([0, 1, 0, 1, 0, 1, 0])
