"""Gobang (free-style k-in-a-row) on a `size x size` board (method.md §1), as a pgx environment.

A move places a stone of the mover's colour on any empty cell; actions are cells
`r * size + c`. `win_length` in a row horizontally, vertically or diagonally wins, longer
lines (overlines) included; a full board without a line is a draw. There is no pass.
Playing on an occupied cell is illegal: pgx's `Env.step` ends the game with -1 for the
mover, and the board keeps its previous stones.

Rewards are by player id, +1 to the winner and -1 to the loser. (AlphaZero General's Gobang
returns the winner's colour instead, which flips value targets; method.md §1 says not to copy
that.) Only the windows through the new stone are checked for a win, from a per-cell table
built once in the constructor (`lines.LineGame`, shared with Connect Four).
"""

from __future__ import annotations

from typing import ClassVar

import jax
import jax.numpy as jnp
from flax.struct import dataclass

from warmjax.games import lines, registry
from warmjax.games.env import EMPTY

Array = jax.Array


@dataclass
class State(lines.LineState):
    """One Gobang position; fields as in `lines.LineState`, with A = H*W."""

    @property
    def env_id(self) -> str:
        return "warmjax/gobang"  # not pgx's: other internals


class Gobang(lines.LineGame):
    """Gobang on a square board.

    Args:
      size: board side (default 6, as in the papers).
      win_length: stones in a row needed to win (default 4; 5 is the classical game).

    Raises:
      ValueError: if the board is empty or `win_length` does not fit on it.
    """

    name: ClassVar[str] = "gobang"
    symmetry: ClassVar[str] = "dihedral"
    state_cls: ClassVar[type[lines.LineState]] = State

    @property
    def labelled_set_name(self) -> str:
        return registry.get("gobang").labelled_set_name(
            {"size": self._rows, "win_length": self.win_length})

    def __init__(self, size: int = 6, win_length: int = 4):
        size = int(size)
        super().__init__(size, size, win_length)

    @property
    def num_actions(self) -> int:
        return self._rows * self._cols

    def _place(self, board: Array, action: Array, colour: Array) -> tuple[Array, Array]:
        # Only an empty cell takes the stone, so an illegal move leaves the board as it was.
        place = (jnp.arange(self._rows * self._cols) == action) & (board == EMPTY)
        return jnp.where(place, colour, board), action

    def _legal_moves(self, board):
        return board == EMPTY


# --- registration ----------------------------------------------------------------------------

SPEC = registry.get("gobang")  # registered by `games.builtin`
