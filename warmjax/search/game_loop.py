"""The one game loop: batched games between players, used by matches, the arena and self-play.

`play_games` plays B games from their first states to the end, one ply per step of a
`lax.while_loop`, and can record each ply. Who moves where is decided by a *turn*, an object
with

- `start(states) -> memories`: what the players carry between moves (search trees, or `()`);
- `move(key, states, ply, memories) -> (key, move, counted [B])`: every game's move at
  this ply (a `players.Move`: action, the mover's policy and value, the memories after it);
  `counted` marks the moves that are recorded as examples;
- `follow(memories, action) -> memories`: the players' memories after the ply.

`TwoSides` is the turn of a match: games [0, B/2) have side A move first, the others side B.
Every warmjax game alternates movers at every ply (Othello's pass is a move), so at any ply
all games of a half wait for the same side: each side searches only the half where it is to
move (`side_moves`). Self-play (`train/selfplay.py`) uses the same halves when the
enhancement plays the baseline.

`make_match` builds a compiled-ready match from two players on top of these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from warmjax.search.players import Move, Player

NO_MOVE = -1


class Record(NamedTuple):
    """What `play_games` keeps per ply. T is the game's maximum number of plies, or 0 for what
    was not asked for."""

    actions: jax.Array  # [T, B] int32 moves (meaningless where not live)
    live: jax.Array  # [T, B] bool, the game was still on at this ply
    obs: jax.Array  # [T, B, H, W, C] bool observations before the move
    policy: jax.Array  # [T, B, A] float32 the mover's policy
    values: jax.Array  # [T, B] float32 the mover's value of the position (`Move.value`)
    movers: jax.Array  # [T, B] int32 player id to move
    valid: jax.Array  # [T, B] bool, live and counted as an example


class Played(NamedTuple):
    """The end of `play_games`."""

    states: Any  # final states, leaves [B, ...]
    results: jax.Array  # [B, 2] float32 summed rewards by player id
    record: Record
    # [B] int32 environment steps the movers' searches spent in random playouts, over the
    # plies where the game was on and the move counted (the compute ledger)
    playout_steps: jax.Array


def play_games(env: Any, states: Any, key: jax.Array, turn: Any, *, keep_actions: bool = False,
             keep_examples: bool = False) -> Played:
    """Plays B games from `states` to the end (or the game's ply limit).

    Args:
      env: the game.
      states: the first states, leaves `[B, ...]`.
      key: the loop's key; each ply's `turn.move` splits what it needs from it.
      turn: decides the moves (see the module docstring).
      keep_actions: record the moves and which games were live at each ply.
      keep_examples: also record observations, policies, movers and counted moves.
    """
    games = states.current_player.shape[0]
    max_plies = int(env.max_plies)
    t_moves = max_plies if (keep_actions or keep_examples) else 0
    t_examples = max_plies if keep_examples else 0
    record = Record(
        actions=jnp.zeros((t_moves, games), jnp.int32),
        live=jnp.zeros((t_moves, games), jnp.bool_),
        obs=jnp.zeros((t_examples, *states.observation.shape), states.observation.dtype),
        policy=jnp.zeros((t_examples, games, env.num_actions), jnp.float32),
        values=jnp.zeros((t_examples, games), jnp.float32),
        movers=jnp.zeros((t_examples, games), jnp.int32),
        valid=jnp.zeros((t_examples, games), jnp.bool_),
    )

    def cond(carry):
        states, ply, *_ = carry
        return (ply < max_plies) & ~jnp.all(states.terminated)

    def body(carry):
        states, ply, results, record, key, memories, steps = carry
        key, move, counted = turn.move(key, states, ply, memories)
        move = move.check(games, env.num_actions)
        action, policy, value, memories = move.action, move.policy, move.value, move.memory
        live = ~states.terminated
        if move.playout_steps is not None:
            steps = steps + jnp.where(live & counted, move.playout_steps, 0)
        if t_moves:
            record = record._replace(actions=record.actions.at[ply].set(action),
                                     live=record.live.at[ply].set(live))
        if t_examples:
            record = record._replace(
                obs=record.obs.at[ply].set(states.observation),
                policy=record.policy.at[ply].set(policy),
                values=record.values.at[ply].set(value),
                movers=record.movers.at[ply].set(states.current_player),
                valid=record.valid.at[ply].set(live & counted),
            )
        states = jax.vmap(env.step)(states, action)
        memories = turn.follow(memories, action)
        results = results + states.rewards
        return states, ply + 1, results, record, key, memories, steps

    init = (states, jnp.int32(0), jnp.zeros((games, 2), jnp.float32), record, key,
            turn.start(states), jnp.zeros(games, jnp.int32))
    states, _, results, record, _, _, steps = jax.lax.while_loop(cond, body, init)
    return Played(states, results, record, steps)


# --------------------------------------------------------------------------------------
# Two sides on the two halves of the batch.


def truncated(env: Any, states: Any) -> jax.Array:
    """`[B]` bool: which finished games the step cap ended rather than the rules: still on
    after `env.max_plies` plies (`play_games` stops there), or, in a game whose own step cap
    ends games (`env.truncates`: pgx's Go and chess-like games), ended at the cap."""
    at_cap = states._step_count >= env.max_plies
    return ~states.terminated | (at_cap & bool(getattr(env, "truncates", False)))


def split(tree):
    """The first and second halves of a batched pytree."""
    leaves = jax.tree_util.tree_leaves(tree)
    half = leaves[0].shape[0] // 2 if leaves else 0
    return (jax.tree_util.tree_map(lambda x: x[:half], tree),
            jax.tree_util.tree_map(lambda x: x[half:], tree))


def pick(cond, x, y):
    """`x` where the (scalar) `cond` holds, else `y`, leaf by leaf."""
    return jax.tree_util.tree_map(lambda u, v: jnp.where(cond, u, v), x, y)


def join(x, y):
    """The two halves back into one batch."""
    return jax.tree_util.tree_map(lambda u, v: jnp.concatenate([u, v]), x, y)


def side_moves(player: Player, inputs, key, states, memory, mine_first) -> Move:
    """`player` searches the half of the games where it is to move: the first half if
    `mine_first` (a traced bool), else the second. Its memory of the other half is kept.

    Returns:
      The `Move` of that half (action, policy, value `[B/2]`) with the memory of all `[B]`.
    """
    first, second = split(states)
    mem_first, mem_second = split(memory)
    move = player(inputs, key, pick(mine_first, first, second),
                  pick(mine_first, mem_first, mem_second))
    searched = move.memory
    memory = join(pick(mine_first, searched, mem_first), pick(mine_first, mem_second, searched))
    return move._replace(memory=memory)


def move_parts(move: Move) -> tuple:
    """What `interleave` joins of one side's `Move`: action, policy, value, playout steps."""
    return move.action, move.policy, move.value, move.playout_steps


def interleave(mine_first, a, b):
    """Per-half values of side A (`a`) and side B (`b`) back into batch order, A having moved
    in the first half if `mine_first`."""
    return jax.tree_util.tree_map(
        lambda u, v: jnp.concatenate([jnp.where(mine_first, u, v), jnp.where(mine_first, v, u)]),
        a, b)


class TwoSides(NamedTuple):
    """The turn of a match: side A first in games [0, B/2), side B first in the others."""

    player_a: Player
    player_b: Player
    inputs_a: Any  # what each side's calls take (`Player.__call__`'s `inputs`)
    inputs_b: Any

    def start(self, states):
        return self.player_a.start(states), self.player_b.start(states)

    def move(self, key, states, ply, memories):
        mem_a, mem_b = memories
        key, key_a, key_b = jax.random.split(key, 3)
        even = ply % 2 == 0
        side_a = side_moves(self.player_a, self.inputs_a, key_a, states, mem_a, even)
        side_b = side_moves(self.player_b, self.inputs_b, key_b, states, mem_b, ~even)
        action, policy, value, steps = interleave(even, move_parts(side_a), move_parts(side_b))
        counted = jnp.ones(action.shape, jnp.bool_)
        return key, Move(action, policy, value, (side_a.memory, side_b.memory), steps), counted

    def follow(self, memories, action):
        mem_a, mem_b = memories
        return self.player_a.follow(mem_a, action), self.player_b.follow(mem_b, action)


class MatchResult(NamedTuple):
    """Outcome of a match, from player A's side. Counts are int32 scalars."""

    wins: jax.Array
    draws: jax.Array
    losses: jax.Array
    scores: jax.Array  # [G] float32, A's result per game: +1, 0, −1
    a_first: jax.Array  # [G] bool, whether A moved first
    actions: jax.Array  # [T, G] int32 moves per ply (NO_MOVE after the end); T = 0 if unrecorded
    plies: jax.Array  # [G] int32 length of each game
    playout_steps: jax.Array  # [G] int32 environment steps both sides' searches spent in
    # random playouts (the compute ledger)


def make_match(
    env: Any,
    player_a: Player,
    player_b: Player,
    games: int,
    *,
    record: bool = False,
) -> Callable:
    """Builds `match(inputs_a, inputs_b, key) -> MatchResult`: each side's `inputs` are its
    network's variables (None for a network-free player) or an `Inputs` with w.

    Args:
      env: the game.
      player_a, player_b: players (see `warmjax.search.players`).
      games: G, even; games [0, G/2) have A first.
      record: keep the moves of every game.

    Returns:
      A pure, jit-able function.
    """
    if games < 2 or games % 2:
        raise ValueError(f"a match needs an even, positive number of games, got {games}")
    half = games // 2

    def match(inputs_a, inputs_b, key) -> MatchResult:
        key, init_key = jax.random.split(key)
        states = jax.vmap(env.init)(jax.random.split(init_key, games))
        a_first = jnp.arange(games) < half
        a_id = jnp.where(a_first, states.current_player, 1 - states.current_player)
        turn = TwoSides(player_a, player_b, inputs_a, inputs_b)
        played = play_games(env, states, key, turn, keep_actions=record)
        score = jnp.take_along_axis(played.results, a_id[:, None], axis=1)[:, 0]
        actions = jnp.where(played.record.live, played.record.actions, NO_MOVE)
        return MatchResult(
            wins=jnp.sum(score > 0).astype(jnp.int32),
            draws=jnp.sum(score == 0).astype(jnp.int32),
            losses=jnp.sum(score < 0).astype(jnp.int32),
            scores=score,
            a_first=a_first,
            actions=actions,
            plies=played.states._step_count,
            playout_steps=played.playout_steps,
        )

    return match
