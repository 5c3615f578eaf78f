"""Each move's perfect-play value in one position, by the game's exact solver: the one
lookup the explorer and the Python API (`warmjax.perfect_values`) share."""

from __future__ import annotations

import numpy as np

from warmjax.games import registry


class OutOfReach(ValueError):
    """A position the game's solver is not asked to solve: a game without an exact
    solver, or a position before the depth its labelled sets start at (the solver's
    reach, which keeps each answer to seconds)."""


def move_values(game, actions: list[int]) -> np.ndarray:
    """`[A]` int8: the value of each move in the position `actions` (action ids from the
    start) reaches, for the player who makes it: 1 a win, 0 a draw, −1 a loss with perfect
    play after it, −2 an illegal move.

    Raises:
      OutOfReach: the game has no exact solver (or labels by search), or the position is
        before the solver's reach; the message says which.
    """
    spec = registry.find(game.name)
    labels = None if spec is None else spec.labels
    if labels is None or labels.by_search:
        raise OutOfReach(f"{game.name} has no exact solver (games with one: "
                         + ", ".join(s.name for s in registry.specs()
                                     if s.labels is not None and not s.labels.by_search)
                         + ")")
    rows, cols = game.board_shape
    if labels.depth == "ply" and len(actions) < labels.low:
        raise OutOfReach(f"{game.name}'s solver takes positions from ply {labels.low} on; "
                         f"this one is at ply {len(actions)}")
    params = dict(spec.params)
    params.update({k: getattr(game, k) for k in ("win_length",) if hasattr(game, k)})
    if game.name == "connect_four":
        params.update(rows=rows, cols=cols)
    elif "size" in spec.params:
        params["size"] = rows
    solver = labels.make_solver(**params)
    if not hasattr(solver, "start"):  # Connect Four's solver takes the moves themselves
        return np.asarray(solver.move_values([int(a) for a in actions]), np.int8)
    own, other = solver.start()  # a placement game: play the moves on its boards
    for action in actions:
        own, other = solver.play(own, other, int(action))
    empties = solver.empty_cells(own, other)
    if labels.depth == "empties" and empties > labels.high:
        raise OutOfReach(f"{game.name}'s solver takes positions with at most {labels.high} "
                         f"empty cells; this one has {empties}")
    return np.asarray(solver.move_values(own, other), np.int8)
