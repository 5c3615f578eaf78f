"""Self-play records, random openings and the baseline balance (train/selfplay.py)."""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import make
from warmjax.search import Inputs, make_player
from warmjax.search.players import root_value
from warmjax.search.search import SearchOutput
from warmjax.train.selfplay import (
    EXPLORE_STREAM,
    GAMES_DRAW,
    PLAYOUT_CAP_STREAM,
    SelfPlayRules,
    make_selfplay,
    watkins_returns,
)
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


@pytest.mark.slow
def test_selfplay_records_and_value_targets():
    env, strong, weak = c4_players()
    selfplay = jax.jit(make_selfplay(env, weak, strong, SelfPlayRules(16)))
    games = jax.device_get(selfplay(Inputs(None, 0.5), jax.random.PRNGKey(0), ENHANCED_VS_BASELINE))
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


@pytest.mark.slow
def test_random_opening_is_unrecorded_and_off_means_unchanged():
    env, strong, weak = c4_players()
    key = jax.random.PRNGKey(2)
    plain = jax.jit(make_selfplay(env, strong, weak, SelfPlayRules(16)))
    off = jax.jit(make_selfplay(env, strong, weak, SelfPlayRules(16, random_opening=0)))
    a, b = plain(Inputs(None, 0.5), key, BASELINE), off(Inputs(None, 0.5), key, BASELINE)
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))

    opened = jax.jit(make_selfplay(env, strong, weak, SelfPlayRules(16, random_opening=6)))
    games = jax.device_get(opened(Inputs(None, 0.5), key, BASELINE))
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


@pytest.mark.slow
def test_selfplay_balance_sign_follows_the_baseline_side():
    env, strong, weak = c4_players()
    strong = make_player("pure_mcts", env, strong.config, temperature_moves=0)
    weak = make_player("random", env, temperature_moves=0)
    selfplay = jax.jit(make_selfplay(env, strong, weak, SelfPlayRules(16)))
    games = selfplay(Inputs(None, 0.5), jax.random.PRNGKey(1), ENHANCED_VS_BASELINE)
    assert float(games.baseline_balance) > 8  # the baseline is the strong side now
    games = selfplay(Inputs(None, 0.5), jax.random.PRNGKey(1), BASELINE)
    assert float(games.baseline_balance) == 0.0  # only counted against the enhancement


def test_root_value_is_the_visit_weighted_q_by_hand():
    policy = jnp.array([[0.5, 0.25, 0.25, 0.0, 0.0, 0.0]])
    values = jnp.array([[0.2, -0.4, 1.0, 0.9, 0.0, 0.0]])  # an unvisited edge weighs nothing
    out = SearchOutput(visits=None, policy=policy, values=values, tree=None,
                       playout_steps=None)
    # 0.5·0.2 + 0.25·(−0.4) + 0.25·1.0 = 0.25
    np.testing.assert_allclose(np.asarray(root_value(out)), [0.25], rtol=1e-6)


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_visit_targets_store_the_search_policy_at_every_ply():
    # The same games (same key, same players): off, the target after T′ = 2 plies is the
    # move played one-hot; on, it is the search's π there too, which puts its argmax on
    # the move played (moves are the argmax of π after T′) and is not one-hot everywhere.
    env, strong, weak = c4_players()
    runs = {on: jax.device_get(jax.jit(make_selfplay(
        env, strong, None, SelfPlayRules(8, visit_targets=on)))(
        Inputs(None, 0.5), jax.random.PRNGKey(1), BASELINE)) for on in (False, True)}
    off, on = runs[False], runs[True]
    np.testing.assert_array_equal(on.actions, off.actions)
    np.testing.assert_array_equal(on.value, off.value)
    valid = np.asarray(on.valid)
    late = valid & (np.arange(valid.shape[0])[:, None] >= 2)
    early = valid & ~late
    np.testing.assert_array_equal(on.policy[early], off.policy[early])
    one_hot = np.eye(env.num_actions)[np.asarray(off.actions)]
    np.testing.assert_array_equal(off.policy[late], one_hot[late])
    np.testing.assert_array_equal(np.argmax(on.policy[late], axis=-1), off.actions[late])
    np.testing.assert_allclose(on.policy[valid].sum(-1), 1.0, rtol=1e-5)
    assert (on.policy[late].max(-1) < 1).mean() > 0.5  # spread, not the one-hot move


