"""The games warmjax trains on, through one registry (`warmjax.games.registry`), and `make`.

warmjax's own games (the papers' three 6×6 games, hand-written pgx environments, and pgx's
two-player games) are registered by `games.builtin` without importing their modules, so
that importing this package loads neither pgx nor JAX; a game's module is imported when the
game is first made. Another game registers itself (`registry.register`) when its module is
imported: `game.module=<module>`, or an entry point (`registry`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from warmjax.games import (
    builtin,  # noqa: F401 - registers warmjax's own games
    registry,
)

if TYPE_CHECKING:
    from warmjax.games.env import GameEnv

# Names this package offers that need JAX, imported when first used: name -> module.
_LAZY = {
    "EMPTY": "env", "FIRST": "env", "SECOND": "env", "GameEnv": "env",
    "board_from_ascii": "env", "GameCheckError": "conformance", "check_game": "conformance",
    "augment": "symmetry", "symmetry_tables": "symmetry",
}


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
    if name in _LAZY:
        return getattr(importlib.import_module(f"warmjax.games.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'warmjax.games' has no attribute {name!r}")


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
