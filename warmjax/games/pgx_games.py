"""pgx's own two-player games through one adapter, registered as warmjax games.

    python -m warmjax.run +experiment=adaptive game=registered game.name=hex \
        game.params.size=7 profile=smoke

`PgxGame` wraps a pgx environment: `init`, `step` and the observation are pgx's own (its
`_init`, `_step` and `_observe`, under pgx's `Env.step`), so states, legal masks, rewards
and observations are exactly pgx's, and pgx's visualiser (`state.save_svg`) draws them. On
top it adds what warmjax needs of a game: the board shape (the observation's first two
axes), a symmetry kind, and `max_plies` from the game's own step cap.

Registered (names that clash with warmjax's own games get a `pgx_` prefix). The step cap
sizes the buffers; where it ends games the rules have not (†), those games count as
truncated in the metrics (`selfplay_truncated`): draws in the chess-like games, scored by
area in Go, as pgx rules them (Go's cap is its `max_terminal_steps` setting). Actions read
as cell names (`c4`), column letters, `pass`, `swap`, or pgx's action ids (`#89`) where
moves are not cells; piece games are drawn from their piece planes.

| name | pgx id | settings | symmetry | step cap | actions |
|---|---|---|---|---|---|
| tic_tac_toe | tic_tac_toe | | dihedral | 9 | cells |
| pgx_connect_four | connect_four (6×7) | | mirror | 42 | columns |
| pgx_othello | othello (8×8) | | dihedral (pass fixed) | 130 | cells, pass |
| hex | hex | size (11) | rot180 (swap fixed) | size² + 1 | cells, swap |
| go | go | size, komi, history_length, cap | dihedral (pass fixed) | 2·size² † | cells, pass |
| animal_shogi | animal_shogi | | none | 256 † | ids |
| gardner_chess | gardner_chess | | none | 256 † | ids |
| chess | chess | | none | 512 † | ids |
| shogi | shogi | | none | 512 † | ids |

pgx's other games are refused by `make_pgx`, each with the reason: chance (backgammon), one
player (2048, MinAtar), three players (sparrow mahjong), hidden information (the poker
games, bridge bidding).
"""

from __future__ import annotations

from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pgx
import pgx.core

from warmjax.games import registry
from warmjax.games.env import EMPTY, FIRST, SECOND, GameEnv, board_svg, column_letter
from warmjax.games.pgx_kinds import (  # noqa: F401 - the table, under its old home
    KINDS,
    REFUSED,
    PgxKind,
    refusal,
    refused_message,
)


def _pgx_env(kind: PgxKind, params: dict) -> pgx.core.Env:
    """The pgx environment of `kind` with `params` (unknown settings refused by name)."""
    unknown = sorted(set(params) - set(kind.params))
    if unknown:
        raise ValueError(f"{kind.pgx_id} takes no setting {', '.join(unknown)}"
                         + (f" (it takes {', '.join(kind.params)})" if kind.params else ""))
    if kind.pgx_id == "hex":
        size = int(params["size"])
        if size < 2:
            raise ValueError(f"size: Hex needs a board of at least 2×2, got {size}")
        from pgx.hex import Hex

        return Hex(size=size)
    if kind.pgx_id == "go":
        size = int(params["size"])
        if not 2 <= size <= 19:
            raise ValueError(f"size: pgx plays Go on boards of 2×2 to 19×19, got {size}")
        from pgx.go import Go

        cap = params["max_terminal_steps"]
        if cap is not None and int(cap) < 1:
            raise ValueError(f"max_terminal_steps: Go's step cap must be at least 1, got {cap}")
        return Go(size=size, komi=float(params["komi"]),
                  history_length=int(params["history_length"]),
                  max_terminal_steps=None if cap is None else int(cap))
    return pgx.make(kind.pgx_id)