@pytest.mark.slow
def test_value_mix_blends_z_with_the_movers_root_search_value():
    env = make("connect_four")

    def apply(params, obs):  # a fixed network whose value depends on the position
        del params
        mine, theirs = obs[..., 0].astype(jnp.float32), obs[..., 1].astype(jnp.float32)
        logits = jnp.sum(mine - 0.5 * theirs, axis=1)  # [B, columns]
        return logits, jnp.tanh(0.3 * jnp.sum(mine[:, :3] - theirs[:, :3], axis=(1, 2)))

    player = make_player("mcts", env, apply, simulations=12, temperature_moves=0)
    key = jax.random.PRNGKey(3)
    runs = {mix: jax.device_get(jax.jit(make_selfplay(
        env, player, None, SelfPlayRules(6, random_opening=8, value_mix=mix)))(
        Inputs(None, 0.5), key, BASELINE)) for mix in (0.0, 0.25, 1.0)}
    z, q = runs[0.0].value, runs[1.0].value
    for mix in (0.25, 1.0):  # the same games, only the value target differs
        np.testing.assert_array_equal(runs[mix].actions, runs[0.0].actions)
        np.testing.assert_array_equal(runs[mix].policy, runs[0.0].policy)
    np.testing.assert_allclose(runs[0.25].value, 0.75 * z + 0.25 * q, atol=1e-6)
    # q is the root value of a fresh search of each recorded position (this search is
    # deterministic: no noise, argmax moves, a fixed network).
    act = jax.jit(player)
    valid, plies = np.asarray(runs[0.0].valid), np.asarray(runs[0.0].plies)
    init_keys = jax.random.split(jax.random.split(key)[1], 6)
    step, checked = jax.jit(env.step), 0
    for g in range(6):
        state = env.init(init_keys[g])
        for t in range(plies[g]):
            if valid[t, g]:
                batch = jax.tree_util.tree_map(lambda x: x[None], state)
                value = act(Inputs(None, 0.5), key, batch).value
                np.testing.assert_allclose(q[t, g], float(value[0]), atol=1e-6)
                checked += 1
            state = step(state, int(runs[0.0].actions[t, g]))
    assert checked > 60 and np.abs(q[valid]).max() > 0.1 and len(set(q[valid].tolist())) > 20
    with pytest.raises(ValueError, match=r"value_mix must be in \[0, 1\], got 1.5"):
        make_selfplay(env, player, None, SelfPlayRules(6, value_mix=1.5))


