"""Search-tree reuse (`search.reuse_tree`): the re-rooted tree against the old tree walked
node by node, the node limit, the continued search, and reuse off or unused changing nothing."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import make
from warmjax.matches.pair_play import make_match
from warmjax.nets import make_network
from warmjax.search import reuse
from warmjax.search.players import make_player
from warmjax.search.tree import Tree

C4 = make("connect_four")
SIMS = 24
EDGE_FIELDS = ("children_prior", "children_visits", "children_value_sums", "rave_visits",
               "rave_value_sums")
NODE_FIELDS = ("node_players", "node_terminal", "node_terminal_values", "node_legal")


def midgame_states(batch=3, plies=5, seed=0):
    key = jax.random.PRNGKey(seed)
    states = jax.vmap(C4.init)(jax.random.split(key, batch))
    for t in range(plies):
        logits = jnp.where(states.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(jax.random.fold_in(key, t), logits)
        states = jax.vmap(C4.step)(states, action)
    return states


@functools.lru_cache(maxsize=None)
def searched(name="pure_rave"):
    """A reusing player's memory after one search from `midgame_states()`, and its move."""
    player = make_player(name, C4, simulations=SIMS, reuse_tree=True)
    states = midgame_states()
    move = jax.jit(player)(None, jax.random.PRNGKey(1), states, player.start(states))
    return player, jax.device_get(move.memory), np.asarray(move.action)


