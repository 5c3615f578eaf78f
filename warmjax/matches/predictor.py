"""Will warm start pay on this game? The warm-start predictor, measured before any training.

Warm start helps, by its mechanism, when the enhanced search plays much better than the
search it stands in for while the network is still untrained. The predictor measures that
gap on a game's labelled positions (`warmjax.perfect`), in the recipe's own settings:

- **players**: the recipe's warm-start enhancement (`warmstart.enhancement`, Rollout in the
  main job) and its baseline search (`search.baseline_search`), each with the same
  untrained network, the recipe's search settings without self-play's root noise (as the
  probe judges), one argmax move per position (`temperature_moves=0`, no tree carried);
- **budget**: the recipe's m (`search.simulations`);
- **positions**: the game's shipped labelled set (all of it, or the first n), or a given one;
- **seeds**: for seed s the untrained network is the one a run of seed s starts from
  (`PRNGKey(s)` split once, as `Trainer.init_state`), and the searches' keys follow;
- **value**: the enhancement's optimal-move rate minus the baseline search's, in points,
  averaged over seeds and positions; its 95% interval is a percentile bootstrap that
  resamples seeds and positions together (2,000 resamples, seeded).

`python -m warmjax.advise` prints it for any game (`warmjax/advise.py`).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import jax
import numpy as np

from warmjax.games import make
from warmjax.perfect import positions
from warmjax.perfect.positions import LabelledSet
from warmjax.probe import score
from warmjax.search.players import make_player, uses_network

RESAMPLES = 2000


@dataclasses.dataclass(frozen=True)
class Predictor:
    """The predictor of one recipe on one labelled set.

    Attributes:
      points: the enhancement's optimal-move rate minus the baseline's, in points.
      interval: its 95% bootstrap interval, in points.
      warm: the enhancement's optimal-move rate per seed `[K]` (fractions).
      base: the baseline search's per seed `[K]`.
      settings: what was measured (players, m, positions, seeds, labelled set).
    """

    points: float
    interval: tuple[float, float]
    warm: tuple[float, ...]
    base: tuple[float, ...]
    settings: dict

    def to_dict(self) -> dict:
        return {"points": self.points, "interval": list(self.interval),
                "warm_optimal": list(self.warm), "baseline_optimal": list(self.base),
                "settings": self.settings}


def bootstrap_interval(diffs: np.ndarray, resamples: int = RESAMPLES,
                       seed: int = 0) -> tuple[float, float]:
    """The 95% percentile interval of the mean of `diffs [K, P]` when seeds (rows) and
    positions (columns) are resampled together, each with replacement."""
    diffs = np.asarray(diffs, float)
    k, p = diffs.shape
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    for i in range(resamples):
        rows = rng.integers(0, k, k)
        cols = rng.integers(0, p, p)
        means[i] = diffs[np.ix_(rows, cols)].mean()
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def measure(config: Any, seeds=tuple(range(8)), labelled: LabelledSet | None = None,
            count: int | None = None, warm_player: str | None = None,
            log=None) -> Predictor:
    """The predictor of the recipe `config` (a `RunConfig`).

    Args:
      config: the recipe: its game, network, search settings and warm-start enhancement.
      seeds: the untrained networks' seeds (at least 2 for an interval over seeds).
      labelled: the positions; None: the game's shipped labelled set.
      count: score only the first n positions.
      warm_player: the warm-start player instead of `config.warmstart.enhancement` (e.g.
        `pure_mcts`, network-free).
      log: called with one line per seed.

    Raises:
      ValueError: a game without a labelled set, or fewer than one seed.
    """
    log = log or (lambda s: None)
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ValueError("the predictor needs at least one seed")
    c = config
    env = make(c.game.name, **c.game.params)
    path = None
    if labelled is None:
        path = positions.path_for(env)
        if path is None:
            raise ValueError(f"{env.name} has no shipped labelled positions: make a set with "
                             "python -m warmjax.labels and pass it with --labelled")
        labelled = positions.load(path, env.num_actions)
    if count is not None:
        labelled = labelled.subset(count)
    network = c.model.build(env)
    judging = c.search.without_noise()
    warm_name = warm_player or c.warmstart.enhancement
    base_name = c.search.baseline_search
    warm = make_player(warm_name, env, network.apply, judging, temperature_moves=0)
    base = make_player(base_name, env, network.apply, judging, temperature_moves=0)
    states = score.replay(env, labelled)
    best = labelled.best.astype(int)
    rows = np.arange(len(labelled))
    # Everything is an argument of the jitted functions: closed-over arrays would be
    # constant-folded by XLA at compile time, slowly.
    choose_warm = jax.jit(lambda v, k, s: warm(v, k, s).action)
    choose_base = jax.jit(lambda v, k, s: base(v, k, s).action)

    def hits(actions):  # [P] 1.0 where the move keeps the perfect-play value
        return (labelled.values[rows, np.asarray(actions)].astype(int) == best).astype(float)

    warm_hits, base_hits = [], []
    tic = time.perf_counter()
    for seed in seeds:
        key, net_key = jax.random.split(jax.random.PRNGKey(seed))
        variables = network.init(net_key)
        warm_key, base_key = jax.random.split(key)
        warm_hits.append(hits(choose_warm(variables if uses_network(warm_name) else None,
                                          warm_key, states)))
        base_hits.append(hits(choose_base(variables, base_key, states)))
        log(f"seed {seed}: {warm_name} {warm_hits[-1].mean():.1%}, "
            f"{base_name} {base_hits[-1].mean():.1%} optimal")
    warm_hits, base_hits = np.stack(warm_hits), np.stack(base_hits)
    diffs = warm_hits - base_hits
    low, high = bootstrap_interval(diffs)
    settings = dict(game=env.name, params=dict(c.game.params), warm_player=warm_name,
                    baseline_player=base_name, simulations=judging.simulations,
                    fpu=judging.fpu, win_check=judging.win_check, model=c.model.preset,
                    positions=len(labelled),
                    labelled_set=str(path.name if path is not None
                                     else labelled.meta.get("set", "given")),
                    seeds=list(seeds), resamples=RESAMPLES,
                    seconds=round(time.perf_counter() - tic, 1))
    return Predictor(points=float(100 * diffs.mean()), interval=(100 * low, 100 * high),
                     warm=tuple(float(x) for x in warm_hits.mean(axis=1)),
                     base=tuple(float(x) for x in base_hits.mean(axis=1)),
                     settings=settings)
