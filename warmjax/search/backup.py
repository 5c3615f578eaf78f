"""Backup after a simulation: negamax values on the path and RAVE's AMAF statistics.

Both work on one (unbatched) tree and are vmapped by the search. The parts a variant hands
the search (`variants.py`) are `value_backup(config)` and `amaf_backup(config)`, each a
`Backup` whose `update(tree, path, leaf, leaf_value, played)` runs after `add_leaf`.

Value backup (method.md §2): each edge (s_t, a_t) on the path gets N += 1 and the leaf value seen
from the player to move in s_t (+v for the leaf's player, −v for the other), so Q is the
running mean of the values backed up through it.

AMAF update (method.md §3, Gelly and Silver's rule): the simulation's moves are the tree path's
moves followed by the rollout's. For each node s_t1 on the path, the new leaf included, and
each action a legal in s_t1 that was played at step t1 or later by the player to move in
s_t1, counting a once however often it was played: N_rave(s_t1, a) += 1 and its value sum
gains the simulation's value seen from that player. The move made in s_t1 itself counts
(it is "played later" than the position it leaves, in the papers' indexing of actions by
the step they lead to). With `all_players=True` moves of either player count (the other
reading of the papers' formula).
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Protocol

import jax
import jax.numpy as jnp

from warmjax.search.config import SearchConfig
from warmjax.search.rollouts import Rollout
from warmjax.search.tree import Tree


class Path(NamedTuple):
    """The edges one simulation walked, for one tree (unbatched)."""

    nodes: jax.Array  # [D + 1] int32, nodes[t] for t < depth is the source of edge t
    actions: jax.Array  # [D + 1] int32, actions[t] is the action taken in nodes[t]
    depth: jax.Array  # [] int32, number of edges walked
    expand: jax.Array  # [] bool, the last edge leads to a node not yet in the tree
    leaf: jax.Array  # [] int32, the existing node the walk stopped at (when not expanding)

    def last_edge(self) -> tuple[jax.Array, jax.Array]:
        """`(node, action)` of the last edge walked (the root and 0 for an empty path)."""
        t = jnp.maximum(self.depth - 1, 0)
        return self.nodes[t], self.actions[t]


def add_leaf(tree: Tree, path: Path, state, prior: jax.Array, value: jax.Array, index):
    """Writes the new node (if the path ends in a new edge); returns the leaf and its value.

    Args:
      tree: unbatched tree.
      path: this simulation's path.
      state: the game state after the last edge.
      prior: `[A]` prior over the state's actions (zero where illegal).
      value: leaf value for the player to move in `state`.
      index: the node index this simulation may fill.

    Returns:
      `(tree, leaf_node, leaf_value)`, the value from the point of view of the leaf's player.
    """
    slot = jnp.where(path.expand, index, tree.num_nodes)  # out of range: writes are dropped
    parent, action = path.last_edge()

    def put(stack, x):
        return stack.at[slot].set(x, mode="drop")

    result = state.rewards[state.current_player]
    tree = tree.replace(
        node_states=jax.tree_util.tree_map(put, tree.node_states, state),
        node_players=put(tree.node_players, state.current_player),
        node_terminal=put(tree.node_terminal, state.terminated),
        node_terminal_values=put(tree.node_terminal_values, result.astype(jnp.float32)),
        node_legal=put(tree.node_legal, state.legal_action_mask),
        children_prior=put(tree.children_prior, prior),
        children_index=tree.children_index.at[
            jnp.where(path.expand, parent, tree.num_nodes), action
        ].set(index, mode="drop"),
    )
    leaf = jnp.where(path.expand, index, path.leaf)
    leaf_value = jnp.where(path.expand, value, tree.node_terminal_values[path.leaf])
    return tree, leaf, leaf_value


def backup_values(tree: Tree, path: Path, leaf, leaf_value) -> Tree:
    """Negamax backup of `leaf_value` (leaf player's view) along `path` (unbatched)."""
    steps = jnp.arange(path.nodes.shape[0])
    on_path = steps < path.depth
    signs = jnp.where(tree.node_players[path.nodes] == tree.node_players[leaf], 1.0, -1.0)
    values = jnp.where(on_path, signs * leaf_value, 0.0)
    return tree.replace(
        children_visits=tree.children_visits.at[path.nodes, path.actions].add(
            on_path.astype(jnp.int32)
        ),
        children_value_sums=tree.children_value_sums.at[path.nodes, path.actions].add(values),
    )


def backup_amaf(
    tree: Tree, path: Path, leaf, leaf_value, played: Rollout, all_players: bool = False
) -> Tree:
    """AMAF update for one simulation (unbatched); see the module docstring.

    Args:
      tree: unbatched tree, after `add_leaf`.
      path: this simulation's path.
      leaf: the leaf node index.
      leaf_value: the simulation's value from the leaf player's point of view.
      played: the leaf's playout (actions and players, `length` of them valid); an empty
        record for variants without rollouts.
      all_players: count moves of both players, not only those of the node's player.
    """
    num_actions = tree.num_actions
    steps = jnp.arange(path.nodes.shape[0])
    nodes = path.nodes.at[path.depth].set(leaf)  # the path's nodes, leaf included
    players = tree.node_players[nodes]
    node_valid = steps <= path.depth

    move_actions = jnp.concatenate([path.actions, played.actions])
    move_players = jnp.concatenate([players, played.players])
    move_valid = jnp.concatenate(
        [steps < path.depth, jnp.arange(played.actions.shape[0]) < played.length]
    )
    # The last index at which each player played each action ([2, A], −1 if never): an
    # action counts for a node if its player played it at the node's index or later. Its
    # memory grows with A, not with A × (depth + record) as a one-hot of the moves would.
    index = jnp.where(move_valid, jnp.arange(move_actions.shape[0]), -1)
    last = jnp.full((2, num_actions), -1, jnp.int32).at[
        jnp.clip(move_players, 0, 1), move_actions].max(index)
    if all_players:
        last_for_node = jnp.broadcast_to(last.max(axis=0), (nodes.shape[0], num_actions))
    else:
        last_for_node = last[jnp.clip(players, 0, 1)]
    later = last_for_node >= steps[:, None]
    counted = later & tree.node_legal[nodes] & node_valid[:, None]
    signs = jnp.where(players == tree.node_players[leaf], 1.0, -1.0)
    values = jnp.where(counted, (signs * leaf_value)[:, None], 0.0)
    return tree.replace(
        rave_visits=tree.rave_visits.at[nodes].add(counted.astype(jnp.int32)),
        rave_value_sums=tree.rave_value_sums.at[nodes].add(values),
    )


class Backup(NamedTuple):
    """A backup part: `update` of one tree after a simulation, and whether it counts the
    playout's moves (then the leaf evaluator records them)."""

    update: Callable  # (tree, path, leaf, leaf_value, played: Rollout) -> tree, unbatched
    playout_moves: bool


class BackupBuilder(Protocol):
    """A backup part's builder (`value_backup`, `amaf_backup`): the backup for a config."""

    def __call__(self, config: SearchConfig) -> Backup: ...


def value_backup(config: SearchConfig) -> Backup:
    """Negamax values only (PUCT variants)."""
    del config

    def update(tree, path, leaf, leaf_value, played):
        del played
        return backup_values(tree, path, leaf, leaf_value)

    return Backup(update, playout_moves=False)


def amaf_backup(config: SearchConfig) -> Backup:
    """Negamax values and AMAF statistics (RAVE variants), with the config's reading of
    whose moves count and whether the playout's do."""
    all_players = config.rave_all_players

    def update(tree, path, leaf, leaf_value, played):
        tree = backup_values(tree, path, leaf, leaf_value)
        return backup_amaf(tree, path, leaf, leaf_value, played, all_players)

    return Backup(update, playout_moves=config.rave_rollout_moves)
