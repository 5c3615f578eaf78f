"""Selection at the root: forced playouts and policy-target pruning, against the reference
and by hand."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import make
from warmjax.search import SearchConfig, variant_search

from ..ref_search import pruned, reference_search
from .search_helpers import SIMS, jitted_search, one, positions, search_with, setup


@pytest.mark.slow
def test_forced_playouts_and_pruning_match_the_reference():
    """KataGo's forced playouts (k = 2) against the reference: the root's raw visits, and
    the policy after pruning them, which the reference works out one visit at a time."""
    game, k, count = "connect_four", 2.0, 12
    env, net, params, step, apply_one = setup(game)
    states = positions(game, count)
    config = SearchConfig(simulations=SIMS, forced_playouts=k)
    out = jax.jit(variant_search("mcts", env, net.apply, config))(params, jax.random.key(0),
                                                                   states)
    plain = jitted_search(game, "mcts", SIMS)(params, jax.random.key(0), states)
    assert not np.array_equal(np.asarray(out.visits), np.asarray(plain.visits))
    for b in range(count):
        def evaluate(state, sim):
            logits, v = (np.asarray(x, np.float64) for x in apply_one(params, state.observation))
            return logits, float(v), []

        root = reference_search(one(states, b), step, evaluate, SIMS, forced=k)
        np.testing.assert_array_equal(np.asarray(out.visits)[b], root.n,
                                      err_msg=f"position {b}")
        kept = pruned(root, 1.0, k)
        np.testing.assert_allclose(np.asarray(out.policy)[b], kept / kept.sum(), atol=1e-6,
                                   err_msg=f"position {b}")


def test_pruning_by_hand():
    """Priors 0.5/0.2/0.2/0.1, visits 40/12/6/2 (N = 60), Q 0.5/0.3/−0.2/0, c = 1, k = 2.
    The best edge's score: 0.5 + 0.5·sqrt(60)/41 = 0.59446. Edge 1 may lose floor(sqrt(24))
    = 4 visits and its score stays below at any N′ ≥ ceil(0.2·sqrt(60)/0.29446 − 1) = 5: 8
    left. Edge 2: 6 − 4 = 2, its floor 1: 2 left. Edge 3: 2 − 3 < 0, its floor 1, reduced to
    one visit: 0. With Q(1) = 0.7 above the best score, edge 1 keeps all 12."""
    from warmjax.search.selection import forced_edges, pruned_visits, puct_rule, with_forced
    from warmjax.search.tree import Tree, init_tree

    env = make("connect_four")
    states = jax.vmap(env.init)(jax.random.split(jax.random.key(0), 1))
    prior = jnp.array([[0.5, 0.2, 0.2, 0.1, 0.0, 0.0]])
    tree = jax.tree_util.tree_map(lambda x: x[0], init_tree(states, prior, 8))

    def at_root(visits, q):
        visits = jnp.array(visits, jnp.int32)
        return tree.replace(
            children_visits=tree.children_visits.at[Tree.ROOT].set(visits),
            children_value_sums=tree.children_value_sums.at[Tree.ROOT].set(
                visits * jnp.array(q, jnp.float32)))

    t = at_root([40, 12, 6, 2, 0, 0], [0.5, 0.3, -0.2, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(pruned_visits(t, 1.0, 2.0), [40, 8, 2, 0, 0, 0])
    t2 = at_root([40, 12, 6, 2, 0, 0], [0.5, 0.7, -0.2, 0.0, 0.0, 0.0])
    assert float(pruned_visits(t2, 1.0, 2.0)[1]) == 12.0
    # Forcing: edge 3 has 2 < sqrt(2·0.1·60) = 3.46 visits (edges 1, 2 are above theirs,
    # edges 4, 5 have no prior), so the forced rule takes it whatever PUCT says.
    np.testing.assert_array_equal(forced_edges(t, Tree.ROOT, 2.0),
                                  [False, False, False, True, False, False])
    rule = with_forced(puct_rule(SearchConfig()), 2.0)
    assert int(jnp.argmax(rule(t, Tree.ROOT))) == 3
    assert int(jnp.argmax(puct_rule(SearchConfig())(t, Tree.ROOT))) != 3


def test_a_selection_rule_must_score_every_action_of_one_node():
    """A rule that returns a score per action and one more (7 + 1 on Connect Four) is named
    where it is called, not broadcast into a wrong argmax."""
    def too_many(tree, node):
        return jnp.zeros(tree.children_prior.shape[-1] + 1)

    with pytest.raises(AssertionError, match=r"\(7,\)"):
        search_with(selection=too_many)
