"""The papers' orientation experiment: network-free players against each other (method.md §4, §10).

    JAX_PLATFORMS=cpu python -m warmjax.orientation game=connect_four games_per_pair=500 \
        search.simulations=100 seed=0 out=orientation_connect_four.json

Random, MCTS (`pure_mcts`: PUCT with a uniform prior and random-rollout leaf values), RAVE
(`pure_rave`: the same with AMAF statistics) and RHEA meet in a round robin: every one of
the 6 pairs plays `games_per_pair` games, each side moving first in half of them. Every
search gets m = `search.simulations` per move; RHEA gets a budget of m playouts
(10 plans of 2 playouts, then one child per 2 playouts, as in method.md §4).

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
  from both halves, so the count and the balance are exact): `warmjax.matches.pair_play.play_pair`.
- The Hydra config (`conf/orientation.yaml`, with the project's `game` group, so
  `game=gobang` picks `conf/game/gobang.yaml`) becomes a frozen `OrientationConfig` once
  and is validated before anything compiles (`warmjax.matches.experiment_cli`, shared with
  the head-to-head command). Hydra's working-directory and logging
  machinery is switched off (nothing is written but `out`); the resolved settings are
  stored in the JSON under "config".
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Sequence

import hydra
import jax
import numpy as np
from omegaconf import DictConfig, OmegaConf

from warmjax import cli
from warmjax.games import make, registry
from warmjax.markdown import table
from warmjax.matches.experiment_cli import (
    Pairing,
    check_games,
    check_max_batch,
    finish,
    play_pairings,
    run_command,
)
from warmjax.search.config import SearchConfig
from warmjax.search.players import NETWORK_FREE, make_player
from warmjax.search.rhea import RheaConfig
from warmjax.train.run_config import GameConfig

ORIENTATION_PLAYERS = ("random", "pure_mcts", "pure_rave", "rhea")

# The papers do not say whose moves AMAF counts or whether RHEA's plans start with a legal
# move. Per game, the reading that reproduces PPSN 2020 Table 1 best at 500 games per pair
# (results.md §3) is the default of conf/orientation.yaml; a setting given wins. Each
# game states its readings when it registers (`GameSpec.readings`); a game that states none
# gets the standard ones (`registry.STANDARD_READINGS`).


def paper_reading(game: str, setting: str) -> bool:
    """The game's reading of `setting` (`rave_all_players` or `rhea_legal_first`) that comes
    closest to the papers' table (the Hydra config's defaults use it per game)."""
    return registry.get(game).reading(setting)


if not OmegaConf.has_resolver("warmjax_paper_reading"):
    OmegaConf.register_new_resolver("warmjax_paper_reading", paper_reading)


@dataclasses.dataclass(frozen=True)
class OrientationConfig:
    """Settings of the orientation experiment (defaults: the papers').

    The sections are the project's own: `game` (`GameConfig`), `search` (`SearchConfig`:
    m, c, tree reuse and the AMAF readings of MCTS and RAVE; moves are the argmax from the
    first ply unless `search.temperature_moves` says otherwise) and `rhea` (`RheaConfig`,
    its budget `rhea.simulations` None: the search's m). The Hydra config
    (`conf/orientation.yaml`) sets `search.rave_all_players` and `rhea.legal_first` to the
    game's reading that reproduces the papers' table best (`paper_reading`) unless given.

    Attributes:
      games_per_pair: games of every pair, even (each side first in half).
      seed: the root of all randomness.
      out: the JSON file to write; None means `orientation_<game>.json` (see `out_path`).
      players: the players of the round robin (network-free ones).
      max_batch: most games per compiled call; larger pairs run in chunks.
      fast_compile: compile at XLA's backend optimisation level 0: about half the compile
        time, several times the run time (for tests and tiny runs).
    """

    game: GameConfig = GameConfig()
    search: SearchConfig = SearchConfig()
    rhea: RheaConfig = RheaConfig()
    games_per_pair: int = 500
    seed: int = 0
    out: str | None = None
    players: tuple[str, ...] = ORIENTATION_PLAYERS
    max_batch: int = 256
    fast_compile: bool = False

    def __post_init__(self):
        check_games(self.games_per_pair, "games_per_pair")
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
            try:  # the budget the search's m gives RHEA must evaluate its first population
                self.rhea.with_budget(self.search.simulations)
            except ValueError as err:
                raise ValueError(f"rhea.{err} (or leave rhea out of players)") from None

    @property
    def out_path(self) -> str:
        return self.out or f"orientation_{self.game.name}.json"

    @property
    def reading(self) -> dict[str, bool]:
        """The readings in force: whose moves AMAF counts, whether RHEA's plans start legal."""
        return {"rave_all_players": self.search.rave_all_players,
                "rhea_legal_first": self.rhea.legal_first}


# --- output -------------------------------------------------------------------------------


def markdown_matrix(players: Sequence[str], matrix: list[list[float | None]]) -> str:
    """A Markdown table: row player's mean score against the column player, and its mean."""
    rows = [[name, *("—" if x is None else f"{x:.3f}" for x in row),
             f"{np.mean([x for x in row if x is not None]):.3f}"]
            for name, row in zip(players, matrix)]
    return table(["player", *players, "mean"], rows,
                 "l" + "r" * (len(players) + 1)).rstrip("\n")


# --- the experiment -----------------------------------------------------------------------


def run(config: OrientationConfig) -> dict:
    """Plays the round robin, writes `config.out` and returns the JSON payload."""
    env = make(config.game.name, **config.game.params)
    players = {name: make_player(name, env, config=config.search, rhea=config.rhea)
               for name in config.players}
    names = list(config.players)
    n = len(names)
    matrix: list[list[float | None]] = [[None] * n for _ in range(n)]
    index_pairs = list(itertools.combinations(range(n), 2))
    root = jax.random.key(config.seed)
    started = time.perf_counter()
    outcomes = play_pairings(
        env,
        config.game.name,
        (
            Pairing(f"{names[i]} vs {names[j]}", players[names[i]], players[names[j]],
                    jax.random.fold_in(root, index))
            for index, (i, j) in enumerate(index_pairs)
        ),
        config.games_per_pair,
        max_batch=config.max_batch,
        fast_compile=config.fast_compile,
    )
    pairs = []
    for (i, j), outcome in zip(index_pairs, outcomes):
        matrix[i][j] = outcome.score
        matrix[j][i] = outcome.score_b
        pairs.append({"a": names[i], "b": names[j], **outcome.record(score_key="score_a")})
    payload = {
        "game": config.game.name,
        "board": list(env.board_shape),
        "players": names,
        "matrix": matrix,
        "pairs": pairs,
        "games_per_pair": config.games_per_pair,
        "simulations": config.search.simulations,
        "reading": config.reading,
    }
    return finish(config, payload, started)


def describe(config: OrientationConfig, payload: dict, board: str) -> tuple[str, str]:
    """The printed heading and table of a finished round robin."""
    return (f"Orientation, {config.game.name} {board}: row player's mean score against the "
            f"column player ({config.games_per_pair} games per pair, {config.search.simulations} "
            f"simulations per move, T' = 0, seed {config.seed})",
            markdown_matrix(payload["players"], payload["matrix"]))


@hydra.main(version_base="1.3", config_path=cli.CONF_DIR, config_name="orientation")
def main(cfg: DictConfig) -> None:
    run_command(OrientationConfig, cfg, "orientation", run, describe)


if __name__ == "__main__":
    cli.check_overrides("orientation", "orientation")
    main()
