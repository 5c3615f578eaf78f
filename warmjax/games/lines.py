"""Lines of k stones in a row: what Connect Four and Gobang share.

The win rule: a *window* is `win_length` consecutive cells along one of four directions
(horizontal, vertical and the two diagonals). A move can only complete a window that
contains the cell just played, so each game builds, once per constructor, a per-cell table
of the windows through that cell and checks only those after a move. Five or more in a row
contains a full window of `win_length`, so overlines win.

`LineGame` is the games' common environment (state, observation, result of a move,
scripted positions); a game adds only where a stone lands and which moves are legal.
"""

from __future__ import annotations

import abc
import functools
from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
from flax.struct import dataclass
from pgx import core

from warmjax.games.env import EMPTY, FIRST, SECOND, BoardState, GameEnv
from warmjax.games.playout import PlayoutRules, kth_set_bit

Array = jax.Array

# (row step, col step): right, down, down-right, down-left.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def check_win_length(rows: int, cols: int, win_length: int) -> None:
    """Raises ValueError unless a line of `win_length` fits on a `rows x cols` board."""
    if rows < 1 or cols < 1:
        raise ValueError(f"board must have at least one row and column, got {rows}x{cols}")
    if win_length < 2:
        raise ValueError(f"win_length must be at least 2, got {win_length}")
    if win_length > max(rows, cols):
        raise ValueError(f"win_length {win_length} does not fit a {rows}x{cols} board")


def all_windows(rows: int, cols: int, win_length: int) -> np.ndarray:
    """`[W, win_length]` int32: the cell indices of every window on the board."""
    windows = []
    for dr, dc in DIRECTIONS:
        for r in range(rows):
            for c in range(cols):
                end_r, end_c = r + dr * (win_length - 1), c + dc * (win_length - 1)
                if 0 <= end_r < rows and 0 <= end_c < cols:
                    windows.append([(r + dr * i) * cols + (c + dc * i) for i in range(win_length)])
    return np.asarray(windows, dtype=np.int32).reshape(-1, win_length)


def windows_through_cells(windows: np.ndarray, num_cells: int, keep=None) -> np.ndarray:
    """`[num_cells, K, win_length]` int32: for each cell, the windows that contain it.

    K is the largest count over cells. Cells with fewer windows repeat their first window
    as padding, which leaves "is any window full?" unchanged and needs no validity mask.

    Args:
      windows: `[W, win_length]` cell indices, e.g. from `all_windows`.
      num_cells: number of cells on the board.
      keep: optional `keep(cell, window) -> bool` that drops windows which cannot be full
        right after a stone lands on `cell` (Connect Four: vertical windows reaching above
        the new stone). A cell left with no window keeps all of its windows instead.

    Raises:
      ValueError: if some cell lies in no window.
    """
    table = []
    for cell in range(num_cells):
        through = [list(w) for w in windows if cell in w]
        if not through:
            raise ValueError(f"cell {cell} lies in no window")
        kept = [w for w in through if keep is None or keep(cell, w)]
        table.append(kept or through)
    k = max(len(ws) for ws in table)
    table = [ws + [ws[0]] * (k - len(ws)) for ws in table]
    return np.asarray(table, dtype=np.int32)


def completes_line(board: jnp.ndarray, table: jnp.ndarray, cell, colour) -> jnp.ndarray:
    """Whether `colour` fills one of the windows through the cell just played.

    Args:
      board: `[rows*cols]` flat board after the move, unbatched.
      table: `[rows*cols, K, win_length]` windows through each cell, from
        `windows_through_cells`.
      cell: int32 scalar, the cell just played. Out-of-range cells (from illegal moves,
        which pgx's `Env.step` overrides anyway) are clipped rather than wrapped.
      colour: the colour of the stone just placed, same dtype as `board`.

    Returns:
      A bool scalar.
    """
    # Clipped indexing skips the negative-index normalisation of `x[i]`, a measurable part
    # of a step that is only a few dozen scalar operations.
    windows = jnp.take(table, cell, axis=0, mode="clip")  # [K, win_length]
    return jnp.all(jnp.take(board, windows, mode="clip") == colour, axis=-1).any()


