"""A game's rules for fast random playouts (`warmjax.search.rollouts`), and the move choice
they share.

A random playout needs only who wins, so a game may give rules that skip what `step` also
builds (the observation, pgx's checks) and keep its position in whatever form is cheapest,
such as row bitmasks. Every playout picks, at each ply, the k-th legal action in action
order with k = floor(u · count) for a uniform u; `kth_legal_action` does this on a legal
mask and `kth_set_bit` on row bitmasks, with the same result.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp


class PlayoutRules(NamedTuple):
    """A game's rules for random playouts (unbatched; vmap adds the batch).

    A *position* is any pytree the game chooses, seen from the player to move.

    Attributes:
      start: `state -> position`, from a State.
      choose: `(position, u) -> action`: the k-th legal action, k = floor(u · count), as
        `kth_legal_action` or `kth_set_bit` give it.
      play: `(position, action) -> (position, terminal, reward)`: the position after the
        mover plays `action`, whether the game ended, and the mover's reward (+1, 0 or -1)
        if it did.
    """

    start: Callable[[Any], Any]
    choose: Callable[[Any, jax.Array], jax.Array]
    play: Callable[[Any, jax.Array], tuple]


def kth_legal_action(u: jax.Array, legal: jax.Array) -> jax.Array:
    """The k-th True of the `[A]` mask `legal`, k = floor(u · count), for u in [0, 1)."""
    count = jnp.sum(legal, dtype=jnp.int32)
    k = jnp.floor(u * count).astype(jnp.int32)
    k = jnp.minimum(k, count - 1)
    return jnp.argmax(jnp.cumsum(legal, dtype=jnp.int32) > k).astype(jnp.int32)


def kth_set_bit(u: jax.Array, rows: list, width: int, pass_action: int = 0) -> jax.Array:
    """`kth_legal_action` on row bitmasks: bit c of `rows[i]` is action `i * width + c`
    (bits at or past `width` are ignored); `pass_action` when no bit is set. Elementwise
    integer arithmetic only (no cumulative sum or arg-max)."""
    rows = [jnp.asarray(x).astype(jnp.int32) & ((1 << width) - 1) for x in rows]
    counts = [jax.lax.population_count(x) for x in rows]
    cells = sum(counts)
    total = jnp.maximum(cells, 1)
    k = jnp.minimum(jnp.floor(u * total).astype(jnp.int32), total - 1)
    row = chosen = offset = before = jnp.int32(0)
    for i, (x, n) in enumerate(zip(rows, counts)):
        here = (k >= before) & (k < before + n)
        row = jnp.where(here, i, row)
        chosen = jnp.where(here, x, chosen)
        offset = jnp.where(here, k - before, offset)
        before = before + n
    # The offset-th set bit of `chosen` sits at the number of prefixes holding <= offset bits.
    col = sum((jax.lax.population_count(chosen & ((2 << c) - 1)) <= offset).astype(jnp.int32)
              for c in range(width - 1))
    return jnp.where(cells == 0, pass_action, row * width + col)


def winning_moves(env: Any, states) -> jax.Array:
    """`[B, A]` bool: the legal moves that end the game at once with a win for the mover
    (by `env.step`: the win check of the players, and labelled sets' immediate wins by the
    rules)."""
    actions = jnp.arange(states.legal_action_mask.shape[-1], dtype=jnp.int32)

    def one(state):
        after = jax.vmap(env.step, in_axes=(None, 0))(state, actions)
        won = after.terminated & (after.rewards[:, state.current_player] > 0)
        return won & state.legal_action_mask

    return jax.vmap(one)(states)
