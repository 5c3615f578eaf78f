"""Score a trained network against reference opponents.

    python -m warmjax.versus runs/adaptive_c4/profile=quick \
        --opponents random untrained pure_mcts --games 100

The trained network plays the run's baseline search, PUCT MCTS or Gumbel (`search.baseline_search`;
m from the run's config unless `--simulations`;
first-play urgency and the win check as the run's `search.fpu` and `search.win_check`).
Opponents: `random`; `untrained`, the same search with a freshly initialised network of the
same architecture; `pure_mcts` and `pure_rave` (network-free, `--playouts` simulations);
`rhea`. Each side moves first in half the games. Both sides sample their first T′ plies'
moves from the search policy (`--temperature-moves`, default the run's T′) and play argmax
after, so that games between deterministic searches differ. Prints a Markdown table and
optionally writes JSON.
"""

from __future__ import annotations

import time

import jax

from warmjax.matches.agent import load_agent
from warmjax.matches.pair_play import make_match, mean_score
from warmjax.search.players import make_player

OPPONENTS = ("random", "untrained", "pure_mcts", "pure_rave", "rhea")


def versus(run_dir, opponents, games=100, simulations=None, playouts=100, seed=0,
           temperature_moves=None, reuse_tree=None):
    """Returns `{opponent: {"wins", "draws", "losses", "score"}}` for the run's network.

    `reuse_tree` (None: the run's `search.reuse_tree`) applies to the agent's search (and to
    the "untrained" opponent, which is the same search with a fresh network)."""
    unknown = [name for name in opponents if name not in OPPONENTS]
    if unknown:
        raise ValueError(f"unknown opponent {unknown[0]!r}; choose from {OPPONENTS}")
    # The run's own search: its departures from the papers (fpu, win check) come along.
    agent = load_agent(run_dir, simulations=simulations, temperature_moves=temperature_moves,
                       reuse_tree=reuse_tree)
    me = agent.player
    temperature_moves = me.config.temperature_moves
    results = {}
    key = jax.random.PRNGKey(seed)
    for name in opponents:
        key, k_match, k_net = jax.random.split(key, 3)
        if name == "untrained":
            other = me
            other_params = agent.untrained_variables(k_net)
        else:
            # The reference opponents stay fixed (no tree reuse), whatever the agent does.
            other = make_player(name, agent.env, simulations=playouts,
                                temperature_moves=temperature_moves)
            other_params = None
        tic = time.perf_counter()
        match = jax.jit(make_match(agent.env, me, other, games))
        r = jax.device_get(match(agent.variables, other_params, k_match))
        results[name] = {"wins": int(r.wins), "draws": int(r.draws), "losses": int(r.losses),
                         "score": mean_score(r), "seconds": time.perf_counter() - tic}
    return results
