"""An exact Connect Four solver: win / draw / loss under perfect play (method.md §9).

Bitboard negamax with alpha-beta over the values {−1, 0, +1}, a transposition table of
bounds, centre-first move ordering, and two forcing rules that are exact:

- if the player to move can complete a line now, the position is a win;
- if the opponent threatens to complete a line in two columns at once, it is a loss; in
  exactly one column, that column is the only move worth searching (any other loses).

Layout of a bitboard (one `uint64`, as in the usual Connect Four solvers): column c owns bits
`c·(rows+1) … c·(rows+1)+rows−1`, bottom row first, plus one always-empty guard bit on top, so
shifting by 1, rows, rows+1 and rows+2 walks vertical, the two diagonals and horizontal
lines without wrapping. `(rows+1)·cols` must fit in 63 bits. A position is `(own, mask)`: the
stones of the player to move and all stones; `own + mask` identifies it uniquely.

The numba kernels are compiled on first use (cached on disk). `Solver` holds the table, which
stays valid across calls for one board size, so solving many positions of one game reuses it.
"""

from __future__ import annotations

import numba
import numpy as np

WIN, DRAW, LOSS = 1, 0, -1
_TABLE_SIZE = 4194301  # a prime: key % size spreads positions over the table


@numba.njit(cache=True)
def _has_line(stones, rows, win_length):
    """True if `stones` (a bitboard) holds `win_length` in a row in some direction."""
    for shift in (1, rows, rows + 1, rows + 2):
        run = stones
        for i in range(1, win_length):
            run &= stones >> np.uint64(shift * i)
        if run != 0:
            return True
    return False


@numba.njit(cache=True)
def _bottom(col, rows):
    return np.uint64(1) << np.uint64(col * (rows + 1))


@numba.njit(cache=True)
def _column(col, rows):
    return ((np.uint64(1) << np.uint64(rows)) - np.uint64(1)) << np.uint64(col * (rows + 1))


@numba.njit(cache=True)
def _top(col, rows):
    return np.uint64(1) << np.uint64(rows - 1 + col * (rows + 1))


@numba.njit(cache=True)
def _drop(mask, col, rows):
    """The bit where a stone played in `col` lands (0 if the column is full)."""
    if mask & _top(col, rows):
        return np.uint64(0)
    return (mask + _bottom(col, rows)) & _column(col, rows)


@numba.njit(cache=True)
def _negamax(own, mask, moves, alpha, beta, rows, cols, win_length, order, keys, lows, highs):
    """Value of the position for the player to move, exact when it lies in (alpha, beta)."""
    size = rows * cols
    if moves == size:
        return 0
    for c in range(cols):
        bit = _drop(mask, c, rows)
        if bit != 0 and _has_line(own | bit, rows, win_length):
            return 1
    if moves + 1 == size:
        return 0  # the last move completes no line
    other = own ^ mask
    forced = -1
    threats = 0
    for c in range(cols):
        bit = _drop(mask, c, rows)
        if bit != 0 and _has_line(other | bit, rows, win_length):
            threats += 1
            forced = c
    if threats >= 2:
        return -1

    key = own + mask
    slot = np.int64(key % np.uint64(_TABLE_SIZE))
    if keys[slot] == key:
        if lows[slot] > alpha:
            alpha = np.int64(lows[slot])
        if highs[slot] < beta:
            beta = np.int64(highs[slot])
        if alpha >= beta:
            return alpha
    alpha0, beta0 = alpha, beta

    best = -2
    for i in range(cols):
        c = order[i]
        if forced >= 0 and c != forced:
            continue
        bit = _drop(mask, c, rows)
        if bit == 0:
            continue
        score = -_negamax(other, mask | bit, moves + 1, -beta, -alpha, rows, cols, win_length,
                          order, keys, lows, highs)
        if score > best:
            best = score
        if score > alpha:
            alpha = score
        if alpha >= beta:
            break

    # Store what this search proved: a fail-high is a lower bound, a fail-low an upper one.
    low, high = -1, 1
    if keys[slot] == key:
        low, high = np.int64(lows[slot]), np.int64(highs[slot])
    if best <= alpha0:
        high = min(high, best)
    elif best >= beta0:
        low = max(low, best)
    else:
        low, high = best, best
    keys[slot] = key
    lows[slot] = low
    highs[slot] = high
    return best


