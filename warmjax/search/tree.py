"""The search tree: one type for every variant (mctx-style batched arrays).

Node 0 is the root. Simulation s (counting from 0) may add node s + 1, so a search with m
simulations needs N = m + 1 nodes. Edge statistics live on the parent: `children_*[b, n, a]`
describes taking action a in node n, and values there are seen from the point of view of
the player to move in n. The AMAF (RAVE) statistics are allocated for every variant and stay
zero when RAVE is off, so there is only one tree type.
"""

from __future__ import annotations

from typing import Any, ClassVar

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class Tree:
    """Batched search tree. Shapes use B batch, N nodes, A actions."""

    node_states: Any  # pytree of game states, leaves [B, N, ...]
    node_players: jax.Array  # [B, N] int32, player id to move
    node_terminal: jax.Array  # [B, N] bool
    node_terminal_values: jax.Array  # [B, N] float32, result for the player to move
    node_legal: jax.Array  # [B, N, A] bool
    children_index: jax.Array  # [B, N, A] int32, UNVISITED if not expanded
    children_prior: jax.Array  # [B, N, A] float32, P(s, a) renormalised over legal actions
    children_visits: jax.Array  # [B, N, A] int32, N(s, a)
    children_value_sums: jax.Array  # [B, N, A] float32, sum of backed-up values
    rave_visits: jax.Array  # [B, N, A] int32, N_rave(s, a)
    rave_value_sums: jax.Array  # [B, N, A] float32, sum of AMAF values

    UNVISITED: ClassVar[int] = -1
    ROOT: ClassVar[int] = 0

    @property
    def num_nodes(self) -> int:
        return self.node_players.shape[-1]

    @property
    def num_actions(self) -> int:
        return self.children_index.shape[-1]

    def root_visits(self) -> jax.Array:
        """`[B, A]` int32 visit counts of the root's edges."""
        return self.children_visits[..., self.ROOT, :]

    def root_values(self) -> jax.Array:
        """`[B, A]` float32 mean values Q(root, a), 0 for unvisited edges."""
        visits = self.children_visits[..., self.ROOT, :]
        sums = self.children_value_sums[..., self.ROOT, :]
        return jnp.where(visits > 0, sums / jnp.maximum(visits, 1), 0.0)


def init_tree(root_states: Any, root_prior: jax.Array, num_nodes: int) -> Tree:
    """A tree holding only the (expanded) roots.

    Args:
      root_states: batched game states, leaves `[B, ...]`.
      root_prior: `[B, A]` float32 prior over the roots' actions (zero on illegal ones).
      num_nodes: N, the capacity of the tree.

    Returns:
      A `Tree` with node 0 set from the roots and every other node empty.
    """
    batch, num_actions = root_prior.shape

    def nodes_of(x):
        empty = jnp.zeros((batch, num_nodes, *x.shape[1:]), x.dtype)
        return empty.at[:, Tree.ROOT].set(x)

    players = root_states.current_player
    terminal_values = jnp.take_along_axis(root_states.rewards, players[:, None], axis=1)[:, 0]
    edge_shape = (batch, num_nodes, num_actions)
    return Tree(
        node_states=jax.tree_util.tree_map(nodes_of, root_states),
        node_players=nodes_of(players),
        node_terminal=nodes_of(root_states.terminated),
        node_terminal_values=nodes_of(terminal_values.astype(jnp.float32)),
        node_legal=nodes_of(root_states.legal_action_mask),
        children_index=jnp.full(edge_shape, Tree.UNVISITED, jnp.int32),
        children_prior=nodes_of(root_prior.astype(jnp.float32)),
        children_visits=jnp.zeros(edge_shape, jnp.int32),
        children_value_sums=jnp.zeros(edge_shape, jnp.float32),
        rave_visits=jnp.zeros(edge_shape, jnp.int32),
        rave_value_sums=jnp.zeros(edge_shape, jnp.float32),
    )
