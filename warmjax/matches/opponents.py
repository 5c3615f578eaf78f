"""Score a trained network against reference opponents.

    python -m warmjax.versus runs/adaptive_c4/profile=fast \
        --opponents random untrained pure_mcts --games 100

The trained network plays the run's baseline search, PUCT MCTS or Gumbel (`search.baseline_search`;
m from the run's config unless `--simulations`;
first-play urgency and the win check as the run's `search.fpu` and `search.win_check`).
Opponents: `random`; `untrained`, the same search with a freshly initialised network of the
same architecture; `pure_mcts` and `pure_rave` (network-free, `--playouts` simulations);
`rhea`. Each side moves first in half the games. Both sides sample their first T′ plies'
moves from the search policy (`--temperature-moves`, default the run's T′) and play argmax
after, so that games between deterministic searches differ. Prints the agent's and each
opponent's settings and a Markdown table with a 95% interval on each score, and writes the
same as JSON (`versus.json` in the run folder, or `--out`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time

import jax

from warmjax.matches.agent import load_agent
from warmjax.matches.pair_play import make_match, mean_score
from warmjax.search.config import SearchConfig
from warmjax.search.players import make_player

OPPONENTS = ("random", "untrained", "pure_mcts", "pure_rave", "rhea")


def score_interval(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """A 95% interval on the mean score: Wilson's score interval for a proportion, a draw
    counted as half a win. Draws make a game's score less variable than a win-or-loss, so
    with draws the interval is wider than it needs to be, never narrower."""
    from statsmodels.stats.proportion import proportion_confint

    games = wins + draws + losses
    low, high = proportion_confint(wins + 0.5 * draws, games, alpha=0.05, method="wilson")
    return float(low), float(high)


def player_settings(player, network: str | None) -> dict:
    """What a side of a match plays with, for `versus.json`: the player's name, m, T′ and
    the search settings that are not the defaults, and its network."""
    config = player.config
    defaults = SearchConfig()
    changed = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)
               if f.name not in ("simulations", "temperature_moves")
               and getattr(config, f.name) != getattr(defaults, f.name)}
    return {"player": player.name, "simulations": config.simulations,
            "temperature_moves": config.temperature_moves, "network": network, **changed}


def versus(run_dir, opponents, games=100, simulations=None, playouts=100, seed=0,
           temperature_moves=None, reuse_tree=None, status=None):
    """Returns `{"agent": settings, "games", "seed", "opponents": {opponent: {"wins",
    "draws", "losses", "score", "score_ci95", "settings", "seconds"}}}` for the run's network
    (`score_interval`, `player_settings`).

    `reuse_tree` (None: the run's `search.reuse_tree`) applies to the agent's search (and to
    the "untrained" opponent, which is the same search with a fresh network). `status`, if
    given, is a context manager `status(text)` around each opponent's games (`cli.status`)."""
    unknown = [name for name in opponents if name not in OPPONENTS]
    if unknown:
        raise ValueError(f"unknown opponent {unknown[0]!r}; choose from {OPPONENTS}")
    status = status or (lambda text: contextlib.nullcontext())
    # The run's own search: its departures from the papers (fpu, win check) come along.
    agent = load_agent(run_dir, simulations=simulations, temperature_moves=temperature_moves,
                       reuse_tree=reuse_tree)
    me = agent.player
    temperature_moves = me.config.temperature_moves
    iteration = agent.run.metrics[-1].iteration if agent.run.metrics else None
    results = {}
    key = jax.random.PRNGKey(seed)
    for name in opponents:
        key, k_match, k_net = jax.random.split(key, 3)
        if name == "untrained":
            other = me
            other_params = agent.untrained_variables(k_net)
            network = "untrained, the run's architecture"
        else:
            # The reference opponents stay fixed (no tree reuse), whatever the agent does.
            other = make_player(name, agent.env, simulations=playouts,
                                temperature_moves=temperature_moves)
            other_params, network = None, None
        tic = time.perf_counter()
        with status(f"versus {name}: {games} games (compiling, then playing)"):
            match = jax.jit(make_match(agent.env, me, other, games))
            r = jax.device_get(match(agent.variables, other_params, k_match))
        wins, draws, losses = int(r.wins), int(r.draws), int(r.losses)
        results[name] = {"wins": wins, "draws": draws, "losses": losses,
                         "score": mean_score(r),
                         "score_ci95": list(score_interval(wins, draws, losses)),
                         "settings": player_settings(other, network),
                         "seconds": time.perf_counter() - tic}
    trained = "trained" + (f", after iteration {iteration}" if iteration else "")
    return {"run_dir": str(run_dir), "agent": player_settings(me, trained), "games": games,
            "seed": seed, "opponents": results}
