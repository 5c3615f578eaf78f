"""The compute ledger (method.md §12): counts worked out by hand on tiny positions and
configs, and the same counts from the same config and seed."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.search.leaf import Inputs
from warmjax.search.players import make_player
from warmjax.train.selfplay import SelfPlayRules, make_selfplay
from warmjax.train.warmstart import BASELINE, ENHANCED, ENHANCED_VS_BASELINE

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _won(cells: dict[int, str]) -> bool:
    return any(cells.get(a) is not None and cells.get(a) == cells.get(b) == cells.get(c)
               for a, b, c in LINES)


def _dead_draw_with_two_empties() -> tuple[list[int], list[int]]:
    """A tic-tac-toe position, by plain Python: X has 4 stones, O 3, no line, two empty
    cells, and both ways of filling them end in a draw with no line. Returns the moves
    that reach it (X first, alternating) and its two empty cells."""
    for xs in itertools.combinations(range(9), 4):
        rest = [c for c in range(9) if c not in xs]
        for os_ in itertools.combinations(rest, 3):
            cells = {**{c: "X" for c in xs}, **{c: "O" for c in os_}}
            empty = [c for c in range(9) if c not in cells]
            if _won(cells):
                continue
            # O to move: O takes one empty cell, X the other; no line either way.
            if all(not _won({**cells, o: "O", x: "X"}) for o, x in (empty, empty[::-1])):
                moves = [m for pair in zip(xs, os_) for m in pair] + [xs[3]]
                return moves, empty
    raise AssertionError("no such position")


@pytest.fixture(scope="module")
def dead_draw():
    env = make("tic_tac_toe")
    moves, empty = _dead_draw_with_two_empties()
    state = env.init(jax.random.key(0))
    for move in moves:
        state = env.step(state, jnp.int32(move))
    assert not bool(state.terminated)
    assert sorted(np.flatnonzero(np.asarray(state.legal_action_mask))) == sorted(empty)
    return env, jax.tree_util.tree_map(lambda x: x[None], state)


@pytest.mark.slow
@pytest.mark.parametrize("simulations, steps", [(1, 1), (2, 2), (4, 2), (8, 2)])
def test_playout_steps_by_hand(dead_draw, simulations, steps):
    """From two empty cells and no possible line: simulations 1 and 2 expand the two
    children, whose playouts fill the last cell (1 step each); later simulations reach the
    full boards, terminal, whose playouts take no step. So 1 step for m = 1, 2 after."""
    env, states = dead_draw
    player = make_player("pure_mcts", env, None, simulations=simulations, temperature_moves=0)
    move = player(None, jax.random.key(1), states)
    assert np.asarray(move.playout_steps).tolist() == [steps]
    assert player.evaluations_per_search == 0  # no network


@pytest.mark.slow
def test_network_players_cost_one_plus_m_evaluations(dead_draw):
    env, states = dead_draw
    network = make_network(env.num_actions, env.observation_shape, None, channels=4, fc=(8,))
    for name in ("mcts", "rollout", "wrora", "gumbel"):
        player = make_player(name, env, network.apply, simulations=7)
        assert player.evaluations_per_search == 8, name
    # The network player's playouts are counted the same way as the pure player's.
    wrora = make_player("wrora", env, network.apply, simulations=4, temperature_moves=0)
    move = wrora(network.init(jax.random.key(0)), jax.random.key(1), states)
    assert np.asarray(move.playout_steps).tolist() == [2]
    mcts = make_player("mcts", env, network.apply, simulations=4, temperature_moves=0)
    move = mcts(network.init(jax.random.key(0)), jax.random.key(1), states)
    assert np.asarray(move.playout_steps).tolist() == [0]


@pytest.mark.slow
@pytest.mark.parametrize("kind", [BASELINE, ENHANCED, ENHANCED_VS_BASELINE])
def test_selfplay_counts_every_searched_position(kind):
    """Self-play's evaluations are (1 + m) per recorded position of the network players,
    none for a network-free one; its playout steps are those of the enhancement's moves."""
    env = make("tic_tac_toe")
    network = make_network(env.num_actions, env.observation_shape, None, channels=4, fc=(8,))
    variables = network.init(jax.random.key(0))
    m = 3
    baseline = make_player("mcts", env, network.apply, simulations=m, temperature_moves=2)
    enhancement = make_player("pure_mcts", env, None, simulations=m, temperature_moves=2)
    games = 6
    selfplay = jax.jit(make_selfplay(env, baseline, enhancement, SelfPlayRules(games)))
    out = selfplay(Inputs(variables), jax.random.key(3), jnp.int32(kind))
    valid = np.asarray(out.valid)
    plies = np.arange(valid.shape[0])[:, None]
    first_half = np.arange(games)[None, :] < games // 2
    enhanced = {BASELINE: np.zeros_like(valid), ENHANCED: np.ones_like(valid),
                ENHANCED_VS_BASELINE: (plies % 2 == 0) == first_half}[kind]
    # By hand: the baseline's positions cost 1 + m, the network-free enhancement's none.
    assert int(out.evaluations) == (m + 1) * int(np.sum(valid & ~enhanced))
    steps = int(out.playout_steps)
    assert (steps > 0) == bool(np.any(valid & enhanced))


