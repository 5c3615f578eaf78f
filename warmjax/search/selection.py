"""Selection rules: AlphaZero's PUCT (method.md §2) and RAVE's UCT_rave (method.md §3).

Both score one node's edges; the search takes the argmax (the first one on exact ties).
`puct_rule(config)` and `uct_rave_rule(config)` are the parts a variant hands the search
(`variants.py`): `scores(tree, node) -> [A]` with the config's c, k and first-play urgency.

PUCT:      U(s,a) = Q(s,a) + c · P(s,a) · sqrt(N(s)) / (1 + N(s,a)),  N(s) = Σ_a N(s,a)
RAVE:      (1 − β) · U(s,a) + β · [Q_rave(s,a) + c · P(s,a) · sqrt(N_rave(s)) / (1 + N_rave(s,a))]
           β = sqrt(k / (3 N(s) + k)),  k = the equivalence parameter, N_rave(s) = Σ_a N_rave(s,a)

Forced playouts (`forced_playouts` k, a named departure, KataGo's): at the root an edge with
fewer visits than sqrt(k · P(s,a) · N(s)) is selected before any other (`with_forced`), and
`pruned_visits` then takes those extra visits back out of the policy the search returns.

Unvisited edges have Q = 0 (the papers, AlphaZero General). First-play urgency (`fpu`, a named
departure, method.md §2) replaces that 0 by another value: a number (1.0 counts an untried
edge as a certain win, so a node tries its other moves early), or "parent", the mean value
of the node's tried edges weighted by their visits. At a node none of whose edges has been
tried, N(s) = 0 makes every score equal; as in AlphaZero General, `sqrt(N(s) + 1e-8)` then
breaks the tie in favour of the highest prior (for N(s) ≥ 1 the 1e-8 vanishes in float32).
"""

from __future__ import annotations

from typing import Callable, Protocol

import jax
import jax.numpy as jnp

from warmjax.search.config import SearchConfig
from warmjax.search.tree import Tree

TIE_EPSILON = 1e-8

# A selection rule: `scores(tree, node) -> [A]`, the search takes their argmax.
SelectionRule = Callable[[Tree, jax.Array], jax.Array]


class SelectionBuilder(Protocol):
    """A selection part's builder (`puct_rule`, `uct_rave_rule`): the rule for a config."""

    def __call__(self, config: SearchConfig) -> SelectionRule: ...


def _mean(sums: jax.Array, visits: jax.Array, unvisited=0.0) -> jax.Array:
    return jnp.where(visits > 0, sums / jnp.maximum(visits, 1).astype(sums.dtype), unvisited)


def unvisited_value(sums: jax.Array, visits: jax.Array, fpu) -> jax.Array:
    """Q given to one node's untried edges: `fpu` itself, or for "parent" the visit-weighted
    mean value of its tried edges (0 before any)."""
    if fpu == "parent":
        return jnp.sum(sums) / jnp.maximum(jnp.sum(visits), 1).astype(sums.dtype)
    return jnp.float32(fpu)


def puct(q: jax.Array, visits: jax.Array, prior: jax.Array, c: float) -> jax.Array:
    """`[A]` PUCT scores from mean values, visit counts and priors of one node's edges."""
    total = jnp.sum(visits).astype(jnp.float32)
    return q + c * prior * jnp.sqrt(total + TIE_EPSILON) / (1.0 + visits.astype(jnp.float32))


def puct_scores(tree: Tree, node: jax.Array, c: float, fpu=0.0) -> jax.Array:
    """PUCT scores of node `node` in an unbatched tree. Returns `[A]`, −inf where illegal."""
    visits = tree.children_visits[node]
    sums = tree.children_value_sums[node]
    q = _mean(sums, visits, unvisited_value(sums, visits, fpu))
    scores = puct(q, visits, tree.children_prior[node], c)
    return jnp.where(tree.node_legal[node], scores, -jnp.inf)


