"""Reanalysis (train.reanalyse, a departure, method.md §5; train/reanalyse.py): the positions
it rebuilds are the ones self-play searched, and the targets it writes are a fresh search's
on the same network, in every symmetric copy and in no other row."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ..helpers import SMOKE, compose_config

K = 8


class TwoIterations(NamedTuple):
    """A run's trainer, its state after iteration 1 and 2, and the metrics of each."""

    trainer: Any
    first: Any
    second: Any
    m1: dict
    m2: dict


@pytest.fixture(scope="module")
def two_iterations(tmp_path_factory):
    """The same two smoke iterations with reanalysis (λ = 0.5) and without
    (`TwoIterations`). Each iteration is compiled as the training loop compiles it,
    donating its state, so that the session's compilation cache holds it already where a
    training run of the same settings ran first (and the resume test's run reads this one);
    the state each step donates is a copy."""
    from warmjax.train.iteration import Trainer

    tmp = tmp_path_factory.mktemp("reanalyse")
    runs = {}
    for name, extra in (("on", [f"train.reanalyse={K}", "train.reanalyse_value=0.5"]),
                        ("off", [])):
        trainer = Trainer(compose_config([*SMOKE, *extra], tmp / name))
        step = jax.jit(trainer.iteration, donate_argnums=0)
        first, m1 = step(trainer.init_state())
        second, m2 = step(jax.tree_util.tree_map(jnp.copy, first))
        runs[name] = TwoIterations(trainer, first, second, m1, m2)
    return runs


@pytest.mark.slow
def test_replay_rebuilds_every_recorded_position(two_iterations):
    """Each recorded example's observation is that of its game replayed from its first key
    and moves, stepped one ply at a time here with the game's own `step`."""
    trainer, first, *_ = two_iterations["on"]
    env, moves = trainer.env, first.moves
    slots, plies, games = moves.actions.shape
    copies = trainer.num_symmetries
    valid = np.asarray(first.buffer.valid).reshape(slots, plies, games, copies)[..., 0]
    obs = np.asarray(first.buffer.obs).reshape(slots, plies, games, copies,
                                               *env.observation_shape)[..., 0, :, :, :]
    assert valid[0].sum() > 0 and not valid[1].any()  # iteration 1 wrote slot 0 only
    step = jax.jit(env.step)
    for e in range(games):
        state = env.init(moves.keys[0, e])
        for t in range(plies):
            if valid[0, t, e]:
                np.testing.assert_array_equal(np.asarray(state.observation), obs[0, t, e])
            if state.terminated:
                break
            state = step(state, moves.actions[0, t, e])
    from warmjax.train.reanalyse import replay
    t_last = int(valid[0, :, 0].nonzero()[0][-1])
    rebuilt = jax.jit(lambda *a: replay(env, *a))(moves.keys[0, 0], moves.actions[0, :, 0],
                                                 t_last)
    np.testing.assert_array_equal(np.asarray(rebuilt.observation), obs[0, t_last, 0])


@pytest.mark.slow
def test_the_first_iteration_reanalyses_nothing(two_iterations):
    """At iteration 1 no earlier slot holds examples: the buffer and the ledger are those
    of the run without reanalysis."""
    on, off = two_iterations["on"], two_iterations["off"]
    np.testing.assert_array_equal(np.asarray(on.first.buffer.policy),
                                  np.asarray(off.first.buffer.policy))
    assert int(on.m1["count_evals_selfplay"]) == int(off.m1["count_evals_selfplay"])
    assert off.first.moves is None  # off, the state keeps no moves (checkpoints unchanged)


