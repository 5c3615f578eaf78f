"""The leaf evaluators (search/leaf.py): each value rule is one entry of a table."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.search import Inputs

from .search_helpers import positions, setup


def test_a_leaf_evaluator_is_one_entry_of_the_table(monkeypatch):
    """A new value rule needs one LEAF_VALUES entry: here half the network's value, on the
    network's own output for the same states, and the game result on a terminal state."""
    from warmjax.search import leaf

    monkeypatch.setitem(leaf.LEAF_VALUES, "half",
                        leaf.LeafValue(lambda net_value, played, weight: 0.5 * net_value, None))
    env, net, params, _, _ = setup("connect_four")
    states = positions("connect_four", 4)
    evaluate = leaf.make_leaf_evaluator(env, net.apply, "half")
    got = evaluate(Inputs(params), jax.random.key(0), states)
    _, value = net.apply(params, states.observation)
    np.testing.assert_allclose(got.value, 0.5 * np.asarray(value), rtol=1e-6)
    assert got.rollout.actions.shape == (4, 0)  # no playout
    over = states.replace(terminated=jnp.ones_like(states.terminated),
                          rewards=jnp.tile(jnp.array([[1.0, -1.0]]), (4, 1)))
    result = np.where(np.asarray(over.current_player) == 0, 1.0, -1.0)
    np.testing.assert_array_equal(evaluate(Inputs(params), jax.random.key(0), over).value,
                                  result)
    with pytest.raises(ValueError, match="unknown leaf evaluator 'none'"):
        leaf.make_leaf_evaluator(env, net.apply, "none")
