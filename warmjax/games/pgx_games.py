"""pgx's own two-player games through one adapter, registered as warmjax games.

    python -m warmjax.run +experiment=adaptive game=registered game.name=hex \
        game.params.size=7 profile=smoke

`PgxGame` wraps a pgx environment: `init`, `step` and the observation are pgx's own (its
`_init`, `_step` and `_observe`, under pgx's `Env.step`), so states, legal masks, rewards
and observations are exactly pgx's, and pgx's visualiser (`state.save_svg`) draws them. On
top it adds what warmjax needs of a game: the board shape (the observation's first two
axes), a symmetry kind, and `max_plies` from the game's own step cap.

Registered (names that clash with warmjax's own games get a `pgx_` prefix):

| name | pgx id | settings | symmetry | step cap |
|---|---|---|---|---|
| tic_tac_toe | tic_tac_toe | | dihedral | 9 |
| pgx_connect_four | connect_four (6×7) | | mirror | 42 |
| pgx_othello | othello (8×8) | | dihedral (pass fixed) | 130 |
| hex | hex | size (11) | rot180 (swap fixed) | size² + 1 |
| go | go | size (9), komi (7.5), history_length (8) | dihedral (pass fixed) | 2·size² |
| animal_shogi | animal_shogi | | none | 256 |
| gardner_chess | gardner_chess | | none | 256 |
| chess | chess | | none | 512 |
| shogi | shogi | | none | 512 |

pgx's other games are refused by `make_pgx`, each with the reason: chance (backgammon), one
player (2048, MinAtar), three players (sparrow mahjong), hidden information (the poker
games, bridge bidding).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pgx
import pgx.core

from warmjax.games.env import EMPTY, FIRST, SECOND, GameEnv
from warmjax.games.registry import GameSpec, Labels, register


@dataclasses.dataclass(frozen=True)
class PgxKind:
    """One pgx game as warmjax sees it: its pgx id, constructor settings, symmetry kind and
    step cap (`cap(settings)`: the most plies a game can last)."""

    pgx_id: str
    title: str
    params: dict
    symmetry: str
    cap: Any  # settings -> int


def _go_cap(p):
    return 2 * p.get("size", 19) * p.get("size", 19) if p.get("max_terminal_steps") is None \
        else p["max_terminal_steps"]


KINDS: dict[str, PgxKind] = {
    "tic_tac_toe": PgxKind("tic_tac_toe", "Tic-tac-toe", {}, "dihedral", lambda p: 9),
    "pgx_connect_four": PgxKind("connect_four", "Connect Four 6×7 (pgx)", {}, "mirror",
                                lambda p: 42),
    "pgx_othello": PgxKind("othello", "Othello 8×8 (pgx)", {}, "dihedral", lambda p: 130),
    "hex": PgxKind("hex", "Hex", {"size": 11}, "rot180", lambda p: p["size"] ** 2 + 1),
    "go": PgxKind("go", "Go", {"size": 9, "komi": 7.5, "history_length": 8}, "dihedral",
                  _go_cap),
    "animal_shogi": PgxKind("animal_shogi", "Animal shogi", {}, "none", lambda p: 256),
    "gardner_chess": PgxKind("gardner_chess", "Gardner chess", {}, "none", lambda p: 256),
    "chess": PgxKind("chess", "Chess", {}, "none", lambda p: 512),
    "shogi": PgxKind("shogi", "Shogi", {}, "none", lambda p: 512),
}

REFUSED = {
    "backgammon": "it has chance (its step needs a key)",
    "2048": "it has one player",
    "sparrow_mahjong": "it has three players",
    "kuhn_poker": "it has hidden information",
    "leduc_holdem": "it has hidden information",
    "bridge_bidding": "it has hidden information (and four players)",
}


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

        return Go(size=size, komi=float(params["komi"]),
                         history_length=int(params["history_length"]))
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

    @property
    def labelled_set_name(self) -> str | None:
        """Tic-tac-toe's labelled set (every reachable position, `tictactoe_labels`)."""
        return "tic_tac_toe_3x3.json" if self.name == "tic_tac_toe" else None

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
    if pgx_id in REFUSED:
        raise ValueError(f"pgx game {pgx_id!r} is not supported: {REFUSED[pgx_id]}")
    if pgx_id.startswith("minatar"):
        raise ValueError(f"pgx game {pgx_id!r} is not supported: it has one player")
    name = next((n for n, k in KINDS.items() if n == pgx_id), None) or next(
        (n for n, k in KINDS.items() if k.pgx_id == pgx_id), None)
    if pgx_id.startswith("go_") and pgx_id[3:].split("x")[0].isdigit():
        return PgxGame("go", **{"size": int(pgx_id[3:].split("x")[0]), **params})
    if name is None:
        raise ValueError(f"unknown pgx game {pgx_id!r}; supported: {', '.join(KINDS)}")
    return PgxGame(name, **params)


def _tictactoe_labels(count, seed, params, low, high, log=None):
    """Every reachable position where the moves differ in value (the depth range and the
    seed do not apply: the set is exhaustive; `count` caps it). Tic-tac-toe is the (3, 3, 3)
    line game: the Gobang solver on a 3×3 board, three in a row (cells r·3 + c, pgx's
    action ids)."""
    del seed, low, high, log
    from warmjax.perfect import positions

    return positions.enumerate_line_game("tic_tac_toe", LABELS["tic_tac_toe"].make_solver(),
                                         params, count)


def _tictactoe_solver(**params):
    del params  # tic-tac-toe takes none
    from warmjax.perfect.gobang_solver import Solver

    return Solver(size=3, win_length=3)


LABELS = {"tic_tac_toe": Labels("ply", 0, 8, _tictactoe_solver, _tictactoe_labels)}

for _name, _kind in KINDS.items():
    register(GameSpec(_name, _kind.title, (lambda n: lambda **p: PgxGame(n, **p))(_name),
                      dict(_kind.params), labels=LABELS.get(_name)))

__all__ = ["KINDS", "REFUSED", "PgxGame", "make_pgx"]
