"""What the Othello, Gobang and Hex solvers share: bit counting and a transposition table.

The table holds, per slot, a position `(own, other)` (two bitboards of the player to move
and of the opponent) and bounds `[low, high]` on its value in {−1, 0, +1}. A slot whose
`own` has every bit set is empty (no position has: the zeros of a fresh table would match
Gobang's empty board). The table stays valid across searches of one game and board size.
"""

from __future__ import annotations

import numba
import numpy as np

TABLE_SIZE = 4194301  # a prime: the hash % size spreads positions over the table
_EMPTY = np.uint64(2**64 - 1)


def new_table(size: int = TABLE_SIZE) -> tuple:
    """`(owns, others, lows, highs)`: an empty table of `size` slots."""
    return (np.full(size, _EMPTY, np.uint64), np.zeros(size, np.uint64),
            np.zeros(size, np.int8), np.zeros(size, np.int8))


@numba.njit(cache=True)
def popcount(x):
    """The set bits of a uint64, as a signed int."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True)
def _slot(table, own, other):
    h = own * np.uint64(0x9E3779B97F4A7C15) ^ (other + np.uint64(0x632BE59BD9B4E019)) \
        * np.uint64(0xBF58476D1CE4E5B9)
    return np.int64(h % np.uint64(table[0].shape[0]))


@numba.njit(cache=True)
def lookup(table, own, other):
    """`(low, high)`: the stored bounds of the position, or (−1, 1) if it is not stored."""
    slot = _slot(table, own, other)
    if table[0][slot] == own and table[1][slot] == other:
        return np.int64(table[2][slot]), np.int64(table[3][slot])
    return np.int64(-1), np.int64(1)


@numba.njit(cache=True)
def store(table, own, other, alpha, beta, low, high, best):
    """Stores what a fail-soft search with the window (alpha, beta) found, `best`, on top of
    the bounds `[low, high]` known before: an upper bound if best ≤ alpha, a lower one if
    best ≥ beta, the exact value between."""
    if best <= alpha:
        high = best
    elif best >= beta:
        low = best
    else:
        low, high = best, best
    slot = _slot(table, own, other)
    table[0][slot] = own
    table[1][slot] = other
    table[2][slot] = low
    table[3][slot] = high


@numba.njit(cache=True)
def probe(table, own, other, alpha, beta):
    """`(settled, value, alpha, beta, low, high)`: the table's bounds `[low, high]` on the
    position; where they decide a search with the window (alpha, beta), `settled` is true
    and `value` is its result, else the window comes back narrowed to the bounds."""
    lo, hi = lookup(table, own, other)
    if lo == hi or lo >= beta:
        return True, lo, alpha, beta, lo, hi
    if hi <= alpha:
        return True, hi, alpha, beta, lo, hi
    return False, np.int64(0), max(alpha, lo), min(beta, hi), lo, hi
