"""The papers' orientation experiment: network-free players against each other (SPEC §4, §8).

    JAX_PLATFORMS=cpu python -m warmjax.orientation game=connect_four games_per_pair=500 \
        playouts=100 seed=0 out=orientation_connect_four.json

Random, MCTS (`pure_mcts`: PUCT with a uniform prior and random-rollout leaf values), RAVE
(`pure_rave`: the same with AMAF statistics) and RHEA meet in a round robin: every one of
the 6 pairs plays `games_per_pair` games, each side moving first in half of them. Every
search gets m = `playouts` simulations per move; RHEA gets a budget of `playouts` playouts
(10 plans of 2 playouts, then one child per 2 playouts, as in SPEC §4).

Moves are the argmax of the search's policy from the first ply (T′ = 0), as in the papers'
arena. The games still differ from one another: the random player and RHEA are stochastic
whatever T′ is, and although MCTS and RAVE break no ties at random, their leaf values are
random playouts, so even a pure_mcts-vs-pure_rave game takes its own course in every
game of the batch. (The JSON counts the distinct move sequences of each pair.)

Output: a JSON file with `matrix[i][j]` = player i's mean score against player j (win 1,
draw ½, loss 0; diagonal null), the wins/draws/losses of every pair from the row player's
side, the resolved settings and timings; and a Markdown table on stdout.

Design:
- Each pair's match is jitted and compiled once; all its games run as one batched call, or,
  above `max_batch` games, as equal chunks of the same compiled function (each chunk with
  each side first in half its games; surplus games of the last chunk are dropped evenly
  from both halves, so the count and the balance are exact).
- The Hydra config (`conf/orientation.yaml`, with the project's `game` group, so
  `game=gobang` picks `conf/game/gobang.yaml`) becomes a frozen `OrientationConfig` once
  and is validated before anything compiles. Hydra's working-directory and logging
  machinery is switched off (nothing is written but `out`); the resolved settings are
  stored in the JSON under "config".
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import pathlib
import sys
import time
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

import hydra
import jax
import numpy as np
from omegaconf import DictConfig, OmegaConf
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from warmjax.evaluate.match import MatchResult, make_match
from warmjax.games import GAMES, make
from warmjax.search.players import NETWORK_FREE, Player, make_player
from warmjax.search.rhea import RheaConfig

ORIENTATION_PLAYERS = ("random", "pure_mcts", "pure_rave", "rhea")


@dataclasses.dataclass(frozen=True)
class OrientationConfig:
    """Settings of the orientation experiment (defaults: the papers').

    Attributes:
      game: "othello", "connect_four" or "gobang".
      game_params: the game's constructor settings (board size, line length); {} is 6×6.
      games_per_pair: games of every pair, even (each side first in half).
      playouts: m, simulations per move of MCTS and RAVE, and RHEA's playout budget.
      seed: the root of all randomness.
      out: the JSON file to write; None means `orientation_<game>.json` (see `out_path`).
      players: the players of the round robin (network-free ones).
      max_batch: most games per compiled call; larger pairs run in chunks.
      fast_compile: compile at XLA's backend optimisation level 0: about half the compile
        time, several times the run time (for tests and tiny runs).
      rhea_horizon, rhea_population, rhea_playouts_per_eval, rhea_mutation_rate: RHEA's
        settings (SPEC §4); the population times playouts per evaluation must fit the budget.
    """

    game: str = "connect_four"
    game_params: dict = dataclasses.field(default_factory=dict)
    games_per_pair: int = 500
    playouts: int = 100
    seed: int = 0
    out: str | None = None
    players: tuple[str, ...] = ORIENTATION_PLAYERS
    max_batch: int = 256
    fast_compile: bool = False
    rhea_horizon: int = 10
    rhea_population: int = 10
    rhea_playouts_per_eval: int = 2
    rhea_mutation_rate: float = 0.2

    def __post_init__(self):
        check_game(self.game, self.game_params)
        check_games(self.games_per_pair, "games_per_pair")
        check_positive(self.playouts, "playouts")
        check_max_batch(self.max_batch)
        if len(self.players) < 2 or len(set(self.players)) != len(self.players):
            raise ValueError(f"players must be at least two distinct names, got {self.players}")
        for name in self.players:
            if name not in NETWORK_FREE:
                raise ValueError(
                    f"unknown player {name!r} for the orientation experiment; choose from "
                    f"{', '.join(NETWORK_FREE)}"
                )
        if "rhea" in self.players:
            try:
                _ = self.rhea  # RheaConfig checks that the budget fits the first population
            except ValueError as err:
                raise ValueError(
                    f"playouts={self.playouts} is too few for RHEA: {err}; lower "
                    "rhea_population or rhea_playouts_per_eval, or leave rhea out of players"
                ) from None

    @property
    def out_path(self) -> str:
        return self.out or f"orientation_{self.game}.json"

    @property
    def rhea(self) -> RheaConfig:
        return RheaConfig(
            horizon=self.rhea_horizon,
            population=self.rhea_population,
            playouts_per_eval=self.rhea_playouts_per_eval,
            budget=self.playouts,
            mutation_rate=self.rhea_mutation_rate,
        )


# --- validation shared with the head-to-head command ---------------------------------------


def check_game(game: str, params: dict) -> None:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    make(game, **params)  # cheap (no compiling); raises ValueError for a bad setting


def check_positive(value: int, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def check_games(value: int, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 2 or value % 2:
        raise ValueError(
            f"{name} must be a positive even integer (each side moves first in half the "
            f"games), got {value!r}"
        )


def check_max_batch(value: int) -> None:
    check_games(value, "max_batch")


def flatten_groups(raw: dict) -> dict:
    """Maps the shared Hydra groups onto flat fields.

    `conf/game/<name>.yaml` is `{name, params}` and becomes `game`, `game_params`;
    `conf/model/<preset>.yaml` is `{preset, channels, fc, dropout}` and becomes `model`,
    `model_channels`, `model_fc` (dropout plays no part at inference and is dropped).
    """
    raw = dict(raw)
    if isinstance(raw.get("game"), dict):
        group = dict(raw.pop("game"))
        raw["game"] = group.pop("name", None)
        raw["game_params"] = dict(group.pop("params", None) or {})
        if group:
            raise ValueError(f"unknown setting(s) in game: {', '.join(sorted(group))}")
    if isinstance(raw.get("model"), dict):
        group = dict(raw.pop("model"))
        raw["model"] = group.pop("preset", None)
        raw["model_channels"] = group.pop("channels", None)
        raw["model_fc"] = group.pop("fc", None)
        group.pop("dropout", None)
        if group:
            raise ValueError(f"unknown setting(s) in model: {', '.join(sorted(group))}")
    return raw


def _coerce(name: str, value: Any, hint: Any) -> Any:
    """`value` as the annotated type `hint`; no silent conversions of strings or floats."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    options = typing.get_args(hint) if union else (hint,)
    if value is None and type(None) in options:
        return None
    for option in options:
        kind = typing.get_origin(option) or option
        if kind is tuple and isinstance(value, (list, tuple)):
            return tuple(value)
        if kind is dict and isinstance(value, dict):
            return dict(value)
        if isinstance(value, bool) and kind is not bool:
            continue
        if kind is float and isinstance(value, int):
            return float(value)
        if kind is not type(None) and isinstance(value, kind):
            return value
    names = " or ".join(getattr(o, "__name__", str(o)) for o in options)
    raise ValueError(f"{name} must be {names}, got {value!r}")


def config_from_dict(cls: type, cfg: DictConfig | dict) -> Any:
    """Turns a (Hydra) mapping into the frozen dataclass `cls`, once, with clear errors.

    Values must have the field's type (an int where a float goes is fine); unknown keys are
    named. The dataclass then validates the settings themselves.
    """
    raw = OmegaConf.to_container(cfg, resolve=True) if isinstance(cfg, DictConfig) else cfg
    raw = flatten_groups(raw)
    hints = typing.get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(fields)}")
    return cls(**{name: _coerce(name, value, hints[name]) for name, value in raw.items()})


