"""One conformance suite for every one of warmjax's own games (`GAMES` below).

Modelled on pgx's `pgx/_src/api_test.py` (which insists on pgx's own env ids, so its checks
are reproduced here rather than called): State dtypes and shapes, pgx's public attribute
names, init, jit and vmap random play to the end, terminal and illegal-move rules,
zero-sum rewards, observations against the board, `make` errors, symmetries and the
ASCII round trip.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pgx.core
import pytest

from warmjax.games import FIRST, SECOND, GameEnv, make

from ..game_helpers import item, random_play, transform_board
from ..helpers import ROOT

# warmjax's own games (pgx's, through the adapter, are pgx's states: tests/games/test_pgx_games.py).
GAMES = ("othello", "connect_four", "gobang")

PGX_PUBLIC = (
    "current_player",
    "observation",
    "rewards",
    "terminated",
    "truncated",
    "legal_action_mask",
)
NUM_GAMES = 48


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    """The game's env, jitted batched functions and a batch of random games (NumPy)."""
    env = make(request.param)
    rows, cols = env.board_shape
    num_plies = 2 * rows * cols + 4  # room for passes; every game must end before this
    states, _ = random_play(env, NUM_GAMES, num_plies)(jax.random.key(0))
    return SimpleNamespace(
        name=request.param,
        env=env,
        step=jax.jit(jax.vmap(env.step)),
        states=jax.tree.map(np.asarray, states),
    )


def flat(states):
    """`[T, B, ...]` -> `[T*B, ...]`."""
    return jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), states)


def all_states(game):
    """Every (ply, game) state of the random games, as unbatched NumPy states."""
    states = flat(game.states)
    return [item(states, i) for i in range(states.terminated.shape[0])]


def test_make_rejects_unknown_game():
    with pytest.raises(ValueError, match="unknown game"):
        make("checkers")  # chess is pgx's, registered through the adapter


# --------------------------------------------------------------------------------------
# API surface and State layout.


@pytest.mark.slow
def test_env_api(game):
    env = game.env
    assert isinstance(env, GameEnv) and isinstance(env, pgx.core.Env)
    assert env.id == f"warmjax/{env.name}" and env.name == game.name
    assert isinstance(env.version, str) and env.num_players == 2
    assert env.symmetry in ("dihedral", "mirror")
    # Cheap properties: pgx's defaults would run `init` on every call.
    assert type(env).num_actions is not pgx.core.Env.num_actions
    assert type(env).observation_shape is not pgx.core.Env.observation_shape
    rows, cols = env.board_shape
    assert env.observation_shape == (rows, cols, 2)
    with pytest.raises(ValueError):
        make(game.name, no_such_setting=1)


def test_state_fields(game):
    env = game.env
    state = env.init(jax.random.key(0))
    assert state.env_id == env.id
    names = [f.name for f in dataclasses.fields(state)]
    assert tuple(n for n in names if not n.startswith("_")) == PGX_PUBLIC
    assert "_step_count" in names
    expected = {
        "current_player": ((), jnp.int32),
        "observation": (env.observation_shape, jnp.bool_),
        "rewards": ((2,), jnp.float32),
        "terminated": ((), jnp.bool_),
        "truncated": ((), jnp.bool_),
        "legal_action_mask": ((env.num_actions,), jnp.bool_),
        "_step_count": ((), jnp.int32),
    }
    for field, (shape, dtype) in expected.items():
        value = getattr(state, field)
        assert value.shape == shape and value.dtype == dtype, (field, value.shape, value.dtype)
        batched = getattr(game.states, field)
        assert batched.shape[2:] == shape and batched.dtype == dtype, field
    for leaf in jax.tree.leaves(state):
        assert isinstance(leaf, jax.Array)


def test_states_keep_their_types_so_step_compiles_once(game):
    """init, step and from_board states have the same avals (weak types included)."""
    env = game.env
    state = env.init(jax.random.key(1))
    after = item(game.states, 1, 0)
    scripted = env.from_board(env.board_array(after), env.colour_to_move(after))
    avals = [jax.tree.map(jax.typeof, jax.tree.map(jnp.asarray, s)) for s in (state, scripted)]
    assert avals[0] == avals[1]

    chex.clear_trace_counter()  # the counter is global and this test is parametrized

    @jax.jit
    @chex.assert_max_traces(n=1)
    def step(state, action):
        return env.step(state, action)

    action = jnp.argmax(state.legal_action_mask).astype(jnp.int32)
    for s in (state, step(state, action), scripted):
        step(s, jnp.argmax(s.legal_action_mask).astype(jnp.int32))