def walk(tree, b, node):
    """The nodes below `node` (itself included) of game b, depth first, by following the
    children pointers: `[(node, [children...])]`."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        children = np.asarray(tree.children_index[b, n])
        out.append(n)
        stack.extend(int(c) for c in children[::-1] if c >= 0)
    return out


def assert_same_subtree(old, old_root, new, b):
    """The subtree of `old` at `old_root` and the tree `new` (root 0) hold the same nodes
    with the same statistics, matched by walking both along the same actions."""
    pairs = [(old_root, 0)]
    seen = 0
    while pairs:
        o, n = pairs.pop()
        seen += 1
        for field in NODE_FIELDS + EDGE_FIELDS:
            np.testing.assert_array_equal(np.asarray(getattr(old, field)[b, o]),
                                          np.asarray(getattr(new, field)[b, n]), err_msg=field)
        np.testing.assert_array_equal(np.asarray(old.node_states.observation[b, o]),
                                      np.asarray(new.node_states.observation[b, n]))
        old_children = np.asarray(old.children_index[b, o])
        new_children = np.asarray(new.children_index[b, n])
        np.testing.assert_array_equal(old_children >= 0, new_children >= 0)
        pairs.extend((int(oc), int(nc)) for oc, nc in zip(old_children, new_children) if oc >= 0)
    return seen


@pytest.mark.slow
def test_a_reused_tree_holds_the_childs_subtree():
    player, memory, action = searched()
    old = memory.tree
    followed = jax.jit(lambda m, a: reuse.advance(m, a, keep=2 * SIMS + 1))(memory, action)
    for b in range(len(action)):
        child = int(old.children_index[b, Tree.ROOT, action[b]])
        assert child > 0
        size = assert_same_subtree(old, child, followed.tree, b)
        assert size == len(walk(old, b, child)) == int(followed.count[b])
        # Every slot past the count is empty.
        assert np.all(np.asarray(followed.tree.children_visits[b, size:]) == 0)
        assert np.all(np.asarray(followed.tree.children_index[b, size:]) == Tree.UNVISITED)
    # A move whose child was never expanded leaves nothing to reuse.
    cut = memory.tree.replace(children_index=jnp.asarray(memory.tree.children_index).at[
        np.arange(len(action)), Tree.ROOT, action].set(Tree.UNVISITED))
    empty = reuse.advance(memory._replace(tree=cut), jnp.asarray(action), keep=2 * SIMS + 1)
    np.testing.assert_array_equal(np.asarray(empty.count), 0)


@pytest.mark.slow
def test_advance_keeps_at_most_keep_nodes_with_their_parents():
    player, memory, action = searched()
    assert player.keep == SIMS + 1  # capacity 2m + 1 less the m nodes a search may add
    followed = jax.device_get(reuse.advance(memory, jnp.asarray(action), keep=5))
    truncated = 0
    for b in range(len(action)):
        count = int(followed.count[b])
        # The oldest nodes of the child's subtree (lowest old indices) are the ones kept,
        # packed in the same order.
        child = int(memory.tree.children_index[b, Tree.ROOT, action[b]])
        oldest = sorted(walk(memory.tree, b, child))[:5]
        assert count == len(oldest)
        truncated += len(walk(memory.tree, b, child)) > 5
        for new, old in enumerate(oldest):
            np.testing.assert_array_equal(
                np.asarray(followed.tree.node_states.observation[b, new]),
                np.asarray(memory.tree.node_states.observation[b, old]))
        children = np.asarray(followed.tree.children_index[b, :count])
        assert np.all(children < count)  # no pointer to a dropped node
        # The kept nodes are exactly those reachable from the new root.
        assert sorted(walk(followed.tree, b, 0)) == list(range(count))
        # Edge statistics survive even where the child node was dropped.
        np.testing.assert_array_equal(np.asarray(followed.tree.children_visits[b, 0]),
                                      np.asarray(memory.tree.children_visits[b, child]))
    assert truncated > 0  # the limit did cut some subtree


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_the_next_search_goes_on_from_the_grandchild():
    player, memory, action = searched("pure_mcts")
    states = midgame_states()
    states = jax.vmap(C4.step)(states, jnp.asarray(action))
    memory = player.follow(memory, jnp.asarray(action))
    reply = jnp.argmax(memory.tree.children_visits[:, Tree.ROOT], axis=-1)  # the likely reply
    before = np.asarray(jax.vmap(lambda t, r: t.children_visits[t.children_index[0, r]])(
        memory.tree, reply).sum(-1))
    states = jax.vmap(C4.step)(states, reply)
    memory = player.follow(memory, reply)
    after = jax.jit(player)(None, jax.random.PRNGKey(2), states, memory).memory
    # m more simulations through the root, on top of those the grandchild already had.
    np.testing.assert_array_equal(np.asarray(after.tree.root_visits().sum(-1)), before + SIMS)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mcts", "rave"])
def test_a_reusing_player_without_a_tree_plays_as_before(name):
    network = make_network(C4.num_actions, C4.observation_shape, "small", channels=8,
                           fc=(16, 16))
    params = network.init(jax.random.PRNGKey(0))
    plain = make_player(name, C4, network.apply, simulations=SIMS, temperature_moves=2)
    reusing = make_player(name, C4, network.apply, simulations=SIMS, temperature_moves=2,
                          reuse_tree=True)
    states = midgame_states(batch=4, plies=1)
    key = jax.random.PRNGKey(5)
    a_plain, p_plain = jax.jit(plain)(params, key, states)[:2]
    a_reuse, p_reuse = jax.jit(reusing)(params, key, states, reusing.start(states))[:2]
    np.testing.assert_array_equal(np.asarray(a_plain), np.asarray(a_reuse))
    np.testing.assert_array_equal(np.asarray(p_plain), np.asarray(p_reuse))


@pytest.mark.slow
def test_matches_with_and_without_reuse():
    plain = make_player("pure_mcts", C4, simulations=SIMS)
    reusing = make_player("pure_mcts", C4, simulations=SIMS, reuse_tree=True)
    key = jax.random.PRNGKey(3)
    off = jax.jit(make_match(C4, plain, plain, 8, record=True))(None, None, key)
    again = jax.jit(make_match(C4, plain, plain, 8, record=True))(None, None, key)
    np.testing.assert_array_equal(np.asarray(off.actions), np.asarray(again.actions))
    on = jax.jit(make_match(C4, reusing, plain, 8, record=True))(None, None, key)
    assert int(on.wins + on.draws + on.losses) == 8
    assert not np.array_equal(np.asarray(on.actions), np.asarray(off.actions))