@pytest.mark.slow
def test_the_playout_cap_records_only_the_full_searches():
    # KataGo's playout-cap randomization: each ply, with probability p, the whole batch is
    # searched in full and recorded; otherwise the cheap search (n simulations) moves and
    # nothing is recorded. The draws come from their own stream (PLAYOUT_CAP_STREAM, folded
    # off the loop's key), so they are recomputed here independently of the loop.
    env = make("connect_four")
    full = make_player("mcts", env, lambda p, obs: (jnp.zeros((obs.shape[0], 6)),
                                                   jnp.zeros(obs.shape[0])),
                       simulations=16, temperature_moves=4)
    cheap = make_player("mcts", env, lambda p, obs: (jnp.zeros((obs.shape[0], 6)),
                                                    jnp.zeros(obs.shape[0])),
                        simulations=2, temperature_moves=4)
    key = jax.random.PRNGKey(7)
    games, share = 6, 0.5
    out = jax.device_get(jax.jit(make_selfplay(
        env, full, None, SelfPlayRules(games, playout_cap=share), cheap=cheap))(
        Inputs(None, 0.5), key, BASELINE))
    # selfplay splits the key once (for the first states) before folding off its stream
    loop_key, _ = jax.random.split(key)
    coin = jax.random.fold_in(loop_key, PLAYOUT_CAP_STREAM)
    plies = np.asarray(out.plies)
    drawn = np.array([bool(jax.random.bernoulli(jax.random.fold_in(coin, t), share))
                      for t in range(out.valid.shape[0])])
    live = np.arange(out.valid.shape[0])[:, None] < plies[None, :]
    np.testing.assert_array_equal(out.valid, live & drawn[:, None])
    assert 0 < np.sum(out.valid) < np.sum(live)  # some plies of each kind
    # The ledger: 1 + 16 evaluations per full (recorded) search, 1 + 2 per cheap one.
    cheap_plies = int(np.sum(live & ~drawn[:, None]))
    assert int(out.evaluations) == 17 * int(np.sum(out.valid)) + 3 * cheap_plies
    # Nothing unrecorded leaks into the targets.
    assert np.all(out.policy[~out.valid] == 0) and np.all(out.value[~out.valid] == 0)


@pytest.mark.slow
def test_a_playout_cap_of_one_is_the_papers_selfplay():
    # p = 1: every ply is full, and the games, targets and ledger are those without a cap.
    env, strong, _ = c4_players()
    cheap = make_player("pure_mcts", env, simulations=4, temperature_moves=2)
    key = jax.random.PRNGKey(2)
    plain = jax.device_get(jax.jit(make_selfplay(env, strong, None, SelfPlayRules(4)))(
        Inputs(None, 0.5), key, BASELINE))
    capped = jax.device_get(jax.jit(make_selfplay(
        env, strong, None, SelfPlayRules(4, playout_cap=1.0), cheap=cheap))(
        Inputs(None, 0.5), key, BASELINE))
    for a, b in zip(plain, capped):
        np.testing.assert_array_equal(a, b)


def _fixed_network(params, obs):
    """A fixed network whose prior and value depend on the position (no training)."""
    del params
    mine, theirs = obs[..., 0].astype(jnp.float32), obs[..., 1].astype(jnp.float32)
    logits = jnp.sum(mine - 0.5 * theirs, axis=1)  # [B, columns]
    return logits, jnp.tanh(0.3 * jnp.sum(mine[:, :3] - theirs[:, :3], axis=(1, 2)))