def has_line(rows: list, win_length: int) -> Array:
    """Whether the stones in `rows` (row bitmasks, bit c = column c) hold `win_length` in a
    row in any direction. Every operation is elementwise over a batch."""
    found = jnp.zeros(jnp.shape(rows[0]), jnp.bool_)
    for x in rows:  # horizontal: bits c .. c + k - 1 of one row
        run = x
        for j in range(1, win_length):
            run = run & (x >> j)
        found = found | (run != 0)
    for i in range(len(rows) - win_length + 1):
        down, right, left = rows[i], rows[i], rows[i]
        for j in range(1, win_length):
            down = down & rows[i + j]  # (i + j, c)
            right = right & (rows[i + j] >> j)  # (i + j, c + j)
            left = left & (rows[i + j] << j)  # (i + j, c - j)
        found = found | ((down | right | left) != 0)
    return found


def line_owners(board: np.ndarray, win_length: int) -> set[int]:
    """NumPy: the set of non-empty values that fill some window of a `[rows, cols]` board."""
    rows, cols = board.shape
    flat = np.asarray(board).reshape(-1)
    owners = set()
    for w in all_windows(rows, cols, win_length):
        values = flat[w]
        if values[0] != EMPTY and np.all(values == values[0]):
            owners.add(int(values[0]))
    return owners


def board_result(
    board: np.ndarray, win_length: int, to_move: int, current_player: int
) -> tuple[bool, np.ndarray]:
    """NumPy: whether a scripted `[rows, cols]` board is over, and its rewards by player id.

    The owner of a full window wins; a board without empty cells and without a line is a
    draw. `to_move` (the colour to move) has id `current_player`, the other colour the
    other id.

    Returns:
      `(terminated, rewards [2] float32)`.

    Raises:
      ValueError: if both colours have a line.
    """
    owners = line_owners(board, win_length)
    rewards = np.zeros(2, dtype=np.float32)
    if len(owners) > 1:
        raise ValueError("both colours have a line; such a board cannot arise in play")
    if owners:
        winner_id = current_player if owners.pop() == to_move else 1 - current_player
        rewards[winner_id], rewards[1 - winner_id] = 1.0, -1.0
        return True, rewards
    return bool(np.all(np.asarray(board) != EMPTY)), rewards


def check_scripted_board(
    board, shape: tuple[int, int], to_move: int, current_player: int
) -> tuple[np.ndarray, int, int]:
    """Validates the inputs of a line game's `from_board`.

    Returns:
      `(board as int8 [rows, cols], to_move, current_player)` as Python ints.

    Raises:
      ValueError: naming the first problem found.
    """
    board = np.asarray(board)
    if board.shape != tuple(shape):
        raise ValueError(f"board must have shape {tuple(shape)}, got {board.shape}")
    if not np.isin(board, (EMPTY, FIRST, SECOND)).all():
        raise ValueError("board cells must be EMPTY (0), FIRST (1) or SECOND (2)")
    if to_move not in (FIRST, SECOND):
        raise ValueError(f"to_move must be FIRST (1) or SECOND (2), got {to_move!r}")
    if current_player not in (0, 1):
        raise ValueError(f"current_player must be 0 or 1, got {current_player!r}")
    return board.astype(np.int8), int(to_move), int(current_player)


# --------------------------------------------------------------------------------------
# The environment shared by the line games.


@dataclass
class LineState(BoardState, core.State):
    """One position of a line game; each game subclasses it to name its `env_id`.

    See `warmjax.games.env` for the public fields.
    """

    current_player: Array  # [] int32, id of the player to move
    observation: Array  # [H, W, 2] bool, plane 0: stones of the player to move
    rewards: Array  # [2] float32, by player id
    terminated: Array  # [] bool
    truncated: Array  # [] bool, always False
    legal_action_mask: Array  # [A] bool
    _step_count: Array  # [] int32
    _board: Array  # [H*W] int8, EMPTY/FIRST/SECOND (absolute colours)
    _colour: Array  # [] int8, FIRST or SECOND: the colour to move

    def _first_to_move(self) -> bool:
        return int(self._colour) == FIRST


