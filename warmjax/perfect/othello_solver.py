"""An exact Othello solver: win / draw / loss under perfect play, under the project's rules.

The rules are those of `warmjax.games.othello` (method.md §1): a move places a disc that
brackets one or more straight lines of the opponent's discs, which flip; a player with no
such move passes (pass is legal only then); two passes in a row end the game, as does a full
board; more discs wins and equal counts are a draw.

Search: bitboard negamax with alpha-beta over the values {−1, 0, +1}, a transposition table
of bounds, and fastest-first move ordering (the moves that leave the opponent the fewest
replies first) while more than a few cells are empty. Solving for the sign of the final disc
difference only (a null-window style search) is far cheaper than the exact score.

Layout of a bitboard (one `uint64`): cell (r, c) of an n×n board (n ≤ 8) is bit r·n + c,
which is the env's action id of that cell; pass is action n·n. A position is `(own, other)`:
the discs of the player to move and of the opponent. Directions shift by ±1 (a row), ±n (a
column) and ±(n±1) (the diagonals), masked so that no line wraps around the board's edge.

The numba kernels are compiled on first use (cached on disk). `Solver` holds the table,
which stays valid across calls for one board size.
"""

from __future__ import annotations

import numba
import numpy as np

from warmjax.perfect.table import new_table, popcount, probe, store

WIN, DRAW, LOSS = 1, 0, -1
_ORDER_EMPTIES = 6  # below this many empty cells, moves are tried in index order


@numba.njit(cache=True)
def _shift(x, d, n, full, not_first, not_last):
    """`x` moved one step in direction d (0..7) of an n×n board, edges masked."""
    one = np.uint64(1)
    nn = np.uint64(n)
    if d == 0:  # east (c + 1)
        return (x << one) & not_first & full
    if d == 1:  # west (c − 1)
        return (x >> one) & not_last
    if d == 2:  # south (r + 1)
        return (x << nn) & full
    if d == 3:  # north (r − 1)
        return x >> nn
    if d == 4:  # south-east
        return (x << (nn + one)) & not_first & full
    if d == 5:  # south-west
        return (x << (nn - one)) & not_last & full
    if d == 6:  # north-east
        return (x >> (nn - one)) & not_first
    return (x >> (nn + one)) & not_last  # north-west


@numba.njit(cache=True)
def _moves(own, other, n, full, not_first, not_last):
    """Bitboard of the cells where the player with discs `own` may place a disc."""
    empty = ~(own | other) & full
    legal = np.uint64(0)
    for d in range(8):
        run = _shift(own, d, n, full, not_first, not_last) & other
        for _ in range(n - 3):
            run |= _shift(run, d, n, full, not_first, not_last) & other
        legal |= _shift(run, d, n, full, not_first, not_last) & empty
    return legal


@numba.njit(cache=True)
def _flips(own, other, move, n, full, not_first, not_last):
    """The opponent's discs that a disc placed on the bit `move` flips."""
    flipped = np.uint64(0)
    for d in range(8):
        run = np.uint64(0)
        x = _shift(move, d, n, full, not_first, not_last)
        while x & other:
            run |= x
            x = _shift(x, d, n, full, not_first, not_last)
        if x & own:
            flipped |= run
    return flipped


@numba.njit(cache=True)
def _final(own, other):
    diff = popcount(own) - popcount(other)
    return 1 if diff > 0 else (-1 if diff < 0 else 0)


@numba.njit(cache=True)
def _negamax(own, other, alpha, beta, n, full, not_first, not_last, table):
    """Value for the player to move, exact when it lies in (alpha, beta)."""
    legal = _moves(own, other, n, full, not_first, not_last)
    if legal == 0:
        if _moves(other, own, n, full, not_first, not_last) == 0:
            return _final(own, other)
        return -_negamax(other, own, -beta, -alpha, n, full, not_first, not_last, table)
    settled, value, alpha, beta, lo, hi = probe(table, own, other, alpha, beta)
    if settled:
        return value
    empties = popcount(~(own | other) & full)
    count = popcount(legal)
    cells = np.empty(count, np.int64)
    keys = np.empty(count, np.int64)
    k = 0
    bits = legal
    while bits:
        low = bits & (~bits + np.uint64(1))
        cells[k] = popcount(low - np.uint64(1))
        keys[k] = 0
        if empties > _ORDER_EMPTIES:
            move = low
            f = _flips(own, other, move, n, full, not_first, not_last)
            keys[k] = popcount(_moves(other & ~f, own | f | move, n, full, not_first,
                                       not_last))
        bits ^= low
        k += 1
    order = np.argsort(keys, kind="mergesort")
    best = -2
    a = alpha
    for i in order:
        move = np.uint64(1) << np.uint64(cells[i])
        f = _flips(own, other, move, n, full, not_first, not_last)
        value = -_negamax(other & ~f, own | f | move, -beta, -a, n, full, not_first,
                          not_last, table)
        if value > best:
            best = value
        if best > a:
            a = best
        if a >= beta:
            break
    store(table, own, other, alpha, beta, lo, hi, best)
    return best


