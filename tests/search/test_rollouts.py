"""Rollouts: values against exact expectations under uniform random play, the rules' fast
playouts against the step playouts, and their randomness."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import make
from warmjax.games.playout import kth_legal_action, kth_set_bit
from warmjax.search import random_legal_action
from warmjax.search.rollouts import rollout, rules_rollout, step_rollout

from ..game_helpers import NEAR_END
from .search_helpers import GAMES, SIMS, jitted_search

# --------------------------------------------------------------------------------------
# (c) Rollout values against exact expectations under uniform random play.


def exact_value(env, step, state, me):
    """Expected result for player `me` under uniform random play, by enumeration."""
    if bool(state.terminated):
        return 0.0
    legal = np.flatnonzero(np.asarray(state.legal_action_mask))
    total = 0.0
    for a in legal:
        nxt = step(state, jnp.int32(a))
        total += float(nxt.rewards[me]) + exact_value(env, step, nxt, me)
    return total / len(legal)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_rollout_mean_matches_exact_expectation(game):
    env = make(game)
    step = jax.jit(env.step)
    state = env.from_ascii(*NEAR_END[game])
    assert not bool(state.terminated)
    me = int(state.current_player)
    expected = exact_value(env, step, state, me)
    n = 4000
    keys = jax.random.split(jax.random.key(11), n)
    values = np.asarray(jax.jit(jax.vmap(lambda k: rollout(env, k, state).value))(keys))
    assert set(np.unique(values)) <= {-1.0, 0.0, 1.0}
    stderr = values.std(ddof=1) / np.sqrt(n)
    assert abs(values.mean() - expected) < 3 * stderr + 1e-9, (values.mean(), expected, stderr)
    # The playouts are not degenerate: the position has several outcomes.
    assert values.std() > 0.1


@pytest.mark.parametrize("game, params", [
    ("othello", {}), ("othello", {"size": 4}), ("connect_four", {"rows": 5, "cols": 4}),
    ("gobang", {"size": 9, "win_length": 5}),
])
@pytest.mark.slow
def test_rules_rollouts_play_the_step_rollouts_moves(game, params):
    # The fast playout (the game's PlayoutRules) and the one through pgx's public `step`
    # play the same moves, results and lengths from the same keys, on positions from
    # random play (terminal ones included).
    env = make(game, **params)
    rules = env.playout_rules()
    assert rules is not None
    batch = 96

    def advance(key, state, plies):
        def body(i, s):
            a = random_legal_action(jax.random.fold_in(key, 100 + i), s.legal_action_mask)
            return jax.lax.cond(s.terminated, lambda: s, lambda: env.step(s, a))
        return jax.lax.fori_loop(0, plies, body, state)

    keys = jax.random.split(jax.random.key(0), batch)
    rows, cols = env.board_shape
    plies = jax.random.randint(jax.random.key(3), (batch,), 0, rows * cols)
    states = jax.jit(jax.vmap(advance))(keys, jax.vmap(env.init)(keys), plies)
    record = env.max_plies
    play_keys = jax.random.split(jax.random.key(5), batch)
    by_step = jax.jit(jax.vmap(lambda k, s: step_rollout(env, k, s, record)))(play_keys, states)
    by_rules = jax.jit(jax.vmap(lambda k, s: rules_rollout(env, rules, k, s, record)))(
        play_keys, states)
    assert 0 < int(states.terminated.sum()) < batch
    assert len(np.unique(np.asarray(by_step.value))) == 3
    for name, a, b in zip(by_step._fields, by_step, by_rules):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=name)


def test_kth_set_bit_matches_the_mask_choice():
    # Row bitmasks and the legal mask give the same k-th action, pass included.
    rng = np.random.default_rng(0)
    width, rows = 5, 4
    masks = rng.random((300, rows * width)) < rng.random((300, 1))
    masks[:10] = False
    us = rng.random(300).astype(np.float32)
    bits = (masks.reshape(-1, rows, width) * (1 << np.arange(width))).sum(-1).astype(np.int32)
    pass_action = rows * width
    with_pass = np.concatenate([masks, ~masks.any(1, keepdims=True)], axis=1)
    by_mask = jax.vmap(kth_legal_action)(jnp.asarray(us), jnp.asarray(with_pass))
    by_bits = jax.vmap(lambda u, b: kth_set_bit(u, [b[i] for i in range(rows)], width,
                                                pass_action))(jnp.asarray(us), jnp.asarray(bits))
    np.testing.assert_array_equal(np.asarray(by_mask), np.asarray(by_bits))
    assert (np.asarray(by_bits) == pass_action).sum() >= 10


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_rollouts_differ_across_the_batch():
    env = make("connect_four")
    state = env.init(jax.random.key(0))
    states = jax.tree_util.tree_map(lambda x: jnp.stack([x] * 8), state)
    search = jitted_search("connect_four", "pure_mcts", SIMS)
    visits = np.asarray(search(None, jax.random.key(5), states).visits)
    assert len({tuple(v) for v in visits}) > 1