class LineGame(GameEnv):
    """A `rows x cols` game where `win_length` stones in a row win and a full board draws.

    The state is the flat board (int8) and the colour to move; after a move only the
    windows through the new stone are checked, from a per-cell table built once here.

    Subclasses set `state_cls` and `name`, and implement `num_actions`, `_place` (where
    a stone lands) and `_legal_moves`; they may narrow the table with `_keep_window` and
    add checks of scripted boards in `_check_board`.

    Args:
      rows, cols: board shape.
      win_length: stones in a row needed to win.

    Raises:
      ValueError: if the board is empty or `win_length` does not fit on it.
    """

    state_cls: ClassVar[type[LineState]]

    def __init__(self, rows: int, cols: int, win_length: int):
        super().__init__()
        rows, cols, win_length = int(rows), int(cols), int(win_length)
        check_win_length(rows, cols, win_length)
        self._rows, self._cols, self._win_length = rows, cols, win_length
        windows = all_windows(rows, cols, win_length)
        table = windows_through_cells(windows, rows * cols, keep=self._keep_window)
        self._cell_windows = jnp.asarray(table)  # [H*W, K, win_length] int32
        # Row of `_win_rewards` indexed by the winner's id.
        self._win_rewards = jnp.asarray([[1.0, -1.0], [-1.0, 1.0]], dtype=jnp.float32)

    # ----------------------------------------------------------------------------------
    # What a game defines.

    def _keep_window(self, cell: int, window: list[int]) -> bool:
        """Whether `window` can be full right after a stone lands on `cell` (NumPy, once)."""
        del cell, window
        return True

    @abc.abstractmethod
    def _place(self, board: Array, action: Array, colour: Array) -> tuple[Array, Array]:
        """Puts a `colour` stone for `action` on the `[H*W]` board (unbatched, in `_step`).

        Returns:
          `(board [H*W] int8, cell [] int32)`, the cell the stone landed on. An illegal
          move must leave the board as it was.
        """

    @abc.abstractmethod
    def _legal_moves(self, board):
        """`[A]` bool legal actions of a `[H*W]` board, from a jax or a NumPy array."""

    def _check_board(self, board: np.ndarray) -> None:
        """Raises ValueError for a `[rows, cols]` scripted board that play cannot reach."""
        del board

    def _playout_legal(self, position) -> list:
        """Row bitmasks of the legal cells, bit c of row i being action `i * width + c`
        (Gobang's: every empty cell)."""
        mine, theirs = position
        return [~(m | t) for m, t in zip(mine, theirs)]

    def _playout_place(self, mine: list, theirs: list, action: Array) -> list:
        """The mover's row bitmasks after its stone for `action`."""
        del theirs
        bit = jnp.left_shift(jnp.int32(1), action % self._cols)
        row = action // self._cols
        return [jnp.where(row == r, m | bit, m) for r, m in enumerate(mine)]

    # ----------------------------------------------------------------------------------
    # Random playouts on row bitmasks: a position is (mover's rows, opponent's rows), each
    # a list of int32 with bit c for column c. A ply is a few dozen elementwise integer
    # operations: the win test checks the whole board with shifts (`has_line`).

    def playout_rules(self) -> PlayoutRules:
        return PlayoutRules(self._playout_start, self._playout_choose, self._playout_play)

    def _playout_start(self, state: LineState):
        weights = jnp.left_shift(1, jnp.arange(self._cols, dtype=jnp.int32))
        board = state._board.reshape(self._rows, self._cols)
        mine = jnp.sum(jnp.where(board == state._colour, weights, 0), axis=1)
        theirs = jnp.sum(jnp.where(board == 3 - state._colour, weights, 0), axis=1)
        return [mine[r] for r in range(self._rows)], [theirs[r] for r in range(self._rows)]

    def _playout_choose(self, position, u: Array) -> Array:
        return kth_set_bit(u, self._playout_legal(position), self._cols)

    def _playout_play(self, position, action: Array):
        mine, theirs = position
        mine = self._playout_place(mine, theirs, action)
        won = has_line(mine, self._win_length)
        full = (1 << self._cols) - 1
        filled = functools.reduce(jnp.logical_and, [(m | t) == full for m, t in zip(mine, theirs)])
        return (theirs, mine), won | filled, won.astype(jnp.float32)

    # ----------------------------------------------------------------------------------
    # pgx API.

    def _init(self, key: Array) -> LineState:
        rows, cols = self._rows, self._cols
        return self.state_cls(
            current_player=jnp.int32(jax.random.bernoulli(key)),
            observation=jnp.zeros((rows, cols, 2), dtype=jnp.bool_),
            rewards=jnp.zeros(2, dtype=jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            legal_action_mask=jnp.ones(self.num_actions, dtype=jnp.bool_),
            _step_count=jnp.int32(0),
            _board=jnp.zeros(rows * cols, dtype=jnp.int8),
            _colour=jnp.int8(FIRST),
        )

    def _step(self, state: LineState, action: Array, key) -> LineState:
        del key
        colour = state._colour
        board, cell = self._place(state._board, action, colour)
        won = completes_line(board, self._cell_windows, cell, colour)
        legal = self._legal_moves(board)
        rewards = jnp.where(won, self._win_rewards[state.current_player], 0.0)
        return state.replace(
            current_player=1 - state.current_player,
            rewards=rewards,
            terminated=won | ~legal.any(),
            legal_action_mask=legal,
            _board=board,
            _colour=3 - colour,
        )

    def _observe(self, state: LineState, player_id: Array) -> Array:
        colour = jnp.where(player_id == state.current_player, state._colour, 3 - state._colour)
        board = state._board.reshape(self._rows, self._cols)
        return jnp.stack([board == colour, board == 3 - colour], axis=-1)

    @property
    def id(self) -> str:
        return f"warmjax/{self.name}"  # pgx's ids name pgx's own games

    @property
    def version(self) -> str:
        return "v0"

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        return (self._rows, self._cols, 2)

    # ----------------------------------------------------------------------------------
    # GameEnv API.

    @property
    def board_shape(self) -> tuple[int, int]:
        return (self._rows, self._cols)

    @property
    def win_length(self) -> int:
        return self._win_length

    def board_array(self, state: LineState) -> np.ndarray:
        return np.asarray(state._board, dtype=np.int8).reshape(self._rows, self._cols)

    def colour_to_move(self, state: LineState) -> int:
        return int(state._colour)

    def from_board(self, board, to_move: int, current_player: int = 0) -> LineState:
        """A State for a scripted position.

        Args:
          board: `[rows, cols]` of EMPTY/FIRST/SECOND.
          to_move: FIRST or SECOND, the colour to move.
          current_player: the id (0 or 1) of the player to move.

        Returns:
          An unbatched State. If a line is on the board its owner has won (rewards +1/-1
          by id, terminated); a full board without a line is a terminated draw. The step
          count is the number of stones.

        Raises:
          ValueError: for a malformed board, one the game rejects (`_check_board`) or
            lines of both colours.
        """
        rows, cols = self._rows, self._cols
        board, to_move, current_player = check_scripted_board(
            board, (rows, cols), to_move, current_player
        )
        self._check_board(board)
        terminated, rewards = board_result(board, self._win_length, to_move, current_player)
        flat = board.reshape(-1)
        legal = np.ones(self.num_actions, dtype=bool) if terminated else self._legal_moves(flat)
        state = self.state_cls(
            current_player=jnp.int32(current_player),
            observation=jnp.zeros((rows, cols, 2), dtype=jnp.bool_),
            rewards=jnp.asarray(rewards),
            terminated=jnp.bool_(terminated),
            truncated=jnp.bool_(False),
            legal_action_mask=jnp.asarray(legal),
            _step_count=jnp.int32((flat != EMPTY).sum()),
            _board=jnp.asarray(flat, dtype=jnp.int8),
            _colour=jnp.int8(to_move),
        )
        return state.replace(observation=self.observe(state))