def rave_scores(tree: Tree, node: jax.Array, c: float, equivalence: float,
                fpu=0.0) -> jax.Array:
    """UCT_rave scores of node `node` in an unbatched tree. Returns `[A]`, −inf where illegal."""
    visits = tree.children_visits[node]
    prior = tree.children_prior[node]
    sums = tree.children_value_sums[node]
    u = puct(_mean(sums, visits, unvisited_value(sums, visits, fpu)), visits, prior, c)
    rave_visits = tree.rave_visits[node]
    u_rave = puct(_mean(tree.rave_value_sums[node], rave_visits), rave_visits, prior, c)
    total = jnp.sum(visits).astype(jnp.float32)
    beta = jnp.sqrt(equivalence / (3.0 * total + equivalence))
    scores = (1.0 - beta) * u + beta * u_rave
    return jnp.where(tree.node_legal[node], scores, -jnp.inf)


def puct_rule(config: SearchConfig) -> SelectionRule:
    """The PUCT selection part: `scores(tree, node) -> [A]`."""

    def scores(tree: Tree, node: jax.Array) -> jax.Array:
        return puct_scores(tree, node, config.c_puct, config.fpu)

    return scores


def uct_rave_rule(config: SearchConfig) -> SelectionRule:
    """The UCT_rave selection part: `scores(tree, node) -> [A]` with k = `config.equivalence`."""
    equivalence = config.equivalence

    def scores(tree: Tree, node: jax.Array) -> jax.Array:
        return rave_scores(tree, node, config.c_puct, equivalence, config.fpu)

    return scores


def forced_edges(tree: Tree, node: jax.Array, k: float) -> jax.Array:
    """`[A]` bool: the root's legal edges with fewer visits than sqrt(k·P(a)·N(s)) (none at
    any other node)."""
    visits = tree.children_visits[node].astype(jnp.float32)
    need = jnp.sqrt(k * tree.children_prior[node] * jnp.sum(visits))
    return (node == Tree.ROOT) & tree.node_legal[node] & (visits < need)


def with_forced(scores, k: float):
    """A selection rule whose root takes a forced edge (`forced_edges`) first, the first
    such; elsewhere, and where none is forced, the rule's own scores."""

    def forced_scores(tree: Tree, node: jax.Array) -> jax.Array:
        return jnp.where(forced_edges(tree, node, k), jnp.inf, scores(tree, node))

    return forced_scores


def pruned_visits(tree: Tree, c: float, k: float) -> jax.Array:
    """`[A]` float32 root visits with the forced playouts pruned (KataGo's policy-target
    pruning), in an unbatched tree. The most visited edge a* keeps its N(a*); every other
    edge loses up to floor(sqrt(k·P(a)·N(s))) visits, but keeps at least the N′ at which its
    PUCT score, Q(a) + c·P(a)·sqrt(N(s)) / (1 + N′), is still no higher than a*'s with its
    real visits; an edge reduced to a single visit loses it."""
    root = Tree.ROOT
    visits = tree.children_visits[root].astype(jnp.float32)
    prior = tree.children_prior[root]
    q = _mean(tree.children_value_sums[root], tree.children_visits[root])
    total = jnp.sum(visits)
    best = jnp.argmax(visits)
    best_score = puct(q, visits, prior, c)[best]
    explore = c * prior * jnp.sqrt(total)
    gap = best_score - q
    # the fewest visits at which Q + c·P·sqrt(N)/(1 + N′) ≤ the best score
    floor_ = jnp.where(gap > 0, jnp.ceil(explore / jnp.maximum(gap, 1e-12) - 1.0), visits)
    kept = jnp.clip(jnp.maximum(visits - jnp.floor(jnp.sqrt(k * prior * total)), floor_),
                    0.0, visits)
    kept = jnp.where((kept <= 1.0) & (kept < visits), 0.0, kept)
    return kept.at[best].set(visits[best])
