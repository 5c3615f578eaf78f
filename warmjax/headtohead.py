"""Head-to-head: each warm-start enhancement against baseline MCTS, untrained networks
(method.md §10).

    JAX_PLATFORMS=cpu python -m warmjax.headtohead game=othello games=100 seed=0 \
        model=small simulations=100 out=headtohead_othello.json

Rollout, RAVE, RoRa, WRo and WRoRa (w = ½) each play `games` games against the baseline
`mcts` with m = `simulations` per move; each side moves first in half the games. Moves are
the argmax of the root visit distribution from the first ply (T′ = 0). The reported score is
the enhancement's mean score (win 1, draw ½, loss 0).

Networks (`networks`): as the papers ran it (the thesis: each player's network randomly
initialised on its own), the default `pair` gives each side its own untrained network, drawn
afresh for every game pair (the two games of a pair swap who moves first and use the same
two networks). `shared` is the older reading: one network, from `seed`, for both sides and
all games.

Ties at T′ = 0 (`tie_break`): `first` plays the lowest-index most-visited move, as AlphaZero
General did at the time of PPSN 2020 (the default); `random` picks uniformly among the most
visited, as its later versions do.

The papers used AlphaZero General's network (preset `azg512`); the default here is the
`small` preset (same layers, far fewer units) so that the command runs on a CPU. Pass
`model=azg512` on an accelerator for the papers' setting.

Note on determinism: with T′ = 0 the baseline `mcts` and plain `rave` are deterministic given
their networks (network leaf values, ties broken by index). With `networks=shared` and
`tie_break=first`, `rave` vs `mcts` therefore has only two distinct games, one per first
mover, however many are played. Per-pair networks make every pair's games differ. The JSON
records, and the command prints, the distinct move sequences of every pairing.

Config: `conf/headtohead.yaml` with the project's `game` and `model` groups (`game=othello`
picks `conf/game/othello.yaml`, `model=azg512` picks `conf/model/azg512.yaml`).

Design: as in `warmjax.orientation` (the shared runner and config handling are in
`warmjax.evaluate.match.play_pair` and `warmjax.evaluate.experiment_cli`), each pairing is
compiled once and its games run as one batched call, or in chunks of at most `max_batch`.
"""

from __future__ import annotations

import dataclasses
import time

import hydra
import jax
from omegaconf import DictConfig

from warmjax import cli
from warmjax.evaluate import experiment_cli as common
from warmjax.games import make
from warmjax.nets import PRESETS, make_network
from warmjax.search.config import TIE_BREAKS
from warmjax.search.players import make_player
from warmjax.search.variants import ENHANCEMENTS

BASELINE = "mcts"
NETWORKS = ("pair", "shared")


@dataclasses.dataclass(frozen=True)
class HeadToHeadConfig:
    """Settings of the head-to-head test (defaults: the papers', except the network).

    Attributes:
      game: "othello", "connect_four" or "gobang".
      game_params: the game's constructor settings; {} is the 6×6 board.
      games: games per enhancement, even (each side first in half).
      seed: seeds the networks and the games.
      model: network preset (`warmjax.nets.PRESETS`); the papers used `azg512`.
      model_channels, model_fc: overrides of the preset's sizes (None: the preset's).
      simulations: m, simulations per move for both sides.
      weight: w of WRo and WRoRa.
      networks: "pair" (each side its own untrained network, drawn per game pair) or
        "shared" (one network for both sides and all games).
      tie_break: "first" or "random" (see `warmjax.search.players.choose_actions`).
      reuse_tree: both sides go on from the played move's subtree (`search/reuse.py`).
      enhancements: the enhancements to test.
      out: the JSON file to write; None means `headtohead_<game>.json`.
      max_batch: most games per compiled call; larger counts run in chunks.
      fast_compile: compile at XLA's backend optimisation level 0 (tests, tiny runs).
    """

    game: str = "connect_four"
    game_params: dict = dataclasses.field(default_factory=dict)
    games: int = 100
    seed: int = 0
    model: str = "small"
    model_channels: int | None = None
    model_fc: tuple[int, ...] | None = None
    simulations: int = 100
    weight: float = 0.5
    networks: str = "pair"
    tie_break: str = "first"
    reuse_tree: bool = False
    enhancements: tuple[str, ...] = ENHANCEMENTS
    out: str | None = None
    max_batch: int = 256
    fast_compile: bool = False

    def __post_init__(self):
        common.check_game(self.game, self.game_params)
        common.check_games(self.games, "games")
        common.check_positive(self.simulations, "simulations")
        common.check_max_batch(self.max_batch)
        if self.model not in PRESETS:
            raise ValueError(f"unknown model {self.model!r}; choose from {', '.join(PRESETS)}")
        env = make(self.game, **self.game_params)
        make_network(env.num_actions, env.observation_shape, self.model,
                     channels=self.model_channels, fc=self.model_fc)  # checks the sizes
        if self.networks not in NETWORKS:
            raise ValueError(f"unknown networks {self.networks!r}; choose from "
                             f"{', '.join(NETWORKS)}")
        if self.tie_break not in TIE_BREAKS:
            raise ValueError(f"unknown tie_break {self.tie_break!r}; choose from "
                             f"{', '.join(TIE_BREAKS)}")
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
        return self.out or f"headtohead_{self.game}.json"


