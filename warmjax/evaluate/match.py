"""Matches between two players, all games in parallel.

Half the games have player A move first, the other half player B. Every warmjax game
alternates movers at every ply (Othello's pass is a move), so at any ply all games of a half
wait for the same player: each player is called once per ply on one half of the batch, and
no search runs for the side not to move.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.search.players import Player

NO_MOVE = -1


class MatchResult(NamedTuple):
    """Outcome of a match, from player A's side. Counts are int32 scalars."""

    wins: jax.Array
    draws: jax.Array
    losses: jax.Array
    scores: jax.Array  # [G] float32, A's result per game: +1, 0, −1
    a_first: jax.Array  # [G] bool, whether A moved first
    actions: jax.Array  # [T, G] int32 moves per ply (NO_MOVE after the end); T = 0 if unrecorded
    policies: jax.Array  # [T, G, A] float32 move policies; T = 0 if unrecorded
    plies: jax.Array  # [G] int32 length of each game


def make_match(
    env: Any,
    player_a: Player,
    player_b: Player,
    num_games: int,
    *,
    record: bool = False,
    record_policies: bool = False,
) -> Callable:
    """Builds `match(params_a, params_b, key, weight_a=None, weight_b=None) -> MatchResult`.

    Args:
      env: the game.
      player_a, player_b: players (see `warmjax.search.players`).
      num_games: G, even; games [0, G/2) have A first.
      record: keep the moves of every game.
      record_policies: also keep each move's policy (memory T·G·A floats).

    Returns:
      A pure, jit-able function.
    """
    if num_games < 2 or num_games % 2:
        raise ValueError(f"a match needs an even, positive number of games, got {num_games}")
    half = num_games // 2
    max_plies = int(env.max_plies)
    slots = max_plies if record else 0
    policy_slots = max_plies if record_policies else 0
    num_actions = env.num_actions

    def split(tree):
        return (jax.tree_util.tree_map(lambda x: x[:half], tree),
                jax.tree_util.tree_map(lambda x: x[half:], tree))

    def pick(cond, x, y):
        return jax.tree_util.tree_map(lambda u, v: jnp.where(cond, u, v), x, y)

    def match(params_a, params_b, key, weight_a=None, weight_b=None) -> MatchResult:
        key, init_key = jax.random.split(key)
        states = jax.vmap(env.init)(jax.random.split(init_key, num_games))
        a_first = jnp.arange(num_games) < half
        a_id = jnp.where(a_first, states.current_player, 1 - states.current_player)

        def cond(carry):
            states, ply, *_ = carry
            return (ply < max_plies) & ~jnp.all(states.terminated)

        def body(carry):
            states, ply, score, actions, policies, key = carry
            key, key_a, key_b = jax.random.split(key, 3)
            even = ply % 2 == 0
            first, second = split(states)
            act_a, pol_a = player_a(params_a, key_a, pick(even, first, second), weight_a)
            act_b, pol_b = player_b(params_b, key_b, pick(even, second, first), weight_b)
            action = jnp.concatenate([jnp.where(even, act_a, act_b), jnp.where(even, act_b, act_a)])
            policy = jnp.concatenate([jnp.where(even, pol_a, pol_b), jnp.where(even, pol_b, pol_a)])
            live = ~states.terminated
            states = jax.vmap(env.step)(states, action)
            score = score + jnp.take_along_axis(states.rewards, a_id[:, None], axis=1)[:, 0]
            if record:
                actions = actions.at[ply].set(jnp.where(live, action, NO_MOVE), mode="drop")
            if record_policies:
                policies = policies.at[ply].set(policy, mode="drop")
            return states, ply + 1, score, actions, policies, key

        init = (
            states,
            jnp.int32(0),
            jnp.zeros(num_games, jnp.float32),
            jnp.full((slots, num_games), NO_MOVE, jnp.int32),
            jnp.zeros((policy_slots, num_games, num_actions), jnp.float32),
            key,
        )
        states, _, score, actions, policies, _ = jax.lax.while_loop(cond, body, init)
        return MatchResult(
            wins=jnp.sum(score > 0).astype(jnp.int32),
            draws=jnp.sum(score == 0).astype(jnp.int32),
            losses=jnp.sum(score < 0).astype(jnp.int32),
            scores=score,
            a_first=a_first,
            actions=actions,
            policies=policies,
            plies=states._step_count,
        )

    return match


def play_match(
    env: Any,
    player_a: Player,
    player_b: Player,
    games: int,
    key: jax.Array,
    params_a: Any = None,
    params_b: Any = None,
    *,
    record: bool = False,
) -> MatchResult:
    """Plays `games` games between A and B (jitting on every call; reuse `make_match` in loops).

    Returns:
      A `MatchResult` with NumPy arrays and Python-int counts.
    """
    match = jax.jit(make_match(env, player_a, player_b, games, record=record))
    result = jax.device_get(match(params_a, params_b, key))
    return MatchResult(*(int(x) if np.ndim(x) == 0 else np.asarray(x) for x in result))


def mean_score(result: MatchResult) -> float:
    """A's mean score, counting a win 1, a draw ½ and a loss 0."""
    games = int(result.wins) + int(result.draws) + int(result.losses)
    return (int(result.wins) + 0.5 * int(result.draws)) / max(games, 1)
