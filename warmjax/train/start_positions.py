"""Start positions drawn from earlier games (a departure, method.md §5; the idea of
Go-Exploit, Trudeau and Bowling 2023: self-play that starts from states of an archive of
visited ones).

With `train.start_positions` s > 0, round(s·E) of an iteration's self-play games start
from a position of an earlier iteration's game instead of the first position: positions
drawn uniformly, without repeats, among every position before a move of the games the run
keeps (those of the last `train.replay_iterations` iterations, `reanalyse.GameMoves`, which
the run then keeps with the games' lengths). A drawn position is rebuilt by replaying its
game from its first state (`reanalyse.replay`). The games that start there are played and
recorded as any other from that ply on; the moves before it are not recorded again. Only
games that the baseline plays alone start so (after warm start, or without it): warm
start's games, whose results steer the adaptive switch, start from the first position, as
the papers'.

A started game is kept whole, its moves before the start and its own after it, from its
original first state, so that its own positions can be drawn later, and the self-play
health figures (lengths, openings, outcomes) describe whole games.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from warmjax.train.reanalyse import GameMoves, choose_positions, replay

# The draw's key is folded off the iteration's self-play key with this, so that the
# iteration's own keys are those of a run without it.
START_STREAM = 0x73746172


class Starts(NamedTuple):
    """The start positions of an iteration's first n self-play games (n = round(s·E))."""

    states: Any  # [n] the drawn positions' states
    used: jax.Array  # [n] bool: a position was drawn (false: too few kept, iteration 1)
    ply: jax.Array  # [n] int32, the plies played before each (0 where not used)
    keys: jax.Array  # [n, 2] uint32, the first-state keys of the games they come from
    prefix: jax.Array  # [n, T] int32, the moves of those games (the first `ply` are played)


def starting_games(share: float, games: int) -> int:
    """n, the self-play games that start from a drawn position."""
    return int(round(share * games))


def draw_starts(env: Any, moves: GameMoves, key: jax.Array, n: int) -> Starts:
    """n positions drawn uniformly without repeats among the positions before a move of the
    kept games (`moves`, with their lengths), each rebuilt by replaying its game."""
    plies = moves.actions.shape[1]
    valid = jnp.arange(plies)[None, :, None] < moves.plies[:, None, :]  # [S, T, E]
    s, t, e, used = choose_positions(key, valid, -1, n)  # -1: every slot may be drawn
    keys, prefix = moves.keys[s, e], moves.actions[s, :, e]
    states = jax.vmap(lambda *a: replay(env, *a))(keys, prefix, t)
    return Starts(states, used, jnp.where(used, t, 0).astype(jnp.int32), keys, prefix)
