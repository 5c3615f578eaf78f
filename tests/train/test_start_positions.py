"""Start positions drawn from earlier games (train.start_positions, a departure, method.md
§5; train/start_positions.py): the drawn positions are positions of the kept games, rebuilt
as the public `warmjax.position` builds them; a started game is played from there, kept
whole, and its targets follow T′ counted from the game's first position; the other games
are the games without the setting; warm start's games never start so."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import warmjax
from warmjax.games import make
from warmjax.search import Inputs, make_player
from warmjax.train import loop
from warmjax.train.reanalyse import empty_moves, write_moves
from warmjax.train.selfplay import SelfPlayRules, make_selfplay, take_starts
from warmjax.train.start_positions import draw_starts, starting_games
from warmjax.train.warmstart import BASELINE, ENHANCED_VS_BASELINE

from ..helpers import SMOKE, compose_config

ENV = make("connect_four")
T = ENV.max_plies
GAMES = [[2, 3, 2, 3, 2], [0, 1, 0], [5, 5, 4, 4, 3, 3, 2]]  # moves from the first position


def fixed_network(params, obs):
    """A fixed network whose prior and value depend on the position (no training)."""
    del params
    mine, theirs = obs[..., 0].astype(jnp.float32), obs[..., 1].astype(jnp.float32)
    return jnp.sum(mine - 0.5 * theirs, axis=1), jnp.tanh(
        0.3 * jnp.sum(mine[:, :3] - theirs[:, :3], axis=(1, 2)))


def store(games=GAMES, slots=2):
    """The kept moves of `games` in slot 0 (every game made from PRNGKey(0)); slot 1 empty."""
    actions = np.zeros((T, len(games)), np.int32)
    for e, moves in enumerate(games):
        actions[:len(moves), e] = moves
    keys = jnp.stack([jax.random.PRNGKey(0)] * len(games))
    moves = empty_moves(slots, T, len(games), lengths=True)
    return write_moves(moves, 0, keys, jnp.asarray(actions),
                       jnp.asarray([len(m) for m in games], jnp.int32))


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_drawn_positions_are_positions_of_the_kept_games():
    """Each drawn position is the one `warmjax.position` reaches by its game's first `ply`
    moves; none comes from the empty slot or after a game's end, none is drawn twice, and
    where fewer positions are kept than asked for, all of them are drawn."""
    moves = store()
    kept = sum(len(m) for m in GAMES)  # the positions before a move: 15
    starts = jax.device_get(draw_starts(ENV, moves, jax.random.PRNGKey(1), kept + 3))
    assert int(starts.used.sum()) == kept
    seen = set()
    for k in np.flatnonzero(starts.used):
        ply, prefix = int(starts.ply[k]), [int(a) for a in starts.prefix[k]]
        game = next(g for g in GAMES if prefix[:len(g)] == g)  # slot 0's games only
        assert 0 <= ply < len(game)
        seen.add((tuple(game), ply))
        expected = warmjax.position(ENV, game[:ply])
        np.testing.assert_array_equal(starts.states.observation[k], expected.observation)
        assert int(starts.states.current_player[k]) == int(expected.current_player)
    assert len(seen) == kept
    nothing = draw_starts(ENV, empty_moves(2, T, 3, lengths=True), jax.random.PRNGKey(1), 4)
    assert not bool(jnp.any(nothing.used))
    assert (starting_games(0.5, 6), starting_games(0.25, 160), starting_games(1.0, 7)) == (
        3, 40, 7)


def test_warm_starts_games_start_from_the_first_position():
    init = jax.vmap(ENV.init)(jax.random.split(jax.random.PRNGKey(2), 4))
    starts = draw_starts(ENV, store(), jax.random.PRNGKey(1), 2)
    states, ply, begun = take_starts(init, starts, ENHANCED_VS_BASELINE)
    assert not bool(jnp.any(begun)) and not bool(jnp.any(ply))
    np.testing.assert_array_equal(states.observation, init.observation)
    states, ply, begun = take_starts(init, starts, BASELINE)
    assert bool(jnp.all(begun)) and list(np.asarray(ply[2:])) == [0, 0]


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_a_started_game_is_played_from_its_position_and_kept_whole():
    """Games 0-2 start from drawn positions, games 3-5 from the first one. A started game's
    first recorded position is the drawn one; its moves, replayed from its game's first
    state with the game's own `step`, end in its result; its targets are π only while the
    game's own ply is below T′ = 2 (one-hot after, the move played). Games 3-5 are those of
    self-play without start positions, move for move and target for target."""
    player = make_player("mcts", ENV, fixed_network, simulations=6, temperature_moves=2)
    selfplay = jax.jit(make_selfplay(ENV, player, None, SelfPlayRules(6)))
    key, inputs = jax.random.PRNGKey(4), Inputs(None, 0.5)
    starts = draw_starts(ENV, store(), jax.random.PRNGKey(5), 3)
    out = jax.device_get(selfplay(inputs, key, BASELINE, None, starts))
    plain = jax.device_get(selfplay(inputs, key, BASELINE))
    starts = jax.device_get(starts)
    assert bool(starts.used.all()) and int(starts.ply.max()) >= 2
    step = jax.jit(ENV.step)
    for g in range(3):
        ply = int(starts.ply[g])
        np.testing.assert_array_equal(out.obs[0, g], starts.states.observation[g])
        np.testing.assert_array_equal(out.init_keys[g], starts.keys[g])
        assert [int(a) for a in out.actions[:ply, g]] == [int(a) for a in starts.prefix[g, :ply]]
        state = ENV.init(out.init_keys[g])
        assert int(out.first_mover[g]) == int(state.current_player)
        for t in range(int(out.plies[g])):
            state = step(state, out.actions[t, g])
        assert bool(state.terminated)
        np.testing.assert_array_equal(np.asarray(state.rewards), out.results[g])
        own = int(out.plies[g]) - ply  # the plies self-play played and recorded
        assert out.valid[:own, g].all() and not out.valid[own:, g].any()
        for t in range(own):
            target = out.policy[t, g]
            move = int(out.actions[ply + t, g])
            if ply + t >= 2:
                np.testing.assert_array_equal(target, np.eye(ENV.num_actions)[move])
    for g in range(3, 6):
        for a, b in ((out.actions, plain.actions), (out.policy, plain.policy),
                     (out.value, plain.value), (out.valid, plain.valid)):
            np.testing.assert_array_equal(a[:, g], b[:, g])


@pytest.mark.slow
def test_a_run_with_start_positions_resumes_exactly(tmp_path):
    """Two smoke iterations with half the games started from kept positions, straight and
    stopped after one and resumed: the same metrics (the kept moves and their lengths go
    through the checkpoint)."""
    extra = ["train.start_positions=0.5", "train.iterations=2"]
    straight = compose_config([*SMOKE, *extra], tmp_path / "straight")
    loop.train(straight, log=lambda line: None)
    halves = compose_config([*SMOKE, *extra], tmp_path / "halves")
    loop.train(halves, log=lambda line: None, stop_after=1)
    loop.train(halves, log=lambda line: None)
    a = (tmp_path / "straight" / "metrics.jsonl").read_text().splitlines()
    b = (tmp_path / "halves" / "metrics.jsonl").read_text().splitlines()

    def strip(line):
        return {k: v for k, v in json.loads(line).items() if not k.startswith("seconds")}

    assert len(a) == 2 and [strip(x) for x in a] == [strip(x) for x in b]