class PgxGame(GameEnv):
    """A pgx two-player game as a warmjax `GameEnv` (module docstring).

    Args:
      name: its registered name (a key of `KINDS`).
      **params: its pgx settings (Hex's and Go's board size, Go's komi and history).
    """

    symmetry: ClassVar[str] = "none"  # set per instance from its kind

    def __init__(self, name: str, **params):
        super().__init__()
        if name not in KINDS:
            raise ValueError(f"unknown pgx game {name!r}; choose one of {', '.join(KINDS)}")
        kind = KINDS[name]
        self._kind = kind
        self._params = {**kind.params, **params}
        self._pgx = _pgx_env(kind, self._params)
        self.name = name
        self.symmetry = kind.symmetry
        self.truncates = kind.truncates
        first = self.init(jax.random.key(0))  # once: pgx's defaults would init on every call
        self._num_actions = int(first.legal_action_mask.shape[0])
        self._observation_shape = tuple(first.observation.shape)

    # pgx's API, delegated: the states are the wrapped game's own.
    def _init(self, key):
        if self._kind.pgx_id == "hex" and self._params["size"] != 11:
            return _hex_init(key, int(self._params["size"]))
        return self._pgx._init(key)

    def _step(self, state, action, key):
        return self._pgx._step(state, action, key)

    def _observe(self, state, player_id):
        return self._pgx._observe(state, player_id)

    @property
    def id(self):
        return self._pgx.id

    @property
    def version(self):
        return self._pgx.version

    @property
    def num_players(self) -> int:
        return 2

    @property
    def num_actions(self) -> int:
        return self._num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return self._observation_shape

    @property
    def pgx_env(self) -> pgx.core.Env:
        """The wrapped pgx environment."""
        return self._pgx

    # What warmjax adds.
    @property
    def board_shape(self) -> tuple[int, int]:
        shape = self.observation_shape
        return int(shape[0]), int(shape[1])

    @property
    def max_plies(self) -> int:
        """The game's own step cap (pgx ends a game there; warmjax's buffers are sized by
        it)."""
        return int(self._kind.cap(self._params))

    def colour_to_move(self, state) -> int:
        """FIRST on even plies, SECOND on odd ones (every pgx move, a pass or Hex's swap
        included, is one ply)."""
        return FIRST if int(state._step_count) % 2 == 0 else SECOND

    def to_svg(self, state, *, scale: float | None = None,
               last: tuple[int, int] | None = None) -> str:
        """pgx's drawing of the state where its visualiser knows the game and size (it marks
        no last move), else warmjax's own (`env.board_svg`, from the observation's current
        planes: Go at sizes other than 9×9 and 19×19)."""
        if np.ndim(state.current_player) != 0:
            raise ValueError("to_svg draws one state; index a batch first (state[i])")
        try:
            return state.to_svg(scale=scale)
        except AssertionError:  # pgx's visualiser: a size it has no layout for
            return board_svg(state.observation, self.colour_to_move(state) == FIRST,
                             scale=scale, last=last)

    def board_array(self, state) -> np.ndarray:
        """A generic board from the observation: plane 0 (the mover's pieces) and plane 1
        (the opponent's) where the observation has them, as colours."""
        obs = np.asarray(state.observation)
        board = np.full(self.board_shape, EMPTY, np.int8)
        if obs.ndim != 3 or obs.shape[-1] < 2:
            return board
        mover = self.colour_to_move(state)
        board[obs[..., 0] > 0] = mover
        board[obs[..., 1] > 0] = 3 - mover
        return board

    # Reading and drawing moves and boards: a generic form from the kind's action style
    # and the observation's planes (play, versus and the tournament use these).
    def action_label(self, action: int) -> str:
        """A cell name (`c4`), `pass`, `swap`, a column letter, or `#id` for games whose
        actions are not cells (the chess-like games: pgx's action ids)."""
        action, style = int(action), self._kind.actions
        rows, cols = self.board_shape
        if style == "ids":
            return f"#{action}"
        if style == "columns":
            return column_letter(action)
        if action == rows * cols:
            return "swap" if style == "cells+swap" else "pass"
        return super().action_label(action)

    def parse_action(self, text: str) -> int:
        """Inverse of `action_label` (also a bare id for the chess-like games); raises
        ValueError naming the problem."""
        style, word = self._kind.actions, text.strip().lower()
        rows, cols = self.board_shape
        if style == "ids":
            digits = word.removeprefix("#")
            if not digits.isdigit() or int(digits) >= self.num_actions:
                raise ValueError(f"cannot read move {text!r}: expected an action id "
                                 f"#0 to #{self.num_actions - 1}")
            return int(digits)
        if style == "columns":
            if len(word) != 1 or not "a" <= word <= column_letter(cols - 1):
                raise ValueError(f"cannot read move {text!r}: expected a column a to "
                                 f"{column_letter(cols - 1)}")
            return ord(word) - ord("a")
        if word in ("pass", "swap"):
            allowed = {"cells+pass": "pass", "cells+swap": "swap"}.get(style)
            if word != allowed:
                raise ValueError(f"cannot read move {text!r}: {self.name} has no {word}")
            return rows * cols
        return super().parse_action(word)

    def illegal_reason(self, state, action: int) -> str:
        """Why `action` is not legal in one (unbatched) state, in words."""
        style, label = self._kind.actions, self.action_label(action)
        rows, cols = self.board_shape
        if style == "ids":
            return f"{label} is not a legal move here"
        if style == "columns":
            return f"column {label} is full"
        if action == rows * cols and style == "cells+swap":
            return "swap is legal only as the second player's first move"
        return super().illegal_reason(state, action)

    def render(self, state, previous=None) -> str:
        """ASCII picture of one (unbatched) state. Stone games as `GameEnv.render` (X the
        first mover); piece games from the observation's piece planes, seen from the player
        to move (upper case its pieces, lower case the opponent's)."""
        if not self._kind.pieces:
            return super().render(state, previous)
        obs = np.asarray(state.observation)
        rows, cols = self.board_shape
        width = max(len(token) for _, token in self._kind.pieces)
        grid = [["." for _ in range(cols)] for _ in range(rows)]
        for plane, token in self._kind.pieces:
            for r, c in np.argwhere(obs[..., plane] > 0):
                grid[r][c] = token
        lines = ["   " + " ".join(column_letter(c).rjust(width) for c in range(cols))]
        lines += [f"{r + 1:>2} " + " ".join(t.rjust(width) for t in row)
                  for r, row in enumerate(grid)]
        side = {FIRST: "X (first mover)", SECOND: "O (second mover)"}
        if bool(np.asarray(state.terminated)):
            winner = self.winner(state)
            lines.append("game over: draw" if winner is None
                         else f"game over: {side[winner].split()[0]} wins")
        else:
            lines.append(f"{side[self.colour_to_move(state)]} to move; upper case are its "
                         f"pieces, seen from its side")
        return "\n".join(lines)

    @property
    def labelled_set_name(self) -> str | None:
        """`<game>_<rows>x<cols>.json` for the games with an exact solver
        (`builtin.PGX_LABELS`): tic-tac-toe's every reachable position, Hex's endgames on
        boards up to 7×7."""
        return registry.get(self.name).labelled_set_name(self._params)

    def from_board(self, board, to_move: int, current_player: int = 0):
        raise ValueError(f"{self.name}: scripted positions are not available for pgx games; "
                         "reach positions by playing moves from init")


