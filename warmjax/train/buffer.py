"""The replay buffer D: on device, the examples of the last `rs` iterations (method.md §6).

A ring of `rs` slots, one per iteration, each big enough for every position of E games of
maximal length times the number of symmetries. A slot is overwritten whole when its
iteration comes round again; `valid` marks the rows that hold examples.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class ReplayBuffer:
    """Examples (s, π, z). Shapes use R = slots · slot_size rows."""

    obs: jax.Array  # [R, H, W, C] bool, canonical observation
    policy: jax.Array  # [R, A] float32, policy target π
    value: jax.Array  # [R] float32, result z for the player to move
    valid: jax.Array  # [R] bool
    # With `train.reply_weight`: [R, A] float32, the opponent's reply (the next recorded
    # ply's π; zeros where the game has none); None otherwise, so that other runs'
    # checkpoints keep their layout.
    reply: jax.Array | None = None

    @property
    def capacity(self) -> int:
        return self.valid.shape[0]

    def size(self) -> jax.Array:
        """Number of valid examples (int32 scalar)."""
        return jnp.sum(self.valid, dtype=jnp.int32)


# --- a slot's row layout: written by `slot_rows`, read by `first_row` --------------------


def slot_rows(obs, policy, value, valid, reply=None) -> ReplayBuffer:
    """One slot's rows from an iteration's examples, in the buffer's row layout: the
    positions ply by ply, a ply's games in order, and a position's symmetry copies side by
    side (`first_row` finds a position's rows).

    Args:
      obs: `[P, copies, H, W, C]`, the P = T·E recorded positions (ply-major: `[T, E]`
        flattened) with their symmetry copies.
      policy: `[P, copies, A]`, the targets π, transformed alike.
      value: `[T, E]`, the result z of each position, the same for its copies.
      valid: `[T, E]`, whether the position was recorded.
      reply: `[P, copies, A]` or None (`train.reply_weight`).
    """
    positions, copies = obs.shape[:2]
    rows = positions * copies
    return ReplayBuffer(
        obs=obs.reshape(rows, *obs.shape[2:]),
        policy=policy.reshape(rows, -1),
        value=jnp.repeat(value.reshape(-1), copies),
        valid=jnp.repeat(valid.reshape(-1), copies),
        reply=None if reply is None else reply.reshape(rows, -1),
    )


def first_row(slot, ply, game, plies: int, games: int, copies: int):
    """The first of a recorded position's `copies` rows in the buffer (the layout
    `slot_rows` writes)."""
    return ((slot * plies + ply) * games + game) * copies


def empty_buffer(slots: int, slot_size: int, obs_shape, num_actions: int,
                 obs_dtype=jnp.bool_, reply: bool = False) -> ReplayBuffer:
    """An empty ring of `slots` slots of `slot_size` rows; observations kept in the game's
    own dtype (`bool` planes stay one byte, float planes are not rounded). `reply`: with
    the opponent's reply targets (`train.reply_weight`)."""
    rows = slots * slot_size
    return ReplayBuffer(
        obs=jnp.zeros((rows, *obs_shape), obs_dtype),
        policy=jnp.zeros((rows, num_actions), jnp.float32),
        value=jnp.zeros((rows,), jnp.float32),
        valid=jnp.zeros((rows,), jnp.bool_),
        reply=jnp.zeros((rows, num_actions), jnp.float32) if reply else None,
    )


def write_slot(buffer: ReplayBuffer, slot: jax.Array, examples: ReplayBuffer) -> ReplayBuffer:
    """Replaces slot `slot` (traced int) with `examples` (a `ReplayBuffer` of slot_size rows)."""
    size = examples.valid.shape[0]
    start = slot * size

    def put(dst, src):
        idx = (start,) + (0,) * (dst.ndim - 1)
        return jax.lax.dynamic_update_slice(dst, src, idx)

    return jax.tree_util.tree_map(put, buffer, examples)
