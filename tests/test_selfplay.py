"""Self-play records, random openings and the baseline balance (train/selfplay.py)."""

from __future__ import annotations

import functools

import jax
import numpy as np

from warmjax.games import make
from warmjax.search import make_player
from warmjax.train.selfplay import make_selfplay
from warmjax.train.warmstart import (
    BASELINE,
    ENHANCED_VS_BASELINE,
)


@functools.lru_cache(maxsize=None)
def c4_players():
    env = make("connect_four")
    strong = make_player("pure_mcts", env, simulations=48, temperature_moves=2)
    weak = make_player("random", env, temperature_moves=2)
    return env, strong, weak


def test_selfplay_records_and_value_targets():
    env, strong, weak = c4_players()
    selfplay = jax.jit(make_selfplay(env, weak, strong, 16))
    games = jax.device_get(selfplay(None, jax.random.PRNGKey(0), ENHANCED_VS_BASELINE, 0.5))
    valid = np.asarray(games.valid)
    plies = np.asarray(games.plies)
    np.testing.assert_array_equal(valid.sum(0), plies)
    # Replay each game: the observation at ply t is the state's, and z is the final result
    # for the player to move there.
    step = jax.jit(env.step)
    init_keys = jax.random.split(jax.random.split(jax.random.PRNGKey(0))[1], 16)
    for g in range(16):
        state = env.init(init_keys[g])
        for t in range(plies[g]):
            np.testing.assert_array_equal(games.obs[t, g], np.asarray(state.observation))
            policy, action = games.policy[t, g], int(games.actions[t, g])
            assert abs(policy.sum() - 1) < 1e-5 and bool(state.legal_action_mask[action])
            if t >= 2:  # after T′ the target is the one-hot move
                np.testing.assert_array_equal(policy, np.eye(env.num_actions)[action])
            assert games.value[t, g] == games.results[g, int(state.current_player)]
            state = step(state, action)
        assert bool(state.terminated)
        np.testing.assert_array_equal(games.results[g], np.asarray(state.rewards))
        assert sorted(games.results[g].tolist()) in ([-1.0, 1.0], [0.0, 0.0])
    # The strong side (enhancement here) beats the random baseline side: r < 0.
    assert float(games.baseline_balance) < -8


def test_random_opening_is_unrecorded_and_off_means_unchanged():
    env, strong, weak = c4_players()
    key = jax.random.PRNGKey(2)
    plain = jax.jit(make_selfplay(env, strong, weak, 16))
    off = jax.jit(make_selfplay(env, strong, weak, 16, random_opening=0))
    a, b = plain(None, key, BASELINE, 0.5), off(None, key, BASELINE, 0.5)
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))

    opened = jax.jit(make_selfplay(env, strong, weak, 16, random_opening=6))
    games = jax.device_get(opened(None, key, BASELINE, 0.5))
    valid, plies = np.asarray(games.valid), np.asarray(games.plies)
    lead = np.argmax(valid, axis=0)  # the first recorded ply of each game
    assert lead.max() <= 6 and len(set(lead.tolist())) >= 3  # k ~ U{0..6}, varied
    step = jax.jit(env.step)
    init_keys = jax.random.split(jax.random.split(key)[1], 16)
    for g in range(16):
        # Unrecorded before k, recorded from k to the end of the game.
        np.testing.assert_array_equal(valid[:, g], (np.arange(len(valid)) >= lead[g])
                                      & (np.arange(len(valid)) < plies[g]))
        state = env.init(init_keys[g])
        for t in range(plies[g]):
            action = int(games.actions[t, g])
            assert bool(state.legal_action_mask[action])  # random moves are legal ones
            if valid[t, g]:
                np.testing.assert_array_equal(games.obs[t, g], np.asarray(state.observation))
                assert games.value[t, g] == games.results[g, int(state.current_player)]
            state = step(state, action)
        assert bool(state.terminated)
        np.testing.assert_array_equal(games.results[g], np.asarray(state.rewards))


def test_selfplay_balance_sign_follows_the_baseline_side():
    env, strong, weak = c4_players()
    strong = make_player("pure_mcts", env, strong.config, temperature_moves=0)
    weak = make_player("random", env, temperature_moves=0)
    selfplay = jax.jit(make_selfplay(env, strong, weak, 16))
    games = selfplay(None, jax.random.PRNGKey(1), ENHANCED_VS_BASELINE, 0.5)
    assert float(games.baseline_balance) > 8  # the baseline is the strong side now
    games = selfplay(None, jax.random.PRNGKey(1), BASELINE, 0.5)
    assert float(games.baseline_balance) == 0.0  # only counted against the enhancement
