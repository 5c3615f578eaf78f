"""Head-to-head: each warm-start enhancement against baseline MCTS, untrained networks
(method.md §10).

    JAX_PLATFORMS=cpu python -m warmjax.headtohead game=othello games=100 seed=0 \
        model=small search.simulations=100 out=headtohead_othello.json

Rollout, RAVE, RoRa, WRo and WRoRa (w = ½) each play `games` games against the baseline
`mcts` with m = `search.simulations` per move; each side moves first in half the games. Moves are
the argmax of the root visit distribution from the first ply (T′ = 0). The reported score is
the enhancement's mean score (win 1, draw ½, loss 0).

Networks (`networks`): as the papers ran it (the thesis: each player's network randomly
initialised on its own), the default `pair` gives each side its own untrained network, drawn
afresh for every game pair (the two games of a pair swap who moves first and use the same
two networks). `shared` is the older reading: one network, from `seed`, for both sides and
all games.

Ties at T′ = 0 (`search.tie_break`): `first` plays the lowest-index most-visited move, as AlphaZero
General did at the time of PPSN 2020 (the default); `random` picks uniformly among the most
visited, as its later versions do.

The papers used AlphaZero General's network (preset `azg512`); the default here is the
`small` preset (same layers, far fewer units) so that the command runs on a CPU. Pass
`model=azg512` on an accelerator for the papers' setting.

Note on determinism: with T′ = 0 the baseline `mcts` and plain `rave` are deterministic given
their networks (network leaf values, ties broken by index). With `networks=shared` and
`search.tie_break=first`, `rave` vs `mcts` therefore has only two distinct games, one per first
mover, however many are played. Per-pair networks make every pair's games differ. The JSON
records, and the command prints, the distinct move sequences of every pairing.

Config: `conf/headtohead.yaml` with the project's `game` and `model` groups (`game=othello`
picks `conf/game/othello.yaml`, `model=azg512` picks `conf/model/azg512.yaml`).

Design: as in `warmjax.orientation` (the shared runner and config handling are in
`warmjax.matches.pair_play.play_pair` and `warmjax.matches.experiment_cli`), each pairing is
compiled once and its games run as one batched call, or in chunks of at most `max_batch`.
"""

from __future__ import annotations

import dataclasses
import time

import hydra
import jax
from omegaconf import DictConfig

from warmjax import cli
from warmjax.games import make
from warmjax.markdown import table
from warmjax.matches import experiment_cli as common
from warmjax.names import PAPERS_ENHANCEMENTS
from warmjax.search.config import SearchConfig
from warmjax.search.players import make_player
from warmjax.search.variants import ENHANCEMENTS
from warmjax.train.run_config import GameConfig, ModelConfig

BASELINE = "mcts"
NETWORKS = ("pair", "shared")


@dataclasses.dataclass(frozen=True)
class HeadToHeadConfig:
    """Settings of the head-to-head test (defaults: the papers', except the network).

    The sections are the project's own: `game` (`GameConfig`), `model` (`ModelConfig`, the
    untrained networks' architecture; the papers used `azg512`) and `search`
    (`SearchConfig`, both sides' search: m, ties, tree reuse; T′ = 0 by default).

    Attributes:
      games: games per enhancement, even (each side first in half).
      seed: seeds the networks and the games.
      weight: w of WRo and WRoRa.
      networks: "pair" (each side its own untrained network, drawn per game pair) or
        "shared" (one network for both sides and all games).
      enhancements: the enhancements to test.
      out: the JSON file to write; None means `headtohead_<game>.json`.
      max_batch: most games per compiled call; larger counts run in chunks.
      fast_compile: compile at XLA's backend optimisation level 0 (tests, tiny runs).
    """

    game: GameConfig = GameConfig()
    model: ModelConfig = ModelConfig()
    search: SearchConfig = SearchConfig()
    games: int = 100
    seed: int = 0
    weight: float = 0.5
    networks: str = "pair"
    enhancements: tuple[str, ...] = PAPERS_ENHANCEMENTS  # the papers' table's rows
    out: str | None = None
    max_batch: int = 256
    fast_compile: bool = False

    def __post_init__(self):
        common.check_games(self.games, "games")
        common.check_max_batch(self.max_batch)
        if self.networks not in NETWORKS:
            raise ValueError(f"unknown networks {self.networks!r}; choose from "
                             f"{', '.join(NETWORKS)}")
        if not 0.0 <= self.weight <= 1.0:
            raise ValueError(f"weight must be in [0, 1], got {self.weight}")
        if not self.enhancements or len(set(self.enhancements)) != len(self.enhancements):
            raise ValueError(f"enhancements must be distinct names, got {self.enhancements}")
        for name in self.enhancements:
            if name not in ENHANCEMENTS:
                raise ValueError(
                    f"unknown enhancement {name!r}; choose from {', '.join(ENHANCEMENTS)}"
                )

    @property
    def out_path(self) -> str:
        return self.out or f"headtohead_{self.game.name}.json"


