"""The batched tree search: one simulate / expand / backup loop for every variant.

Per simulation, for all B games at once:

1. select: walk down from the root by the selection rule (PUCT, or UCT_rave with RAVE)
   until an edge with no node yet, or a terminal node (vmapped per game);
2. expand: step the game along the new edge and evaluate the new state with the leaf
   evaluator (network, random playout or a weighted mix), batched;
3. backup: add the node, back the value up the path with negamax, and with RAVE update the
   AMAF statistics (vmapped per game).

The variants differ only in the parts handed to `make_search`, as mctx hands its search
its selection functions: the selection rule (`selection.py`), the leaf evaluator, which also
gives the root's prior (`leaf.py`), and the backup (`backup.py`). `variants.py` maps each
variant's name to its parts.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import chex
import jax
import jax.numpy as jnp

from warmjax.search import backup as backup_lib
from warmjax.search.backup import Backup, Path
from warmjax.search.config import SearchConfig
from warmjax.search.leaf import Inputs, Leaf
from warmjax.search.selection import SelectionRule, pruned_visits, with_forced
from warmjax.search.tree import Tree, init_tree


class SearchOutput(NamedTuple):
    """What a search returns for B root states."""

    visits: jax.Array  # [B, A] int32 root visit counts
    policy: jax.Array  # [B, A] float32 root visit distribution (uniform over legal if none)
    values: jax.Array  # [B, A] float32 Q(root, a)
    tree: Tree
    playout_steps: jax.Array  # [B] int32 environment steps of the leaves' random playouts
    # (`Rollout.steps`), for the compute ledger


def visit_policy(visits: jax.Array, legal: jax.Array) -> jax.Array:
    """Normalised visit counts `[B, A]`; uniform over `legal` where nothing was visited."""
    visits = visits.astype(jnp.float32)
    total = jnp.sum(visits, axis=-1, keepdims=True)
    uniform = legal / jnp.maximum(jnp.sum(legal, axis=-1, keepdims=True), 1)
    return jnp.where(total > 0, visits / jnp.maximum(total, 1.0), uniform)


def masked_prior(logits: jax.Array, legal: jax.Array) -> jax.Array:
    """Softmax of `logits` over legal actions only (zero elsewhere)."""
    return jax.nn.softmax(jnp.where(legal, logits, -jnp.inf), axis=-1)


def add_dirichlet_noise(key, prior, legal, fraction: float, alpha: float) -> jax.Array:
    """`(1 − fraction)·prior + fraction·Dir(alpha)` over each row's legal moves `[B, A]`."""
    gamma = jax.random.gamma(key, alpha, prior.shape) * legal
    noise = gamma / jnp.maximum(jnp.sum(gamma, axis=-1, keepdims=True), 1e-30)
    return (1.0 - fraction) * prior + fraction * noise


