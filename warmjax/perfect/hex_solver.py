"""An exact Hex solver: win or loss under perfect play, pgx's rules without the swap.

The rules are those of `pgx.hex` (the adapter `warmjax.games.pgx_games`, method.md §1): an
n×n rhombus of hexagons, cell (r, c) is action r·n + c and touches (r, c±1), (r±1, c) and
(r+1, c−1), (r−1, c+1). The first mover joins row 0 to row n−1, the second mover column 0
to column n−1. Hex has no draws: a full board always holds exactly one winning chain. pgx
offers the second mover a swap (action n·n) at ply 1; the solver's positions never use it,
and its labels mark the swap illegal (positions are drawn from ply 2 on).

Search: bitboard negamax with alpha-beta over the values {−1, +1}, a transposition table
of bounds (`table`), and exact rules that prune most of the tree:

- if the player to move cannot join its sides even with every empty cell, it loses; if the
  opponent cannot, the player to move wins (no draws);
- if a move joins the player's sides now, the position is a win;
- if the opponent could join its sides on two different cells, it is a loss; on exactly
  one, that cell is the only move worth searching.

The other moves are tried best-first by how many stones touch them. Layout: a position is
`(own, other)`, the stones of the player to move and of its opponent, as Python ints with
cell i at bit i and, on bit 63, a tag set on the first mover's stones, so that a side's
stones know which pair of edges they must join (n ≤ 7 leaves that bit free).
"""

from __future__ import annotations

import numba
import numpy as np

from warmjax.perfect.table import new_table, popcount, probe, store

WIN, LOSS = 1, -1
FIRST = 1 << 63  # the tag on the first mover's stones


@numba.njit(cache=True)
def _spread(b, n, full, not_first_col, not_last_col):
    """`b` with every cell that touches one of its cells."""
    one, row, diag = np.uint64(1), np.uint64(n), np.uint64(n - 1)
    return (b | ((b << one) & not_first_col) | ((b >> one) & not_last_col) | (b << row)
            | (b >> row) | ((b << diag) & not_last_col) | ((b >> diag) & not_first_col)) & full


@numba.njit(cache=True)
def _joins(stones, rows, n, masks):
    """Whether `stones` join row 0 to row n−1 (`rows`) or column 0 to column n−1."""
    full, not_first_col, not_last_col = masks[0], masks[1], masks[2]
    start, end = (masks[3], masks[4]) if rows else (masks[5], masks[6])
    reach = stones & start
    while True:
        grown = _spread(reach, n, full, not_first_col, not_last_col) & stones
        if grown == reach:
            return reach & end != 0
        reach = grown


@numba.njit(cache=True)
def _joining_cells(stones, empty, rows, n, masks):
    """Bitboard of the empty cells that would make `stones` join their edges."""
    cells = np.uint64(0)
    bits = empty
    while bits:
        low = bits & (~bits + np.uint64(1))
        if _joins(stones | low, rows, n, masks):
            cells |= low
        bits ^= low
    return cells


@numba.njit(cache=True)
def _negamax(own, other, rows, alpha, beta, n, masks, table):
    """Value for the player to move, who joins rows (`rows`) or columns; neither side has
    joined yet. Exact when it lies in (alpha, beta)."""
    full, not_first_col, not_last_col = masks[0], masks[1], masks[2]
    empty = full & ~(own | other)
    if not _joins(own | empty, rows, n, masks):
        return -1
    if not _joins(other | empty, not rows, n, masks):
        return 1
    if _joining_cells(own, empty, rows, n, masks) != 0:
        return 1
    threats = _joining_cells(other, empty, not rows, n, masks)
    if popcount(threats) >= 2:
        return -1
    settled, value, alpha, beta, lo, hi = probe(table, own, other, alpha, beta)
    if settled:
        return value
    candidates = threats if threats != 0 else empty
    count = popcount(candidates)
    cells = np.empty(count, np.int64)
    keys = np.empty(count, np.int64)
    stones = own | other
    i = 0
    bits = candidates
    while bits:
        low = bits & (~bits + np.uint64(1))
        cells[i] = popcount(low - np.uint64(1))
        touching = _spread(low, n, full, not_first_col, not_last_col) & stones
        keys[i] = -popcount(touching)
        i += 1
        bits ^= low
    order = np.argsort(keys, kind="mergesort")
    best = -2
    a = alpha
    for j in order:
        move = np.uint64(1) << np.uint64(cells[j])
        value = -_negamax(other, own | move, not rows, -beta, -a, n, masks, table)
        if value > best:
            best = value
        if best > a:
            a = best
        if a >= beta:
            break
    store(table, own, other, alpha, beta, lo, hi, best)
    return best


