"""The labelled sets of Othello and Gobang (warmjax.perfect.positions): generation, the
round trip through a file, and the shipped sets replayed in the environments."""

from __future__ import annotations

import numpy as np
import pytest

from warmjax.games import make


@pytest.mark.parametrize("name,params,low,high", [
    ("othello", {"size": 4}, 3, 8), ("gobang", {"size": 4, "win_length": 3}, 2, 6)])
def test_generate_small_sets_and_round_trip(tmp_path, name, params, low, high):
    from warmjax.perfect import positions

    made = positions.generate_placement_game(name, 10, 5, params, low, high)
    path = tmp_path / "set.json"
    positions.save(made, path)
    again = positions.load(path)
    np.testing.assert_array_equal(again.values, made.values)
    np.testing.assert_array_equal(again.moves, made.moves)
    assert again.game == {"name": name, **params}
    # Every kept position's moves differ in value, and each label is a fresh solve's.
    solver = positions._solver(again.game)
    for m, n, values in zip(again.moves, again.plies, again.values):
        own, other = solver.position(m[:n])
        np.testing.assert_array_equal(solver.move_values(own, other), values)
        legal = values[values != positions.ILLEGAL]
        assert len(set(legal.tolist())) >= 2
        if name == "othello":
            assert low <= 16 - bin(own | other).count("1") <= high
        else:
            assert low <= n <= high


@pytest.mark.parametrize("name,depth", [("othello", (12, 20)), ("gobang", (8, 20))])
def test_shipped_sets_replay_in_the_env(name, depth):
    from warmjax.perfect import positions, score

    env = make(name)
    path = positions.path_for(env)
    assert path is not None and path.name == f"{name}_6x6.json"
    shipped = positions.load(path)
    assert len(shipped) >= 1000 and shipped.game_name == name
    assert f"python -m warmjax.labels --game {name}" in shipped.meta["command"]
    small = shipped.subset(150)
    states = score.replay(env, small)
    # The env's legal actions are the labelled ones, and no game has ended.
    np.testing.assert_array_equal(np.asarray(states.legal_action_mask),
                                  small.values != positions.ILLEGAL)
    assert not np.asarray(states.terminated).any()
    stones = np.asarray(states.observation).sum(axis=(1, 2, 3))
    if name == "othello":
        assert depth[0] <= (36 - stones).min() and (36 - stones).max() <= depth[1]
    else:
        assert depth[0] <= small.plies.min() and small.plies.max() <= depth[1]
    # A fresh solve agrees with a sample of the labels.
    solver = positions._solver(shipped.game)
    for i in np.random.default_rng(0).choice(len(shipped), 8, replace=False):
        own, other = solver.position(shipped.moves[i, :shipped.plies[i]])
        np.testing.assert_array_equal(solver.move_values(own, other), shipped.values[i])