def make_search(env: Any, config: SearchConfig, *, selection: SelectionRule, leaf: Leaf,
                backup: Backup) -> Callable:
    """Builds the search function from its parts.

    Args:
      env: a `warmjax.games.GameEnv` (any pgx env with `max_plies` works).
      config: static settings (m, root noise, tree reuse; the parts carry the rest).
      selection: `scores(tree, node) -> [A]` of one unbatched tree; the walk takes the argmax.
      leaf: the root prior and the new nodes' evaluation (`leaf.Leaf`).
      backup: `update(tree, path, leaf, leaf_value, played)` after the new node is written.

    Returns:
      `search(inputs, key, states, memory=None) -> SearchOutput`, pure and jit-able.
      `inputs` is a `leaf.Inputs` (the network's variables and w of WRo/WRoRa, w None for
      0; traced values are fine) or the bare variables; `states` are B batched root states. With
      `config.reuse_tree`, `memory` (a `reuse.Memory` whose roots are `states`) gives each
      game the tree to go on from; games with `count` 0 start afresh.
    """
    simulations = config.simulations
    num_nodes = config.capacity
    max_plies = int(getattr(env, "max_plies", simulations))
    depth_slots = min(num_nodes - 1, max_plies) + 1
    forced = config.forced_playouts
    scores = with_forced(selection, forced) if forced > 0 else selection
    evaluate = leaf.evaluate

    def select(tree: Tree) -> Path:
        def cond(carry):
            return ~carry[-1]

        def body(carry):
            node, depth, nodes, actions, expand, _ = carry
            scored = scores(tree, node)
            # A selection rule scores every action of one node: [A], nothing broadcast.
            chex.assert_shape(scored, (env.num_actions,))
            action = jnp.argmax(scored).astype(jnp.int32)
            child = tree.children_index[node, action]
            nodes = nodes.at[depth].set(node, mode="drop")
            actions = actions.at[depth].set(action, mode="drop")
            expand = child == Tree.UNVISITED
            node = jnp.where(expand, node, child)
            done = expand | tree.node_terminal[node]
            return node, depth + 1, nodes, actions, expand, done

        root = jnp.int32(Tree.ROOT)
        zeros = jnp.zeros(depth_slots, jnp.int32)
        init = (root, jnp.int32(0), zeros, zeros, jnp.bool_(False), tree.node_terminal[root])
        node, depth, nodes, actions, expand, _ = jax.lax.while_loop(cond, body, init)
        return Path(nodes=nodes, actions=actions, depth=depth, expand=expand, leaf=node)

    def add_and_backup(tree, path, state, prior, value, played, index):
        tree, node, node_value = backup_lib.add_leaf(tree, path, state, prior, value, index)
        updated = backup.update(tree, path, node, node_value, played)
        # A backup returns the tree it was given, every field's shape and dtype kept.
        chex.assert_trees_all_equal_shapes_and_dtypes(updated, tree)
        return updated

    def search(inputs, key, states, memory=None) -> SearchOutput:
        if not isinstance(inputs, Inputs):  # bare network variables (or None)
            inputs = Inputs(inputs)
        batch = states.current_player.shape[0]
        rows = jnp.arange(batch)
        root_logits = leaf.prior(inputs, states)
        chex.assert_shape(root_logits, (batch, env.num_actions))
        root_prior = masked_prior(root_logits, states.legal_action_mask)
        if config.dirichlet_fraction > 0:
            key, noise_key = jax.random.split(key)
            root_prior = add_dirichlet_noise(noise_key, root_prior, states.legal_action_mask,
                                             config.dirichlet_fraction, config.dirichlet_alpha)
        tree = init_tree(states, root_prior, num_nodes)
        # Simulation s of game b may fill node start[b] + s.
        start = jnp.ones(batch, jnp.int32)
        if memory is not None:
            reused = memory.count > 0
            if config.dirichlet_fraction > 0:  # fresh noise on a reused root's prior too
                old = memory.tree.children_prior[:, Tree.ROOT]
                key, noise_key = jax.random.split(key)
                noisy = add_dirichlet_noise(noise_key, old, states.legal_action_mask,
                                            config.dirichlet_fraction, config.dirichlet_alpha)
                memory = memory._replace(tree=memory.tree.replace(
                    children_prior=memory.tree.children_prior.at[:, Tree.ROOT].set(noisy)))

            def pick(kept, fresh):
                mask = reused.reshape((batch,) + (1,) * (kept.ndim - 1))
                return jnp.where(mask, kept, fresh)

            tree = jax.tree_util.tree_map(pick, memory.tree, tree)
            start = jnp.where(reused, memory.count, 1)
        weight = 0.0 if inputs.weight is None else inputs.weight
        inputs = inputs._replace(weight=jnp.asarray(weight, jnp.float32))

        def simulate(sim, carry):
            tree, key, steps = carry
            key, leaf_key = jax.random.split(key)
            path = jax.vmap(select)(tree)
            parent, action = jax.vmap(lambda p: p.last_edge())(path)
            parent_states = jax.tree_util.tree_map(lambda x: x[rows, parent], tree.node_states)
            new_states = jax.vmap(env.step)(parent_states, action)
            evaluated = evaluate(inputs, leaf_key, new_states)
            # A leaf's value of shape [B, 1] would broadcast against [B] far from here.
            chex.assert_shape((evaluated.logits, evaluated.value),
                              ((batch, env.num_actions), (batch,)))
            prior = masked_prior(evaluated.logits, new_states.legal_action_mask)
            tree = jax.vmap(add_and_backup)(
                tree, path, new_states, prior, evaluated.value, evaluated.rollout, start + sim
            )
            return tree, key, steps + evaluated.rollout.steps

        tree, _, steps = jax.lax.fori_loop(0, simulations, simulate,
                                           (tree, key, jnp.zeros(batch, jnp.int32)))
        visits = tree.root_visits()
        # With forced playouts the policy (the move and the training target) counts the
        # visits that remain after pruning them.
        counted = (jax.vmap(lambda t: pruned_visits(t, config.c_puct, forced))(tree)
                   if forced > 0 else visits)
        return SearchOutput(
            visits=visits,
            policy=visit_policy(counted, states.legal_action_mask),
            values=tree.root_values(),
            tree=tree,
            playout_steps=steps,
        )

    return search
