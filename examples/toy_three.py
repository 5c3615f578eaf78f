"""A game kept outside warmjax: three in a row on a small square board, in one module.

Nothing in warmjax knows this file. Put its folder on PYTHONPATH and name the module:

    PYTHONPATH=examples python -m warmjax.run +experiment=adaptive game=registered \
        game.name=toy_three game.module=toy_three profile=smoke

Check it first, as any new game: `PYTHONPATH=examples python -c "import toy_three;
from warmjax.games import check_game, make; check_game(make('toy_three'))"`.
"""

from __future__ import annotations

import itertools
from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
from flax.struct import dataclass
from pgx import core

from warmjax.games import EMPTY, FIRST, GameEnv
from warmjax.games.registry import GameSpec, Labels, register
from warmjax.probe import search_labels


@dataclass
class ToyState(core.State):
    current_player: jax.Array
    observation: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    legal_action_mask: jax.Array
    _step_count: jax.Array
    _board: jax.Array  # [size*size] int8 of EMPTY/FIRST/SECOND
    _colour: jax.Array  # [] int8, the colour to move

    @property
    def env_id(self) -> str:
        return "toy_three"


def _windows(size: int, length: int) -> np.ndarray:
    """Every line of `length` cells on a `size`×`size` board, as cell indices."""
    out = []
    for r, c in itertools.product(range(size), repeat=2):
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            cells = [(r + k * dr, c + k * dc) for k in range(length)]
            if all(0 <= x < size and 0 <= y < size for x, y in cells):
                out.append([x * size + y for x, y in cells])
    return np.asarray(out, np.int32)


class ToyThree(GameEnv):
    """Three in a row on a small square board: a game the package has never heard of."""

    name: ClassVar[str] = "toy_three"
    symmetry: ClassVar[str] = "dihedral"

    def __init__(self, size: int = 5):
        super().__init__()
        self._size = int(size)
        self._lines = jnp.asarray(_windows(self._size, 3))

    def _init(self, key):
        n = self._size
        return ToyState(current_player=jnp.int32(jax.random.bernoulli(key)),
                        observation=jnp.zeros((n, n, 2), jnp.bool_),
                        rewards=jnp.zeros(2, jnp.float32), terminated=jnp.bool_(False),
                        truncated=jnp.bool_(False),
                        legal_action_mask=jnp.ones(n * n, jnp.bool_),
                        _step_count=jnp.int32(0), _board=jnp.zeros(n * n, jnp.int8),
                        _colour=jnp.int8(FIRST))

    def _step(self, state, action, key):
        del key
        board = state._board.at[action].set(state._colour)
        won = jnp.any(jnp.all(board[self._lines] == state._colour, axis=1))
        legal = board == EMPTY
        winner = state.current_player
        rewards = jnp.where(won, jnp.where(jnp.arange(2) == winner, 1.0, -1.0), 0.0)
        return state.replace(current_player=1 - state.current_player,
                             rewards=rewards.astype(jnp.float32),
                             terminated=won | ~legal.any(), legal_action_mask=legal,
                             _board=board, _colour=(3 - state._colour).astype(jnp.int8))

    def _observe(self, state, player_id):
        colour = jnp.where(player_id == state.current_player, state._colour, 3 - state._colour)
        board = state._board.reshape(self._size, self._size)
        return jnp.stack([board == colour, board == 3 - colour], axis=-1)

    @property
    def id(self):
        return self.name

    @property
    def version(self):
        return "v0"

    @property
    def num_actions(self):
        return self._size * self._size

    @property
    def observation_shape(self):
        return (self._size, self._size, 2)

    @property
    def board_shape(self):
        return (self._size, self._size)

    def board_array(self, state):
        return np.asarray(state._board, np.int8).reshape(self._size, self._size)

    def colour_to_move(self, state):
        return int(state._colour)

    def from_board(self, board, to_move, current_player=0):
        raise NotImplementedError("toy_three has no scripted positions")


# Registered when imported: `game.module=toy_three`, or an entry point of a package. It has
# no exact solver: its labelled set (for the probe and the oracle) comes from a deep search
# of each move, `PYTHONPATH=examples python -m warmjax.labels --game toy_three`.
SPEC = register(GameSpec("toy_three", "Toy three", ToyThree, {"size": 5},
                         labels=Labels("ply", 2, 6, None, generate=search_labels.GENERATE)),
                replace=True)
