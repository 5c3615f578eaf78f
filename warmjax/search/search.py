"""The batched tree search: one simulate / expand / backup loop for every variant.

Per simulation, for all B games at once:

1. select: walk down from the root by the selection rule (PUCT, or UCT_rave with RAVE)
   until an edge with no node yet, or a terminal node (vmapped per game);
2. expand: step the game along the new edge and evaluate the new state with the leaf
   evaluator (network, random playout or a weighted mix), batched;
3. backup: add the node, back the value up the path with negamax, and with RAVE update the
   AMAF statistics (vmapped per game).

The variants differ only in the pluggable parts: `SearchConfig.rave` picks the selection
rule and the AMAF backup, `SearchConfig.leaf` and `use_network` the leaf evaluator.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp

from warmjax.search import backup as backup_lib
from warmjax.search.backup import Path
from warmjax.search.leaf import LEAF_KINDS, make_leaf_evaluator
from warmjax.search.selection import puct_scores, rave_scores
from warmjax.search.tree import Tree, init_tree


@dataclasses.dataclass(frozen=True)
class SearchConfig:
    """Static settings of a search (Python values; they fix shapes and code paths).

    Attributes:
      num_simulations: m, simulations per move.
      c_puct: c in PUCT and in U_rave.
      leaf: "network", "rollout" or "mix" (see `leaf.py`).
      use_network: False for the network-free players (uniform prior, rollout values).
      rave: use UCT_rave selection and the AMAF backup.
      rave_rollout_moves: count the playout's moves in AMAF, not only the tree path's
        (default; the other reading of the papers' equations counts the path only).
      rave_all_players: count moves of both players in AMAF (default: only the node's
        player's, as Gelly and Silver).
      rave_equivalence: the equivalence parameter of β; None means m, as in the papers.
      fpu: first-play urgency, the Q of untried edges: 0.0 (the papers), another number, or
        "parent" (see `selection.py`). A named departure from the papers.
      dirichlet_fraction, dirichlet_alpha: root noise P ← (1 − ε)·P + ε·Dir(α) over the
        legal moves (AlphaZero's; the papers use none, ε = 0). Meant for self-play only.
      reuse_tree: the tree has room for 2m + 1 nodes and a search may start from the
        subtree its previous move left (`reuse.py`); the player carries it.
    """

    num_simulations: int = 100
    c_puct: float = 1.0
    leaf: str = "network"
    use_network: bool = True
    rave: bool = False
    rave_all_players: bool = False
    rave_rollout_moves: bool = True
    rave_equivalence: float | None = None
    fpu: float | str = 0.0
    dirichlet_fraction: float = 0.0
    dirichlet_alpha: float = 1.0
    reuse_tree: bool = False

    def __post_init__(self):
        if self.num_simulations < 1:
            raise ValueError(f"num_simulations must be at least 1, got {self.num_simulations}")
        if self.c_puct < 0:
            raise ValueError(f"c_puct must be non-negative, got {self.c_puct}")
        if not (self.fpu == "parent" or isinstance(self.fpu, (int, float))):
            raise ValueError(f"fpu must be a number or 'parent', got {self.fpu!r}")
        if not 0.0 <= self.dirichlet_fraction <= 1.0 or self.dirichlet_alpha <= 0:
            raise ValueError("dirichlet_fraction must be in [0, 1] and dirichlet_alpha > 0, "
                             f"got {self.dirichlet_fraction}, {self.dirichlet_alpha}")
        if self.leaf not in LEAF_KINDS:
            raise ValueError(f"unknown leaf evaluator {self.leaf!r}; choose from {LEAF_KINDS}")

    @property
    def capacity(self) -> int:
        """Nodes the tree has room for: m + 1, or 2m + 1 when reusing trees."""
        return (2 if self.reuse_tree else 1) * self.num_simulations + 1

    @property
    def equivalence(self) -> float:
        return float(self.num_simulations if self.rave_equivalence is None
                     else self.rave_equivalence)


class SearchOutput(NamedTuple):
    """What a search returns for B root states."""

    visits: jax.Array  # [B, A] int32 root visit counts
    policy: jax.Array  # [B, A] float32 root visit distribution (uniform over legal if none)
    values: jax.Array  # [B, A] float32 Q(root, a)
    tree: Tree


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


def make_search(env: Any, apply_fn: Callable | None, config: SearchConfig) -> Callable:
    """Builds the search function for a game, a network and a configuration.

    Args:
      env: a `warmjax.games.GameEnv` (any pgx env with `max_plies` works).
      apply_fn: `apply(params, obs [B, H, W, C]) -> (logits [B, A], value [B])`, or None
        for the network-free players.
      config: static settings.

    Returns:
      `search(params, key, states, weight=0.0, memory=None) -> SearchOutput`, pure and
      jit-able. `states` are B batched root states; `weight` is w of WRo/WRoRa (a traced
      float is fine). With `config.reuse_tree`, `memory` (a `reuse.Memory` whose roots are
      `states`) gives each game the tree to go on from; games with `count` 0 start afresh.
    """
    num_sims = config.num_simulations
    num_nodes = config.capacity
    max_plies = int(getattr(env, "max_plies", num_sims))
    depth_slots = min(num_nodes - 1, max_plies) + 1
    record = max_plies + 1 if config.rave and config.leaf != "network" else 0
    evaluate = make_leaf_evaluator(
        env, apply_fn, config.leaf, use_network=config.use_network, record=record
    )
    if config.rave:
        equivalence = config.equivalence

        def scores(tree, node):
            return rave_scores(tree, node, config.c_puct, equivalence, config.fpu)
    else:

        def scores(tree, node):
            return puct_scores(tree, node, config.c_puct, config.fpu)

    def select(tree: Tree) -> Path:
        def cond(carry):
            return ~carry[-1]

        def body(carry):
            node, depth, nodes, actions, expand, _ = carry
            action = jnp.argmax(scores(tree, node)).astype(jnp.int32)
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

    def backup(tree, path, state, prior, value, played, index):
        tree, leaf, leaf_value = backup_lib.add_leaf(tree, path, state, prior, value, index)
        tree = backup_lib.backup_values(tree, path, leaf, leaf_value)
        if config.rave:
            if not config.rave_rollout_moves:
                played = played._replace(length=jnp.zeros_like(played.length))
            tree = backup_lib.backup_amaf(
                tree, path, leaf, leaf_value, played, config.rave_all_players
            )
        return tree

    def search(params, key, states, weight=0.0, memory=None) -> SearchOutput:
        batch = states.current_player.shape[0]
        rows = jnp.arange(batch)
        if config.use_network:
            root_logits, _ = apply_fn(params, states.observation)
        else:
            root_logits = jnp.zeros(states.legal_action_mask.shape, jnp.float32)
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
        weight = jnp.asarray(weight, jnp.float32)

        def simulate(sim, carry):
            tree, key = carry
            key, leaf_key = jax.random.split(key)
            path = jax.vmap(select)(tree)
            parent, action = jax.vmap(lambda p: p.last_edge())(path)
            parent_states = jax.tree_util.tree_map(lambda x: x[rows, parent], tree.node_states)
            new_states = jax.vmap(env.step)(parent_states, action)
            leaf = evaluate(params, leaf_key, new_states, weight)
            prior = masked_prior(leaf.logits, new_states.legal_action_mask)
            tree = jax.vmap(backup)(
                tree, path, new_states, prior, leaf.value, leaf.rollout, start + sim
            )
            return tree, key

        tree, _ = jax.lax.fori_loop(0, num_sims, simulate, (tree, key))
        visits = tree.root_visits()
        return SearchOutput(
            visits=visits,
            policy=visit_policy(visits, states.legal_action_mask),
            values=tree.root_values(),
            tree=tree,
        )

    return search
