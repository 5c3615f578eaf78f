"""A tournament's games: pairs grouped by matchup of player kinds and played as batched,
compiled calls (the batching and keys are described in `warmjax.matches.round_robin`)."""

from __future__ import annotations

import dataclasses
import json
import time
import zlib
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.matches.entrants import Entrant
from warmjax.matches.pair_play import NO_MOVE, make_match
from warmjax.matches.tournament_folder import GameRecord, PairResult, Settings
from warmjax.nets import describe, residual_layout
from warmjax.search.players import make_player

# Compiled matchups, reused by later tournaments in the same process (tests, notebooks).
_COMPILED: dict[tuple, Callable] = {}


def _player(kind: tuple, env, settings: Settings):
    if kind[0] == "network":
        return make_player("mcts", env, kind[1].apply, simulations=settings.simulations,
                           c_puct=settings.c_puct, temperature_moves=settings.temperature_moves)
    return make_player(kind[1], env, simulations=settings.playouts,
                       temperature_moves=settings.temperature_moves)


def compiled_matchup(env, game: dict, kind_a: tuple, kind_b: tuple, pairs: int,
                     settings: Settings, example, fast_compile: bool
                     ) -> tuple[Callable, float]:
    """`(call, compile_seconds)`: `call(vars_a, vars_b, keys [K]) -> MatchResult [K, ...]`.

    `vars_a` is stacked `[K, ...]` network variables for a network kind and None for an
    anchor; likewise `vars_b`.
    """
    signature = (json.dumps(game, sort_keys=True), kind_a, kind_b, pairs,
                 *(getattr(settings, k) for k in ("games", "simulations", "c_puct",
                                                 "temperature_moves", "playouts")),
                 fast_compile)
    if signature in _COMPILED:
        return _COMPILED[signature], 0.0
    match = make_match(env, _player(kind_a, env, settings), _player(kind_b, env, settings),
                       settings.games, record=True)
    axes = (0 if kind_a[0] == "network" else None, 0 if kind_b[0] == "network" else None, 0)
    batched = jax.jit(jax.vmap(match, in_axes=axes))
    tic = time.perf_counter()
    options = {"xla_backend_optimization_level": 0} if fast_compile else None
    call = batched.lower(*example).compile(compiler_options=options)
    _COMPILED[signature] = call
    return call, time.perf_counter() - tic


def pair_key(seed: int, a: str, b: str) -> jax.Array:
    """The key of pair (a, b): independent of batching and order (see the module doc)."""
    return jax.random.fold_in(jax.random.PRNGKey(seed), zlib.crc32(f"{a}|{b}".encode()))


@dataclasses.dataclass(frozen=True)
class Batch:
    """One compiled call: up to K pairs (i, j) whose players are of kinds (kind_a, kind_b)."""

    kind_a: tuple
    kind_b: tuple
    pairs: tuple[tuple[int, int], ...]
    size: int  # K, the compiled batch (pairs are padded up to it)


def plan_batches(entrants: Sequence[Entrant], todo: Sequence[tuple[int, int]], games: int,
                 max_games_per_call: int, max_pairs_per_call: int = 32) -> list[Batch]:
    """Groups the pairs to play by matchup of kinds, in calls within the games/pairs limits."""
    matchups: dict[tuple, list] = {}
    for i, j in todo:
        matchups.setdefault((entrants[i].kind, entrants[j].kind), []).append((i, j))
    per_call = max(1, min(max_games_per_call // games, max_pairs_per_call))
    batches = []
    for (kind_a, kind_b), pairs in matchups.items():
        size = min(per_call, len(pairs))
        for start in range(0, len(pairs), size):
            batches.append(Batch(kind_a, kind_b, tuple(pairs[start:start + size]), size))
    return batches


def _stack(trees: list):
    return jax.tree_util.tree_map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *trees)


def play_batch(env, game: dict, entrants: Sequence[Entrant], batch: Batch, settings: Settings,
               fast_compile: bool) -> tuple[list[PairResult], float, float]:
    """Plays one batch. Returns `(pairs with their games, compile seconds, run seconds)`."""
    padded = list(batch.pairs) + [batch.pairs[-1]] * (batch.size - len(batch.pairs))
    vars_a = vars_b = None
    if batch.kind_a[0] == "network":
        vars_a = _stack([entrants[i].variables for i, _ in padded])
    if batch.kind_b[0] == "network":
        vars_b = _stack([entrants[j].variables for _, j in padded])
    keys = jnp.stack([pair_key(settings.seed, entrants[i].name, entrants[j].name)
                      for i, j in padded])
    call, compile_s = compiled_matchup(env, game, batch.kind_a, batch.kind_b, batch.size,
                                       settings, (vars_a, vars_b, keys), fast_compile)
    tic = time.perf_counter()
    result = jax.device_get(call(vars_a, vars_b, keys))
    run_s = time.perf_counter() - tic
    records = []
    for row, (i, j) in enumerate(batch.pairs):
        a, b = entrants[i].name, entrants[j].name
        scores = np.asarray(result.scores[row])  # [G] A's result
        a_first = np.asarray(result.a_first[row])  # [G]
        actions = np.asarray(result.actions[row])  # [T, G]
        games = []
        for g in range(scores.shape[0]):
            moves = actions[:, g]
            moves = [int(x) for x in moves[moves != NO_MOVE]]
            first_is_a = bool(a_first[g])
            games.append(GameRecord(first=a if first_is_a else b,
                                    second=b if first_is_a else a, moves=tuple(moves),
                                    result=int(scores[g]) if first_is_a else -int(scores[g])))
        records.append(PairResult(
            a, b, games=int(scores.shape[0]), wins=int(np.sum(scores > 0)),
            draws=int(np.sum(scores == 0)), losses=int(np.sum(scores < 0)),
            score_a=float(np.mean((scores + 1.0) / 2.0)), records=tuple(games)))
    return records, compile_s, run_s


def kind_record(kind: tuple) -> list:
    """A player kind as the journal records it: `["network", channels, fc, paddings,
    mixed_precision]` or `["anchor", name]`."""
    if kind[0] == "network":
        module = kind[1].module
        layout = residual_layout(kind[1])
        if layout is not None:  # the residual family
            return ["network", "resnet", *layout.values(), module.mixed_precision]
        return ["network", module.channels, list(module.fc), list(module.paddings),
                module.mixed_precision]
    return list(kind)


def kind_text(kind: tuple) -> str:
    """A player kind for the progress lines."""
    if kind[0] == "network":
        module = kind[1].module
        if residual_layout(kind[1]) is not None:
            return f"networks[{describe(kind[1])}]"
        return f"networks[{module.channels}ch, fc {'x'.join(map(str, module.fc))}]"
    return kind[1]
