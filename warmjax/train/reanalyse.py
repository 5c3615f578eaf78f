"""Reanalysis (a departure, method.md §5; the idea of MuZero's Reanalyse, for a game whose
rules warmjax has): each iteration re-searches K positions of earlier iterations that are
still in the replay buffer, with the current network, and their examples take the fresh
search's result as their targets.

The buffer keeps observations, not game states, so the run keeps beside it the moves of
every game in it (`GameMoves`: each game's `env.init` key and its moves, one slot per
iteration like the buffer's). A chosen position is rebuilt by replaying its game from the
start; the games are deterministic, so the state is the one self-play searched.

Which positions: K distinct ones drawn uniformly among the valid examples of the buffer's
other slots (this iteration's own were just searched with the same network). The search is
the baseline's (PUCT MCTS, or Gumbel's where that is the baseline) with the arena's and the
probe's settings: m simulations and no root noise. Every symmetric copy of a chosen
position takes the fresh π as its policy target (mirrored with it), and with
`value_share` λ > 0 its value target becomes (1 − λ)·(the stored target) + λ·q, q the fresh
root value. The opponent-reply targets (`train.reply_weight`) are not refreshed.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from flax import struct

from warmjax.search.players import Player
from warmjax.train.buffer import ReplayBuffer, first_row

# The reanalysis's key is folded off the iteration's training key with this, so that the
# iteration's own keys are those of a run without it.
REANALYSE_STREAM = 0x7265616E


@struct.dataclass
class GameMoves:
    """The games behind the buffer's examples: S slots (one per iteration, as the buffer's),
    E games each, T = the game's maximum number of plies."""

    keys: jax.Array  # [S, E, 2] uint32, the key each game's first state was made with
    actions: jax.Array  # [S, T, E] int32, the moves played (meaningless after the end)
    # [S, E] int32 the games' lengths (0: a slot not written yet), kept for the start
    # positions (`train/start_positions.py`); None where only reanalysis keeps the moves.
    plies: jax.Array | None = None


def empty_moves(slots: int, max_plies: int, games: int, lengths: bool = False) -> GameMoves:
    """No games yet; with `lengths`, their lengths kept too (`GameMoves.plies`)."""
    return GameMoves(keys=jnp.zeros((slots, games, 2), jnp.uint32),
                     actions=jnp.zeros((slots, max_plies, games), jnp.int32),
                     plies=jnp.zeros((slots, games), jnp.int32) if lengths else None)


def write_moves(moves: GameMoves, slot: jax.Array, keys: jax.Array,
                actions: jax.Array, plies: jax.Array | None = None) -> GameMoves:
    """Slot `slot` (traced) replaced with one iteration's games: `keys [E, 2]`,
    `actions [T, E]` and, where the moves keep them, their lengths `plies [E]`."""
    return GameMoves(keys=moves.keys.at[slot].set(keys),
                     actions=moves.actions.at[slot].set(actions),
                     plies=None if moves.plies is None else moves.plies.at[slot].set(plies))


def replay(env: Any, key: jax.Array, actions: jax.Array, ply: jax.Array):
    """The state before ply `ply` of the game made from `key` whose moves were `actions
    [T]`: `env.init(key)` and its first `ply` moves."""
    def step(t, state):
        moved = env.step(state, actions[t])
        return jax.tree_util.tree_map(lambda new, old: jnp.where(t < ply, new, old),
                                      moved, state)

    return jax.lax.fori_loop(0, actions.shape[0], step, env.init(key))


def choose_positions(key: jax.Array, valid: jax.Array, slot, positions: int):
    """K = `positions` distinct positions drawn uniformly among the valid ones (`valid
    [S, T, E]`) outside slot `slot`: the top K of uniform draws, where the ineligible rank
    below all. Returns `(s, t, e, chosen)`, each `[K]`; `chosen` is false at a pick that is
    not eligible (fewer than K were)."""
    slots, plies, games = valid.shape
    eligible = (valid & (jnp.arange(slots) != slot)[:, None, None]).reshape(-1)
    draws = jnp.where(eligible, jax.random.uniform(key, eligible.shape), -1.0)
    index = jax.lax.top_k(draws, min(positions, eligible.shape[0]))[1]
    s, t, e = jnp.unravel_index(index, (slots, plies, games))
    return s, t, e, eligible[index]


def make_reanalyse(env: Any, player: Player, positions: int, value_share: float = 0.0):
    """Builds `reanalyse(variables, key, buffer, moves, slot) -> (buffer, evaluations)`.

    Args:
      env: the game.
      player: the search that reanalyses (the baseline's, without root noise).
      positions: K, the positions re-searched per iteration.
      value_share: λ, the fresh root value's share in a chosen position's value target;
        0: the value target is kept.

    `slot` is this iteration's slot, whose positions are not chosen. `evaluations` is the
    network evaluations the searches made (1 + m per chosen position). The key splits into
    the choice's (`choose_positions`) and the search's, in that order.
    """
    if positions < 1:
        raise ValueError(f"reanalysis needs at least one position per iteration, got {positions}")
    if not 0.0 <= value_share <= 1.0:
        raise ValueError(f"the reanalysed value's share must be in [0, 1], got {value_share}")
    copies = env.symmetry_tables()[0].shape[0]

    def reanalyse(variables, key, buffer: ReplayBuffer, moves: GameMoves, slot):
        slots, plies, games = moves.actions.shape
        k_pick, k_search = jax.random.split(key)
        valid = buffer.valid.reshape(slots, plies, games, copies)[..., 0]
        s, t, e, chosen = choose_positions(k_pick, valid, slot, positions)
        states = jax.vmap(lambda *a: replay(env, *a))(moves.keys[s, e],
                                                       moves.actions[s, :, e], t)
        move = player(variables, k_search, states)
        _, policy = env.augment(states.observation, move.policy)  # [K, copies, A]
        rows = first_row(s, t, e, plies, games, copies)[:, None] + jnp.arange(copies)
        keep = chosen[:, None]
        new_policy = jnp.where(keep[..., None], policy, buffer.policy[rows])
        buffer = buffer.replace(policy=buffer.policy.at[rows].set(new_policy))
        if value_share > 0:
            old = buffer.value[rows]
            mixed = (1.0 - value_share) * old + value_share * move.value[:, None]
            buffer = buffer.replace(value=buffer.value.at[rows].set(
                jnp.where(keep, mixed, old)))
        evaluations = jnp.sum(chosen, dtype=jnp.int32) * player.evaluations_per_search
        return buffer, evaluations

    return reanalyse
