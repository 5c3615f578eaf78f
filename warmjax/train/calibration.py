"""Seconds per unit of the compute ledger, measured on this machine (method.md §12).

The ledger (`metrics.MetricRow.count_*`) counts a run's work in units that do not depend on
the machine: network evaluations, environment steps in random playouts, training samples.
`calibrate` times each unit here, on synthetic work of the same shape as a run's (no run's
data), so that any study can be drawn against estimated CPU-seconds or GPU-seconds
(`warmjax.analysis.compute`):

- **a network evaluation**, with the tree work around it: a baseline PUCT search of `m`
  simulations on `games` positions a few random moves into the game, its time over its
  `games · (1 + m)` evaluations;
- **a playout step**: the same search with random-playout leaves (the Rollout enhancement),
  its extra time over the environment steps its playouts took (`SearchOutput.playout_steps`);
- **a training sample**: one epoch of the update on a buffer of random examples, its time
  over the `steps · bs` samples it processed.

Each is the median of `repeats` timings after compiling. `python -m warmjax.calibrate`
writes the table.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from typing import Any

import jax
import jax.numpy as jnp
import optax

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.search import SearchConfig, variant_search
from warmjax.search.leaf import Inputs
from warmjax.search.rollouts import random_legal_action
from warmjax.train.buffer import ReplayBuffer
from warmjax.train.update import make_update


@dataclasses.dataclass(frozen=True)
class UnitCosts:
    """Seconds per ledger unit for one game and network on one device."""

    device: str  # e.g. "cpu: 2 cores" or "gpu: NVIDIA H200"
    game: str  # the game's name
    params: dict  # its settings
    model: str  # the network preset (or "<channels>ch")
    seconds_per_evaluation: float
    seconds_per_playout_step: float
    seconds_per_train_sample: float
    games: int  # the workload: positions searched at once
    simulations: int  # m of those searches
    batch_size: int  # minibatch of the training timing


def device_name(device: Any) -> str:
    """`platform: kind` of a JAX device, with the CPU's core count."""
    import os

    if device.platform == "cpu":
        return f"cpu: {os.cpu_count()} cores"
    return f"{device.platform}: {getattr(device, 'device_kind', device.platform)}"


def _median_seconds(fn, repeats: int) -> float:
    jax.block_until_ready(fn(0))  # compile
    times = []
    for r in range(repeats):
        tic = time.perf_counter()
        jax.block_until_ready(fn(r + 1))
        times.append(time.perf_counter() - tic)
    return statistics.median(times)


def _positions(env, games: int, key, plies: int):
    """`games` positions after `plies` uniformly random moves from the start (games that end
    sooner stay at their end, as in self-play's later plies)."""
    states = jax.vmap(env.init)(jax.random.split(key, games))

    def ply(i, states):
        keys = jax.random.split(jax.random.fold_in(key, i), games)
        actions = jax.vmap(random_legal_action)(keys, states.legal_action_mask)
        moved = jax.vmap(env.step)(states, actions)
        return jax.tree_util.tree_map(
            lambda a, b: jnp.where(states.terminated.reshape((-1,) + (1,) * (a.ndim - 1)),
                                   b, a), moved, states)

    return jax.lax.fori_loop(0, plies, ply, states)


def calibrate(game: str, params: dict | None = None, preset: str = "small", *,
              games: int = 50, simulations: int = 100, batch_size: int = 64,
              samples: int = 4096, repeats: int = 3, device: Any = None) -> UnitCosts:
    """Times the three ledger units for `game` with the `preset` network.

    Args:
      game, params: the registered game and its settings.
      preset: the network preset (`nets.make_network`).
      games: positions per search call (a run's E).
      simulations: m.
      batch_size: the training minibatch.
      samples: examples in the synthetic buffer (one epoch takes ⌊samples / bs⌋ steps).
      repeats: timings per unit; the median is kept.
      device: a JAX device (None: the default one).
    """
    params = dict(params or {})
    device = device or jax.devices()[0]
    with jax.default_device(device):
        env = make(game, **params)
        network = make_network(env.num_actions, env.observation_shape, preset)
        variables = network.init(jax.random.PRNGKey(0))
        # A quarter of the longest game into it: positions like those self-play searches.
        start = _positions(env, games, jax.random.PRNGKey(1), max(int(env.max_plies) // 4, 1))
        config = SearchConfig(simulations=simulations)
        plain = jax.jit(variant_search("mcts", env, network.apply, config))
        rollout = jax.jit(variant_search("rollout", env, network.apply, config))
        live = int(jnp.sum(~start.terminated))
        t_plain = _median_seconds(
            lambda r: plain(Inputs(variables), jax.random.PRNGKey(10 + r), start).visits,
            repeats)
        t_rollout = _median_seconds(
            lambda r: rollout(Inputs(variables), jax.random.PRNGKey(10 + r), start).visits,
            repeats)
        steps = int(jnp.sum(rollout(Inputs(variables), jax.random.PRNGKey(10), start)
                            .playout_steps))
        per_eval = t_plain / (max(live, 1) * (simulations + 1))
        per_step = max(t_rollout - t_plain, 0.0) / max(steps, 1)

        update = jax.jit(make_update(network, optax.adam(0.005), 1, batch_size))
        keys = jax.random.split(jax.random.PRNGKey(2), 3)
        obs_dtype = start.observation.dtype
        obs = jax.random.bernoulli(keys[0], 0.3, (samples, *env.observation_shape))
        buffer = ReplayBuffer(
            obs=obs.astype(obs_dtype),
            policy=jax.nn.softmax(jax.random.normal(keys[1], (samples, env.num_actions))),
            value=jax.random.uniform(keys[2], (samples,), minval=-1.0, maxval=1.0),
            valid=jnp.ones(samples, jnp.bool_),
        )
        opt_state = optax.adam(0.005).init(variables["params"])
        t_train = _median_seconds(
            lambda r: update(variables, opt_state, buffer, jax.random.PRNGKey(20 + r))[2].value,
            repeats)
        per_sample = t_train / ((samples // batch_size) * batch_size)
    return UnitCosts(device=device_name(device), game=game, params=params, model=preset,
                     seconds_per_evaluation=per_eval, seconds_per_playout_step=per_step,
                     seconds_per_train_sample=per_sample, games=games,
                     simulations=simulations, batch_size=batch_size)


def devices() -> list[Any]:
    """The devices to calibrate: the CPU, and the first accelerator where there is one."""
    found = [jax.devices("cpu")[0]]
    for platform in ("gpu", "tpu"):
        try:
            found.append(jax.devices(platform)[0])
            break
        except RuntimeError:
            continue
    return found
