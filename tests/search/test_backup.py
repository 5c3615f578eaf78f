"""The backups: AMAF statistics after 1, 2 and 3 simulations, computed by hand."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import make
from warmjax.search import SearchConfig, variant_search

from .search_helpers import search_with

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




def test_a_backup_must_keep_the_trees_shapes_and_dtypes():
    """A backup that turns the visit counts into floats is named at its boundary."""
    from warmjax.search import backup as backup_parts

    plain = backup_parts.value_backup(SearchConfig(simulations=4))

    def floats(tree, path, leaf, leaf_value, played):
        tree = plain.update(tree, path, leaf, leaf_value, played)
        return tree.replace(children_visits=tree.children_visits.astype(jnp.float32))

    with pytest.raises(AssertionError, match="children_visits|dtype"):
        search_with(backup=backup_parts.Backup(floats, plain.playout_moves))
    assert search_with().visits.sum() == 2 * 4  # unchanged parts: every simulation counted
