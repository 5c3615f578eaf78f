"""warmjax from Python: the few names `import warmjax` offers (docs/api.md lists them).

    import warmjax
    game = warmjax.make_game("connect_four", rows=6, cols=6)
    agent = warmjax.load_agent("runs/adaptive_c4/profile=fast", temperature_moves=0)
    state = warmjax.position(game, "d d c")        # or ascii=..., to_move="O"
    look = agent.analyse(state)                    # compiled once, reused
    print(game.action_label(int(look.action)), float(look.value))

A position is one pgx state; `analyse` takes one, or a batch of them (every array with a
leading batch axis, as `jax.vmap(game.init)` makes), and answers in kind. An `Analyser` is
the same for any player, a network-free one needing no network. A player called directly,
`player(variables, key, states)` on a batch (`variables` None for a network-free one), is a
JAX function: wrap it in `jax.jit` once and reuse it (unjitted, each move is traced anew
and takes seconds; `Analyser` does this). Nothing here trains: the command line
(`python -m warmjax.run`) does that.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import jax
import numpy as np

from warmjax.games import make as make_game
from warmjax.matches.agent import Agent, load_agent
from warmjax.search.analyser import Analyser
from warmjax.search.config import SearchConfig
from warmjax.search.players import PLAYERS, Analysis, make_player

__all__ = ["Agent", "Analyser", "Analysis", "PLAYERS", "SearchConfig", "load_agent",
           "make_game", "make_player", "perfect_values", "position"]


def position(game, moves: str | Sequence[int | str] = (), *, ascii: str | None = None,
             to_move: str = "X", seed: int = 0):
    """One position of `game`: the start with `moves` played, or a board drawn in ASCII.

    Args:
      game: a game (`make_game`).
      moves: the moves from the start, as the play command reads them (a column letter or
        number in Connect Four, a cell such as `c4` in Othello, Gobang and Hex), in one
        string separated by spaces or commas, or as a sequence of such strings or of action
        ids.
      ascii: instead of moves, the board as `game.render` draws it (rows of `.`, `X`, `O`;
        coordinates are ignored).
      to_move: with `ascii`, the colour to move: "X" (the first mover) or "O".
      seed: the key of `game.init` (which player id moves first).

    Raises:
      ValueError: a move that cannot be read, is illegal, or comes after the game ended
        (naming it and its place), or an ASCII board of the wrong shape.
    """
    if ascii is not None:
        if moves:
            raise ValueError("give moves or ascii, not both")
        return game.from_ascii(ascii, to_move)
    return _played(game, moves, seed)[0]


def _played(game, moves, seed: int = 0):
    """`(state, actions)`: the start with `moves` played (as `position` reads them), and
    their action ids."""
    if isinstance(moves, str):
        moves = [m for m in re.split(r"[\s,]+", moves) if m]
    state = game.init(jax.random.PRNGKey(seed))
    step = _stepper(game)
    actions = []
    for ply, move in enumerate(moves, start=1):
        where = f"move {ply} ({move!r})"
        if bool(state.terminated):
            raise ValueError(f"{where}: the game is already over")
        try:
            action = int(move) if isinstance(move, (int, np.integer)) else game.parse_action(
                str(move))
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        if not 0 <= action < game.num_actions:
            raise ValueError(f"{where}: no action {action} in {game.num_actions}")
        if not bool(np.asarray(state.legal_action_mask)[action]):
            raise ValueError(f"{where}: {game.illegal_reason(state, action)}")
        state = step(state, np.int32(action))
        actions.append(action)
    return state, actions


def perfect_values(game, moves: str | Sequence[int | str] = (), *,
                   batch: Sequence[str | Sequence[int | str]] | None = None) -> np.ndarray:
    """Each move's perfect-play value in a position, by the game's exact solver (Connect
    Four, Othello, Gobang, Hex, tic-tac-toe at the sizes of their labelled sets and
    others): the project's measure, which the explorer shows.

    Args:
      game: a game (`make_game`).
      moves: the moves from the start, as `position` reads them.
      batch: instead, several positions' moves: the answer has a leading batch axis.

    Returns:
      `[A]` int8 (or `[B, A]` for a batch): for each move, its value for the player who
      makes it with perfect play after it: 1 a win, 0 a draw, −1 a loss; −2 where the move
      is illegal (or the game is over). A move is optimal where its value is the row's
      largest.

    Raises:
      ValueError: a move that cannot be read or played (as `position`), a game without an
        exact solver, or a position before the solver's reach (Connect Four before ply 8,
        say), each named.
    """
    from warmjax.perfect.values import move_values

    if batch is not None:
        if moves:
            raise ValueError("give moves or batch, not both")
        return np.stack([perfect_values(game, m) for m in batch])
    state, actions = _played(game, moves)
    if bool(state.terminated):
        return np.full(game.num_actions, -2, np.int8)
    return move_values(game, actions)


@functools.lru_cache(maxsize=16)
def _stepper(game):
    """`game.step` compiled once per game object (`position` replays moves with it)."""
    return jax.jit(game.step)