def markdown_scores(rows: list[dict], opponent: str) -> str:
    """A Markdown table of each enhancement's mean score against `opponent`."""
    lines = [
        f"| enhancement | score vs {opponent} | wins | draws | losses | distinct games |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['enhancement']} | {row['score']:.3f} | {row['wins']} | {row['draws']} "
            f"| {row['losses']} | {row['distinct_games']} |"
        )
    return "\n".join(lines)


def run(config: HeadToHeadConfig) -> dict:
    """Plays every enhancement against the baseline, writes `config.out_path`, returns it."""
    env = make(config.game, **config.game_params)
    network = make_network(env.num_actions, env.observation_shape, config.model,
                           channels=config.model_channels, fc=config.model_fc)
    init_key, games_key = jax.random.split(jax.random.key(config.seed))
    per_pair = config.networks == "pair"
    params = None if per_pair else network.init(init_key)
    apply = network.apply_each if per_pair else network.apply

    def draw_params(key, pairs):
        key_a, key_b = jax.random.split(key)
        return network.init_each(key_a, pairs), network.init_each(key_b, pairs)

    def player(name, **kwargs):
        return make_player(name, env, apply, simulations=config.simulations,
                           temperature_moves=0, tie_break=config.tie_break,
                           reuse_tree=config.reuse_tree, **kwargs)

    baseline = player(BASELINE)
    started = time.perf_counter()
    outcomes = common.play_pairings(
        env,
        config.game,
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
        "game": config.game,
        "board": list(env.board_shape),
        "opponent": BASELINE,
        "score": score,
        "results": rows,
        "games": config.games,
        "model": config.model,
        "simulations": config.simulations,
        "weight": config.weight,
        "networks": config.networks,
        "tie_break": config.tie_break,
        "reuse_tree": config.reuse_tree,
    }
    return common.finish(config, payload, started)


def describe(config: HeadToHeadConfig, payload: dict, board: str) -> tuple[str, str]:
    """The printed heading and table of a finished head-to-head."""
    networks = ("a fresh pair of networks per game pair" if config.networks == "pair"
                else "one network shared by both sides")
    return (f"Head-to-head, {config.game} {board}: each enhancement's mean score "
            f"against {BASELINE} ({config.games} games each, untrained '{config.model}' "
            f"networks: {networks}; m = {config.simulations}, w = {config.weight}, T' = 0, "
            f"ties: {config.tie_break}, seed {config.seed})",
            markdown_scores(payload["results"], BASELINE))


@hydra.main(version_base="1.3", config_path=cli.CONF_DIR, config_name="headtohead")
def main(cfg: DictConfig) -> None:
    common.run_command(HeadToHeadConfig, cfg, "headtohead", run, describe)


if __name__ == "__main__":
    cli.check_overrides("headtohead", "headtohead")
    main()