def _lookahead_playout(env, key, state, record=0):
    """A random playout that looks one ply ahead: before each move it steps every action
    (`winning_moves`, A environment steps) and plays a winning one where there is one, so a
    ply costs A + 1 steps, not 1."""
    from warmjax.games.playout import winning_moves
    from warmjax.search.rollouts import Rollout, random_legal_action

    me = state.current_player
    width = env.num_actions

    def body(carry):
        s, value, t, steps = carry
        wins = winning_moves(env, jax.tree_util.tree_map(lambda x: x[None], s))[0]
        chance = random_legal_action(jax.random.fold_in(key, t), s.legal_action_mask)
        action = jnp.where(jnp.any(wins), jnp.argmax(wins), chance).astype(jnp.int32)
        s = env.step(s, action)
        return s, value + s.rewards[me], t + 1, steps + width + 1

    _, value, length, steps = jax.lax.while_loop(
        lambda c: ~c[0].terminated, body, (state, jnp.float32(0.0), jnp.int32(0), jnp.int32(0)))
    empty = jnp.zeros(record, jnp.int32)
    return Rollout(value=value, actions=empty, players=empty, length=length, steps=steps)


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
@pytest.mark.parametrize("simulations, plies", [(1, 1), (2, 2)])
def test_the_ledger_counts_a_look_ahead_playouts_real_steps(dead_draw, simulations, plies):
    """The dead draw again: each of the first two simulations expands a child whose playout
    fills the last cell, one ply. The plain playout counts 1 step a ply; the look-ahead one
    9 + 1 on tic-tac-toe's 9 actions, and the search's ledger says so."""
    from warmjax.search import backup, leaf, selection
    from warmjax.search.config import SearchConfig
    from warmjax.search.search import make_search

    env, states = dead_draw
    config = SearchConfig(simulations=simulations, temperature_moves=0)
    counted = {}
    # A new playout is a function and a row of the leaf table.
    look_ahead = leaf.LeafValue(leaf.LEAF_VALUES["rollout"].value, _lookahead_playout)
    for name, kind in (("plain", "rollout"), ("look-ahead", "look-ahead")):
        with pytest.MonkeyPatch.context() as patch:
            patch.setitem(leaf.LEAF_VALUES, "look-ahead", look_ahead)
            evaluate = leaf.make_leaf_evaluator(env, None, kind, use_network=False)
        part = leaf.Leaf(lambda inputs, s: jnp.zeros(s.legal_action_mask.shape), evaluate)
        search = make_search(env, config, selection=selection.puct_rule(config), leaf=part,
                             backup=backup.value_backup(config))
        counted[name] = int(search(None, jax.random.key(1), states).playout_steps[0])
    assert counted == {"plain": plies, "look-ahead": plies * (env.num_actions + 1)}
