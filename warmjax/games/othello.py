"""Othello (Reversi) on an even `size x size` board, 6x6 by default (method.md §1).

Rules:

- Actions are `r * size + c` for a disc on cell `(r, c)`, plus `size * size` for a pass.
  A disc must bracket at least one straight line (8 directions) of opponent discs, which
  flip. A pass is legal only when no placement is.
- Start: the first mover's discs on `(n/2-1, n/2)` and `(n/2, n/2-1)`, the second mover's
  on the other diagonal of the centre (at 8x8 this is pgx's start position).
- The game ends after a move when the board is full, when the player who would move next
  has no discs, or when the move is the second of two consecutive passes. A position where
  neither side can move is therefore *not* terminal itself: two forced passes follow, and
  the second one ends the game. This two-pass rule is pgx's (`pgx.make("othello")`); we
  keep it so that games, ply counts and rewards agree with pgx move for move at 8x8. A
  search sees the same result, two plies later.
- More discs wins (+1/-1 in `rewards`, indexed by player id, on the terminating move);
  equal counts are a draw, rewards `(0, 0)`. (AlphaZero General scores a draw as a loss
  for both sides; we do not.)

Representation and speed: a board is two `[size]` arrays of row bitmasks (bit `c` of entry
`r` is cell `(r, c)`), for the player to move and the opponent, in the smallest unsigned
dtype that holds a row (uint8 up to 8x8), so a state (one per search-tree node) is small.
Inside `_step` the rows are a Python list of scalars (`[B]` arrays under vmap): a vertical
shift is a list shift and every operation is elementwise over the batch, which XLA fuses
into a few large loops. All 8 directions are unrolled in Python; there is no `lax.cond` or
loop. Each stage ends in an OR-reduction over the directions (`_reduce_or`), which XLA
materialises: this keeps it from copying the flip computation into every consumer of the
new board (when the whole step fused into one DAG, it ran several times slower on CPU).
"""

from __future__ import annotations

import functools
from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pgx.core
from flax.struct import dataclass

from warmjax.games import registry
from warmjax.games.env import EMPTY, FIRST, SECOND, BoardState, GameEnv
from warmjax.games.playout import PlayoutRules, kth_legal_action

# (row step, column step) of the 8 line directions.
_DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1), (1, -1), (-1, 1))
# Rows are uint8/uint16 bitmasks. The unrolled step grows as size**3 (rows x directions x
# run length); compiling it takes seconds at 8x8 and about 15 s at 16x16 on CPU, so larger
# boards are refused rather than left to compile for minutes.
_MAX_SIZE = 16


@dataclass
class State(BoardState, pgx.core.State):
    """Othello state; H = W = size. Public fields are pgx's.

    Player ids label the two players (see `warmjax.games.env`); `_turn` says which colour
    the player to move has.
    """

    current_player: jax.Array  # [] int32, id of the player to move
    observation: jax.Array  # [H, W, 2] bool, plane 0 the discs of the player to move
    rewards: jax.Array  # [2] float32, by player id
    terminated: jax.Array  # [] bool
    truncated: jax.Array  # [] bool, always False
    legal_action_mask: jax.Array  # [H*W + 1] bool, pass last
    _step_count: jax.Array  # [] int32
    _board: jax.Array  # [2, H] uint8 (uint16 above 8x8) row bitmasks: mover, opponent
    _turn: jax.Array  # [] int8, 0 when the first mover (X) is to move, 1 for O
    _passed: jax.Array  # [] bool, whether the last move was a pass

    @property
    def env_id(self) -> str:
        return "warmjax/othello"  # not pgx's Othello: other internals

    def _first_to_move(self) -> bool:
        return int(self._turn) == 0


