"""The three board games of the papers as pgx environments, and `make`."""

from __future__ import annotations

from warmjax.games.env import EMPTY, FIRST, SECOND, GameEnv, board_from_ascii
from warmjax.games.symmetry import augment, symmetry_tables

GAMES = ("othello", "connect_four", "gobang")


def make(name: str, **params) -> GameEnv:
    """Builds a game environment by name.

    Args:
      name: "othello" (`size=6`), "connect_four" (`rows=6, cols=6, win_length=4`) or
        "gobang" (`size=6, win_length=4`).
      **params: the game's constructor settings.

    Returns:
      A `GameEnv` (a `pgx.core.Env`); `init` and `step` are pure and jit/vmap-able.

    Raises:
      ValueError: for an unknown game or a setting the game does not have.
    """
    if name == "othello":
        from warmjax.games.othello import Othello as cls
    elif name == "connect_four":
        from warmjax.games.connect_four import ConnectFour as cls
    elif name == "gobang":
        from warmjax.games.gobang import Gobang as cls
    else:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    try:
        return cls(**params)
    except TypeError as err:
        raise ValueError(f"bad settings for {name}: {params} ({err})") from None


__all__ = [
    "EMPTY",
    "FIRST",
    "GAMES",
    "SECOND",
    "GameEnv",
    "augment",
    "board_from_ascii",
    "make",
    "symmetry_tables",
]
