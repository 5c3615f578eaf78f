"""Running matches for the evaluation commands.

The match itself (`make_match`, `MatchResult`) is the game loop of `warmjax.search.game_loop`,
re-exported here. `play_pair` plays a pair's games in chunks of one compiled match (the
experiment commands' runner).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from warmjax.search.game_loop import NO_MOVE, MatchResult, make_match
from warmjax.search.players import Player

__all__ = ["NO_MOVE", "MatchResult", "PairOutcome", "chunking", "make_match", "mean_score",
           "play_pair"]


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