# --- playing one pair ---------------------------------------------------------------------


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
) -> PairOutcome:
    """Plays `games` games of A against B: one compiled match, called once per chunk.

    Args:
      env: the game.
      player_a, player_b: the players.
      games: G, even; A moves first in exactly G/2 games.
      key: the pair's key (chunk c uses `fold_in(key, c)`).
      params_a, params_b: the players' network variables (None for network-free players).
      max_batch: most games per call.
      fast_compile: compile with XLA's backend optimisation level 0.
      on_chunk: called with the number of games finished after every chunk (progress).

    Returns:
      A `PairOutcome` (counts from A's side, distinct move sequences, compile and run time).
    """
    chunks, batch = chunking(games, max_batch)
    half = batch // 2
    match = jax.jit(make_match(env, player_a, player_b, batch, record=True))
    start = time.perf_counter()
    options = {"xla_backend_optimization_level": 0} if fast_compile else None
    compiled = match.lower(params_a, params_b, key).compile(compiler_options=options)
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


# --- output -------------------------------------------------------------------------------


def markdown_matrix(players: Sequence[str], matrix: list[list[float | None]]) -> str:
    """A Markdown table: row player's mean score against the column player, and its mean."""
    lines = [
        "| player | " + " | ".join(players) + " | mean |",
        "|---|" + "---:|" * (len(players) + 1),
    ]
    for name, row in zip(players, matrix):
        cells = ["—" if x is None else f"{x:.3f}" for x in row]
        scores = [x for x in row if x is not None]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {np.mean(scores):.3f} |")
    return "\n".join(lines)