class Othello(GameEnv):
    """Othello as a pgx environment; see the module docstring for the rules.

    Args:
      size: board side, even, from 4 to 16.

    Raises:
      ValueError: for a size that is not an int, odd, below 4 or above 16.
    """

    name: ClassVar[str] = "othello"
    symmetry: ClassVar[str] = "dihedral"

    def __init__(self, size: int = 6):
        super().__init__()
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            raise ValueError(f"Othello size must be an int, got {size!r}")  # noqa: TRY004
        size = int(size)
        if size < 4 or size % 2 or size > _MAX_SIZE:
            raise ValueError(f"Othello size must be even and between 4 and {_MAX_SIZE}, got {size}")
        self.size = size
        self._dtype = jnp.uint8 if size <= 8 else jnp.uint16
        # The start position and its four legal moves, as NumPy constants.
        h = size // 2
        mover = np.zeros(size, dtype=np.int64)
        opponent = np.zeros(size, dtype=np.int64)
        mover[h - 1] |= 1 << h
        mover[h] |= 1 << (h - 1)
        opponent[h - 1] |= 1 << (h - 1)
        opponent[h] |= 1 << h
        self._start_board = np.stack([mover, opponent]).astype(self._dtype)
        self._start_mask = np.zeros(size * size + 1, dtype=bool)
        for r, c in ((h - 2, h - 1), (h - 1, h - 2), (h, h + 1), (h + 1, h)):
            self._start_mask[r * size + c] = True

    # ----------------------------------------------------------------------------------
    # pgx API.

    @property
    def id(self) -> str:
        return "warmjax/othello"  # pgx's ids name pgx's own games

    @property
    def version(self) -> str:
        return "v0"

    @property
    def num_actions(self) -> int:
        return self.size * self.size + 1

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        return (self.size, self.size, 2)

    @property
    def board_shape(self) -> tuple[int, int]:
        return (self.size, self.size)

    def _init(self, key: jax.Array) -> State:
        n = self.size
        return State(
            current_player=jnp.int32(jax.random.bernoulli(key)),
            observation=jnp.zeros((n, n, 2), dtype=jnp.bool_),
            rewards=jnp.zeros(2, dtype=jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            legal_action_mask=jnp.asarray(self._start_mask),
            _step_count=jnp.int32(0),
            _board=jnp.asarray(self._start_board),
            _turn=jnp.int8(0),
            _passed=jnp.bool_(False),
        )

    def _step(self, state: State, action: jax.Array, key=None) -> State:
        del key
        n = self.size
        mover, opponent = self._rows(state._board[0]), self._rows(state._board[1])
        action = jnp.asarray(action, dtype=jnp.int32)
        is_pass = action == n * n
        # A pass has row n, which matches no row, so its move bitmask is empty.
        row, col = action // n, action % n
        bit = jnp.ones((), self._dtype) << col.astype(self._dtype)
        zero = jnp.zeros((), self._dtype)
        move = [jnp.where(row == r, bit, zero) for r in range(n)]

        flips = self._flips(move, mover, opponent)
        mover = [m | x | f for m, x, f in zip(mover, move, flips)]
        opponent = [o & ~f for o, f in zip(opponent, flips)]
        # The opponent moves next: its discs come first.
        board = jnp.stack([jnp.stack(opponent), jnp.stack(mover)])  # [2, H]
        legal_mask = self._legal_mask(opponent, mover)

        counts = jnp.sum(jax.lax.population_count(board).astype(jnp.int32), axis=1)
        full = counts[0] + counts[1] == n * n
        next_has_none = counts[0] == 0
        terminated = full | next_has_none | (state._passed & is_pass)
        result = jnp.sign(counts[1] - counts[0]).astype(jnp.float32) * terminated
        rewards = jnp.where(jnp.arange(2) == state.current_player, result, -result)
        return state.replace(
            current_player=1 - state.current_player,
            rewards=rewards,
            terminated=terminated,
            legal_action_mask=legal_mask,
            _board=board,
            _turn=1 - state._turn,
            _passed=is_pass,
        )

    def _observe(self, state: State, player_id: jax.Array) -> jax.Array:
        board = jnp.where(player_id == state.current_player, state._board, state._board[::-1])
        bits = jnp.arange(self.size, dtype=self._dtype)
        # [H, 1, 2] >> [1, W, 1]: cell (r, c) of plane p is bit c of board[p, r].
        return ((board.T[:, None, :] >> bits[None, :, None]) & 1).astype(jnp.bool_)

    # ----------------------------------------------------------------------------------
    # Random playouts: a position is the State, played with `_step` (without `step`'s
    # observation and checks). The move is chosen on the legal mask: chosen on row
    # bitmasks (`kth_set_bit`), a ply ran 2-3x slower on a CPU, as XLA repeated the choice
    # inside each use of the move by the flips.

    def playout_rules(self) -> PlayoutRules:
        return PlayoutRules(
            start=lambda state: state,
            choose=lambda state, u: kth_legal_action(u, state.legal_action_mask),
            play=self._playout_play,
        )

    def _playout_play(self, state: State, action: jax.Array):
        after = self._step(state, action)
        return after, after.terminated, after.rewards[state.current_player]

    # ----------------------------------------------------------------------------------
    # Boards for tests, rendering and scripted positions.

    @property
    def labelled_set_name(self) -> str:
        return registry.get("othello").labelled_set_name({"size": self.size})

    def illegal_reason(self, state, action: int) -> str:
        reason = super().illegal_reason(state, action)
        if reason.endswith("is not a legal move"):  # an empty cell that brackets nothing
            return f"{self.action_label(action)} flips no disc"
        return reason

    def board_array(self, state: State) -> np.ndarray:
        """`[size, size]` int8 of EMPTY/FIRST/SECOND for one unbatched state."""
        planes = _unpack_np(np.asarray(state._board), self.size)  # [2, H, W] bool
        board = np.full(self.board_shape, EMPTY, dtype=np.int8)
        mover_colour = self.colour_to_move(state)
        board[planes[0]] = mover_colour
        board[planes[1]] = FIRST + SECOND - mover_colour
        return board

    def colour_to_move(self, state: State) -> int:
        return FIRST if int(np.asarray(state._turn)) == 0 else SECOND

    def from_board(self, board: np.ndarray, to_move: int, current_player: int = 0) -> State:
        """A State for a scripted position.

        The state has `_step_count` 0 and no pass behind it. It is terminal when the board
        is full or either side has no discs; it then carries the result in `rewards` (as
        if the last move had ended the game) and an all-True legal mask, as pgx shows
        terminal states. A position where neither side can move is not terminal: as in
        play, two forced passes end it (`from_ascii` of a rendered finished game gives
        the state after them).

        Args:
          board: `[size, size]` of EMPTY/FIRST/SECOND (absolute colours).
          to_move: FIRST or SECOND, the colour of the player to move.
          current_player: the player id (0 or 1) of the player to move.

        Returns:
          One unbatched State.
        """
        return self._scripted(board, to_move, current_player, passed_twice=False)

    def from_ascii(self, text: str, to_move: str = "X", current_player: int = 0) -> State:
        """As `GameEnv.from_ascii`, and a "game over" line, as `render` prints for a
        finished game, ends a position where neither side can move as if both had passed
        (so that `from_ascii(render(state))` gives back a game ended by two passes).

        Raises:
          ValueError: for a bad board, or a "game over" line under a board where a side
            can still move.
        """
        state = super().from_ascii(text, to_move, current_player)
        if "game over" not in text or bool(state.terminated):
            return state
        board, colour = self.board_array(state), self.colour_to_move(state)
        return self._scripted(board, colour, current_player, passed_twice=True)

    def _scripted(self, board, to_move, current_player, passed_twice: bool) -> State:
        """`from_board`; with `passed_twice`, the position after two passes (terminal)."""
        board = np.asarray(board)
        n = self.size
        if board.shape != self.board_shape:
            raise ValueError(f"board must be {self.board_shape}, got {board.shape}")
        if not np.isin(board, (EMPTY, FIRST, SECOND)).all():
            raise ValueError("board cells must be EMPTY, FIRST or SECOND")
        if to_move not in (FIRST, SECOND):
            raise ValueError(f"to_move must be FIRST or SECOND, got {to_move!r}")
        if current_player not in (0, 1):
            raise ValueError(f"current_player must be 0 or 1, got {current_player!r}")
        current_player = int(current_player)
        weights = 1 << np.arange(n, dtype=np.int64)
        mine, theirs = board == to_move, board == FIRST + SECOND - to_move
        rows = np.stack([(mine * weights).sum(axis=1), (theirs * weights).sum(axis=1)])
        rows = jnp.asarray(rows.astype(self._dtype))
        terminated = bool((board != EMPTY).all()) or not mine.any() or not theirs.any()
        if passed_twice and not terminated:
            stuck = [bool(self._host_legal_mask(r)[n * n]) for r in (rows, rows[::-1])]
            if not all(stuck):
                raise ValueError("'game over' under a board where a side can still move")
            terminated = True
        rewards = np.zeros(2, dtype=np.float32)
        if terminated:
            result = np.sign(int(mine.sum()) - int(theirs.sum()))
            rewards[current_player], rewards[1 - current_player] = result, -result
            mask = jnp.ones(n * n + 1, dtype=jnp.bool_)
        else:
            mask = self._host_legal_mask(rows)
        return State(
            current_player=jnp.int32(current_player),
            observation=jnp.asarray(np.stack([mine, theirs], axis=-1)),
            rewards=jnp.asarray(rewards),
            terminated=jnp.bool_(terminated),
            truncated=jnp.bool_(False),
            legal_action_mask=mask,
            _step_count=jnp.int32(0),
            _board=rows,
            _turn=jnp.int8(0 if to_move == FIRST else 1),
            _passed=jnp.bool_(passed_twice),
        )

    @functools.cached_property
    def _host_legal_mask(self):
        """Jitted `[2, H] rows -> [A]` legal mask of the first row set; for `from_board`.

        Host-side only (scripted positions, tests): jitting once per env keeps
        `from_board` cheap where eager dispatch of the unrolled helpers would not be.
        """
        return jax.jit(lambda rows: self._legal_mask(self._rows(rows[0]), self._rows(rows[1])))

    # ----------------------------------------------------------------------------------
    # Bitboard helpers. A board is a Python list of `size` row bitmasks, each `[]` (or
    # `[B]` under vmap); lists are per direction where so named.

    def _rows(self, rows: jax.Array) -> list[jax.Array]:
        return [rows[r] for r in range(self.size)]

    def _shift(self, rows: list, dr: int, dc: int) -> list:
        """Moves every disc one cell by `(dr, dc)`; discs leaving the board vanish.

        Moving right can leave bits above column size-1 (in rows narrower than their
        dtype). They are never masked: every shifted value is ANDed with real discs or
        ends in `_legal_mask`, whose unpacking reads columns 0..size-1 only.
        """
        if dc == 1:
            rows = [x << 1 for x in rows]
        elif dc == -1:
            rows = [x >> 1 for x in rows]
        if dr == 1:
            rows = [jnp.zeros_like(rows[0])] + rows[:-1]
        elif dr == -1:
            rows = rows[1:] + [jnp.zeros_like(rows[0])]
        return rows

    def _run(self, start: list, through: list, dr: int, dc: int) -> list:
        """Cells of `through` reached from `start` by steps `(dr, dc)` on `through` only.

        A run between two cells of a line has at most size-2 cells, hence size-2 steps.
        """
        run = _and(self._shift(start, dr, dc), through)
        for _ in range(self.size - 3):
            run = _or(run, _and(self._shift(run, dr, dc), through))
        return run

    def _reduce_or(self, per_direction: list) -> list:
        """OR over directions of `[direction][row]` bitmasks, as one reduction."""
        stacked = jnp.stack([jnp.stack(rows) for rows in per_direction])  # [8, H]
        merged = jax.lax.reduce(stacked, self._dtype(0), jax.lax.bitwise_or, (0,))
        return self._rows(merged)

    def _flips(self, move: list, player: list, opponent: list) -> list:
        """Opponent discs flipped when `player` places the single disc in `move`.

        In direction d a disc flips when it lies both on the opponent run that starts
        next to the move (going d) and on an opponent run that ends next to a `player`
        disc (going -d from that disc): then the run from the move to that disc is
        unbroken, so it is bracketed. Unlike "run, then check its far end", this needs
        no whole-board test per direction, so every row's value is a short chain.
        """
        return self._reduce_or(
            [
                _and(self._run(move, opponent, dr, dc), self._run(player, opponent, -dr, -dc))
                for dr, dc in _DIRECTIONS
            ]
        )

    def _legal_mask(self, player: list, opponent: list) -> jax.Array:
        """`[H*W + 1]` bool legal mask of `player`: the empty cells where it brackets a
        line of `opponent` discs, and the pass where there is none."""
        ends = self._reduce_or(
            [self._shift(self._run(player, opponent, dr, dc), dr, dc) for dr, dc in _DIRECTIONS]
        )
        legal = jnp.stack([x & ~(p | o) for x, p, o in zip(ends, player, opponent)])
        bits = jnp.arange(self.size, dtype=self._dtype)
        cells = ((legal[:, None] >> bits) & 1).astype(jnp.bool_).reshape(-1)
        return jnp.concatenate([cells, ~jnp.any(cells, keepdims=True)])


def _and(a: list, b: list) -> list:
    return [x & y for x, y in zip(a, b)]


def _or(a: list, b: list) -> list:
    return [x | y for x, y in zip(a, b)]


def _unpack_np(rows: np.ndarray, size: int) -> np.ndarray:
    """NumPy: `[..., H]` row bitmasks to `[..., H, W]` bool."""
    return ((rows.astype(np.int64)[..., None] >> np.arange(size)) & 1).astype(bool)


# --- registration ----------------------------------------------------------------------------

SPEC = registry.get("othello")  # registered by `games.builtin`
