"""The named departures from the papers: first-play urgency, root Dirichlet noise, win check,
random openings (the last is tested with self-play in test_train.py).

Each is off by default; these tests check what each does when on, against hand-computed or
scripted answers.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import make
from warmjax.games.playout import winning_moves
from warmjax.search import SearchConfig, variant_search
from warmjax.search.players import make_player
from warmjax.search.search import add_dirichlet_noise
from warmjax.search.selection import unvisited_value

from ..helpers import compose_config

C4 = make("connect_four")
# X (to move) has three in column 0; O has three in column 1 (from `[0, 1, 0, 1, 0, 1]`).
THREATS = """
. . . . . .
. . . . . .
. . . . . .
X O . . . .
X O . . . .
X O . . . .
"""


def peaked_network(favourite: int, value: float = 0.0):
    """A fake network: logits strongly on `favourite`, the same value everywhere."""

    def apply(params, obs):
        del params
        logits = jnp.full((obs.shape[0], C4.num_actions), -4.0).at[:, favourite].set(4.0)
        return logits, jnp.full((obs.shape[0],), value)

    return apply


def root_visits(fpu, sims):
    states = jax.tree_util.tree_map(lambda x: x[None], C4.init(jax.random.PRNGKey(0)))
    search = variant_search("mcts", C4, peaked_network(2), SearchConfig(simulations=sims, fpu=fpu))
    return np.asarray(jax.jit(search)(None, jax.random.PRNGKey(1), states).visits[0])


def test_fpu_zero_follows_the_prior_and_fpu_one_spreads_the_visits():
    # All values are 0. With fpu 0 the prior decides: the favourite takes every visit.
    np.testing.assert_array_equal(root_visits(0.0, 6), [0, 0, 6, 0, 0, 0])
    # With fpu 1, by hand: P(favourite) = e^4 / (e^4 + 5 e^-4) = 0.99832, P(other) = 0.00034.
    # Simulation k + 1 (N = k tried): the favourite scores 0 + 0.99832·√k / 2, an untried
    # move 1 + 0.00034·√k. For k = 1…4 the untried moves win (first index on ties: 0, 1, 3,
    # 4); at k = 5, 0.99832·√5 / 2 = 1.116 > 1.0008 and the favourite is visited again.
    np.testing.assert_array_equal(root_visits(1.0, 5), [1, 1, 1, 1, 1, 0])
    np.testing.assert_array_equal(root_visits(1.0, 6), [1, 1, 2, 1, 1, 0])


def test_fpu_parent_is_the_visit_weighted_mean():
    sums = jnp.array([0.5, -0.2, 0.0, 0.0])
    visits = jnp.array([2, 1, 0, 0])
    assert float(unvisited_value(sums, visits, "parent")) == pytest.approx(0.1)
    assert float(unvisited_value(jnp.zeros(4), jnp.zeros(4, jnp.int32), "parent")) == 0.0
    assert float(unvisited_value(sums, visits, 0.25)) == 0.25
    with pytest.raises(ValueError, match="fpu"):
        SearchConfig(fpu="first")


def test_dirichlet_noise_mixes_over_legal_moves_only():
    prior = jnp.array([[0.5, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    legal = jnp.array([[True, True, False, False], [True, True, True, False]])
    noisy = add_dirichlet_noise(jax.random.PRNGKey(0), prior, legal, 0.25, 1.0)
    np.testing.assert_allclose(np.asarray(noisy.sum(axis=1)), 1.0, rtol=1e-6)
    assert np.all(np.asarray(noisy)[~np.asarray(legal)] == 0.0)
    assert np.all(np.asarray(noisy)[1, :3] > 0)  # noise reaches moves the prior ignored
    assert float(noisy[1, 0]) >= 0.75  # at least (1 − ε) of the old prior stays
    same = add_dirichlet_noise(jax.random.PRNGKey(0), prior, legal, 0.0, 1.0)
    np.testing.assert_array_equal(np.asarray(same), np.asarray(prior))


@pytest.mark.slow
def test_noise_changes_the_root_prior_and_only_when_asked():
    states = jax.tree_util.tree_map(lambda x: x[None], C4.init(jax.random.PRNGKey(0)))
    net = peaked_network(2)
    plain = variant_search("mcts", C4, net, SearchConfig(simulations=8))
    noisy = variant_search("mcts", C4, net,
                           SearchConfig(simulations=8, dirichlet_fraction=0.5))
    key = jax.random.PRNGKey(3)
    p_plain = np.asarray(plain(None, key, states).tree.children_prior[0, 0])
    p_noisy = np.asarray(noisy(None, key, states).tree.children_prior[0, 0])
    np.testing.assert_allclose(p_noisy.sum(), 1.0, rtol=1e-6)
    assert not np.allclose(p_plain, p_noisy)
    # Half of the old prior stays on each move; the other half is the noise, spread over all.
    assert np.all(p_noisy >= 0.5 * p_plain - 1e-6)
    assert np.count_nonzero(p_noisy - 0.5 * p_plain > 1e-4) == C4.num_actions


@pytest.mark.slow
def test_winning_moves_and_win_check():
    state = C4.from_ascii(THREATS, "X")
    states = jax.tree_util.tree_map(lambda x: x[None], state)
    np.testing.assert_array_equal(np.asarray(winning_moves(C4, states))[0],
                                  [True, False, False, False, False, False])
    # A search that loves column 5 and sees one simulation plays it, unless it checks.
    blind = make_player("mcts", C4, peaked_network(5), simulations=1)
    checked = make_player("mcts", C4, peaked_network(5), simulations=1, win_check=True)
    key = jax.random.PRNGKey(0)
    assert int(blind(None, key, states).action[0]) == 5
    action, policy = checked(None, key, states)[:2]
    assert int(action[0]) == 0
    np.testing.assert_array_equal(np.asarray(policy), np.asarray(blind(None, key, states).policy))
    # O to move on the same board: O's column 1 wins for O.
    o_states = jax.tree_util.tree_map(lambda x: x[None], C4.from_ascii(THREATS, "O"))
    np.testing.assert_array_equal(np.asarray(winning_moves(C4, o_states))[0],
                                  [False, True, False, False, False, False])


@pytest.mark.parametrize("search,message", [
    ({"fpu": "first"}, "search.fpu must be a number or 'parent'"),
    ({"dirichlet_fraction": 1.5}, "search.dirichlet_fraction must be in [0, 1]"),
    ({"dirichlet_alpha": 0.0}, "search.dirichlet_fraction must be in [0, 1]"),
    ({"forced_playouts": -1.0}, "search.forced_playouts .k. must be non-negative"),
    ({"forced_playouts": 2.0, "baseline_search": "gumbel"},
     "search.forced_playouts apply to the PUCT search"),
    ({"greedy_value": True, "baseline_search": "gumbel"},
     "search.greedy_value applies to the PUCT search"),
])
def test_bad_departure_settings_are_named(search, message):
    from warmjax.train.run_config import ConfigError, RunConfig

    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        RunConfig.from_dict({"search": search})


def test_paper_profile_keeps_the_papers_search(tmp_path):
    from hydra import compose, initialize_config_dir

    from warmjax.run import CONF_DIR, to_run_config

    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=["+experiment=adaptive_c4",
                                                       f"run_dir={tmp_path}"])
    run = to_run_config(cfg)
    search = run.search
    assert (search.fpu, search.dirichlet_fraction, search.win_check) == (0.0, 0.0, False)
    assert run.train.random_opening == 0
    assert not run.train.keep_training and run.train.final_learning_rate is None
    assert run.train.value_mix == 0.0


def test_value_mix_out_of_range_is_named():
    from warmjax.train.run_config import ConfigError, RunConfig

    with pytest.raises(ConfigError, match=r"train.value_mix must be in \[0, 1\], got -0.5"):
        RunConfig.from_dict({"train": {"value_mix": -0.5}})


def test_negative_random_opening_is_named():
    from warmjax.train.run_config import ConfigError, RunConfig

    with pytest.raises(ConfigError, match="train.random_opening must be ≥ 0, got -1"):
        RunConfig.from_dict({"train": {"random_opening": -1}})


def test_forced_playouts_are_a_self_play_departure(tmp_path):
    """On, the run's label names them; the searches that judge (arena, probe, oracle) play
    without them, as without root noise."""
    from warmjax.train.run_id import RunId

    run = compose_config(["+experiment=baseline_c4", "profile=smoke",
                          "search.forced_playouts=2"], tmp_path)
    assert "forced-playouts" in RunId.of(run).label()
    assert run.search.forced_playouts == 2.0
    assert run.search.without_noise().forced_playouts == 0.0


def test_greedy_value_is_the_most_visited_edges_q():
    """X to move can win at once in column 0; a network that favours column 5 and values
    everything at 0, with fpu 1, tries every move, then piles its visits on the win. The
    win's Q is exactly 1 (a terminal result). Every other edge's first visit backs up the
    network's 0, so its Q is below 1, and so is the visits' mean; the greedy value is 1."""
    states = jax.tree_util.tree_map(lambda x: x[None], C4.from_ascii(THREATS, "X"))
    key = jax.random.PRNGKey(0)
    sims = 30
    mean = make_player("mcts", C4, peaked_network(5), simulations=sims, fpu=1.0)(
        None, key, states)
    greedy = make_player("mcts", C4, peaked_network(5), simulations=sims, fpu=1.0,
                         greedy_value=True)(None, key, states)
    visits = np.asarray(mean.policy[0]) * sims
    assert np.argmax(visits) == 0 and 0 < visits[0] < sims
    assert float(mean.value[0]) < 1.0
    assert float(greedy.value[0]) == 1.0
    # The move and the policy target are not touched.
    np.testing.assert_array_equal(np.asarray(greedy.policy), np.asarray(mean.policy))
    assert int(greedy.action[0]) == int(mean.action[0])


@pytest.mark.parametrize("override,label", [("search.greedy_value=true", "greedy-value"),
                                            ("model.same_padding=true", "same-padding"),
                                            ("model.wdl_head=true", "wdl"),
                                            ("train.explore_return=watkins", "watkins"),
                                            ("train.progressive_simulations=[2]",
                                             "progressive-m"),
                                            ("train.reply_weight=0.15", "reply-target"),
                                            ("train.reanalyse=16", "reanalyse"),
                                            ("train.explore_decay=40", "explore-decay"),
                                            ("train.start_positions=0.25", "start-positions")])
def test_the_value_target_and_layout_settings_are_named_departures(tmp_path, override, label):
    from warmjax.train.run_id import RunId

    run = compose_config(["+experiment=baseline_c4", "profile=smoke", override], tmp_path)
    assert label in RunId.of(run).label()
    plain = compose_config(["+experiment=baseline_c4", "profile=smoke"], tmp_path)
    assert label not in RunId.of(plain).label()
    paper = compose_config(["+experiment=baseline_c4", "profile=paper"], tmp_path)
    assert label not in RunId.of(paper).label()


def test_a_decay_of_no_iterations_is_named():
    from warmjax.train.run_config import ConfigError, RunConfig

    with pytest.raises(ConfigError, match=r"train.explore_decay \(the iterations over which ε "
                                          r"falls to 0\) must be at least 1, got 0"):
        RunConfig.from_dict({"train": {"explore": 0.5, "explore_decay": 0}})


@pytest.mark.parametrize("train,words", [
    ({"start_positions": 1.5}, r"train.start_positions \(the share of games started from an "
                               r"earlier game's position\) must be in \[0, 1\], got 1.5"),
    ({"start_positions": 0.5, "reanalyse": 8},
     "train.start_positions and train.reanalyse cannot be combined")])
def test_start_positions_out_of_range_or_with_reanalysis_are_named(train, words):
    from warmjax.train.run_config import ConfigError, RunConfig

    with pytest.raises(ConfigError, match=words):
        RunConfig.from_dict({"train": train})


def test_unknown_explore_return_is_named():
    from warmjax.train.run_config import ConfigError, RunConfig

    with pytest.raises(ConfigError, match="train.explore_return must be one of q, watkins, "
                                          "got 'tree'"):
        RunConfig.from_dict({"train": {"explore_return": "tree"}})
