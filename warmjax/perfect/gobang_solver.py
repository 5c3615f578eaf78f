"""An exact Gobang (m,n,k) solver: win / draw / loss under perfect play, the project's rules.

The rules are those of `warmjax.games.gobang` (method.md §1): a stone goes on any empty cell;
`win_length` k in a row (horizontal, vertical or diagonal) wins, overlines included; a full
board without a line is a draw.

Search: bitboard negamax with alpha-beta over the values {−1, 0, +1}, a transposition table
of bounds, and three exact rules that prune most of the tree:

- if the player to move can complete a line now, the position is a win;
- if the opponent can complete a line on two cells at once, it is a loss (one block is not
  enough); on exactly one cell, that cell is the only move worth searching;
- a move that lies on no line still open to either side can change nothing but the count of
  empty cells, so only one such move is searched (any of them gives the same value).

The other moves are tried best-first by how many stones of each side the open lines through
them hold. Layout: cell (r, c) of an n×n board (n ≤ 8) is bit r·n + c, the env's action id.
A position is `(own, other)`: the stones of the player to move and of the opponent.

The numba kernels are compiled on first use (cached on disk). `Solver` holds the table,
which stays valid across calls for one board.
"""

from __future__ import annotations

import numba
import numpy as np

from warmjax.perfect.table import new_table, popcount, probe, store

WIN, DRAW, LOSS = 1, 0, -1


@numba.njit(cache=True)
def _winning_cells(own, other, windows, k):
    """Bitboard of the empty cells where `own` completes a line at once."""
    cells = np.uint64(0)
    for w in windows:
        if w & other == 0 and popcount(w & own) == k - 1:
            cells |= w & ~own
    return cells


@numba.njit(cache=True)
def _negamax(own, other, alpha, beta, full, windows, k, table):
    """Value for the player to move (who has no line yet, nor has the opponent), exact when
    it lies in (alpha, beta)."""
    empty = ~(own | other) & full
    if empty == 0:
        return 0
    if _winning_cells(own, other, windows, k) != 0:
        return 1
    threats = _winning_cells(other, own, windows, k)
    if popcount(threats) >= 2:
        return -1
    settled, value, alpha, beta, lo, hi = probe(table, own, other, alpha, beta)
    if settled:
        return value
    if threats != 0:
        candidates = threats
    else:
        candidates = empty
    # Score the candidates by the open lines through them; a cell on no open line at all is
    # a "dead" move: all of them are equivalent, so one is searched.
    count = popcount(candidates)
    cells = np.empty(count, np.int64)
    keys = np.empty(count, np.int64)
    n_live = 0
    dead = -1
    bits = candidates
    while bits:
        low = bits & (~bits + np.uint64(1))
        cell = popcount(low - np.uint64(1))
        score = 0
        live = False
        for w in windows:
            if w & low:
                mine, theirs = popcount(w & own), popcount(w & other)
                if theirs == 0:
                    live = True
                    score += 1 + 4 * mine * mine
                if mine == 0:
                    live = True
                    score += 1 + 3 * theirs * theirs
        if live or threats != 0:
            cells[n_live] = cell
            keys[n_live] = -score
            n_live += 1
        elif dead < 0:
            dead = cell
        bits ^= low
    if dead >= 0:
        cells[n_live] = dead
        keys[n_live] = 1 << 30
        n_live += 1
    order = np.argsort(keys[:n_live], kind="mergesort")
    best = -2
    a = alpha
    for i in order:
        move = np.uint64(1) << np.uint64(cells[i])
        value = -_negamax(other, own | move, -beta, -a, full, windows, k, table)
        if value > best:
            best = value
        if best > a:
            a = best
        if a >= beta:
            break
    store(table, own, other, alpha, beta, lo, hi, best)
    return best


def line_windows(size: int, win_length: int) -> np.ndarray:
    """`[W]` uint64: every window of `win_length` cells in a row on the size×size board."""
    n, k = size, win_length
    out = []
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= end_r < n and 0 <= end_c < n:
                    out.append(sum(1 << ((r + dr * i) * n + c + dc * i) for i in range(k)))
    return np.asarray(out, np.uint64)


class Solver:
    """Perfect-play values of Gobang positions: `win_length` in a row on a size×size board.

    Positions are `(own, other)` bitboards (see the module docstring), or move sequences from
    the empty board (`position`).
    """

    def __init__(self, size: int = 6, win_length: int = 4):
        if not 1 <= win_length <= size <= 8:
            raise ValueError(f"the Gobang solver takes 1 ≤ win_length ≤ size ≤ 8, got size "
                             f"{size} and win length {win_length}")
        self.size, self.win_length = size, win_length
        self.cells = size * size
        self.full = np.uint64((1 << self.cells) - 1) if self.cells < 64 else np.uint64(2**64 - 1)
        self.windows = line_windows(size, win_length)
        self.table = new_table()

    @property
    def num_actions(self) -> int:
        return self.cells

    def start(self) -> tuple[int, int]:
        """`(own, other)` of the empty board."""
        return 0, 0

    def empty_cells(self, own: int, other: int) -> int:
        return self.cells - bin(own | other).count("1")

    def has_line(self, stones: int) -> bool:
        return any(int(w) & stones == int(w) for w in self.windows)

    def ended(self, own: int, other: int) -> bool:
        """Whether the game is over: a line (of either side) or a full board."""
        return (self.has_line(own) or self.has_line(other)
                or (own | other) == (1 << self.cells) - 1)

    def legal_moves(self, own: int, other: int) -> list[int]:
        if self.ended(own, other):
            return []
        return [i for i in range(self.cells) if not (own | other) >> i & 1]

    def play(self, own: int, other: int, action: int) -> tuple[int, int]:
        """The position after `action`, for the next player to move."""
        return other, own | (1 << action)

    def position(self, actions) -> tuple[int, int]:
        """`(own, other)` after the actions from the empty board.

        Raises:
          ValueError: an illegal action, or one after the end of the game.
        """
        own, other = 0, 0
        for ply, action in enumerate(actions):
            if int(action) not in self.legal_moves(own, other):
                raise ValueError(f"action {action} at ply {ply} is not legal")
            own, other = self.play(own, other, int(action))
        return own, other

    def value(self, own: int, other: int) -> int:
        """WIN, DRAW or LOSS for the player to move in a position that is not over."""
        if self.ended(own, other):
            raise ValueError("the game is over")
        return int(_negamax(np.uint64(own), np.uint64(other), -1, 1, self.full, self.windows,
                            self.win_length, self.table))

    def winning_moves(self, own: int, other: int) -> list[int]:
        """The moves that complete a line at once."""
        cells = int(_winning_cells(np.uint64(own), np.uint64(other), self.windows,
                                   self.win_length))
        return [i for i in range(self.cells) if cells >> i & 1]

    def move_values(self, own: int, other: int, illegal: int = -2) -> np.ndarray:
        """`[n·n]` int8: the value of every move for the player to move, `illegal` where the
        cell is taken."""
        values = np.full(self.cells, illegal, np.int8)
        wins = set(self.winning_moves(own, other))
        for action in self.legal_moves(own, other):
            if action in wins:
                values[action] = WIN
                continue
            after_own, after_other = self.play(own, other, action)
            values[action] = DRAW if self.ended(after_own, after_other) else \
                -self.value(after_own, after_other)
        return values
