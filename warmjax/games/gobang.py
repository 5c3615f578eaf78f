"""Gobang (free-style k-in-a-row) on a `size x size` board (SPEC §1), as a pgx environment.

A move places a stone of the mover's colour on any empty cell; actions are cells
`r * size + c`. `win_length` in a row horizontally, vertically or diagonally wins, longer
lines (overlines) included; a full board without a line is a draw. There is no pass.
Playing on an occupied cell is illegal: pgx's `Env.step` ends the game with -1 for the
mover, and the board keeps its previous stones.

Rewards are by player id, +1 to the winner and -1 to the loser. (AlphaZero General's Gobang
returns the winner's colour instead, which flips value targets; SPEC §1 says not to copy
that.) Only the windows through the new stone are checked for a win, from a per-cell table
built once in the constructor.
"""

from __future__ import annotations

from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
from pgx import core
from pgx._src.struct import dataclass

from warmjax.games import lines
from warmjax.games.env import EMPTY, FIRST, GameEnv

Array = jax.Array


@dataclass
class State(core.State):
    """One Gobang position; see `warmjax.games.env` for the public fields."""

    current_player: Array  # [] int32, id of the player to move
    observation: Array  # [H, W, 2] bool, plane 0: stones of the player to move
    rewards: Array  # [2] float32, by player id
    terminated: Array  # [] bool
    truncated: Array  # [] bool, always False
    legal_action_mask: Array  # [A] bool, A = H*W
    _step_count: Array  # [] int32
    _board: Array  # [H*W] int8, EMPTY/FIRST/SECOND (absolute colours)
    _colour: Array  # [] int8, FIRST or SECOND: the colour to move

    @property
    def env_id(self) -> str:
        return "gobang"


class Gobang(GameEnv):
    """Gobang on a square board.

    Args:
      size: board side (default 6, as in the papers).
      win_length: stones in a row needed to win (default 4; 5 is the classical game).

    Raises:
      ValueError: if the board is empty or `win_length` does not fit on it.
    """

    name: ClassVar[str] = "gobang"
    symmetry: ClassVar[str] = "dihedral"

    def __init__(self, size: int = 6, win_length: int = 4):
        super().__init__()
        size, win_length = int(size), int(win_length)
        lines.check_win_length(size, size, win_length)
        self._size, self._win_length = size, win_length
        windows = lines.all_windows(size, size, win_length)
        table = lines.windows_through_cells(windows, size * size)
        self._cell_windows = jnp.asarray(table)  # [H*W, K, win_length] int32
        # Row of `_win_rewards` indexed by the winner's id.
        self._win_rewards = jnp.asarray([[1.0, -1.0], [-1.0, 1.0]], dtype=jnp.float32)

    # ----------------------------------------------------------------------------------
    # pgx API.

    def _init(self, key: Array) -> State:
        size = self._size
        return State(
            current_player=jnp.int32(jax.random.bernoulli(key)),
            observation=jnp.zeros((size, size, 2), dtype=jnp.bool_),
            rewards=jnp.zeros(2, dtype=jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            legal_action_mask=jnp.ones(size * size, dtype=jnp.bool_),
            _step_count=jnp.int32(0),
            _board=jnp.zeros(size * size, dtype=jnp.int8),
            _colour=jnp.int8(FIRST),
        )

    def _step(self, state: State, action: Array, key) -> State:
        del key
        colour = state._colour
        # Only an empty cell takes the stone, so an illegal move leaves the board as it was.
        place = (jnp.arange(self._size * self._size) == action) & (state._board == EMPTY)
        board = jnp.where(place, colour, state._board)
        won = lines.completes_line(board, self._cell_windows, action, colour)
        legal = board == EMPTY
        rewards = jnp.where(won, self._win_rewards[state.current_player], 0.0)
        return state.replace(
            current_player=1 - state.current_player,
            rewards=rewards,
            terminated=won | ~legal.any(),
            legal_action_mask=legal,
            _board=board,
            _colour=3 - colour,
        )

    def _observe(self, state: State, player_id: Array) -> Array:
        colour = jnp.where(player_id == state.current_player, state._colour, 3 - state._colour)
        board = state._board.reshape(self._size, self._size)
        return jnp.stack([board == colour, board == 3 - colour], axis=-1)

    @property
    def id(self) -> str:
        return "gobang"

    @property
    def version(self) -> str:
        return "v0"

    @property
    def num_actions(self) -> int:
        return self._size * self._size

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        return (self._size, self._size, 2)

    # ----------------------------------------------------------------------------------
    # GameEnv API.

    @property
    def board_shape(self) -> tuple[int, int]:
        return (self._size, self._size)

    @property
    def win_length(self) -> int:
        return self._win_length

    def board_array(self, state: State) -> np.ndarray:
        return np.asarray(state._board, dtype=np.int8).reshape(self._size, self._size)

    def colour_to_move(self, state: State) -> int:
        return int(state._colour)

    def from_board(self, board, to_move: int, current_player: int = 0) -> State:
        """A State for a scripted position.

        Args:
          board: `[size, size]` of EMPTY/FIRST/SECOND.
          to_move: FIRST or SECOND, the colour to move.
          current_player: the id (0 or 1) of the player to move.

        Returns:
          An unbatched State. If a line is on the board its owner has won (rewards +1/-1
          by id, terminated); a full board without a line is a terminated draw. The step
          count is the number of stones.

        Raises:
          ValueError: for a malformed board or lines of both colours.
        """
        size = self._size
        board, to_move, current_player = lines.check_scripted_board(
            board, (size, size), to_move, current_player
        )
        terminated, rewards = lines.board_result(board, self._win_length, to_move, current_player)
        empty = (board == EMPTY).reshape(-1)
        legal = np.ones(size * size, dtype=bool) if terminated else empty
        state = State(
            current_player=jnp.int32(current_player),
            observation=jnp.zeros((size, size, 2), dtype=jnp.bool_),
            rewards=jnp.asarray(rewards),
            terminated=jnp.bool_(terminated),
            truncated=jnp.bool_(False),
            legal_action_mask=jnp.asarray(legal),
            _step_count=jnp.int32((~empty).sum()),
            _board=jnp.asarray(board.reshape(-1), dtype=jnp.int8),
            _colour=jnp.int8(to_move),
        )
        return state.replace(observation=self.observe(state))