def _hex_init(key, size: int):
    """pgx 2.6's Hex state for a `size`×`size` board: its `Hex(size=n)` plays on n×n but
    builds its initial state with 11×11 defaults (the board, the legal mask), so `init`
    fails for n ≠ 11; this builds the same state with the right sizes."""
    from pgx.hex import State

    order = jnp.array([[0, 1], [1, 0]])[jax.random.bernoulli(key).astype(jnp.int32)]
    x = State()._x._replace(board=jnp.zeros(size * size, jnp.int32))  # pgx's game state
    return State(current_player=order[x.color], _player_order=order, _x=x,
                 observation=jnp.zeros((size, size, 4), jnp.bool_),
                 legal_action_mask=jnp.ones(size * size + 1, jnp.bool_).at[-1].set(False))


def make_pgx(pgx_id: str, **params) -> PgxGame:
    """The adapter for a pgx game named by its pgx id (or registered name).

    Raises:
      ValueError: a pgx game warmjax cannot play (chance, not two players, hidden
        information), an unknown id, or a setting it does not take; one line naming why.
    """
    if refusal(pgx_id) is not None:
        raise ValueError(f"pgx game {pgx_id!r} is not supported: {refusal(pgx_id)}")
    name = next((n for n, k in KINDS.items() if n == pgx_id), None) or next(
        (n for n, k in KINDS.items() if k.pgx_id == pgx_id), None)
    if pgx_id.startswith("go_") and pgx_id[3:].split("x")[0].isdigit():
        return PgxGame("go", **{"size": int(pgx_id[3:].split("x")[0]), **params})
    if name is None:
        raise ValueError(f"unknown pgx game {pgx_id!r}; supported: {', '.join(KINDS)}")
    return PgxGame(name, **params)


__all__ = ["KINDS", "REFUSED", "PgxGame", "make_pgx"]