def write_json(path: str, payload: dict) -> None:
    target = pathlib.Path(path)
    if target.parent != pathlib.Path(""):
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(payload, indent=2) + "\n")


def progress():
    """A rich progress bar writing to stderr (plain lines when stderr is not a terminal)."""
    console = Console(stderr=True)
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,
    )


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- the experiment -----------------------------------------------------------------------


def run(config: OrientationConfig) -> dict:
    """Plays the round robin, writes `config.out` and returns the JSON payload."""
    env = make(config.game, **config.game_params)
    players = {
        name: make_player(name, env, num_simulations=config.playouts, temperature_moves=0,
                          rhea=config.rhea if name == "rhea" else None)
        for name in config.players
    }
    names = list(config.players)
    n = len(names)
    matrix: list[list[float | None]] = [[None] * n for _ in range(n)]
    pairs = []
    root = jax.random.key(config.seed)
    started = time.perf_counter()
    with progress() as bar:
        for index, (i, j) in enumerate(itertools.combinations(range(n), 2)):
            label = f"{names[i]} vs {names[j]}"
            task = bar.add_task(label, total=config.games_per_pair)
            outcome = play_pair(
                env, players[names[i]], players[names[j]], config.games_per_pair,
                jax.random.fold_in(root, index), max_batch=config.max_batch,
                fast_compile=config.fast_compile,
                on_chunk=lambda k, task=task: bar.advance(task, k),
            )
            if bar.disable:
                log(f"{config.game}: {label}: {outcome.wins}-{outcome.draws}-{outcome.losses} "
                    f"(compile {outcome.compile_s:.1f}s, run {outcome.run_s:.1f}s)")
            matrix[i][j] = outcome.score
            matrix[j][i] = outcome.score_b
            pairs.append({
                "a": names[i], "b": names[j], "games": outcome.games, "wins": outcome.wins,
                "draws": outcome.draws, "losses": outcome.losses, "score_a": outcome.score,
                "distinct_games": outcome.distinct_games, "mean_plies": outcome.mean_plies,
                "compile_s": round(outcome.compile_s, 3), "run_s": round(outcome.run_s, 3),
            })
    payload = {
        "game": config.game,
        "board": list(env.board_shape),
        "players": names,
        "matrix": matrix,
        "pairs": pairs,
        "games_per_pair": config.games_per_pair,
        "playouts": config.playouts,
        "temperature_moves": 0,
        "seed": config.seed,
        "config": dataclasses.asdict(config),
        "wall_s": round(time.perf_counter() - started, 3),
        "jax": {"version": jax.__version__, "backend": jax.default_backend()},
    }
    write_json(config.out_path, payload)
    return payload


@hydra.main(version_base="1.3", config_path="../conf", config_name="orientation")
def main(cfg: DictConfig) -> None:
    try:
        config = config_from_dict(OrientationConfig, cfg)
    except ValueError as err:
        raise SystemExit(f"orientation: error: {err}") from None
    payload = run(config)
    height, width = payload["board"]
    print(f"\nOrientation, {config.game} {height}x{width}: row player's mean score against "
          f"the column player ({config.games_per_pair} games per pair, {config.playouts} "
          f"playouts per move, T' = 0, seed {config.seed})\n")
    print(markdown_matrix(payload["players"], payload["matrix"]))
    print(f"\nwrote {config.out_path} ({payload['wall_s']:.0f} s)")


if __name__ == "__main__":
    main()
