"""The papers' orientation experiment: network-free players against each other (method.md §4, §10).

    JAX_PLATFORMS=cpu python -m warmjax.orientation game=connect_four games_per_pair=500 \
        simulations=100 seed=0 out=orientation_connect_four.json

Random, MCTS (`pure_mcts`: PUCT with a uniform prior and random-rollout leaf values), RAVE
(`pure_rave`: the same with AMAF statistics) and RHEA meet in a round robin: every one of
the 6 pairs plays `games_per_pair` games, each side moving first in half of them. Every
search gets m = `simulations` per move; RHEA gets a budget of m playouts
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
  from both halves, so the count and the balance are exact): `warmjax.evaluate.match.play_pair`.
- The Hydra config (`conf/orientation.yaml`, with the project's `game` group, so
  `game=gobang` picks `conf/game/gobang.yaml`) becomes a frozen `OrientationConfig` once
  and is validated before anything compiles (`warmjax.evaluate.experiment_cli`, shared with
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
from omegaconf import DictConfig

from warmjax import cli
from warmjax.evaluate.experiment_cli import (
    Pairing,
    check_game,
    check_games,
    check_max_batch,
    check_positive,
    finish,
    play_pairings,
    run_command,
)
from warmjax.games import make
from warmjax.search.players import NETWORK_FREE, make_player
from warmjax.search.rhea import RheaConfig

ORIENTATION_PLAYERS = ("random", "pure_mcts", "pure_rave", "rhea")

# The papers do not say whose moves AMAF counts or whether RHEA's plans start with a legal
# move. Per game, the reading that reproduces PPSN 2020 Table 1 best at 500 games per pair
# (docs/results.md §3) is the default; a setting given explicitly wins.
PAPER_READINGS: dict[str, dict[str, bool]] = {
    "othello": {"rave_all_players": True, "rhea_legal_first": False},
    "connect_four": {"rave_all_players": False, "rhea_legal_first": True},
    "gobang": {"rave_all_players": False, "rhea_legal_first": True},
}


@dataclasses.dataclass(frozen=True)
class OrientationConfig:
    """Settings of the orientation experiment (defaults: the papers').

    Attributes:
      game: "othello", "connect_four" or "gobang".
      game_params: the game's constructor settings (board size, line length); {} is 6×6.
      games_per_pair: games of every pair, even (each side first in half).
      simulations: m, simulations per move of MCTS and RAVE, and RHEA's playout budget.
      seed: the root of all randomness.
      out: the JSON file to write; None means `orientation_<game>.json` (see `out_path`).
      players: the players of the round robin (network-free ones).
      max_batch: most games per compiled call; larger pairs run in chunks.
      fast_compile: compile at XLA's backend optimisation level 0: about half the compile
        time, several times the run time (for tests and tiny runs).
      reuse_tree: MCTS and RAVE go on from the played move's subtree (`search/reuse.py`).
      c_puct: c of the network-free MCTS and RAVE (uniform prior; the papers do not state
        it).
      rave_all_players, rave_rollout_moves: whose moves, and whether the playout's moves,
        count in RAVE's AMAF statistics (the readings of method.md §3); None (for
        rave_all_players): the game's entry in PAPER_READINGS.
      rhea_legal_first: RHEA plans start with a legal move (False: any action, and an
        illegal best first action becomes a random legal move); None: the game's entry in
        PAPER_READINGS.
      rhea_horizon, rhea_population, rhea_playouts_per_eval, rhea_mutation_rate: RHEA's
        settings (method.md §4); the population times playouts per evaluation must fit the budget.
    """

    game: str = "connect_four"
    game_params: dict = dataclasses.field(default_factory=dict)
    games_per_pair: int = 500
    simulations: int = 100
    seed: int = 0
    out: str | None = None
    players: tuple[str, ...] = ORIENTATION_PLAYERS
    max_batch: int = 256
    fast_compile: bool = False
    reuse_tree: bool = False
    c_puct: float = 1.0
    rave_all_players: bool | None = None
    rave_rollout_moves: bool = True
    rhea_legal_first: bool | None = None
    rhea_horizon: int = 10
    rhea_population: int = 10
    rhea_playouts_per_eval: int = 2
    rhea_mutation_rate: float = 0.2

    def __post_init__(self):
        check_game(self.game, self.game_params)
        check_games(self.games_per_pair, "games_per_pair")
        check_positive(self.simulations, "simulations")
        if self.c_puct < 0:
            raise ValueError(f"c_puct must be non-negative, got {self.c_puct}")
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
                    f"simulations={self.simulations} is too few for RHEA: {err}; lower "
                    "rhea_population or rhea_playouts_per_eval, or leave rhea out of players"
                ) from None

    @property
    def out_path(self) -> str:
        return self.out or f"orientation_{self.game}.json"

    @property
    def reading(self) -> dict[str, bool]:
        """The readings in force: the settings given, else the game's PAPER_READINGS."""
        given = {"rave_all_players": self.rave_all_players,
                 "rhea_legal_first": self.rhea_legal_first}
        return {k: PAPER_READINGS[self.game][k] if v is None else v for k, v in given.items()}

    @property
    def rhea(self) -> RheaConfig:
        return RheaConfig(
            horizon=self.rhea_horizon,
            population=self.rhea_population,
            playouts_per_eval=self.rhea_playouts_per_eval,
            simulations=self.simulations,
            mutation_rate=self.rhea_mutation_rate,
            legal_first=self.reading["rhea_legal_first"],
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


# --- the experiment -----------------------------------------------------------------------


def run(config: OrientationConfig) -> dict:
    """Plays the round robin, writes `config.out` and returns the JSON payload."""
    env = make(config.game, **config.game_params)
    players = {
        name: make_player(name, env, simulations=config.simulations, temperature_moves=0,
                          reuse_tree=config.reuse_tree, c_puct=config.c_puct,
                          rave_all_players=config.reading["rave_all_players"],
                          rave_rollout_moves=config.rave_rollout_moves,
                          rhea=config.rhea if name == "rhea" else None)
        for name in config.players
    }
    names = list(config.players)
    n = len(names)
    matrix: list[list[float | None]] = [[None] * n for _ in range(n)]
    index_pairs = list(itertools.combinations(range(n), 2))
    root = jax.random.key(config.seed)
    started = time.perf_counter()
    outcomes = play_pairings(
        env,
        config.game,
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
        "game": config.game,
        "board": list(env.board_shape),
        "players": names,
        "matrix": matrix,
        "pairs": pairs,
        "games_per_pair": config.games_per_pair,
        "simulations": config.simulations,
        "reading": config.reading,
    }
    return finish(config, payload, started)


def describe(config: OrientationConfig, payload: dict, board: str) -> tuple[str, str]:
    """The printed heading and table of a finished round robin."""
    return (f"Orientation, {config.game} {board}: row player's mean score against the "
            f"column player ({config.games_per_pair} games per pair, {config.simulations} "
            f"simulations per move, T' = 0, seed {config.seed})",
            markdown_matrix(payload["players"], payload["matrix"]))


@hydra.main(version_base="1.3", config_path=cli.CONF_DIR, config_name="orientation")
def main(cfg: DictConfig) -> None:
    run_command(OrientationConfig, cfg, "orientation", run, describe)


if __name__ == "__main__":
    cli.check_overrides("orientation", "orientation")
    main()
