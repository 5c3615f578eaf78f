"""A player's search of positions opened up, compiled once (`Analyser`): the move, the policy,
the root's prior, visit counts and Q, and the value of each (`players.Analysis`).
`Agent.analyse` and `warmjax.Analyser` are this."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from warmjax.search.players import Analysis, Player, uses_network


class Analyser:
    """A player's search of positions, opened up (`Analysis`), compiled once.

    `Analyser(player, variables)(state)` searches one position, or a batch, and returns the
    move, the policy, the root's prior, visit counts and Q, and the value, as NumPy arrays
    (without the batch axis for one position). The search is compiled on the first call and
    reused for every later one with the same batch size.

    Args:
      player: any player (`make_player`, or an agent's `agent.player`).
      variables: the network's variables; None (the default) for a network-free player.

    Raises:
      ValueError: a player that needs a network, given no variables.
    """

    def __init__(self, player: Player, variables: Any = None):
        if variables is None and uses_network(player.name):
            raise ValueError(f"player {player.name!r} needs the network's variables")
        self.player = player
        self.variables = variables
        self._search = jax.jit(player.analyse)

    def __call__(self, states, *, seed: int = 0) -> Analysis:
        """The `Analysis` of one state or a batch; `seed` keys the search and the move's
        sampling (only in the first T′ plies, `temperature_moves`)."""
        single = np.ndim(states.current_player) == 0
        batch = jax.tree_util.tree_map(lambda x: x[None], states) if single else states
        out = jax.device_get(self._search(self.variables, jax.random.PRNGKey(seed), batch))
        return jax.tree_util.tree_map(lambda x: x[0], out) if single else out