# --------------------------------------------------------------------------------------
# init.


def test_init(game):
    env = game.env
    keys = jax.random.split(jax.random.key(5), 64)
    states = jax.tree.map(np.asarray, jax.vmap(env.init)(keys))
    assert (states.rewards == 0).all()
    assert states.legal_action_mask.any(axis=-1).all()
    assert (states._step_count == 0).all()
    assert not states.terminated.any() and not states.truncated.any()
    # pgx draws the id of the first mover from the key.
    expected = jax.vmap(lambda k: jnp.int32(jax.random.bernoulli(k)))(keys)
    np.testing.assert_array_equal(states.current_player, expected)
    assert set(states.current_player.tolist()) == {0, 1}
    for i in range(4):
        state = item(states, i)
        assert env.colour_to_move(state) == FIRST
        board = env.board_array(state)
        assert (board == FIRST).sum() == (board == SECOND).sum()


# --------------------------------------------------------------------------------------
# Random play with jit and vmap.


def test_random_games_end(game):
    assert game.states.terminated[-1].all(), "some random games did not finish"
    assert not game.states.truncated.any()


def test_step_count_increments_until_the_end(game):
    s = game.states
    np.testing.assert_array_equal(s._step_count[1:], s._step_count[:-1] + ~s.terminated[:-1])


def test_rewards_zero_sum_and_only_on_the_last_move(game):
    s = game.states
    np.testing.assert_array_equal(s.rewards.sum(axis=-1), 0.0)
    assert np.isin(s.rewards, (-1.0, 0.0, 1.0)).all()
    ends_now = np.zeros_like(s.terminated)
    ends_now[1:] = s.terminated[1:] & ~s.terminated[:-1]
    assert not s.rewards[~ends_now].any()
    assert (np.abs(s.rewards[ends_now]).sum(axis=-1) > 0).any(), "no game was won"


def test_legal_masks(game):
    s = game.states
    assert s.legal_action_mask[s.terminated].all()
    assert s.legal_action_mask[~s.terminated].any(axis=-1).all()
    # Terminated never reverts.
    assert (s.terminated[1:] >= s.terminated[:-1]).all()


def test_observation_is_the_board_from_the_movers_view(game):
    env, s = game.env, game.states
    assert not (s.observation[..., 0] & s.observation[..., 1]).any()
    first_ids = s.current_player[0]
    for state in all_states(game):
        board, colour = env.board_array(state), env.colour_to_move(state)
        other = SECOND if colour == FIRST else FIRST
        np.testing.assert_array_equal(state.observation[..., 0], board == colour)
        np.testing.assert_array_equal(state.observation[..., 1], board == other)
    # A player's colour is fixed for the whole game: FIRST is the first mover's id.
    colours = np.array([env.colour_to_move(state) for state in all_states(game)])
    is_first = (colours == FIRST).reshape(s.current_player.shape)
    np.testing.assert_array_equal(is_first, s.current_player == first_ids[None])


def test_single_game_jit_without_vmap(game):
    env = game.env
    init, step = jax.jit(env.init), jax.jit(env.step)
    key = jax.random.key(3)
    for _ in range(2):
        key, init_key = jax.random.split(key)
        state = init(init_key)
        steps = 0
        while not bool(state.terminated):
            key, act_key = jax.random.split(key)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            state = step(state, jax.random.categorical(act_key, logits).astype(jnp.int32))
            steps += 1
            assert int(state._step_count) == steps
            assert steps <= 2 * int(np.prod(env.board_shape)) + 4


# --------------------------------------------------------------------------------------
# Terminal and illegal-move rules (pgx's Env.step).