@pytest.mark.slow
def test_exploration_plays_drawn_random_moves_and_keeps_the_searchs_targets():
    # ε-greedy exploration (train.explore) in a drawn share of the games
    # (train.explore_games), at the game's first N plies only (train.explore_plies): at such
    # a ply the exploration stream draws, an exploring game plays a uniformly random legal
    # move; the example keeps the search's π, and every position up to the game's last
    # explored ply takes q as its value target. A draw at a later ply plays the search's
    # move, and the positions after the last explored ply keep z. A game that does not
    # explore is the game without exploration, move for move and target for target. The
    # draws are recomputed here from EXPLORE_STREAM; π and q come from a fresh search of each
    # position (deterministic: no noise, argmax moves, a fixed network).
    env = make("connect_four")
    player = make_player("mcts", env, _fixed_network, simulations=12, temperature_moves=0)
    key, games, share, first = jax.random.PRNGKey(6), 8, 0.3, 10
    plain = jax.device_get(jax.jit(make_selfplay(env, player, None, SelfPlayRules(games)))(
        Inputs(None, 0.5), key, BASELINE))
    rules = SelfPlayRules(games, explore=share, explore_games=0.5, explore_plies=first)
    out = jax.device_get(jax.jit(make_selfplay(env, player, None, rules))(
        Inputs(None, 0.5), key, BASELINE))
    loop_key, init_key = jax.random.split(key)
    wander = jax.random.fold_in(loop_key, EXPLORE_STREAM)
    exploring = np.asarray(jax.random.bernoulli(jax.random.fold_in(wander, GAMES_DRAW), 0.5,
                                                (games,)))
    assert 0 < exploring.sum() < games
    act = jax.jit(player)
    step = jax.jit(env.step)
    init_keys = jax.random.split(init_key, games)
    plies = np.asarray(out.plies)
    explored_seen = kept_q = kept_z = cut = 0
    for g in range(games):
        if not exploring[g]:
            for a, b in ((out.actions, plain.actions), (out.policy, plain.policy),
                         (out.value, plain.value), (out.valid, plain.valid)):
                np.testing.assert_array_equal(a[:, g], b[:, g])
            continue
        stream = [bool(jax.random.bernoulli(jax.random.fold_in(wander, 2 * t), share,
                                            (games,))[g]) for t in range(plies[g])]
        drawn = [d and t < first for t, d in enumerate(stream)]
        cut += sum(stream[first:])
        last = max((t for t in range(plies[g]) if drawn[t]), default=-1)
        state = env.init(init_keys[g])
        for t in range(plies[g]):
            assert out.valid[t, g]
            batch = jax.tree_util.tree_map(lambda x: x[None], state)
            fresh = act(Inputs(None, 0.5), key, batch)
            action = int(out.actions[t, g])
            if drawn[t]:  # one random draw per game; row g's depends on its own mask only
                legal = jnp.broadcast_to(state.legal_action_mask, (games, env.num_actions))
                uniform = jax.random.categorical(jax.random.fold_in(wander, 2 * t + 1),
                                                 jnp.where(legal, 0.0, -jnp.inf))
                assert action == int(uniform[g])
                # the search's π, not the random move one-hot
                np.testing.assert_allclose(out.policy[t, g], np.asarray(fresh.policy[0]),
                                           atol=1e-6)
                explored_seen += 1
            else:  # the search's move, and (T′ = 0) its one-hot target
                assert action == int(fresh.action[0])
                np.testing.assert_array_equal(out.policy[t, g], np.eye(env.num_actions)[action])
            if t <= last:
                np.testing.assert_allclose(out.value[t, g], float(fresh.value[0]), atol=1e-6)
                kept_q += 1
            else:
                assert out.value[t, g] == out.results[g, int(state.current_player)]
                kept_z += 1
            state = step(state, action)
        assert bool(state.terminated)
    assert explored_seen >= 5 and kept_q > 0 and kept_z > 0 and cut > 0
    for bad, message in (({"explore": 1.0},
                          r"explore \(the share of random moves\) must be in \[0, 1\), got 1.0"),
                         ({"explore": 0.1, "explore_games": 0.0},
                          r"share of exploring games\) must be in \(0, 1\]"),
                         ({"explore": 0.1, "explore_plies": 0},
                          r"plies that may explore\) must be at least 1, got 0")):
        with pytest.raises(ValueError, match=message):
            make_selfplay(env, player, None, SelfPlayRules(games, **bad))


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_a_decaying_epsilon_is_the_constant_one_of_its_iteration():
    """train.explore_decay D: iteration i explores with ε·max(0, 1 − (i − 1)/D), by hand;
    its games are those of that constant ε (the same draws), and once ε has reached 0 they
    are the games without exploration, move for move and target for target."""
    rules = SelfPlayRules(8, explore=0.5, explore_decay=4)
    assert [float(rules.epsilon(i)) for i in range(1, 7)] == [0.5, 0.375, 0.25, 0.125, 0, 0]
    assert SelfPlayRules(8, explore=0.5).epsilon(30) == 0.5
    env = make("connect_four")
    player = make_player("mcts", env, _fixed_network, simulations=6, temperature_moves=2)
    key, inputs = jax.random.PRNGKey(3), Inputs(None, 0.5)
    decaying = jax.jit(make_selfplay(env, player, None, rules), static_argnums=2)
    fields = ("actions", "policy", "value", "valid")

    def games(out):
        return [np.asarray(getattr(out, f)) for f in fields]

    at_two = games(decaying(inputs, key, BASELINE, 2))
    constant = games(jax.jit(make_selfplay(env, player, None, SelfPlayRules(
        8, explore=0.375)), static_argnums=2)(inputs, key, BASELINE))
    plain = games(jax.jit(make_selfplay(env, player, None, SelfPlayRules(8)),
                          static_argnums=2)(inputs, key, BASELINE))
    for a, b in zip(at_two, constant):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(at_two[0], plain[0])  # ε = 0.375 did play random moves
    for a, b in zip(games(decaying(inputs, key, BASELINE, 5)), plain):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="needs the iteration"):
        decaying(inputs, key, BASELINE)
    with pytest.raises(ValueError, match=r"ε falls to 0\) must be at least 1, got 0"):
        SelfPlayRules(8, explore=0.5, explore_decay=0)


