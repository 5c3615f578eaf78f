"""Matches between two players, all games in parallel.

Half the games have player A move first, the other half player B. Every warmjax game
alternates movers at every ply (Othello's pass is a move), so at any ply all games of a half
wait for the same player: each player is called once per ply on one half of the batch, and
no search runs for the side not to move.

`play_pair` plays a pair's games in chunks of one compiled match (the experiment commands'
runner); `play_match` is the one-call version.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any, NamedTuple

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
    plies: jax.Array  # [G] int32 length of each game


def make_match(
    env: Any,
    player_a: Player,
    player_b: Player,
    num_games: int,
    *,
    record: bool = False,
) -> Callable:
    """Builds `match(params_a, params_b, key, weight_a=None, weight_b=None) -> MatchResult`.

    Args:
      env: the game.
      player_a, player_b: players (see `warmjax.search.players`).
      num_games: G, even; games [0, G/2) have A first.
      record: keep the moves of every game.

    Returns:
      A pure, jit-able function.
    """
    if num_games < 2 or num_games % 2:
        raise ValueError(f"a match needs an even, positive number of games, got {num_games}")
    half = num_games // 2
    max_plies = int(env.max_plies)
    slots = max_plies if record else 0

    def split(tree):
        return (jax.tree_util.tree_map(lambda x: x[:half], tree),
                jax.tree_util.tree_map(lambda x: x[half:], tree))

    def pick(cond, x, y):
        return jax.tree_util.tree_map(lambda u, v: jnp.where(cond, u, v), x, y)

    def join(x, y):
        return jax.tree_util.tree_map(lambda u, v: jnp.concatenate([u, v]), x, y)

    def turn(player, params, key, states, weight, memory, mine_first):
        """`player` moves in the half of the games where it is to move: the first half if
        `mine_first`; its memory of the other half is kept as it was."""
        first, second = split(states)
        mem_first, mem_second = split(memory)
        action, policy, searched = player.play(
            params, key, pick(mine_first, first, second), weight,
            pick(mine_first, mem_first, mem_second))
        memory = join(pick(mine_first, searched, mem_first), pick(mine_first, mem_second, searched))
        return action, policy, memory

    def match(params_a, params_b, key, weight_a=None, weight_b=None) -> MatchResult:
        key, init_key = jax.random.split(key)
        states = jax.vmap(env.init)(jax.random.split(init_key, num_games))
        a_first = jnp.arange(num_games) < half
        a_id = jnp.where(a_first, states.current_player, 1 - states.current_player)

        def cond(carry):
            states, ply, *_ = carry
            return (ply < max_plies) & ~jnp.all(states.terminated)

        def body(carry):
            states, ply, score, actions, key, mem_a, mem_b = carry
            key, key_a, key_b = jax.random.split(key, 3)
            even = ply % 2 == 0
            act_a, _, mem_a = turn(player_a, params_a, key_a, states, weight_a, mem_a, even)
            act_b, _, mem_b = turn(player_b, params_b, key_b, states, weight_b, mem_b, ~even)
            action = jnp.concatenate([jnp.where(even, act_a, act_b), jnp.where(even, act_b, act_a)])
            live = ~states.terminated
            states = jax.vmap(env.step)(states, action)
            mem_a, mem_b = player_a.follow(mem_a, action), player_b.follow(mem_b, action)
            score = score + jnp.take_along_axis(states.rewards, a_id[:, None], axis=1)[:, 0]
            if record:
                actions = actions.at[ply].set(jnp.where(live, action, NO_MOVE), mode="drop")
            return states, ply + 1, score, actions, key, mem_a, mem_b

        init = (
            states,
            jnp.int32(0),
            jnp.zeros(num_games, jnp.float32),
            jnp.full((slots, num_games), NO_MOVE, jnp.int32),
            key,
            player_a.start(states),
            player_b.start(states),
        )
        states, _, score, actions, *_ = jax.lax.while_loop(cond, body, init)
        return MatchResult(
            wins=jnp.sum(score > 0).astype(jnp.int32),
            draws=jnp.sum(score == 0).astype(jnp.int32),
            losses=jnp.sum(score < 0).astype(jnp.int32),
            scores=score,
            a_first=a_first,
            actions=actions,
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


# --------------------------------------------------------------------------------------
# A pair's games in chunks of one compiled match.


@dataclasses.dataclass(frozen=True)
class PairOutcome:
    """The result of one pair's games, from player A's side (plain Python values)."""

    wins: int
    draws: int
    losses: int
    distinct_games: int
    mean_plies: float
    compile_s: float
    run_s: float

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """A's mean score (win 1, draw ½, loss 0)."""
        return (self.wins + 0.5 * self.draws) / self.games

    @property
    def score_b(self) -> float:
        """B's mean score, from the counts (so score + score_b is 1 up to rounding)."""
        return (self.losses + 0.5 * self.draws) / self.games

    def record(self, score_key: str = "score") -> dict:
        """The counts, A's score under `score_key`, and timings, as a JSON-ready dict."""
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            score_key: self.score,
            "distinct_games": self.distinct_games,
            "mean_plies": self.mean_plies,
            "compile_s": round(self.compile_s, 3),
            "run_s": round(self.run_s, 3),
        }


