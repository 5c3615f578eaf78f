"""The batched search against the plain-Python reference: the baseline and every variant, and
special roots (terminal, Othello's forced pass)."""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import make
from warmjax.search import Inputs, SearchConfig, variant_search

from .search_helpers import GAMES, SIMS, WEIGHT, jitted_search, positions, reference_for, setup

# --------------------------------------------------------------------------------------
# (a) Baseline against the reference on 50 positions per game.


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_baseline_matches_reference(game):
    states = positions(game, 50)
    out = jitted_search(game, "mcts", SIMS)(setup(game)[2], jax.random.key(0), states)
    visits = np.asarray(out.visits)
    for b in range(50):
        root = reference_for(game, "mcts", states, b, jax.random.key(0), SIMS)
        np.testing.assert_array_equal(visits[b], root.n, err_msg=f"position {b}")
        q_ref = np.where(root.n > 0, root.w / np.maximum(root.n, 1), 0)
        np.testing.assert_allclose(np.asarray(out.values)[b], q_ref, atol=1e-5)


# --------------------------------------------------------------------------------------
# Every other variant, including RAVE's AMAF statistics with rollout moves, against the
# reference driven by the same rollouts.

VARIANT_CASES = (
    [("connect_four", v, False) for v in ("rollout", "rave", "rora", "wro", "wrora",
                                          "pure_mcts", "pure_rave")]
    + [("othello", v, False) for v in ("rollout", "rave", "wrora", "pure_rave")]
    + [("gobang", "rora", False), ("gobang", "wro", False), ("connect_four", "rora", True)]
)


@pytest.mark.slow
@pytest.mark.parametrize("game,variant,all_players", VARIANT_CASES)
def test_variant_matches_reference(game, variant, all_players):
    count = 8
    states = positions(game, count, seed=1)
    key = jax.random.key(3)
    search = jitted_search(game, variant, SIMS, all_players)
    out = search(Inputs(setup(game)[2], WEIGHT), key, states)
    for b in range(count):
        root = reference_for(game, variant, states, b, key, SIMS, all_players)
        np.testing.assert_array_equal(np.asarray(out.visits)[b], root.n, err_msg=f"pos {b}")
        np.testing.assert_array_equal(np.asarray(out.tree.rave_visits)[b, 0], root.n_rave)
        np.testing.assert_allclose(np.asarray(out.tree.rave_value_sums)[b, 0], root.w_rave,
                                   atol=1e-5)


# --------------------------------------------------------------------------------------
# Special roots: terminal roots and Othello's forced pass.


@pytest.mark.slow
def test_terminal_root_and_forced_pass():
    env = make("othello")
    # X has no placement (every empty cell needs an O line to flip): pass is forced.
    forced = env.from_ascii(
        """
        O O O O O O
        O O O O O O
        O O O X O O
        O O O O O O
        O O O O O O
        O O O O . .
        """,
        to_move="X",
    )
    mask = np.asarray(forced.legal_action_mask)
    assert mask[-1] and mask.sum() == 1
    init = env.init(jax.random.key(1))
    states = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), forced, init)
    search = jitted_search("othello", "pure_mcts", SIMS)
    out = search(None, jax.random.key(0), states)
    assert int(out.visits[0, 36]) == SIMS
    # A terminal root: no simulation adds anything, and the policy is still a distribution.
    done = env.from_ascii("\n".join(["X X X X X X"] * 6), to_move="O")
    assert bool(done.terminated)
    states = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), done, init)
    out = search(None, jax.random.key(0), states)
    assert int(out.visits[0].sum()) == 0
    np.testing.assert_allclose(np.asarray(out.policy).sum(-1), 1.0, rtol=1e-6)


@pytest.mark.slow
def test_search_compiles_once():
    env, net, params, _, _ = setup("connect_four")
    search = variant_search("mcts", env, net.apply, SearchConfig(simulations=4))
    traced = jax.jit(chex.assert_max_traces(search, n=1))
    states = positions("connect_four", 4)
    for seed in range(3):
        traced(Inputs(params, jnp.float32(0.1 * seed)), jax.random.key(seed), states)
