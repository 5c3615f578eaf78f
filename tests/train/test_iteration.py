"""The compiled iteration (train/iteration.py). Vmapped over runs, it is tested against lone
runs in test_group.py."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ..helpers import SMOKE, SMOKE_BASELINE, compose_config


def _rejecting(trainer):
    """The trainer's arena replaced by one that rejects every candidate."""
    from warmjax.train.arena import ArenaResult

    zero = jnp.int32(0)
    trainer.arena = lambda new, best, key: ArenaResult(zero, zero, zero, jnp.bool_(False),
                                                       zero, zero)
    return trainer


def _close(a, b):
    """Equal up to float32 rounding: the compiled iteration and the recomputation fuse the
    update differently (2.4e-7 apart at most with the tests' XLA flags, 1 December 2026),
    where a network trained from other weights differs by about 0.5."""
    return all(np.allclose(x, y, atol=1e-5) for x, y in zip(jax.tree_util.tree_leaves(a),
                                                            jax.tree_util.tree_leaves(b)))


@pytest.mark.slow
def test_keep_training_trains_on_from_a_rejected_candidate(tmp_path):
    from warmjax.train.iteration import Trainer

    kept = _rejecting(Trainer(compose_config([*SMOKE_BASELINE, "train.keep_training=true"],
                                          tmp_path)))
    step = jax.jit(kept.iteration)
    start = kept.init_state()
    first, _ = step(start)
    # Rejected: the best network is still the initial one, the trainee is the candidate.
    assert _close(first.params, start.params)
    assert not _close(first.trainee, start.params)
    second, _ = step(first)
    # Iteration 2 trains from the trainee, recomputed here from the same keys and buffer.
    _, _, k_train, _ = jax.random.split(first.rng, 4)
    expected, _, _ = jax.jit(kept.update)(first.trainee, kept.optimizer.init(
        first.trainee["params"]), second.buffer, k_train)
    assert _close(second.trainee, expected)
    assert _close(second.params, start.params)

    # Off (the papers' rule): no trainee, and the rejected candidate is thrown away.
    paper = _rejecting(Trainer(compose_config(SMOKE_BASELINE, tmp_path)))
    off, _ = jax.jit(paper.iteration)(paper.init_state())
    assert off.trainee is None and _close(off.params, start.params)


@pytest.mark.slow
def test_no_gate_keeps_every_candidate_and_plays_no_arena(tmp_path):
    """`arena.gate=false`: the best network after an iteration is the candidate trained from
    the previous best, recomputed here from the same key and buffer; no arena game is
    played or counted. The gated run trains the very same candidate (the keys are split
    the same way), so only the gate's decision differs."""
    from warmjax.train.iteration import Trainer

    free = Trainer(compose_config([*SMOKE_BASELINE, "arena.gate=false"], tmp_path))
    step = jax.jit(free.iteration)
    start = free.init_state()
    first, metrics = step(start)
    _, _, k_train, _ = jax.random.split(start.rng, 4)
    expected, _, _ = jax.jit(free.update)(start.params, free.optimizer.init(
        start.params["params"]), first.buffer, k_train)
    assert _close(first.params, expected)
    assert bool(metrics["accepted"])
    assert int(metrics["count_games_arena"]) == int(metrics["count_evals_arena"]) == 0
    assert int(metrics["arena_wins"]) + int(metrics["arena_losses"]) == 0
    assert "arena_decisive" not in metrics  # no arena games to share out

    gated = _rejecting(Trainer(compose_config(SMOKE_BASELINE, tmp_path)))
    kept, _ = jax.jit(gated.iteration)(gated.init_state())
    assert _close(kept.buffer.policy, first.buffer.policy)  # the same self-play
    assert _close(kept.params, start.params)  # rejected there, kept here


def test_reply_targets_are_the_next_recorded_plys_policy_with_the_symmetries(tmp_path):
    """train.reply_weight (method.md §6): each example's reply target is the π recorded at
    the next ply of its game; zeros where that ply is not recorded (the game's end, an
    unrecorded ply); and each symmetric copy mirrors it with its position. Connect Four's
    mirror maps column a to 5 − a."""
    from types import SimpleNamespace

    from warmjax.train.iteration import Trainer

    trainer = Trainer(compose_config([*SMOKE, "train.reply_weight=0.5"], tmp_path))
    t, e, a = 3, 2, 6
    policy = jnp.asarray(np.random.default_rng(0).dirichlet(np.ones(a), (t, e)), jnp.float32)
    # Game 0: plies 0–2 recorded. Game 1: plies 0 and 2 recorded, ply 1 not.
    valid = jnp.asarray([[True, True], [True, False], [True, True]])
    obs = jnp.zeros((t, e, 6, 6, 2), bool).at[0, 0, 5, 0, 0].set(True)
    games = SimpleNamespace(obs=obs, policy=policy, valid=valid,
                            value=jnp.zeros((t, e), jnp.float32))
    out = trainer.examples(games)
    reply = np.asarray(out.reply).reshape(t, e, 2, a)  # [ply, game, copy, action]
    p = np.asarray(policy)
    np.testing.assert_array_equal(reply[0, 0, 0], p[1, 0])
    np.testing.assert_array_equal(reply[1, 0, 0], p[2, 0])
    np.testing.assert_array_equal(reply[2, 0, 0], 0.0)  # the last ply
    np.testing.assert_array_equal(reply[0, 1, 0], 0.0)  # ply 1 of game 1 is not recorded
    np.testing.assert_array_equal(reply[2, 1, 0], 0.0)
    np.testing.assert_array_equal(reply[:, :, 1], reply[:, :, 0, ::-1])  # the mirror
    # The mirrored copy's observation is mirrored too (the stone in column 0 goes to 5).
    mirrored = np.asarray(out.obs).reshape(t, e, 2, 6, 6, 2)[0, 0, 1]
    assert mirrored[5, 5, 0] and mirrored.sum() == 1
    # Off, the buffer keeps no reply field (the checkpoints' layout is unchanged).
    assert Trainer(compose_config(SMOKE, tmp_path / "off")).examples(games).reply is None
