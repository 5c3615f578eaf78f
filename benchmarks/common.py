"""What the benchmark scripts share (they run as `python benchmarks/<name>.py`, so this
module is importable as `common`): the paper-sized Othello run config, a timer, and a
buffer of a full iteration's minibatches."""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.train.buffer import ReplayBuffer
from warmjax.train.run_config import RunConfig


def paper_config(preset: str) -> RunConfig:
    return RunConfig.from_dict({
        "game": {"name": "othello", "params": {"size": 6}},
        "model": {"preset": preset},
        "search": {"simulations": 100, "temperature_moves": 15},
        "train": {"iterations": 100, "games": 50, "replay_iterations": 20, "epochs": 10,
                  "batch_size": 64, "learning_rate": 0.005},
        "arena": {"games": 40, "threshold": 0.6, "temperature_moves": 15},
    })


def timed(fn, *args):
    tic = time.perf_counter()
    out = jax.block_until_ready(fn(*args))
    return out, time.perf_counter() - tic


def warmed(fn, *args):
    """`timed` after one warm-up call (which compiles)."""
    jax.block_until_ready(fn(*args))
    return timed(fn, *args)


def step_buffer(config: RunConfig, slot: ReplayBuffer, train_steps: int):
    """`(total_steps, buffer)`: the minibatch steps of a full-buffer iteration (10 epochs over
    20 iterations of examples like `slot`'s), and a buffer of exactly `train_steps`
    minibatches of `slot`'s examples to time them on."""
    per_iteration = int(slot.valid.sum())
    full_buffer = per_iteration * config.train.replay_iterations
    total_steps = config.train.epochs * (full_buffer // config.train.batch_size)
    rows = train_steps * config.train.batch_size
    take = np.resize(np.flatnonzero(np.asarray(slot.valid)), rows)
    buffer = ReplayBuffer(obs=slot.obs[take], policy=slot.policy[take], value=slot.value[take],
                          valid=jnp.ones(rows, bool))
    return total_steps, buffer