def chunking(games: int, max_batch: int) -> tuple[int, int]:
    """`(chunks, batch)`: equal even batches of at most `max_batch` covering `games`."""
    chunks = math.ceil(games / max_batch)
    batch = 2 * math.ceil(games / (2 * chunks))
    return chunks, batch


def play_pair(
    env: Any,
    player_a: Player,
    player_b: Player,
    games: int,
    key: jax.Array,
    params_a: Any = None,
    params_b: Any = None,
    *,
    max_batch: int = 256,
    fast_compile: bool = False,
    on_chunk: Callable[[int], None] | None = None,
    draw_params: Callable[[jax.Array, int], tuple[Any, Any]] | None = None,
) -> PairOutcome:
    """Plays `games` games of A against B: one compiled match, called once per chunk.

    Each chunk has each side first in half its games; surplus games of the last chunk are
    dropped evenly from both halves, so the count and the balance are exact.

    Args:
      env: the game.
      player_a, player_b: the players.
      games: G, even; A moves first in exactly G/2 games.
      key: the pair's key (chunk c uses `fold_in(key, c)`).
      params_a, params_b: the players' network variables (None for network-free players).
      max_batch: most games per call.
      fast_compile: compile with XLA's backend optimisation level 0.
      on_chunk: called with the number of games finished after every chunk (progress).
      draw_params: if given, `draw_params(key, pairs) -> (params_a, params_b)` draws fresh
        networks for each chunk, stacked per game pair: pair i is game i (A first) and game
        G/2 + i (B first) of the chunk, and both its games use entry i of each side (the
        players must then score each example with its own network, as `Network.apply_each`
        does). `params_a` and `params_b` are ignored.

    Returns:
      A `PairOutcome` (counts from A's side, distinct move sequences, compile and run time).
    """
    chunks, batch = chunking(games, max_batch)
    half = batch // 2
    match = make_match(env, player_a, player_b, batch, record=True)

    def chunk(params_a, params_b, key):
        if draw_params is not None:
            params_a, params_b = draw_params(jax.random.fold_in(key, 1), half)
        return match(params_a, params_b, key)

    start = time.perf_counter()
    options = {"xla_backend_optimization_level": 0} if fast_compile else None
    compiled = jax.jit(chunk).lower(params_a, params_b, key).compile(compiler_options=options)
    compile_s = time.perf_counter() - start

    start = time.perf_counter()
    scores, actions, plies, left = [], [], [], games
    for c in range(chunks):
        chunk_key = jax.random.fold_in(key, c)
        result: MatchResult = jax.device_get(compiled(params_a, params_b, chunk_key))
        # Keep `take` games of each half: A-first games [0, half), B-first [half, batch).
        take = min(left, batch) // 2
        keep = np.r_[0:take, half : half + take]
        scores.append(np.asarray(result.scores)[keep])
        actions.append(np.asarray(result.actions)[:, keep])
        plies.append(np.asarray(result.plies)[keep])
        left -= 2 * take
        if on_chunk is not None:
            on_chunk(2 * take)
    run_s = time.perf_counter() - start

    scores = np.concatenate(scores)
    actions = np.concatenate(actions, axis=1)
    return PairOutcome(
        wins=int(np.sum(scores > 0)),
        draws=int(np.sum(scores == 0)),
        losses=int(np.sum(scores < 0)),
        distinct_games=len(np.unique(actions.T, axis=0)),
        mean_plies=float(np.mean(np.concatenate(plies))),
        compile_s=compile_s,
        run_s=run_s,
    )