class Solver:
    """Perfect-play values of Othello positions on an n×n board (6 by default).

    Positions are `(own, other)` bitboards (see the module docstring), or move sequences from
    the start position (`position`).
    """

    def __init__(self, size: int = 6):
        if not 4 <= size <= 8 or size % 2:
            raise ValueError(f"the Othello solver takes an even board size from 4 to 8, "
                             f"got {size}")
        self.size = n = size
        self.full = np.uint64((1 << (n * n)) - 1) if n < 8 else np.uint64(2**64 - 1)
        first_column = sum(1 << (r * n) for r in range(n))
        last_column = sum(1 << (r * n + n - 1) for r in range(n))
        self.not_first = np.uint64(~first_column & int(self.full))
        self.not_last = np.uint64(~last_column & int(self.full))
        self.table = new_table()

    @property
    def num_actions(self) -> int:
        return self.size * self.size + 1

    def start(self) -> tuple[int, int]:
        """`(own, other)` of the start position, the first mover to move (the first mover
        holds the centre cells (n/2−1, n/2) and (n/2, n/2−1), as `warmjax.games.othello`)."""
        n, h = self.size, self.size // 2
        first = (1 << ((h - 1) * n + h)) | (1 << (h * n + h - 1))
        second = (1 << ((h - 1) * n + h - 1)) | (1 << (h * n + h))
        return first, second

    def empty_cells(self, own: int, other: int) -> int:
        return self.size * self.size - bin(own | other).count("1")

    def legal_moves(self, own: int, other: int) -> list[int]:
        """The legal actions of the player to move: cells, or [pass] if none is legal (and []
        when the game is over)."""
        legal = int(_moves(np.uint64(own), np.uint64(other), self.size, self.full,
                           self.not_first, self.not_last))
        if legal:
            return [i for i in range(self.size * self.size) if legal >> i & 1]
        if self.game_over(own, other):
            return []
        return [self.size * self.size]

    def game_over(self, own: int, other: int) -> bool:
        args = (self.size, self.full, self.not_first, self.not_last)
        return (_moves(np.uint64(own), np.uint64(other), *args) == 0
                and _moves(np.uint64(other), np.uint64(own), *args) == 0)

    def play(self, own: int, other: int, action: int) -> tuple[int, int]:
        """The position after `action` (a cell, or pass), for the next player to move."""
        if action == self.size * self.size:
            return other, own
        move = np.uint64(1 << action)
        f = int(_flips(np.uint64(own), np.uint64(other), move, self.size, self.full,
                       self.not_first, self.not_last))
        return other & ~f, own | f | (1 << action)

    def position(self, actions) -> tuple[int, int]:
        """`(own, other)` after the actions from the start position.

        Raises:
          ValueError: an illegal action, or one after the end of the game.
        """
        own, other = self.start()
        for ply, action in enumerate(actions):
            if int(action) not in self.legal_moves(own, other):
                raise ValueError(f"action {action} at ply {ply} is not legal")
            own, other = self.play(own, other, int(action))
        return own, other

    def value(self, own: int, other: int) -> int:
        """WIN, DRAW or LOSS for the player to move."""
        return int(_negamax(np.uint64(own), np.uint64(other), -1, 1, self.size, self.full,
                            self.not_first, self.not_last, self.table))

    def final(self, own: int, other: int) -> int:
        """The result of a finished game for the player to move (disc count)."""
        return int(_final(np.uint64(own), np.uint64(other)))

    def move_values(self, own: int, other: int, illegal: int = -2) -> np.ndarray:
        """`[n·n + 1]` int8: the value of every action for the player to move (the value of
        the position it leads to, from the mover's side), `illegal` where not legal."""
        values = np.full(self.num_actions, illegal, np.int8)
        for action in self.legal_moves(own, other):
            after_own, after_other = self.play(own, other, action)
            values[action] = -self.value(after_own, after_other)
        return values
