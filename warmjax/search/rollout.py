"""Uniformly random playouts (the Rollout leaf value of method.md §3 and the pure players of §4)."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp


def random_legal_action(key: jax.Array, legal: jax.Array) -> jax.Array:
    """One uniformly random legal action for one state.

    Args:
      key: PRNG key.
      legal: `[A]` bool legal mask (at least one True).

    Returns:
      int32 scalar action.
    """
    count = jnp.sum(legal, dtype=jnp.int32)
    k = jnp.floor(jax.random.uniform(key) * count).astype(jnp.int32)
    k = jnp.minimum(k, count - 1)
    return jnp.argmax(jnp.cumsum(legal, dtype=jnp.int32) > k).astype(jnp.int32)


class Rollout(NamedTuple):
    """Result of one playout (unbatched; leaves gain a leading B under vmap)."""

    value: jax.Array  # [] float32, result for the player to move at the start
    actions: jax.Array  # [R] int32, moves played (first `length` valid)
    players: jax.Array  # [R] int32, who played them
    length: jax.Array  # [] int32


def rollout(env: Any, key: jax.Array, state: Any, record: int = 0) -> Rollout:
    """Plays uniformly random legal moves from `state` to the end of the game.

    Works on one state; vmap it with one key per game. A terminal `state` gives value 0 and
    no moves (the caller uses the stored result for terminal leaves).

    Args:
      env: a pgx environment.
      state: one game state.
      key: PRNG key for this playout.
      record: how many moves to record (R); 0 records none. Moves past R are played but
        not recorded, so R should be at least the game's maximum number of plies.

    Returns:
      A `Rollout` with the result from the point of view of `state.current_player`.
    """
    me = state.current_player
    buffer = max(record, 1)

    def cond(carry):
        s, *_ = carry
        return ~s.terminated

    def body(carry):
        s, value, actions, players, t = carry
        action = random_legal_action(jax.random.fold_in(key, t), s.legal_action_mask)
        actions = actions.at[t].set(action, mode="drop")
        players = players.at[t].set(s.current_player, mode="drop")
        s = env.step(s, action)
        return s, value + s.rewards[me], actions, players, t + 1

    init = (
        state,
        jnp.float32(0.0),
        jnp.zeros(buffer, jnp.int32),
        jnp.zeros(buffer, jnp.int32),
        jnp.int32(0),
    )
    _, value, actions, players, length = jax.lax.while_loop(cond, body, init)
    if record == 0:
        length = jnp.int32(0)
    return Rollout(value=value, actions=actions[:record], players=players[:record], length=length)
