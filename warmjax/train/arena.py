"""The arena gate (method.md §7): the new network against the current best, both with baseline MCTS.

n games, each side first in half. The new network is accepted if wins / (wins + losses) ≥ u;
draws do not count, and an arena of draws only rejects it. Moves are sampled for the first T′
plies of each game (the self-play rule), so the n games are not all the same game — with
argmax moves from the first ply, a deterministic search would replay one game per side.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from warmjax.search.game_loop import MatchResult, make_match
from warmjax.search.players import Player


class ArenaResult(NamedTuple):
    wins: jax.Array  # [] int32, the new network's
    draws: jax.Array
    losses: jax.Array
    accepted: jax.Array  # [] bool
    evaluations: jax.Array  # [] int32 network evaluations of both sides' searches (ledger)
    playout_steps: jax.Array  # [] int32 environment steps of their random playouts
    # The games themselves (moves, who was first, the new network's score per game), kept
    # only by a recording arena (`make_arena(record=True)`, `arena_replay.py`); None in
    # training, whose compiled iteration is the same as without the field.
    games: MatchResult | None = None


def accept(wins, losses, threshold: float) -> jax.Array:
    """The acceptance rule: wins / (wins + losses) ≥ u, and at least one decisive game."""
    decisive = wins + losses
    # A small tolerance so that e.g. 3 of 5 meets u = 0.6 despite 0.6 not being exact.
    ratio = wins / jnp.maximum(decisive, 1)
    return (decisive > 0) & (ratio >= threshold - 1e-6)


def no_arena(new_params, best_params, key) -> ArenaResult:
    """No gate (`arena.gate=false`, a departure): every candidate is accepted unplayed."""
    del new_params, best_params, key
    zero = jnp.int32(0)
    return ArenaResult(zero, zero, zero, jnp.bool_(True), zero, zero)


def make_arena(env: Any, player: Player, games: int, threshold: float, record: bool = False):
    """Builds `arena(new_params, best_params, key) -> ArenaResult`; with `record`, the result
    keeps the games (`ArenaResult.games`), which are the same games as without it."""
    match = make_match(env, player, player, games, record=record)
    per_search = player.evaluations_per_search

    def arena(new_params, best_params, key) -> ArenaResult:
        result = match(new_params, best_params, key)
        ok = accept(result.wins, result.losses, threshold)
        # Every ply of an arena game is a search by one of the two networks.
        evaluations = per_search * jnp.sum(result.plies, dtype=jnp.int32)
        return ArenaResult(result.wins, result.draws, result.losses, ok, evaluations,
                           jnp.sum(result.playout_steps, dtype=jnp.int32),
                           result if record else None)

    return arena
