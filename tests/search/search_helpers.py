"""What the search tests share: the games' setups, positions, jitted searches and the
plain-Python reference driven by the same rollouts."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.search import SearchConfig, random_legal_action, variant_search
from warmjax.search.rollouts import rollout

from ..ref_search import reference_search

GAMES = ("othello", "connect_four", "gobang")
SIMS = 24
WEIGHT = 0.3


@functools.lru_cache(maxsize=None)
def setup(game):
    env = make(game)
    net = make_network(env.num_actions, env.observation_shape, "small")
    params = net.init(jax.random.key(7))
    apply_one = jax.jit(lambda p, obs: tuple(y[0] for y in net.apply(p, obs[None])))
    return env, net, params, jax.jit(env.step), apply_one


@functools.lru_cache(maxsize=None)
def positions(game, count, seed=0):
    """`count` non-terminal positions from random play, at assorted depths (batched)."""
    env = make(game)
    rows, cols = env.board_shape
    pool = 4 * count

    @jax.jit
    def play(key):
        k_init, k_depth, k_play = jax.random.split(key, 3)
        states = jax.vmap(env.init)(jax.random.split(k_init, pool))
        depth = jax.random.randint(k_depth, (pool,), 0, rows * cols // 2)

        def body(t, states):
            keys = jax.random.split(jax.random.fold_in(k_play, t), pool)
            actions = jax.vmap(random_legal_action)(keys, states.legal_action_mask)
            nxt = jax.vmap(env.step)(states, actions)
            keep = (depth > t) & ~nxt.terminated
            return jax.tree_util.tree_map(
                lambda a, b: jnp.where(keep.reshape(-1, *[1] * (a.ndim - 1)), a, b), nxt, states)

        return jax.lax.fori_loop(0, rows * cols // 2, body, states)

    states = play(jax.random.key(seed))
    idx = np.flatnonzero(~np.asarray(states.terminated))[:count]
    assert len(idx) == count
    return jax.tree_util.tree_map(lambda x: x[idx], states)


def one(states, b):
    return jax.tree_util.tree_map(lambda x: x[b], states)


@functools.lru_cache(maxsize=None)
def jitted_search(game, variant, sims, all_players=False):
    env, net, _, _, _ = setup(game)
    config = SearchConfig(simulations=sims, rave_all_players=all_players)
    return jax.jit(variant_search(variant, env, net.apply, config))


@functools.partial(jax.jit, static_argnums=(1, 2))
def search_rollout_keys(key, sims, batch):
    """`[sims, batch]` the keys the search hands each game's rollout (its key schedule)."""

    def body(k, _):
        k, leaf_key = jax.random.split(k)
        return k, jax.random.split(leaf_key, batch)

    return jax.lax.scan(body, key, None, length=sims)[1]


@functools.lru_cache(maxsize=None)
def recorded_rollout(game):
    env = setup(game)[0]
    return jax.jit(lambda s, k: rollout(env, k, s, record=env.max_plies + 1))


# The variants as method.md §2–§4 describe them, written out here independently of the
# package's variant table: (leaf value, network prior, UCT_rave selection with AMAF).
REFERENCE_VARIANTS = {
    "mcts": ("network", True, False),
    "rollout": ("rollout", True, False),
    "rave": ("network", True, True),
    "rora": ("rollout", True, True),
    "wro": ("mix", True, False),
    "wrora": ("mix", True, True),
    "pure_mcts": ("rollout", False, False),
    "pure_rave": ("rollout", False, True),
}


def reference_for(game, variant, states, b, key, sims, all_players=False):
    """Runs the reference on position b, replaying the search's rollout keys."""
    env, _, params, step, apply_one = setup(game)
    leaf, use_net, rave = REFERENCE_VARIANTS[variant]
    batch = states.current_player.shape[0]
    leaf_keys = search_rollout_keys(key, sims, batch)[:, b]
    play = recorded_rollout(game)

    def evaluate(state, sim):
        if use_net:
            logits, v = (np.asarray(x, np.float64) for x in apply_one(params, state.observation))
        else:
            logits, v = np.zeros(env.num_actions), 0.0
        moves = []
        if leaf != "network" and sim >= 0:
            r = play(state, leaf_keys[sim])
            n = int(r.length)
            moves = list(zip(np.asarray(r.actions)[:n].tolist(),
                             np.asarray(r.players)[:n].tolist()))
            rv = float(r.value)
            v = rv if leaf == "rollout" else (1 - WEIGHT) * float(v) + WEIGHT * rv
        return logits, float(v), moves

    return reference_search(one(states, b), step, evaluate, sims, rave=rave,
                            all_players=all_players)


def search_with(selection=None, backup=None):
    """The PUCT search on Connect Four, one part replaced, run once on the first position."""
    from warmjax.search import backup as backup_parts
    from warmjax.search import leaf
    from warmjax.search import selection as rules
    from warmjax.search.search import make_search

    env = make("connect_four")
    config = SearchConfig(simulations=4)
    search = make_search(env, config,
                         selection=selection or rules.puct_rule(config),
                         leaf=leaf.uniform_prior_rollout_leaf(env, None, 0),
                         backup=backup or backup_parts.value_backup(config))
    states = jax.vmap(env.init)(jax.random.split(jax.random.key(0), 2))
    return jax.jit(search)(None, jax.random.key(1), states)