def test_watkins_returns_by_hand():
    # Game 0: player 0 moves at even plies; plies 2 and 4 explored; player 0 won (z = ±1).
    # Game 1: player 1 moves first; only ply 1 explored. Game 2: nothing explored.
    wandered = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0]],
                        bool)
    movers = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0], [1, 0, 1], [0, 1, 0], [1, 0, 1]])
    q = np.array([[.1, .7, 0], [.2, .6, 0], [.3, .5, 0], [.4, .4, 0], [.5, .3, 0],
                  [.6, .2, 0]], np.float32)
    z = np.where(movers == 0, 1.0, -1.0).astype(np.float32)
    got = np.asarray(watkins_returns(jnp.asarray(wandered), jnp.asarray(q),
                                     jnp.asarray(movers), jnp.asarray(z)))
    # Game 0: plies 0–2 take q₂ = 0.3 (ply 1's mover is the other player: −0.3), ply 3 takes
    # −q₄, ply 4 q₄, ply 5 (after the last explored ply) its z = −1.
    np.testing.assert_allclose(got[:, 0], [.3, -.3, .3, -.5, .5, -1.0], atol=1e-7)
    # Game 1: ply 0 (player 1) takes −q₁ = −0.6 (ply 1 is player 0's), ply 1 takes 0.6,
    # plies 2–5 their z.
    np.testing.assert_allclose(got[:, 1], [-.6, .6, -1.0, 1.0, -1.0, 1.0], atol=1e-7)
    np.testing.assert_array_equal(got[:, 2], z[:, 2])


@pytest.mark.slow
def test_watkins_targets_bootstrap_at_the_first_explored_ply():
    # The same games with train.explore_return "q" and "watkins": the moves and policy
    # targets are the same; a position before the game's last explored ply takes, under
    # "watkins", the q that "q" gave the first explored ply at or after it, signed for its
    # own mover; the rest keep z. The explored plies are recomputed from EXPLORE_STREAM.
    env = make("connect_four")
    player = make_player("mcts", env, _fixed_network, simulations=12, temperature_moves=0)
    key, games, share = jax.random.PRNGKey(7), 6, 0.3
    own, cut = (jax.device_get(jax.jit(make_selfplay(
        env, player, None, SelfPlayRules(games, explore=share, explore_return=mode)))(
        Inputs(None, 0.5), key, BASELINE)) for mode in ("q", "watkins"))
    for a, b in ((own.actions, cut.actions), (own.policy, cut.policy), (own.valid, cut.valid)):
        np.testing.assert_array_equal(a, b)
    wander = jax.random.fold_in(jax.random.split(key)[0], EXPLORE_STREAM)
    bootstrapped = 0
    for g in range(games):
        length = int(own.plies[g])
        drawn = [bool(jax.random.bernoulli(jax.random.fold_in(wander, 2 * t), share,
                                           (games,))[g]) for t in range(length)]
        for t in range(length):
            later = [u for u in range(t, length) if drawn[u]]
            if later:
                u = later[0]
                sign = 1.0 if (u - t) % 2 == 0 else -1.0  # movers alternate every ply
                np.testing.assert_allclose(cut.value[t, g], sign * own.value[u, g], atol=1e-6)
                bootstrapped += u > t
            else:
                assert cut.value[t, g] == own.value[t, g]  # z, in both
    assert bootstrapped > 0
    with pytest.raises(ValueError, match="explore_return must be one of q, watkins, got 'tree'"):
        make_selfplay(env, player, None, SelfPlayRules(games, explore=share, explore_return="tree"))


