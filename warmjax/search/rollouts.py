"""Uniformly random playouts (the Rollout leaf value of method.md §3 and the pure players of §4).

A playout picks, at each ply, the k-th legal action in action order with
k = floor(u · count), u uniform from `fold_in(key, ply)`. Two implementations play exactly
the same moves from the same key:

- `step_rollout` plays with the environment's `step`, for any pgx game, in a loop that runs
  until every game of the batch has ended.
- `rules_rollout` plays with the game's `PlayoutRules` (`warmjax/games/playout.py`): row
  bitmasks for Connect Four and Gobang (a ply is a few dozen elementwise integer
  operations), Othello's own `_step` without pgx's observation and checks; in a loop of
  fixed length (the board's cells), then a loop for whatever is left (only games with
  passes can go on). On a GPU the fixed loop needs no host round trip per ply: 1.4-1.6x
  faster playouts on an H100 (docs/performance.md §1).

`rollout` uses the second where the game has rules, else the first.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from warmjax.games.playout import kth_legal_action


def random_legal_action(key: jax.Array, legal: jax.Array) -> jax.Array:
    """One uniformly random legal action for one state.

    Args:
      key: PRNG key.
      legal: `[A]` bool legal mask (at least one True).

    Returns:
      int32 scalar action: the k-th legal one, k = floor(u · count), u uniform from `key`.
    """
    return kth_legal_action(jax.random.uniform(key), legal)


class Rollout(NamedTuple):
    """Result of one playout (unbatched; leaves gain a leading B under vmap)."""

    value: jax.Array  # [] float32, result for the player to move at the start
    actions: jax.Array  # [R] int32, moves played (first `length` valid)
    players: jax.Array  # [R] int32, who played them
    length: jax.Array  # [] int32, moves played (all of them, recorded or not)
    steps: jax.Array  # [] int32, the environment steps the playout took, which the compute
    # ledger counts: its moves, and whatever a look-ahead playout steps besides


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
    rules = env.playout_rules() if hasattr(env, "playout_rules") else None
    if rules is None:
        return step_rollout(env, key, state, record)
    return rules_rollout(env, rules, key, state, record)


def step_rollout(env: Any, key: jax.Array, state: Any, record: int = 0) -> Rollout:
    """`rollout` (same arguments and result) with the environment's `step`: any pgx game."""
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
    return Rollout(value=value, actions=actions[:record], players=players[:record], length=length,
                   steps=length)


def rules_rollout(env: Any, rules: Any, key: jax.Array, state: Any, record: int = 0
                  ) -> Rollout:
    """`rollout` with the game's `PlayoutRules`; the same moves as `step_rollout` from
    the same key."""
    me = state.current_player
    buffer = max(record, 1)
    rows, cols = env.board_shape
    limit = env.max_plies

    def ply(t, carry):
        # t counts plies from the start; past the end of its game a playout only marks time.
        position, done, value, actions, players, length = carry
        action = rules.choose(position, jax.random.uniform(jax.random.fold_in(key, t)))
        after, ended, reward = rules.play(position, action)
        mine = t % 2 == 0  # the player to move at the start moves on even plies
        mover = jnp.where(mine, me, 1 - me)
        value = value + jnp.where(done, 0.0, jnp.where(mine, reward, -reward))
        actions = actions.at[t].set(jnp.where(done, 0, action), mode="drop")
        players = players.at[t].set(jnp.where(done, 0, mover), mode="drop")
        position = jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b), position, after)
        return position, done | ended, value, actions, players, length + (~done).astype(jnp.int32)

    init = (
        rules.start(state),
        state.terminated,
        jnp.float32(0.0),
        jnp.zeros(buffer, jnp.int32),
        jnp.zeros(buffer, jnp.int32),
        jnp.int32(0),
    )
    # Every ply but a pass fills a cell, so the cells bound all but games with passes.
    head = min(limit, rows * cols)
    carry = jax.lax.fori_loop(0, head, ply, init)
    if limit > head:
        carry = jax.lax.while_loop(lambda c: ~c[1][1] & (c[0] < limit),
                                   lambda c: (c[0] + 1, ply(c[0], c[1])),
                                   (jnp.int32(head), carry))[1]
    _, _, value, actions, players, length = carry
    return Rollout(value=value, actions=actions[:record], players=players[:record], length=length,
                   steps=length)
