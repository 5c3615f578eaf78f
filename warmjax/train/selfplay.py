"""Self-play: E games in parallel, recorded as training examples (method.md §5, §8).

Each ply, every unfinished game is searched by the baseline player, the enhancement player,
or (adaptive warm-start) the enhancement in some games and the baseline in the others: in
games [0, E/2) the enhancement moves first, in [E/2, E) the baseline does. Moves are sampled
from π for the first T′ plies of a game and are argmax π after; the stored target is π while
sampling and the one-hot move after, as in AlphaZero General. A stored position's value
target z is the game's final result for the player to move in it.

Each search runs under `lax.cond` only when some game needs it; in the enhancement-vs-
baseline iterations both run on the whole batch and each game takes its own side's move.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from warmjax.search.players import Player
from warmjax.train.warmstart import BASELINE, ENHANCED, ENHANCED_VS_BASELINE


class SelfPlayResult(NamedTuple):
    """Recorded games. T is the game's maximum number of plies, E the number of games."""

    obs: jax.Array  # [T, E, H, W, 2] bool
    policy: jax.Array  # [T, E, A] float32 targets
    value: jax.Array  # [T, E] float32 z for the player to move
    valid: jax.Array  # [T, E] bool, a move was made from this position
    actions: jax.Array  # [T, E] int32 moves played
    results: jax.Array  # [E, 2] float32 final rewards by player id
    baseline_balance: jax.Array  # [] float32, Σ results of the baseline side (vs enhancement)
    plies: jax.Array  # [E] int32 game lengths


def make_selfplay(
    env: Any,
    baseline: Player,
    enhancement: Player | None,
    num_games: int,
    temperature_moves: int,
    random_opening: int = 0,
):
    """Builds `selfplay(params, key, kind, weight) -> SelfPlayResult`.

    Args:
      env: the game.
      baseline: the baseline MCTS player (its own T′ is ignored; sampling is decided here).
      enhancement: the warm-start player, or None when no warm start is configured.
      num_games: E.
      temperature_moves: T′.
      random_opening: K, the most uniformly random opening moves of a game; 0: none.
    """
    max_plies = int(env.max_plies)
    half = num_games // 2
    num_actions = env.num_actions
    first_half = jnp.arange(num_games) < half

    def play(player, params, key, states, weight, memory):
        return player.play(params, key, states, weight, memory)

    def nothing(memory):
        return (jnp.zeros(num_games, jnp.int32), jnp.zeros((num_games, num_actions), jnp.float32),
                memory)

    def selfplay(params, key, kind, weight) -> SelfPlayResult:
        key, init_key = jax.random.split(key)
        states = jax.vmap(env.init)(jax.random.split(init_key, num_games))
        first_mover = states.current_player
        opening = jnp.zeros(num_games, jnp.int32)
        if random_opening > 0:  # extra keys only when on, so off stays bit-identical
            key, k_open = jax.random.split(key)
            opening = jax.random.randint(k_open, (num_games,), 0, random_opening + 1)

        def cond(carry):
            states, ply, *_ = carry
            return (ply < max_plies) & ~jnp.all(states.terminated)

        def body(carry):
            states, ply, results, record, key, mem_base, mem_enh = carry
            key, k_enh, k_base = jax.random.split(key, 3)
            enh_turn = (ply % 2 == 0) == first_half
            use_enh = jnp.where(kind == ENHANCED, True, jnp.where(kind == BASELINE, False, enh_turn))
            live = ~states.terminated
            searched = live
            if random_opening > 0:
                searched = live & (states._step_count >= opening)
            if enhancement is None:
                action, policy, mem_base = play(baseline, params, k_base, states, weight,
                                                mem_base)
            else:
                enh_a, enh_p, mem_enh = jax.lax.cond(
                    jnp.any(use_enh & searched),
                    lambda: play(enhancement, params, k_enh, states, weight, mem_enh),
                    lambda: nothing(mem_enh),
                )
                base_a, base_p, mem_base = jax.lax.cond(
                    jnp.any(~use_enh & searched),
                    lambda: play(baseline, params, k_base, states, weight, mem_base),
                    lambda: nothing(mem_base),
                )
                action = jnp.where(use_enh, enh_a, base_a)
                policy = jnp.where(use_enh[:, None], enh_p, base_p)
            if random_opening > 0:
                key, k_rand = jax.random.split(key)
                legal = states.legal_action_mask
                uniform = jax.random.categorical(k_rand, jnp.where(legal, 0.0, -jnp.inf))
                action = jnp.where(searched | ~live, action, uniform)
            sampled = states._step_count < temperature_moves
            target = jnp.where(sampled[:, None], policy,
                               jax.nn.one_hot(action, num_actions, dtype=jnp.float32))
            obs, targets, movers, valid, actions = record
            obs = obs.at[ply].set(states.observation)
            targets = targets.at[ply].set(target)
            movers = movers.at[ply].set(states.current_player)
            valid = valid.at[ply].set(searched)
            actions = actions.at[ply].set(action)
            states = jax.vmap(env.step)(states, action)
            mem_base = baseline.follow(mem_base, action)
            if enhancement is not None:
                mem_enh = enhancement.follow(mem_enh, action)
            results = results + states.rewards
            return (states, ply + 1, results, (obs, targets, movers, valid, actions), key,
                    mem_base, mem_enh)

        record = (
            jnp.zeros((max_plies, *states.observation.shape), jnp.bool_),
            jnp.zeros((max_plies, num_games, num_actions), jnp.float32),
            jnp.zeros((max_plies, num_games), jnp.int32),
            jnp.zeros((max_plies, num_games), jnp.bool_),
            jnp.zeros((max_plies, num_games), jnp.int32),
        )
        memories = (baseline.start(states),
                    () if enhancement is None else enhancement.start(states))
        init = (states, jnp.int32(0), jnp.zeros((num_games, 2), jnp.float32), record, key,
                *memories)
        states, _, results, record, *_ = jax.lax.while_loop(cond, body, init)
        obs, targets, movers, valid, actions = record
        value = jnp.take_along_axis(results[None], movers[..., None], axis=2)[..., 0]
        # The baseline side: second mover where the enhancement went first, and vice versa.
        baseline_id = jnp.where(first_half, 1 - first_mover, first_mover)
        balance = jnp.sum(jnp.take_along_axis(results, baseline_id[:, None], axis=1))
        balance = jnp.where(kind == ENHANCED_VS_BASELINE, balance, 0.0)
        return SelfPlayResult(
            obs=obs, policy=targets, value=jnp.where(valid, value, 0.0), valid=valid,
            actions=actions, results=results, baseline_balance=balance, plies=states._step_count,
        )

    return selfplay
