"""Lines of k stones in a row: the win rule shared by Connect Four and Gobang.

A *window* is `win_length` consecutive cells along one of four directions (horizontal,
vertical and the two diagonals). A move can only complete a window that contains the cell
just played, so each game builds, once per constructor, a per-cell table of the windows
through that cell and checks only those after a move. Five or more in a row contains a
full window of `win_length`, so overlines win.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from warmjax.games.env import EMPTY, FIRST, SECOND

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
