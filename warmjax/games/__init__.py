"""The games warmjax trains on, through one registry (`warmjax.games.registry`), and `make`.

The papers' three games (6×6 Othello, Connect Four and Gobang) are hand-written pgx
environments that register themselves when their modules are imported here; another game
registers itself the same way (`registry.register`).
"""

# The games register themselves in import order, which ruff must not sort:
# ruff: noqa: I001
from __future__ import annotations

# The papers' games register themselves, in the order the papers' tables list them (the
# order of reports).
from warmjax.games import othello  # noqa: I001, F401
from warmjax.games import connect_four  # noqa: F401
from warmjax.games import gobang  # noqa: F401
from warmjax.games import pgx_games  # noqa: F401 - pgx's two-player games
from warmjax.games import registry
from warmjax.games.conformance import GameCheckError, check_game
from warmjax.games.env import EMPTY, FIRST, SECOND, GameEnv, board_from_ascii
from warmjax.games.symmetry import augment, symmetry_tables


def make(name: str, **params) -> GameEnv:
    """Builds a registered game by name.

    Args:
      name: a registered game (`registry.names()`): "othello" (`size=6`), "connect_four"
        (`rows=6, cols=6, win_length=4`), "gobang" (`size=6, win_length=4`), ...
      **params: the game's constructor settings, over its registered defaults.

    Returns:
      A `GameEnv` (a `pgx.core.Env`); `init` and `step` are pure and jit/vmap-able.

    Raises:
      ValueError: for an unknown game or a setting the game does not have.
    """
    return registry.get(name).make(**params)


def __getattr__(name: str):
    if name == "GAMES":  # the registered games, as they stand now
        return registry.names()
    raise AttributeError(name)


__all__ = [
    "EMPTY",
    "FIRST",
    "GAMES",
    "SECOND",
    "GameEnv",
    "augment",
    "GameCheckError",
    "board_from_ascii",
    "check_game",
    "make",
    "registry",
    "symmetry_tables",
]
