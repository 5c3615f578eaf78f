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

from warmjax.games import lines
from warmjax.games.env import EMPTY
from warmjax.games.registry import GameSpec, Labels, register

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
        suffix = "" if self.win_length == 4 else f"_k{self.win_length}"
        return f"gobang_{self._rows}x{self._cols}{suffix}.json"

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

SPEC = register(GameSpec(
    "gobang", "Gobang", Gobang, {"size": 6, "win_length": 4},
    readings={"rave_all_players": False, "rhea_legal_first": True},
    labels=Labels("ply", 8, 20, "warmjax.perfect.gobang_solver:Solver")))
