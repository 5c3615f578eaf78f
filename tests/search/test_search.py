"""The batched search against the plain-Python reference, hand-computed AMAF statistics,
rollout expectations, and scripted tactics."""

from __future__ import annotations

import functools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import make
from warmjax.games.playout import kth_legal_action, kth_set_bit
from warmjax.nets import make_network
from warmjax.search import Inputs, SearchConfig, random_legal_action, variant_search
from warmjax.search.rollout import rollout, rules_rollout, step_rollout

from ..game_helpers import NEAR_END
from ..ref_search import pruned, reference_search

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
# (b) AMAF statistics after 1, 2 and 3 simulations, computed by hand.

C4_POSITION = """
. . . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
X O . . . .
"""


def scripted_apply(params, obs):
    """A fake network: logits favour low columns (0 > 1 > 2 ...), value is a constant."""
    del params
    batch = obs.shape[0]
    logits = -0.5 * jnp.arange(6, dtype=jnp.float32)
    return jnp.broadcast_to(logits, (batch, 6)), jnp.full((batch,), -0.5, jnp.float32)


@pytest.mark.slow
def test_rave_statistics_by_hand():
    env = make("connect_four")
    state = env.from_ascii(C4_POSITION, to_move="X")
    states = jax.tree_util.tree_map(lambda x: x[None], state)
    stats = {}
    for sims in (1, 2, 3):
        for all_players in (False, True):
            config = SearchConfig(simulations=sims, rave_all_players=all_players)
            out = jax.jit(variant_search("rave", env, scripted_apply, config))(
                None, jax.random.key(0), states)
            stats[sims, all_players] = (np.asarray(out.tree.rave_visits[0]),
                                        np.asarray(out.tree.rave_value_sums[0]),
                                        np.asarray(out.tree.children_index[0]))
    # Every leaf evaluates to v = -0.5 for its player to move.
    # Sim 1: at the root N(s) = 0, so the highest prior wins: column 0. New node 1 (O to
    # move), value -0.5 for O = +0.5 for X. AMAF: root counts X's move 0 -> (1, +0.5).
    n, w, _ = stats[1, False]
    np.testing.assert_array_equal(n[0], [1, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(w[0], [0.5, 0, 0, 0, 0, 0])
    assert n[1].sum() == 0  # the new leaf has no moves after it without a rollout
    # Sim 2: root N(s) = 1, beta = sqrt(2 / (3 + 2)). Column 0: Q = Q_rave = 0.5 plus
    # c·P0·1/2; column 1: c·P1·1/1. P = softmax(0, -.5, -1, ...): P0 = 0.4141, P1 = 0.2516.
    # U0 = 0.5 + 0.2071 = 0.7071 > U1 = 0.2516, so the walk goes to node 1 (O to move,
    # N = 0) and takes its top prior, column 0 again. New node 2 (X to move): v = -0.5 for X.
    # Backups: root edge 0 gets -0.5 (X's view), node-1 edge 0 gets +0.5 (O's view).
    # AMAF (own moves): root: X played 0 -> N_rave(root, 0) = 2, W = 0.5 - 0.5 = 0.
    # node 1: O played 0 -> N_rave(1, 0) = 1, W = +0.5.
    n, w, children = stats[2, False]
    assert children[0, 0] == 1 and children[1, 0] == 2
    np.testing.assert_array_equal(n[0], [2, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(w[0], [0.0, 0, 0, 0, 0, 0], atol=1e-6)
    np.testing.assert_array_equal(n[1], [1, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(w[1], [0.5, 0, 0, 0, 0, 0])
    # Sim 3: root N(s) = 2, beta = sqrt(3 / 9) = 0.5774, Q(0) = 0, Q_rave(0) = 0.
    # U0 = c·P0·sqrt(2)/3 = 0.1952 (both parts), U1 = c·P1·sqrt(2) = 0.3558: column 1.
    # New node 3 (O to move): v = -0.5 for O -> +0.5 for X.
    # AMAF: root: X played 1 -> N_rave(root, 1) = 1, W = +0.5.
    n, w, children = stats[3, False]
    assert children[0, 1] == 3
    np.testing.assert_array_equal(n[0], [2, 1, 0, 0, 0, 0])
    np.testing.assert_allclose(w[0], [0.0, 0.5, 0, 0, 0, 0], atol=1e-6)
    np.testing.assert_array_equal(n[1], [1, 0, 0, 0, 0, 0])
    # With moves of both players counted, sim 2 also credits O's column-0 move to the root,
    # but column 0 was already counted for the root in that simulation (first occurrence
    # only), so the root's statistics are the same; node 1 is unchanged too.
    for sims in (1, 2, 3):
        np.testing.assert_array_equal(stats[sims, True][0], stats[sims, False][0])


RORA_POSITION = """
. X O X O X
X O X O X O
X O X O X O
O X O X O X
O X O X O X
X O X O X O
"""


def test_rora_counts_rollout_moves_by_hand():
    # Only column 0 has room (one cell), then the board is full: X plays 0 and the game ends.
    # With two cells free the rollout plays the last move; use a board with two free cells
    # in column 0 so the leaf's rollout is forced: X plays 0 (tree), O plays 0 (rollout).
    env = make("connect_four")
    board = RORA_POSITION.strip().splitlines()
    board[1] = ". " + board[1][2:]
    state = env.from_ascii("\n".join(board), to_move="X")
    assert np.asarray(state.legal_action_mask).tolist() == [True] + [False] * 5
    states = jax.tree_util.tree_map(lambda x: x[None], state)
    config = SearchConfig(simulations=1)
    out = jax.jit(variant_search("rora", env, scripted_apply, config))(
        None, jax.random.key(0), states)
    n, w = np.asarray(out.tree.rave_visits[0]), np.asarray(out.tree.rave_value_sums[0])
    final = env.step(env.step(state, 0), 0)
    result_for_x = float(final.rewards[state.current_player])
    # Root (X): X's tree move 0 counts. Leaf node 1 (O): O's rollout move 0 counts.
    np.testing.assert_array_equal(n[0], [1, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(w[0], [result_for_x, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(n[1], [1, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(w[1], [-result_for_x, 0, 0, 0, 0, 0])


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


def test_rollouts_differ_across_the_batch():
    env = make("connect_four")
    state = env.init(jax.random.key(0))
    states = jax.tree_util.tree_map(lambda x: jnp.stack([x] * 8), state)
    search = jitted_search("connect_four", "pure_mcts", SIMS)
    visits = np.asarray(search(None, jax.random.key(5), states).visits)
    assert len({tuple(v) for v in visits}) > 1


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