def test_terminal_states_are_absorbing(game):
    s = game.states
    was_over = s.terminated[:-1]
    for field in ("observation", "current_player", "_step_count", "terminated"):
        before, after = getattr(s, field)[:-1], getattr(s, field)[1:]
        np.testing.assert_array_equal(after[was_over], before[was_over], err_msg=field)
    assert not s.rewards[1:][was_over].any()
    assert s.legal_action_mask[1:][was_over].all()

    env = game.env
    final = jax.tree.map(lambda x: x[-1], s)
    actions = jnp.arange(NUM_GAMES, dtype=jnp.int32) % env.num_actions
    again = jax.tree.map(np.asarray, game.step(final, actions))
    for g in range(NUM_GAMES):
        before, after = item(final, g), item(again, g)
        np.testing.assert_array_equal(env.board_array(after), env.board_array(before))
    assert again.terminated.all() and not again.rewards.any() and again.legal_action_mask.all()
    np.testing.assert_array_equal(again._step_count, final._step_count)


def test_illegal_action_loses(game):
    states = flat(jax.tree.map(lambda x: x[:-1], game.states))
    has_illegal = ~states.terminated & ~states.legal_action_mask.all(axis=-1)
    index = np.flatnonzero(has_illegal)[:NUM_GAMES]
    assert index.size > 0, "no position with an illegal action was reached"
    picked = item(states, index)
    illegal = np.argmin(picked.legal_action_mask, axis=-1).astype(np.int32)
    after = jax.tree.map(np.asarray, game.step(picked, illegal))
    assert after.terminated.all()
    assert after.legal_action_mask.all()
    mover = picked.current_player
    rows = np.arange(index.size)
    np.testing.assert_array_equal(after.rewards[rows, mover], -1.0)
    np.testing.assert_array_equal(after.rewards[rows, 1 - mover], 1.0)


# --------------------------------------------------------------------------------------
# Symmetries and the ASCII form.


def test_augment_matches_transformed_positions(game):
    env = game.env
    states = flat(game.states)
    rng = np.random.default_rng(0)
    index = rng.choice(np.flatnonzero(~states.terminated), size=12, replace=False)
    picked = item(states, index)
    mask = picked.legal_action_mask.astype(np.float32)
    policy = mask / mask.sum(-1, keepdims=True)
    obs_aug, policy_aug = env.augment(jnp.asarray(picked.observation), jnp.asarray(policy))
    obs_aug, policy_aug = np.asarray(obs_aug), np.asarray(policy_aug)
    copies = 8 if env.symmetry == "dihedral" else 2
    assert obs_aug.shape == (12, copies, *env.observation_shape)
    assert policy_aug.shape == (12, copies, env.num_actions)
    np.testing.assert_array_equal(obs_aug[:, 0], picked.observation)
    np.testing.assert_array_equal(policy_aug[:, 0], policy)

    cell_perm, _ = env.symmetry_tables()
    for i in range(12):
        state = item(picked, i)
        board = env.board_array(state)
        for s in range(copies):
            scripted = env.from_board(
                transform_board(board, cell_perm[s]),
                env.colour_to_move(state),
                int(state.current_player),
            )
            np.testing.assert_array_equal(obs_aug[i, s], scripted.observation)
            np.testing.assert_array_equal(policy_aug[i, s] > 0, scripted.legal_action_mask)


def test_ascii_round_trip(game):
    env = game.env
    s = game.states
    ends_now = np.zeros_like(s.terminated)
    ends_now[1:] = s.terminated[1:] & ~s.terminated[:-1]
    for t in range(0, s.terminated.shape[0], 3):
        for g in range(0, NUM_GAMES, 4):
            state = item(s, t, g)
            if bool(state.terminated) and not ends_now[t, g]:
                continue
            to_move = "X" if env.colour_to_move(state) == FIRST else "O"
            again = env.from_ascii(env.render(state), to_move, int(state.current_player))
            np.testing.assert_array_equal(env.board_array(again), env.board_array(state))
            assert bool(again.terminated) == bool(state.terminated)
            np.testing.assert_array_equal(again.legal_action_mask, state.legal_action_mask)
            np.testing.assert_array_equal(again.rewards, state.rewards)
            np.testing.assert_array_equal(again.observation, state.observation)


def test_no_private_pgx_imports():
    # pgx's `_src` is private: warmjax builds on its public API only.
    import re

    package = ROOT / "warmjax"
    offenders = [str(path.relative_to(package)) for path in package.rglob("*.py")
                 if re.search(r"^\s*(from|import)\s+pgx\._src", path.read_text(), re.M)]
    assert offenders == []
