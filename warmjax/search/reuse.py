"""Search-tree reuse across moves (`search.reuse_tree`, method.md §2).

AlphaZero General keeps its search statistics from one move to the next. Here, after a move,
the chosen child's subtree becomes the next root's tree: `advance` re-roots a tree at the
root's child along the played action, packing the subtree's nodes to the front (the new
root is node 0). A player's tree is advanced on every ply, by its own move and by the
opponent's, so when it moves again its root is the grandchild of its last root.

Edge statistics live on the parent (`tree.py`), so every kept node carries exactly the
visits, values, priors and AMAF statistics it had. The tree has room for `capacity` nodes;
a search adds up to m, so `advance` keeps at most `capacity − m` nodes: the subtree's
oldest ones, which include every kept node's parent because a node is always created after
its parent. A node dropped that way takes only its own edges with it; its parent's edge
keeps its counts, and the next visit there expands the node afresh.

All of it is batched and traced: `advance` is vmapped over games, with no host round trip.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from warmjax.search.tree import Tree


class Memory(NamedTuple):
    """What a reusing search carries from one move to the next, for B games."""

    tree: Tree  # [B, capacity, ...]
    count: jax.Array  # [B] int32 nodes in use, 0: nothing to reuse (start a fresh tree)


def parents(tree: Tree) -> jax.Array:
    """`[N]` int32 parent of every node of an unbatched tree (−1 for the root and free slots)."""
    num_nodes = tree.num_nodes
    children = tree.children_index.reshape(-1)
    sources = jnp.repeat(jnp.arange(num_nodes, dtype=jnp.int32), tree.num_actions)
    target = jnp.where(children >= 0, children, num_nodes)  # out of range: dropped
    return jnp.full(num_nodes, -1, jnp.int32).at[target].set(sources, mode="drop")


def advance_one(tree: Tree, count: jax.Array, action: jax.Array, keep: int):
    """Re-roots one (unbatched) tree at its root's child along `action`.

    Args:
      tree: the tree, or anything when `count` is 0.
      count: nodes in use; 0 means the tree holds nothing.
      action: the move played from the root.
      keep: the most nodes to keep.

    Returns:
      `(tree, count)`: the child's subtree packed into nodes [0, count), every other slot
      empty; count 0 if the child was never expanded.
    """
    num_nodes = tree.num_nodes
    new_root = jnp.where(count > 0, tree.children_index[Tree.ROOT, action], Tree.UNVISITED)
    parent = parents(tree)

    # Membership in the subtree by pointer jumping: after round k, `up[n]` is n's ancestor
    # 2^k generations up (−1 past the root) and `inside[n]` says whether the new root lies on
    # the path from n up to (not including) `up[n]`. ceil(log2 N) + 1 rounds reach the top,
    # in whole-array steps instead of one step per node.
    inside = jnp.arange(num_nodes) == new_root
    up = parent
    for _ in range(max(num_nodes - 1, 1).bit_length() + 1):
        above = up >= 0
        inside = inside | (above & inside[jnp.maximum(up, 0)])
        up = jnp.where(above, up[jnp.maximum(up, 0)], -1)
    inside = inside & (new_root >= 0)
    rank = jnp.cumsum(inside) - 1  # new index of each kept node, the new root at 0
    kept = inside & (rank < keep)
    new_count = jnp.sum(kept).astype(jnp.int32)
    new_index = jnp.where(kept, rank, -1).astype(jnp.int32)
    # old_of[j]: the old node moved to slot j (valid for j < new_count).
    old_of = jnp.zeros(num_nodes, jnp.int32).at[jnp.where(kept, rank, num_nodes)].set(
        jnp.arange(num_nodes, dtype=jnp.int32), mode="drop")
    used = jnp.arange(num_nodes) < new_count

    def move(x, empty):
        moved = x[old_of]
        mask = used.reshape((num_nodes,) + (1,) * (x.ndim - 1))
        return jnp.where(mask, moved, jnp.asarray(empty, x.dtype))

    children = tree.children_index
    children = jnp.where(children >= 0, new_index[jnp.maximum(children, 0)], Tree.UNVISITED)
    tree = Tree(
        node_states=jax.tree_util.tree_map(lambda x: move(x, 0), tree.node_states),
        node_players=move(tree.node_players, 0),
        node_terminal=move(tree.node_terminal, False),
        node_terminal_values=move(tree.node_terminal_values, 0.0),
        node_legal=move(tree.node_legal, False),
        children_index=move(children, Tree.UNVISITED),
        children_prior=move(tree.children_prior, 0.0),
        children_visits=move(tree.children_visits, 0),
        children_value_sums=move(tree.children_value_sums, 0.0),
        rave_visits=move(tree.rave_visits, 0),
        rave_value_sums=move(tree.rave_value_sums, 0.0),
    )
    return tree, new_count


def advance(memory: Memory, actions: jax.Array, keep: int) -> Memory:
    """`advance_one` for B games: every tree follows its game's move `actions [B]`."""
    tree, count = jax.vmap(advance_one, in_axes=(0, 0, 0, None))(
        memory.tree, memory.count, actions, keep)
    return Memory(tree, count)
