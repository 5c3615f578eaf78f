"""Gumbel AlphaZero's search (search/gumbel.py, the `gumbel` player).

Checked against mctx called directly, with a recurrent function written here from the rules
(the same network and the same Gumbel noise); against the paper's improved policy computed
by hand from the search tree's root; on a position with a win in one; and for the settings
it refuses."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mctx
import numpy as np
import pytest

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.search import SearchConfig, make_player
from warmjax.search.gumbel import make_gumbel_search
from warmjax.train.run_config import ConfigError

from ..helpers import compose_config


@pytest.fixture(scope="module")
def setup():
    env = make("connect_four")
    net = make_network(env.num_actions, env.observation_shape, None, channels=8, fc=(16, 16))
    params = net.init(jax.random.PRNGKey(0))
    return env, net, params


def opened(env, games: int, plies: int, seed: int):
    """`games` states after `plies` uniformly random moves (none of them finished)."""
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(seed), games))
    key = jax.random.PRNGKey(seed + 1)
    for _ in range(plies):
        key, sub = jax.random.split(key)
        logits = jnp.where(states.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(sub, logits)
        states = jax.vmap(env.step)(states, action)
    assert not bool(jnp.any(states.terminated))
    return states


def direct_mctx(env, net, params, key, states, simulations, considered, gumbel_scale):
    """The Gumbel search as mctx's own example would run it, written without warmjax's
    search code: the root from the network, one state step per simulation."""

    def recurrent(params, rng, action, embedding):
        def one(state, a):
            nxt = env.step(state, a)
            reward = nxt.rewards[state.current_player]
            return nxt, reward

        nxt, reward = jax.vmap(one)(embedding, action)
        logits, value = net.apply(params, nxt.observation)
        logits = jnp.where(nxt.legal_action_mask, logits, -1e9)
        discount = jnp.where(nxt.terminated, 0.0, -1.0)
        value = jnp.where(nxt.terminated, 0.0, value)
        return mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits,
                                      value=value), nxt

    logits, value = net.apply(params, states.observation)
    legal = states.legal_action_mask
    root = mctx.RootFnOutput(prior_logits=jnp.where(legal, logits, -1e9), value=value,
                             embedding=states)
    return mctx.gumbel_muzero_policy(params, key, root, recurrent, simulations,
                                     invalid_actions=~legal,
                                     max_num_considered_actions=considered,
                                     gumbel_scale=gumbel_scale)


@pytest.mark.slow
@pytest.mark.parametrize("simulations,considered,scale", [(16, 4, 1.0), (8, 2, 0.0)])
def test_player_equals_mctx_on_the_same_network_and_noise(setup, simulations, considered,
                                                          scale):
    env, net, params = setup
    states = opened(env, 8, 5, seed=simulations)
    config = SearchConfig(simulations=simulations, gumbel_considered=considered,
                          gumbel_scale=scale, baseline_search="gumbel")
    player = make_player("gumbel", env, net.apply, config)
    key = jax.random.PRNGKey(7)
    move = jax.jit(player.__call__)(params, key, states)
    # The player splits its key into the search's and the move's, in that order.
    search_key, _ = jax.random.split(key)
    want = jax.jit(direct_mctx, static_argnums=(0, 1, 5, 6, 7))(
        env, net, params, search_key, states, simulations, considered, scale)
    np.testing.assert_array_equal(np.asarray(move.action), np.asarray(want.action))
    np.testing.assert_allclose(np.asarray(move.policy), np.asarray(want.action_weights),
                               rtol=1e-5, atol=1e-6)
    root = want.search_tree.node_values[:, 0]
    np.testing.assert_allclose(np.asarray(move.value), np.asarray(root), rtol=1e-5, atol=1e-6)
    # The noise matters where it is on: other keys select other actions somewhere.
    if scale > 0:
        other = jax.jit(player.__call__)(params, jax.random.PRNGKey(8), states)
        assert not np.array_equal(np.asarray(other.action), np.asarray(move.action))


def improved_by_hand(tree, c_visit: float, c_scale: float) -> np.ndarray:
    """π′ of the root by the paper's formulas (Danihelka et al. 2022, §4 and Appendix D):
    completed Q with the mixed value v_mix for unvisited actions, rescaled to [0, 1] by its
    min and max, σ(q̂) = (c_visit + max_b N(b))·c_scale·q̂, π′ = softmax(logits + σ)."""
    out = []
    for b in range(tree.children_visits.shape[0]):
        visits = np.asarray(tree.children_visits[b, 0], np.float64)
        logits = np.asarray(tree.children_prior_logits[b, 0], np.float64)
        reward = np.asarray(tree.children_rewards[b, 0], np.float64)
        discount = np.asarray(tree.children_discounts[b, 0], np.float64)
        child = np.asarray(tree.children_index[b, 0])
        values = np.asarray(tree.node_values[b], np.float64)
        q = np.where(child >= 0, reward + discount * values[np.maximum(child, 0)], 0.0)
        prior = np.exp(logits - logits.max())
        prior /= prior.sum()
        seen = visits > 0
        raw = float(tree.raw_values[b, 0])
        total = visits.sum()
        weighted = (prior[seen] * q[seen]).sum() / prior[seen].sum() if seen.any() else 0.0
        v_mix = (raw + total * weighted) / (1.0 + total)
        completed = np.where(seen, q, v_mix)
        low, high = completed.min(), completed.max()
        scaled = (completed - low) / max(high - low, 1e-8)
        sigma = (c_visit + visits.max()) * c_scale * scaled
        z = logits + sigma
        p = np.exp(z - z.max())
        out.append(p / p.sum())
    return np.array(out)


@pytest.mark.slow
def test_improved_policy_is_the_papers_formula(setup):
    # Settings other than mctx's defaults (50, 0.1), so that passing them on is checked too;
    # the defaults are the comparison with mctx above.
    c_visit, c_scale = 10.0, 1.0
    env, net, params = setup
    states = opened(env, 6, 7, seed=3)
    config = SearchConfig(simulations=20, gumbel_considered=4, gumbel_c_visit=c_visit,
                          gumbel_c_scale=c_scale, baseline_search="gumbel")
    out = jax.jit(make_gumbel_search(env, net.apply, config))(params, jax.random.PRNGKey(1),
                                                              states)
    expected = improved_by_hand(jax.device_get(out.tree), c_visit, c_scale)
    np.testing.assert_allclose(np.asarray(out.improved), expected, rtol=1e-4, atol=1e-6)
    legal = np.asarray(states.legal_action_mask)
    assert np.all(np.asarray(out.improved)[~legal] < 1e-6)
    assert np.asarray(out.visits).sum(axis=1).tolist() == [20] * 6


@pytest.mark.slow
def test_takes_a_win_in_one(setup):
    # X has three in column 0 and is to move: column 0 wins at once (O threatens column 1).
    env, net, params = setup
    state = env.init(jax.random.PRNGKey(0))
    for action in (0, 1, 0, 1, 0, 1):
        state = env.step(state, action)
    states = jax.tree.map(lambda x: x[None], state)
    config = SearchConfig(simulations=32, gumbel_considered=6, baseline_search="gumbel")
    search = jax.jit(make_gumbel_search(env, net.apply, config.without_noise()))
    out = search(params, jax.random.PRNGKey(0), states)
    assert int(out.selected[0]) == 0
    assert int(np.argmax(np.asarray(out.improved[0]))) == 0
    # The winning edge's Q is the mover's reward, +1, whatever lies below the finished game.
    tree = out.tree
    child = int(tree.children_index[0, 0, 0])
    q = float(tree.children_rewards[0, 0, 0] + tree.children_discounts[0, 0, 0]
              * tree.node_values[0, child])
    assert q == pytest.approx(1.0)
    # The target's other reading: the root visit distribution.
    player = make_player("gumbel", env, net.apply, config.without_noise(),
                         gumbel_target="visits")
    move = player(params, jax.random.PRNGKey(0), states)
    visits = np.asarray(out.visits[0], np.float64)
    np.testing.assert_allclose(np.asarray(move.policy[0]), visits / visits.sum(), rtol=1e-6)


def test_refused_settings(setup):
    env, net, _ = setup
    with pytest.raises(ValueError, match=r"gumbel_considered \(8\) exceeds the game's 6 "):
        make_player("gumbel", env, net.apply, SearchConfig(gumbel_considered=8))
    with pytest.raises(ValueError, match=r"does not take search.reuse_tree"):
        make_player("gumbel", env, net.apply, SearchConfig(reuse_tree=True))
    with pytest.raises(ValueError, match=r"search.dirichlet_fraction, search.fpu"):
        make_player("gumbel", env, net.apply,
                    SearchConfig(dirichlet_fraction=0.25, fpu="parent"))
    with pytest.raises(ValueError, match=r"baseline_search must be one of mcts, gumbel, got"):
        SearchConfig(baseline_search="rave")
    with pytest.raises(ConfigError, match=r"^search.gumbel_target must be one of"):
        compose_config(["+experiment=baseline_c4", "profile=smoke", "search.baseline_search=gumbel",
                        "search.gumbel_target=counts"], "unused")
