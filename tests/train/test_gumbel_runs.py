"""A run whose baseline is Gumbel AlphaZero's search (`search.baseline_search=gumbel`): its players,
its self-play targets (π′ wherever the Gumbel search moved), warm start composed with it, and
its label."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from warmjax.search import Inputs
from warmjax.train import run_folder
from warmjax.train.iteration import Trainer
from warmjax.train.loop import train
from warmjax.train.run_id import RunId
from warmjax.train.warmstart import BASELINE, ENHANCED, ENHANCED_VS_BASELINE

from ..helpers import compose_config

# Adaptive warm start with Rollout, then the Gumbel search; two sampled plies, so that most
# positions are past T′ and the two players' targets differ there.
OVERRIDES = ["+experiment=adaptive_c4", "profile=smoke", "search.baseline_search=gumbel",
             "search.temperature_moves=2", "train.games=6", "tensorboard=false"]


@pytest.fixture(scope="module")
def trainer(tmp_path_factory):
    return Trainer(compose_config(OVERRIDES, tmp_path_factory.mktemp("gumbel")))


def test_players_and_label(trainer):
    assert trainer.baseline.name == "gumbel" and trainer.baseline.policy_target
    assert trainer.enhancement.name == "rollout" and not trainer.enhancement.policy_target
    assert RunId.of(trainer.config).label() == "Rollout adaptive + gumbel"


def one_hot_rows(policy: np.ndarray) -> np.ndarray:
    return np.isclose(policy.max(axis=-1), 1.0) & np.isclose(policy.sum(axis=-1), 1.0)


@pytest.mark.slow
def test_targets_are_the_improved_policy_where_gumbel_moved(trainer):
    params = trainer.network.init(jax.random.PRNGKey(0))
    selfplay = jax.jit(trainer.selfplay)
    games = trainer.config.train.games
    half = games // 2
    for kind in (BASELINE, ENHANCED, ENHANCED_VS_BASELINE):
        out = jax.device_get(selfplay(Inputs(params), jax.random.PRNGKey(kind), kind))
        valid = np.asarray(out.valid)
        policy = np.asarray(out.policy)
        plies = np.arange(valid.shape[0])[:, None]
        if kind == BASELINE:
            gumbel = np.ones_like(valid)
        elif kind == ENHANCED:
            gumbel = np.zeros_like(valid)
        else:  # Rollout moves first in games [0, E/2)
            gumbel = (plies % 2 == 1) == (np.arange(games)[None, :] < half)
        late = valid & (plies >= 2)
        legal_moves = (policy > 0).sum(-1)
        # Past T′ the enhancement's target is its move one-hot, the Gumbel search's π′,
        # which is positive on every legal move.
        assert one_hot_rows(policy[late & ~gumbel]).all(), kind
        several = late & gumbel & (legal_moves > 1)
        if kind != ENHANCED:
            assert several.sum() > 10, kind
            assert not one_hot_rows(policy[several]).any(), kind
        np.testing.assert_allclose(policy[valid].sum(-1), 1.0, rtol=1e-5)


@pytest.mark.slow
def test_trains_with_warm_start_then_gumbel(trainer):
    config = trainer.config
    train(config, log=lambda _: None)
    rows = run_folder.read_metrics(config.run_dir)
    assert [r.iteration for r in rows] == [1, 2]
    first = rows[0]
    # Iteration 1 warm-starts: half the games are Rollout against the Gumbel search, and
    # the balance r is the Gumbel side's total result over the E games.
    assert first.warmstart_active and abs(first.r_balance) <= config.train.games
    assert first.arena_wins + first.arena_draws + first.arena_losses == config.arena.games
    assert run_folder.read_run(config.run_dir).id.label() == "Rollout adaptive + gumbel"