class Solver:
    """Perfect-play values of Hex positions on a size×size board (2 ≤ size ≤ 7).

    Positions are `(own, other)` tagged bitboards (see the module docstring), or action
    sequences from the empty board (`position`).
    """

    def __init__(self, size: int = 5):
        if not 2 <= size <= 7:
            raise ValueError(f"the Hex solver takes a board of 2 to 7 cells a side, got {size}")
        self.size = size
        self.cells = size * size
        n = size
        cols = np.arange(self.cells) % n
        rows = np.arange(self.cells) // n

        def bits(where):
            return np.uint64(sum(1 << int(i) for i in np.flatnonzero(where)))

        self.full = np.uint64((1 << self.cells) - 1)
        self.masks = np.array([self.full, bits(cols != 0), bits(cols != n - 1),
                               bits(rows == 0), bits(rows == n - 1), bits(cols == 0),
                               bits(cols == n - 1)], np.uint64)
        self.table = new_table()

    @property
    def num_actions(self) -> int:
        """The env's actions: the cells and the swap."""
        return self.cells + 1

    def start(self) -> tuple[int, int]:
        """`(own, other)` of the empty board, the first mover to move."""
        return FIRST, 0

    def empty_cells(self, own: int, other: int) -> int:
        return self.cells - bin((own | other) & ~FIRST).count("1")

    @staticmethod
    def _split(stones: int) -> tuple[int, bool]:
        """`(cells, first)`: the stones without their tag, and whether they are the first
        mover's (who joins the rows)."""
        return stones & ~FIRST, bool(stones & FIRST)

    def has_line(self, stones: int) -> bool:
        """Whether these stones join their side's edges (the name the line games' solvers
        share: the winning shape)."""
        cells, first = self._split(stones)
        return bool(_joins(np.uint64(cells), first, self.size, self.masks))

    def ended(self, own: int, other: int) -> bool:
        return self.has_line(own) or self.has_line(other)

    def legal_moves(self, own: int, other: int) -> list[int]:
        """The empty cells (the swap is never offered), or [] once a side has joined."""
        if self.ended(own, other):
            return []
        taken = self._split(own)[0] | self._split(other)[0]
        return [i for i in range(self.cells) if not taken >> i & 1]

    def play(self, own: int, other: int, action: int) -> tuple[int, int]:
        """The position after `action`, for the next player to move."""
        return other, own | (1 << action)

    def position(self, actions) -> tuple[int, int]:
        """`(own, other)` after the actions from the empty board.

        Raises:
          ValueError: an illegal action (the swap included), or one after the end.
        """
        own, other = self.start()
        for ply, action in enumerate(actions):
            if int(action) not in self.legal_moves(own, other):
                raise ValueError(f"action {action} at ply {ply} is not legal here (the "
                                 "solver's positions do not use the swap)")
            own, other = self.play(own, other, int(action))
        return own, other

    def value(self, own: int, other: int) -> int:
        """WIN or LOSS for the player to move in a position that is not over."""
        if self.ended(own, other):
            raise ValueError("the game is over")
        cells, first = self._split(own)
        return int(_negamax(np.uint64(cells), np.uint64(self._split(other)[0]), first, -1, 1,
                            self.size, self.masks, self.table))

    def move_values(self, own: int, other: int, illegal: int = -2) -> np.ndarray:
        """`[n·n + 1]` int8: the value of every move for the player to move, `illegal`
        where the cell is taken and for the swap."""
        values = np.full(self.num_actions, illegal, np.int8)
        for action in self.legal_moves(own, other):
            after_own, after_other = self.play(own, other, action)
            values[action] = WIN if self.has_line(after_other) else \
                -self.value(after_own, after_other)
        return values