@pytest.mark.slow
def test_a_group_runs_the_warm_start_branch_only_while_a_run_plays_it():
    """Two runs' self-play vmapped as one group (`warmstart.group_kind`): the enhancement's
    search runs only in the iterations some run plays it. Under vmap a switch on the runs'
    own kinds would run every branch, the Rollout and the versus games included (the
    warm-start tax); the count below would then be non-zero when both runs are baseline.
    The games are those each run plays alone, every kind and mix of kinds."""
    from warmjax.train.warmstart import ENHANCED, group_kind

    env = make("tic_tac_toe")
    baseline = make_player("pure_mcts", env, simulations=4, temperature_moves=1)
    enhancement = make_player("pure_rave", env, simulations=4, temperature_moves=1)
    searched = []

    def counted(inputs, key, states, memory):
        jax.debug.callback(lambda: searched.append(1))
        return enhancement.search(inputs, key, states, memory)

    counting = dataclasses.replace(enhancement, search=counted)
    selfplay = make_selfplay(env, baseline, counting, SelfPlayRules(4))
    group = jax.jit(jax.vmap(
        lambda key, kind: selfplay(Inputs(None, 0.5), key, kind,
                                   group_kind=group_kind(kind, "runs")), axis_name="runs"))
    lone = jax.jit(lambda key, kind: selfplay(Inputs(None, 0.5), key, kind))
    keys = jax.random.split(jax.random.PRNGKey(3), 2)
    for kinds in [(BASELINE, BASELINE), (ENHANCED, ENHANCED), (BASELINE, ENHANCED),
                  (ENHANCED_VS_BASELINE, BASELINE)]:
        searched.clear()
        together = jax.block_until_ready(group(keys, jnp.asarray(kinds, jnp.int32)))
        jax.effects_barrier()
        assert (len(searched) > 0) == (kinds != (BASELINE, BASELINE)), kinds
        for r, kind in enumerate(kinds):
            alone = lone(keys[r], kind)
            np.testing.assert_array_equal(np.asarray(together.actions[r]),
                                          np.asarray(alone.actions))
            np.testing.assert_array_equal(np.asarray(together.valid[r]), np.asarray(alone.valid))


def test_the_rules_are_the_configs_fields_by_name(tmp_path):
    """`SelfPlayRules.of` reads the config's fields by name, every one of them, and the
    rules and the config share one check of them: a bad value reads the same from both."""
    from warmjax.train.run_config import ConfigError, TrainConfig

    from ..helpers import compose_config

    train = TrainConfig(games=6, random_opening=2, value_mix=0.25, visit_targets=True,
                        playout_cap=0.5, explore=0.1, explore_games=0.5, explore_plies=4,
                        explore_return="watkins", explore_decay=10)
    assert SelfPlayRules.of(train) == SelfPlayRules(6, 2, 0.25, True, 0.5, 0.1, 0.5, 4,
                                                    "watkins", 10)
    with pytest.raises(ValueError, match=r"^explore_games \(the share of exploring games\)"):
        SelfPlayRules(6, explore_games=0.0)
    with pytest.raises(ConfigError, match=r"train.explore_games \(the share of exploring"):
        compose_config(["+experiment=baseline_c4", "train.explore_games=0"], tmp_path)
