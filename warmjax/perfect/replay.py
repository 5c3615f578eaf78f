"""Positions rebuilt from their moves: the one replay that the labelled sets' scoring, their
immediate wins by the rules and the search labels share (JAX only, no solver)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp


def replay_moves(env: Any, moves, plies):
    """P batched states of `env`: the start with each row of `moves [P, L]` played for its
    first `plies [P]` moves (the rest ignored)."""
    moves, plies = jnp.asarray(moves), jnp.asarray(plies)
    count = plies.shape[0]
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), count))

    def play(states, t):
        stepped = jax.vmap(env.step)(states, jnp.maximum(moves[:, t], 0))
        keep = t < plies
        return jax.tree_util.tree_map(
            lambda new, old: jnp.where(keep.reshape(-1, *(1,) * (new.ndim - 1)), new, old),
            stepped, states), None

    states, _ = jax.lax.scan(play, states, jnp.arange(moves.shape[1]))
    return states
