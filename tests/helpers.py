"""Helpers shared by several test modules: the repository root, a composed run config, a
tiny run folder and a fabricated one."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import jax

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.run import compose_run_config
from warmjax.train import run_folder
from warmjax.train.metrics import MetricRow
from warmjax.train.network_io import save_network
from warmjax.train.run_config import (
    ArenaConfig,
    GameConfig,
    ModelConfig,
    RunConfig,
    SearchConfig,
    WarmstartConfig,
)

ROOT = Path(__file__).resolve().parent.parent


# The test session's persistent compilation cache (tests/conftest.py sets it).
TEST_CACHE = os.environ["JAX_COMPILATION_CACHE_DIR"]

# A three-iteration smoke run of adaptive Connect Four. Without per-stage times its compiled
# iteration has no host callbacks, so it goes to the session's compilation cache and every
# test that runs it, in this process or a command, compiles it once.
SMOKE = ["+experiment=adaptive_c4", "profile=smoke", "train.iterations=3", "tensorboard=false",
         "stage_times=false", f"compilation_cache={TEST_CACHE}"]
# The same run with warm start off, for the tests of what warm start does not touch (the
# gate, keep_training, the reply head): without the enhancement's branch its iteration
# compiles in about 60% of the time (8.9 s against 15.3 s alone, 6 December 2026).
SMOKE_BASELINE = [*SMOKE, "warmstart=none"]


@contextlib.contextmanager
def xla_optimised():
    """Inside, this process and the commands it starts compile with XLA's optimisations on:
    for tests and fixtures that compute more than they compile (the session turns most of
    them off, tests/conftest.py)."""
    env = os.environ.get("JAX_DISABLE_MOST_OPTIMIZATIONS")
    before = jax.config.values["jax_disable_most_optimizations"]
    os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "0"
    jax.config.update("jax_disable_most_optimizations", False)
    try:
        yield
    finally:
        jax.config.update("jax_disable_most_optimizations", before)
        if env is None:
            os.environ.pop("JAX_DISABLE_MOST_OPTIMIZATIONS")
        else:
            os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"] = env


def metric_row(**values) -> MetricRow:
    """A metrics row with neutral values but those given (a fabricated run's history)."""
    base = dict(iteration=1, warmstart_active=False, weight=0.0, switched=False,
                switch_iteration=-1, r_balance=0.0, arena_wins=0, arena_draws=0,
                arena_losses=0, accepted=False, loss_value=0.0, loss_policy=0.0, train_steps=0,
                examples=0, new_examples=0, selfplay_mean_plies=0.0, seconds_total=0.0)
    return MetricRow(**{**base, **values})


def compose_config(overrides, run_dir) -> RunConfig:
    """The `RunConfig` that `python -m warmjax.run <overrides>` would train, in `run_dir`."""
    return compose_run_config(overrides, run_dir)


def write_tiny_run(folder: Path, game: str = "connect_four", params: dict | None = None,
                   arena: bool = True) -> Path:
    """A run folder holding an untrained tiny network (4 channels) and its config (`arena`
    False: a run without an arena, `arena.gate=false`)."""
    folder.mkdir(parents=True, exist_ok=True)
    env = make(game, **(params or {}))
    model = ModelConfig(preset=None, channels=4, fc=(8, 8))
    config = RunConfig(game=GameConfig(name=game, params=dict(params or {})), model=model,
                       search=SearchConfig(simulations=4, temperature_moves=15),
                       arena=ArenaConfig(gate=arena))
    network = make_network(env.num_actions, env.observation_shape, None, channels=4, fc=(8, 8))
    save_network(folder, config, network, network.init(jax.random.PRNGKey(0)), iteration=1)
    run_folder.write_config(folder, config)
    return folder


FABRICATED_SIMULATIONS = 24  # a fabricated run's m


def fabricate_run(folder: Path, *, game="connect_four", mode="none", enhancement="rollout",
                  iprime=5, seed=0, simulations=FABRICATED_SIMULATIONS, temperature_moves=4,
                  profile="smoke", metrics=None, network=True) -> Path:
    """A run folder as training leaves it (config.yaml, network, optional metrics.jsonl)."""
    short = {"connect_four": "c4"}.get(game, game)
    config = RunConfig(
        game=GameConfig(game), model=ModelConfig("small", 8, (16, 16)),
        search=SearchConfig(simulations=simulations, temperature_moves=temperature_moves),
        warmstart=WarmstartConfig(mode, enhancement, iprime), seed=seed,
        experiment_name=f"{ {'none': 'baseline'}.get(mode, mode)}_{short}",
        profile_name=profile, run_dir=str(folder))
    folder.mkdir(parents=True, exist_ok=True)
    run_folder.write_config(folder, config)
    if network:
        env = make(game)
        net = make_network(env.num_actions, env.observation_shape, None, channels=8,
                           fc=(16, 16))
        save_network(folder, config, net, net.init(jax.random.PRNGKey(100 + seed)), 2)
    if metrics is not None:
        run_folder.write_metrics(folder, metrics)
    return folder