class Solver:
    """Perfect-play values of Connect Four positions on a `rows × cols` board.

    Args:
      rows, cols, win_length: the board (as `warmjax.games.make("connect_four", ...)`).

    Raises:
      ValueError: if the board does not fit a 64-bit bitboard.
    """

    def __init__(self, rows: int = 6, cols: int = 6, win_length: int = 4):
        if (rows + 1) * cols > 63:
            raise ValueError(f"a {rows}x{cols} board does not fit the solver's 64-bit boards")
        self.rows, self.cols, self.win_length = rows, cols, win_length
        centre = (cols - 1) / 2
        self._order = np.array(sorted(range(cols), key=lambda c: (abs(c - centre), c)),
                               dtype=np.int64)
        self._table = None  # allocated by the first search

    @property
    def num_actions(self) -> int:
        """The columns."""
        return self.cols

    def position(self, moves) -> tuple[np.uint64, np.uint64, int]:
        """`(own, mask, plies)` after playing the columns `moves` from the empty board.

        Raises:
          ValueError: for a column out of range, a full column, or a move after a win.
        """
        own, mask = np.uint64(0), np.uint64(0)
        for ply, col in enumerate(moves):
            col = int(col)
            if not 0 <= col < self.cols:
                raise ValueError(f"move {ply + 1}: column {col} is off the board")
            bit = _drop(mask, col, self.rows)
            if bit == 0:
                raise ValueError(f"move {ply + 1}: column {col} is full")
            if _has_line(own | bit, self.rows, self.win_length):
                if ply + 1 < len(moves):
                    raise ValueError(f"move {ply + 1} ends the game; later moves are illegal")
            own, mask = own ^ mask, mask | bit  # now from the next player's side
        return own, mask, len(moves)

    def ended(self, moves) -> bool:
        """True if the last move of `moves` completed a line or filled the board."""
        own, mask, plies = self.position(moves)
        return plies == self.rows * self.cols or bool(
            _has_line(own ^ mask, self.rows, self.win_length))

    def winning_moves(self, moves) -> np.ndarray:
        """`[cols]` bool: the columns that complete a line at once for the player to move."""
        own, mask, _ = self.position(moves)
        return self._completing(own, mask)

    def threats(self, moves) -> np.ndarray:
        """`[cols]` bool: the columns where the opponent of the player to move would complete
        a line at once, were it its turn (the wins the player to move must block)."""
        own, mask, _ = self.position(moves)
        return self._completing(own ^ mask, mask)

    def _completing(self, stones, mask) -> np.ndarray:
        """`[cols]` bool: the columns whose next stone completes a line of `stones`."""
        out = np.zeros(self.cols, bool)
        for c in range(self.cols):
            bit = _drop(mask, c, self.rows)
            out[c] = bit != 0 and bool(_has_line(stones | bit, self.rows, self.win_length))
        return out

    def value(self, moves) -> int:
        """WIN, DRAW or LOSS for the player to move after `moves` (a finished game: LOSS or
        DRAW, from the side of the player who would move next)."""
        own, mask, plies = self.position(moves)
        if _has_line(own ^ mask, self.rows, self.win_length):
            return LOSS  # the previous move won
        return int(self._solve(own, mask, plies))

    def move_values(self, moves) -> np.ndarray:
        """`[cols]` int8: the value of each column for the player to move after `moves`.

        WIN/DRAW/LOSS for a legal column (a move that completes a line is a WIN); −2 for a
        full column.

        Raises:
          ValueError: if the game is already over or `moves` is not a legal sequence.
        """
        own, mask, plies = self.position(moves)
        if _has_line(own ^ mask, self.rows, self.win_length) or plies == self.rows * self.cols:
            raise ValueError("the game is over: no move to value")
        out = np.full(self.cols, -2, np.int8)
        for c in range(self.cols):
            bit = _drop(mask, c, self.rows)
            if bit == 0:
                continue
            if _has_line(own | bit, self.rows, self.win_length):
                out[c] = WIN
            else:
                out[c] = -self._solve(own ^ mask, mask | bit, plies + 1)
        return out

    def _solve(self, own, mask, plies) -> int:
        if self._table is None:
            # A fresh slot holds the bounds [−1, +1], which say nothing, so a spurious key
            # match (key 0 is also the empty board's) cannot mislead the search.
            self._table = (np.zeros(_TABLE_SIZE, np.uint64), np.full(_TABLE_SIZE, -1, np.int8),
                           np.full(_TABLE_SIZE, 1, np.int8))
        return _negamax(np.uint64(own), np.uint64(mask), plies, -1, 1, self.rows, self.cols,
                        self.win_length, self._order, *self._table)