def markdown_scores(rows: list[dict], opponent: str) -> str:
    """A Markdown table of each enhancement's mean score against `opponent`."""
    return table(["enhancement", f"score vs {opponent}", "wins", "draws", "losses",
                  "distinct games"],
                 [[row["enhancement"], f"{row['score']:.3f}", row["wins"], row["draws"],
                   row["losses"], row["distinct_games"]] for row in rows], "lrrrrr").rstrip("\n")


def run(config: HeadToHeadConfig) -> dict:
    """Plays every enhancement against the baseline, writes `config.out_path`, returns it."""
    env = make(config.game.name, **config.game.params)
    model = config.model
    network = model.build(env)
    init_key, games_key = jax.random.split(jax.random.key(config.seed))
    per_pair = config.networks == "pair"
    params = None if per_pair else network.init(init_key)
    apply = network.apply_each if per_pair else network.apply

    def draw_params(key, pairs):
        key_a, key_b = jax.random.split(key)
        return network.init_each(key_a, pairs), network.init_each(key_b, pairs)

    def player(name, **kwargs):
        return make_player(name, env, apply, config.search, **kwargs)

    baseline = player(BASELINE)
    started = time.perf_counter()
    outcomes = common.play_pairings(
        env,
        config.game.name,
        (
            common.Pairing(f"{name} vs {BASELINE}", player(name, weight=config.weight),
                           baseline, jax.random.fold_in(games_key, index), params, params,
                           draw_params if per_pair else None)
            for index, name in enumerate(config.enhancements)
        ),
        config.games,
        max_batch=config.max_batch,
        fast_compile=config.fast_compile,
    )
    score = {name: o.score for name, o in zip(config.enhancements, outcomes)}
    rows = [{"enhancement": name, **o.record()} for name, o in zip(config.enhancements, outcomes)]
    payload = {
        "game": config.game.name,
        "board": list(env.board_shape),
        "opponent": BASELINE,
        "score": score,
        "results": rows,
        "games": config.games,
        "model": model.preset,
        "simulations": config.search.simulations,
        "weight": config.weight,
        "networks": config.networks,
        "tie_break": config.search.tie_break,
        "reuse_tree": config.search.reuse_tree,
    }
    return common.finish(config, payload, started)


def describe(config: HeadToHeadConfig, payload: dict, board: str) -> tuple[str, str]:
    """The printed heading and table of a finished head-to-head."""
    networks = ("a fresh pair of networks per game pair" if config.networks == "pair"
                else "one network shared by both sides")
    search = config.search
    return (f"Head-to-head, {config.game.name} {board}: each enhancement's mean score "
            f"against {BASELINE} ({config.games} games each, untrained "
            f"'{config.model.preset}' networks: {networks}; m = {search.simulations}, "
            f"w = {config.weight}, T' = {search.temperature_moves}, ties: {search.tie_break}, "
            f"seed {config.seed})",
            markdown_scores(payload["results"], BASELINE))


@hydra.main(version_base="1.3", config_path=cli.CONF_DIR, config_name="headtohead")
def main(cfg: DictConfig) -> None:
    common.run_command(HeadToHeadConfig, cfg, "headtohead", run, describe)


if __name__ == "__main__":
    cli.check_overrides("headtohead", "headtohead")
    main()
