"""What the experiment commands (`warmjax.orientation`, `warmjax.headtohead`) share.

- Config: the Hydra config becomes the command's frozen dataclass once (`config_from_dict`:
  `warmjax.settings.from_mapping`, the converter `RunConfig` uses too); the game, model,
  search and RHEA settings are nested sections (`GameConfig`, `ModelConfig`,
  `SearchConfig`, `RheaConfig`), each validated by its own `__post_init__`, and the
  `check_*` functions validate the commands' other settings.
- Running: `play_pairings` plays a list of pairings with `pair_play.play_pair` under one rich
  progress bar on stderr (plain log lines when stderr is not a terminal).
- Output: `provenance` (seed, resolved settings, wall time, JAX) for the JSON payload,
  `write_json`, and `config_or_exit` for a clean CLI error.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import jax
from omegaconf import DictConfig, OmegaConf
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from warmjax import cli
from warmjax.matches.pair_play import PairOutcome, play_pair
from warmjax.search.players import Player
from warmjax.settings import from_mapping

# --------------------------------------------------------------------------------------
# Validation.


def check_games(value: int, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 2 or value % 2:
        raise ValueError(
            f"{name} must be a positive even integer (each side moves first in half the "
            f"games), got {value!r}"
        )


def check_max_batch(value: int) -> None:
    check_games(value, "max_batch")


# --------------------------------------------------------------------------------------
# Hydra config to frozen dataclass.


def config_from_dict(cls: type, cfg: DictConfig | dict) -> Any:
    """Turns a (Hydra) mapping into the frozen dataclass `cls`, once, with clear errors:
    the project's one converter (`warmjax.settings.from_mapping`); the shared groups (game,
    model) and the search and RHEA settings are nested sections of `cls`."""
    raw = OmegaConf.to_container(cfg, resolve=True) if isinstance(cfg, DictConfig) else cfg
    return from_mapping(cls, raw)


def config_or_exit(cls: type, cfg: DictConfig, command: str) -> Any:
    """`config_from_dict`, turning a bad setting into `command: error: ...` and exit 2."""
    try:
        return config_from_dict(cls, cfg)
    except ValueError as err:
        cli.fail(err, command)


# --------------------------------------------------------------------------------------
# Playing pairings.


class Pairing(NamedTuple):
    """One pair of players to match; `key` seeds its games (see `pair_play.play_pair`)."""

    label: str
    player_a: Player
    player_b: Player
    key: jax.Array
    params_a: Any = None
    params_b: Any = None
    draw_params: Callable[[jax.Array, int], tuple[Any, Any]] | None = None  # see play_pair


def play_pairings(
    env: Any,
    game: str,
    pairings: Iterable[Pairing],
    games: int,
    *,
    max_batch: int,
    fast_compile: bool,
) -> list[PairOutcome]:
    """Plays `games` games of every pairing in turn, with progress on stderr.

    Args:
      env: the game.
      game: its name, for log lines.
      pairings: the pairs, in order; a generator is consumed one pairing at a time.
      games: games per pairing, even.
      max_batch, fast_compile: as in `pair_play.play_pair`.

    Returns:
      The `PairOutcome` of each pairing, in order.
    """
    outcomes = []
    with progress() as bar:
        for pairing in pairings:
            task = bar.add_task(pairing.label, total=games)
            outcome = play_pair(
                env, pairing.player_a, pairing.player_b, games, pairing.key,
                pairing.params_a, pairing.params_b, max_batch=max_batch,
                fast_compile=fast_compile, on_chunk=lambda k, task=task: bar.advance(task, k),
                draw_params=pairing.draw_params,
            )
            if bar.disable:
                log(f"{game}: {pairing.label}: {outcome.wins}-{outcome.draws}-{outcome.losses} "
                    f"(compile {outcome.compile_s:.1f}s, run {outcome.run_s:.1f}s)")
            outcomes.append(outcome)
    return outcomes


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


# --------------------------------------------------------------------------------------
# Output.


def provenance(config: Any, started: float) -> dict:
    """The closing entries of a command's JSON: seed, settings, wall time, JAX.

    Args:
      config: the command's frozen dataclass (with a `seed` field).
      started: a `time.perf_counter()` reading from the start of the games.
    """
    return {
        "seed": config.seed,
        "config": dataclasses.asdict(config),
        "wall_s": round(time.perf_counter() - started, 3),
        "jax": {"version": jax.__version__, "backend": jax.default_backend()},
    }


def write_json(path: str, payload: dict) -> None:
    target = pathlib.Path(path)
    if target.parent != pathlib.Path(""):
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(payload, indent=2) + "\n")


def finish(config: Any, payload: dict, started: float) -> dict:
    """Adds the provenance (the T′ the players used, `config.search.temperature_moves`, and
    `provenance`) to a command's JSON payload, writes it to `config.out_path` and returns
    it."""
    payload = {**payload, "temperature_moves": config.search.temperature_moves,
               **provenance(config, started)}
    write_json(config.out_path, payload)
    return payload


def run_command(cls: type, cfg: DictConfig, command: str, run: Callable[[Any], dict],
                describe: Callable[[Any, dict, str], tuple[str, str]]) -> dict:
    """The body of an experiment command: the config (`config_or_exit`), `run(config)`,
    then a heading and a Markdown table (`describe(config, payload, board)`, board "HxW")
    on stdout and where the JSON went. Returns the payload."""
    config = config_or_exit(cls, cfg, command)
    payload = run(config)
    height, width = payload["board"]
    heading, table = describe(config, payload, f"{height}x{width}")
    print(f"\n{heading}\n")
    print(table)
    print(f"\nwrote {config.out_path} ({payload['wall_s']:.0f} s)")
    return payload
