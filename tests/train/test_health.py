"""Self-play health (train/health.py): each figure on batches worked out by hand, and on
real self-play against a replay of its games; the progress line; rows from before them."""

from __future__ import annotations

import json
import math

import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.train.health import (
    distinct_openings,
    opening_plies,
    outcome_shares,
    target_entropy,
)
from warmjax.train.loop import health_text, progress_line
from warmjax.train.metrics import MetricRow

from ..helpers import ROOT, SMOKE, compose_config, metric_row


def test_outcome_shares_by_hand():
    # Four games: the first mover (id 0) wins; the first mover (id 1) loses; a draw; the
    # first mover (id 1) wins.
    results = jnp.array([[1.0, -1.0], [1.0, -1.0], [0.0, 0.0], [-1.0, 1.0]])
    first = jnp.array([0, 1, 0, 1], jnp.int32)
    np.testing.assert_allclose(np.asarray(outcome_shares(results, first)), [0.5, 0.25, 0.25])


def test_distinct_openings_by_hand():
    # T = 3 plies, E = 4 games (columns). With k = 2 the openings are (0, 2), (0, 2), (1, 2)
    # and game 3's (0,) alone, a game of one ply: 3 distinct of 4.
    actions = jnp.array([[0, 0, 1, 0], [2, 2, 2, 2], [3, 3, 3, 1]], jnp.int32)
    assert float(distinct_openings(actions, jnp.array([3, 3, 3, 1]), 2)) == 0.75
    # Game 3 played on: (0, 2) again, so 2 of 4; with k = 3, (0, 2, 3) twice, (1, 2, 3) and
    # (0, 2, 1): 3 of 4.
    full = jnp.array([3, 3, 3, 3])
    assert float(distinct_openings(actions, full, 2)) == 0.5
    assert float(distinct_openings(actions, full, 3)) == 0.75
    # k beyond the record is the whole game; k = 1: openings 0 and 1.
    assert float(distinct_openings(actions, full, 10)) == 0.75
    assert float(distinct_openings(actions, full, 1)) == 0.5
    # A move recorded past a game's end is not part of its opening: games 0 and 1 differ
    # only at ply 2, after game 1 ended.
    assert float(distinct_openings(actions.at[2, 1].set(5), jnp.array([3, 2, 3, 3]), 3)) == 1.0


def test_target_entropy_by_hand():
    policy = jnp.zeros((2, 2, 3))
    policy = policy.at[0, 0].set(jnp.array([0.5, 0.5, 0.0]))  # ln 2
    policy = policy.at[0, 1].set(jnp.array([1.0, 0.0, 0.0]))  # 0: a one-hot target
    policy = policy.at[1, 0].set(jnp.array([0.25, 0.25, 0.5]))  # not recorded
    valid = jnp.array([[True, True], [False, False]])
    np.testing.assert_allclose(float(target_entropy(policy, valid)), math.log(2) / 2, rtol=1e-6)
    assert float(target_entropy(policy, jnp.zeros((2, 2), bool))) == 0.0


def test_opening_plies_is_8_on_the_6x6_boards():
    assert opening_plies((6, 6)) == 8
    assert [opening_plies(s) for s in [(6, 7), (7, 7), (3, 3), (1, 1)]] == [9, 11, 2, 1]


@pytest.mark.slow
def test_selfplay_health_matches_a_replay_of_the_games():
    """On 16 games of pure MCTS against random play, each figure equals a recount from the
    games replayed move by move with the game's own rules."""
    import jax

    from warmjax.search import Inputs
    from warmjax.train.health import selfplay_health
    from warmjax.train.selfplay import SelfPlayRules, make_selfplay
    from warmjax.train.warmstart import ENHANCED_VS_BASELINE

    from .test_selfplay import c4_players

    env, strong, weak = c4_players()
    games = jax.device_get(jax.jit(make_selfplay(env, weak, strong, SelfPlayRules(16)))(
        Inputs(None, 0.5), jax.random.PRNGKey(0), ENHANCED_VS_BASELINE))
    k = 2  # short enough that some openings repeat between these games
    health = {name: float(v) for name, v in selfplay_health(games, k).items()}
    init_keys = jax.random.split(jax.random.split(jax.random.PRNGKey(0))[1], 16)
    step = jax.jit(env.step)
    outcomes, lengths, openings = [], [], []
    for g in range(16):
        state = env.init(init_keys[g])
        first, moves = int(state.current_player), []
        while not bool(state.terminated):
            moves.append(int(games.actions[len(moves), g]))
            state = step(state, moves[-1])
        outcomes.append(float(state.rewards[first]))
        lengths.append(len(moves))
        openings.append(tuple(moves[:k]))
    assert health["selfplay_first_wins"] == outcomes.count(1.0) / 16
    assert health["selfplay_second_wins"] == outcomes.count(-1.0) / 16
    assert health["selfplay_draws"] == outcomes.count(0.0) / 16
    assert health["selfplay_max_plies"] == max(lengths)
    assert health["selfplay_openings"] == len(set(openings)) / 16 < 1
    p, valid = np.asarray(games.policy, np.float64), np.asarray(games.valid)
    logs = np.log(np.where(p > 0, p, 1.0))
    expected = np.mean([-(p[t, g] * logs[t, g]).sum() for t, g in zip(*np.nonzero(valid))])
    np.testing.assert_allclose(health["selfplay_target_entropy"], expected, rtol=1e-5)


def test_the_progress_line_shows_health_and_says_arena_off(tmp_path):
    row = metric_row(iteration=7, selfplay_mean_plies=21.25, selfplay_first_wins=0.5,
                     selfplay_second_wins=0.375, selfplay_draws=0.125, selfplay_max_plies=36,
                     selfplay_openings=0.72, selfplay_target_entropy=0.8149, arena_wins=18,
                     arena_draws=12, arena_losses=10, accepted=True, arena_decisive=0.7)
    assert health_text(row) == "self-play 50%/38%/12% plies 21.2/36 open 72% H 0.81 | "
    gated = compose_config(SMOKE, tmp_path)
    assert "| arena 18-12-10 accepted (70% decisive) |" in progress_line(row, 10, gated)
    free = compose_config([*SMOKE, "arena.gate=false"], tmp_path)
    line = progress_line(row, 10, free)
    assert "| arena off |" in line and "accepted" not in line


def test_a_row_from_before_the_health_figures_still_loads_and_prints(tmp_path):
    """The committed c4_long runs predate the health figures."""
    path = ROOT / "studies/long_horizon/c4_long/arm=baseline,seed=40/metrics.jsonl"
    raw = json.loads(path.read_text().splitlines()[0])
    assert "selfplay_draws" not in raw
    row = MetricRow.from_json(raw)
    assert row.selfplay_draws is None and row.arena_decisive is None
    assert health_text(row) == ""
    line = progress_line(row, 100, compose_config(SMOKE, tmp_path))
    assert line.startswith("iter   1/100 | baseline") and "arena 22-9-9 accepted |" in line
