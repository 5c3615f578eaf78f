"""A rough wall-time estimate of a training run on this machine, from a short timing.

`python -m warmjax.run` uses it to state the cost of `profile=paper` on a machine without an
accelerator before it starts.
"""

from __future__ import annotations

import time

from warmjax.train.run_config import RunConfig


def seconds_per_evaluation(config: RunConfig, repeats: int = 3) -> float:
    """Measures this machine: seconds per state evaluated by a short baseline search.

    A 4-simulation search over up to 16 games of the configured game and network, timed
    after compiling; the best of `repeats` timings.
    """
    import jax

    from warmjax.games import make
    from warmjax.search import SearchConfig, variant_search

    env = make(config.game.name, **config.game.params)
    net = config.model.build(env)
    params = net.init(jax.random.PRNGKey(0))
    sims = 4
    games = min(config.train.games, 16)
    search = jax.jit(variant_search("mcts", env, net.apply, SearchConfig(simulations=sims)))
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), games))
    jax.block_until_ready(search(params, jax.random.PRNGKey(2), states))
    best = float("inf")
    for r in range(repeats):
        tic = time.perf_counter()
        jax.block_until_ready(search(params, jax.random.PRNGKey(3 + r), states))
        best = min(best, time.perf_counter() - tic)
    return best / (sims * games)


def run_seconds(config: RunConfig, per_eval: float) -> float:
    """Rough wall time of the whole run, given the seconds per state evaluated.

    Games last 0.8 of the board's cells; self-play and arena evaluate m states per move;
    training costs about three evaluations (forward and backward) per example and epoch.
    """
    from warmjax.games import make

    env = make(config.game.name, **config.game.params)
    plies = 0.8 * env.board_shape[0] * env.board_shape[1]
    t = config.train
    selfplay = t.games * plies * config.search.simulations * per_eval
    examples = t.replay_iterations * t.games * plies * len(env.symmetry_tables()[0])
    training = t.epochs * examples * 3 * per_eval
    arena = (config.arena.games if config.arena.gate else 0) * plies \
        * config.search.simulations * per_eval
    return t.iterations * (selfplay + training + arena)


def estimate_paper_seconds(config: RunConfig) -> float:
    """Rough wall time of the whole run from a short timing of the baseline search."""
    return run_seconds(config, seconds_per_evaluation(config))
