"""Connect Four on a `rows x cols` board (method.md §1), as a pgx environment.

Actions are columns; a stone falls to the lowest empty cell of its column (the highest row
index, row 0 being the top). `win_length` in a row horizontally, vertically or diagonally
wins, longer lines included; a full board without a line is a draw. A full column is
illegal, and pgx's `Env.step` ends the game with -1 for a player who plays one.

With `rows=6, cols=7` the game is pgx's `connect_four` move for move (same first mover
from the same key, same legal masks, rewards and observations); the tests check this.

Only the windows through the new stone are checked for a win, from a per-cell table built
once in the constructor (`lines.LineGame`, shared with Gobang). The state is just the
board (int8) and the colour to move: the landing row is counted from the moved column, the
legal moves are the empty cells of the top row. A step is a few dozen scalar operations,
about 3x cheaper than pgx's (which checks all 69 lines of the board) in a jitted, vmapped
loop on CPU.
"""

from __future__ import annotations

from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
from flax.struct import dataclass

from warmjax.games import lines, registry
from warmjax.games.env import EMPTY

Array = jax.Array


@dataclass
class State(lines.LineState):
    """One Connect Four position; fields as in `lines.LineState`, with A = W. Drawn as
    the game looks: red and yellow discs in a blue frame, the columns lettered."""

    svg_style: ClassVar[str] = "discs"

    @property
    def env_id(self) -> str:
        return "warmjax/connect_four"  # not pgx's: other internals


class ConnectFour(lines.LineGame):
    """Connect Four with gravity.

    Args:
      rows: board height (default 6, as in the papers).
      cols: board width and number of actions (default 6; pgx and the commercial game
        use 7).
      win_length: stones in a row needed to win (default 4).

    `from_board` also rejects floating stones (a stone above an empty cell).

    Raises:
      ValueError: if the board is empty or `win_length` does not fit on it.
    """

    name: ClassVar[str] = "connect_four"
    symmetry: ClassVar[str] = "mirror"
    state_cls: ClassVar[type[lines.LineState]] = State

    def __init__(self, rows: int = 6, cols: int = 6, win_length: int = 4):
        super().__init__(rows, cols, win_length)
        self._cell_index = jnp.arange(self._rows * self._cols, dtype=jnp.int32)  # [H*W]

    @property
    def num_actions(self) -> int:
        return self._cols

    def _keep_window(self, cell: int, window: list[int]) -> bool:
        # Cells above a stone that has just landed are empty, so a vertical window can
        # only be full if the new stone is its top cell.
        vertical = window[1] - window[0] == self._cols
        return not vertical or window[0] == cell

    def _place(self, board: Array, action: Array, colour: Array) -> tuple[Array, Array]:
        rows, cols = self._rows, self._cols
        # The stone lands on the lowest empty cell of the column. A full column gives a
        # negative cell that matches nothing, so an illegal move leaves the board as it was.
        column = jnp.take(board.reshape(rows, cols), action, axis=1, mode="clip")
        cell = (jnp.sum(column == EMPTY, dtype=jnp.int32) - 1) * cols + action
        return jnp.where(self._cell_index == cell, colour, board), cell

    def _legal_moves(self, board):
        # The top row; with no floating stones, a column is full when its top cell is.
        return board[: self._cols] == EMPTY

    def _playout_legal(self, position) -> list:
        # One legal row, the actions (columns): those whose top cell is empty.
        mine, theirs = position
        return [~(mine[0] | theirs[0])]

    def _playout_place(self, mine: list, theirs: list, action) -> list:
        # The stone falls to the lowest empty cell of its column.
        bit = jnp.left_shift(jnp.int32(1), action)
        height = sum((((m | t) & bit) != 0).astype(jnp.int32) for m, t in zip(mine, theirs))
        land = self._rows - 1 - height
        return [jnp.where(land == r, m | bit, m) for r, m in enumerate(mine)]

    @property
    def labelled_set_name(self) -> str:
        return registry.get("connect_four").labelled_set_name(
            {"rows": self._rows, "cols": self._cols, "win_length": self.win_length})

    def action_label(self, action: int) -> str:
        """A column's letter, as `render` heads the columns."""
        return chr(ord("a") + int(action))

    def parse_action(self, text: str) -> int:
        """A column from its letter (`c`) or its number from 1 (`3`); ValueError naming the
        problem."""
        text = text.strip().lower()
        last = chr(ord("a") + self._cols - 1)
        if text.isdigit():
            col = int(text) - 1
        elif len(text) == 1 and text.isalpha():
            col = ord(text) - ord("a")
        else:
            raise ValueError(f"cannot read {text!r}: type a column, a–{last}")
        if not 0 <= col < self._cols:
            raise ValueError(f"there is no column {text!r} (a–{last})")
        return col

    def illegal_reason(self, state, action: int) -> str:
        return f"column {self.action_label(action)} is full"

    def _check_board(self, board: np.ndarray) -> None:
        """Stones must rest on stones or on the bottom row."""
        filled = board != EMPTY
        if np.any(filled[:-1] & ~filled[1:]):
            raise ValueError("floating stone: every stone must rest on a stone or the bottom")


# --- registration ----------------------------------------------------------------------------


SPEC = registry.get("connect_four")  # registered by `games.builtin`