@pytest.mark.slow
def test_reanalysed_targets_equal_a_fresh_search_on_the_same_network(two_iterations):
    """Iteration 2 re-searches K positions of iteration 1 with the network iteration 2
    starts from: each chosen position's copies take that search's π (mirrored in the
    mirrored copy) and ½·(stored value) + ½·q; no other row changes; the ledger adds
    1 + m per position. Self-play itself is that of the run without reanalysis."""
    from warmjax.search.players import make_player
    from warmjax.train.reanalyse import REANALYSE_STREAM, choose_positions

    trainer, first, second, _, m2 = two_iterations["on"]
    _, _, second_off, _, m2_off = two_iterations["off"]
    c, env = trainer.config, trainer.env
    slots, plies, games = first.moves.actions.shape
    copies = trainer.num_symmetries
    # The buffer after iteration 2 without reanalysis: the same self-play, untouched.
    plain_policy = np.asarray(second_off.buffer.policy)
    plain_value = np.asarray(second_off.buffer.value)
    np.testing.assert_array_equal(np.asarray(second.buffer.obs),
                                  np.asarray(second_off.buffer.obs))

    # The positions chosen, from the iteration's keys as `Trainer.iteration` splits them.
    _, _, k_train, _ = jax.random.split(first.rng, 4)
    k_pick, _ = jax.random.split(jax.random.fold_in(k_train, REANALYSE_STREAM))
    valid = np.asarray(second.buffer.valid).reshape(slots, plies, games, copies)[..., 0]
    s, t, e, chosen = (np.asarray(x) for x in choose_positions(k_pick, jnp.asarray(valid), 1, K))
    assert chosen.all() and (s == 0).all()  # iteration 2 wrote slot 1; slot 0 has > K
    assert len(set(zip(s, t, e))) == K

    # A fresh search of each chosen position, one at a time, on its state rebuilt step by
    # step, with the network iteration 2 started from (no root noise: its π needs no key).
    player = make_player(c.search.baseline_search, env, trainer.network.apply,
                         c.search.without_noise())
    search = jax.jit(lambda state: player(first.params, jax.random.PRNGKey(7),
                                          jax.tree_util.tree_map(lambda x: x[None], state)))
    step = jax.jit(env.step)
    changed = np.zeros(plain_policy.shape[0], bool)
    for si, ti, ei in zip(s, t, e):
        state = env.init(first.moves.keys[si, ei])
        for ply in range(ti):
            state = step(state, first.moves.actions[si, ply, ei])
        move = search(state)
        pi = np.asarray(move.policy[0])
        row = ((si * plies + ti) * games + ei) * copies
        got = np.asarray(second.buffer.policy)[row:row + copies]
        np.testing.assert_allclose(got[0], pi, atol=1e-6)
        np.testing.assert_allclose(got[1], pi[::-1], atol=1e-6)  # Connect Four's mirror
        np.testing.assert_allclose(np.asarray(second.buffer.value)[row:row + copies],
                                   0.5 * plain_value[row:row + copies] + 0.5 * float(move.value[0]),
                                   atol=1e-6)
        changed[row:row + copies] = True
    policy, value = np.asarray(second.buffer.policy), np.asarray(second.buffer.value)
    np.testing.assert_array_equal(policy[~changed], plain_policy[~changed])
    np.testing.assert_array_equal(value[~changed], plain_value[~changed])
    extra = int(m2["count_evals_selfplay"]) - int(m2_off["count_evals_selfplay"])
    assert extra == K * (c.search.simulations + 1)


@pytest.mark.parametrize("overrides, message", [
    (["train.reanalyse=-1"], "train.reanalyse (positions re-searched per iteration) must be"),
    (["train.reanalyse=4", "train.replay_iterations=1"], "needs train.replay_iterations ≥ 2"),
    (["train.reanalyse_value=1.5"], "train.reanalyse_value must be in [0, 1]"),
])
def test_reanalysis_settings_are_checked(tmp_path, overrides, message):
    from warmjax.train.run_config import ConfigError

    with pytest.raises(ConfigError, match=re.escape(message)):
        compose_config([*SMOKE, *overrides], tmp_path)


@pytest.mark.slow
def test_a_reanalysing_run_resumes_exactly(tmp_path):
    """The games' moves are part of the checkpointed state: a run stopped after iteration 2
    and resumed ends with the metrics and network of the run that was never stopped."""
    from warmjax.train import run_folder
    from warmjax.train.loop import train

    overrides = [*SMOKE, f"train.reanalyse={K}", "train.reanalyse_value=0.5"]

    def metrics(run_dir):
        return [{k: v for k, v in row.to_json().items() if not k.startswith("seconds")}
                for row in run_folder.read_metrics(run_dir)]

    whole = train(compose_config(overrides, tmp_path / "whole"), log=lambda _: None)
    stopped = compose_config(overrides, tmp_path / "stopped")
    train(stopped, log=lambda _: None, stop_after=2)
    messages = []
    resumed = train(stopped, log=messages.append)
    assert any("resuming" in m for m in messages)
    assert metrics(tmp_path / "stopped") == metrics(tmp_path / "whole")
    assert len(metrics(tmp_path / "whole")) == 3
    for a, b in zip(jax.tree_util.tree_leaves(jax.device_get((whole.params, whole.moves))),
                    jax.tree_util.tree_leaves(jax.device_get((resumed.params, resumed.moves)))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
