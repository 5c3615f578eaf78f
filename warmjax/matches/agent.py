"""A trained agent from its run folder: the one loader of every evaluation command.

`load_agent(run_dir, **search_overrides)` reads the run (typed, `run_folder.read_run`), its
final network (`network_io`) and builds the player that the run's network plays: the run's
baseline search (`search.baseline_search`: PUCT MCTS, or Gumbel) with its own search settings (its
departures from the papers and tree reuse included) without self-play's root noise,
changed by `search_overrides` (`SearchConfig` fields such as `simulations=200,
temperature_moves=0`). versus, the oracle, play and tournaments all start here.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

from warmjax.search.analyser import Analyser
from warmjax.search.config import SearchConfig
from warmjax.search.players import Analysis, Player, make_player, uses_network
from warmjax.train.run_folder import Run, read_run


@dataclasses.dataclass(frozen=True)
class Agent:
    """A run's final network and the player that plays it.

    Attributes:
      run: the typed run (folder, config, variant, metrics).
      env: the game, as the network was trained on it.
      network: the Flax network (`nets.Network`).
      variables: its trained variables.
      player: the search that plays the network (`player.config` is its `SearchConfig`).
    """

    run: Run
    env: Any
    network: Any
    variables: Any
    player: Player

    @property
    def search(self) -> SearchConfig:
        """The settings the agent searches with (`player.config`)."""
        return self.player.config

    @functools.cached_property
    def analyser(self) -> Analyser:
        """The agent's `Analyser` (its player and trained variables), built once."""
        return Analyser(self.player, self.variables)

    def analyse(self, states, *, seed: int = 0) -> Analysis:
        """The agent's search of one position or a batch, opened up: the move, the policy,
        the root's prior, visit counts and Q, and the value, as NumPy arrays (`Analyser`;
        compiled on the first call, reused after)."""
        return self.analyser(states, seed=seed)

    def untrained_variables(self, key) -> Any:
        """Fresh variables of the same architecture (an untrained opponent)."""
        return self.network.init(key)


def load_agent(run_dir: Path | str, player: str | None = None, *, iteration: int | None = None,
               **search_overrides: Any) -> Agent:
    """Loads the run folder's agent.

    Args:
      run_dir: a run folder with a final network.
      player: the search variant that plays the network (None: the run's baseline search,
        `search.baseline_search`); a network-free player ignores the network and the run's search
        settings but m.
      iteration: the best network after this iteration, which the run kept
        (`keep_networks`); None: the final network.
      **search_overrides: `SearchConfig` fields that replace the run's (None: keep).

    Raises:
      ValueError: not a run folder, a corrupt config, metrics or network file, an unknown
        player or search setting, each named.
    """
    run = read_run(run_dir)
    player = run.search().baseline_search if player is None else player
    env, network, variables = run.network(iteration)
    overrides = {k: v for k, v in search_overrides.items() if v is not None}
    if uses_network(player):
        search, apply = run.search(), network.apply
    else:
        # A network-free player plays its own defaults at the run's m (unless overridden).
        search, apply = SearchConfig(simulations=run.search().simulations), None
    return Agent(run, env, network, variables,
                 make_player(player, env, apply, search, **overrides))
