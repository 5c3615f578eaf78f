"""Many runs, one compiled program: `Trainer.iteration` vmapped over R runs (method.md §11).

Runs that differ only in settings the iteration can take as traced values — the seed (it
lives in the state's PRNG key and the first network) and I′ of the fixed mode — share one
program: their states are stacked on a leading runs axis and a single `jax.vmap`ped,
jitted iteration advances all R at once. Everything else (game, variant, sizes, search
settings, iterations) fixes shapes or code paths and must be equal: `program_key` says
which runs can share, `groups` splits a list of runs into such groups.

Per run, the outputs are exactly those of a lone run (`loop.RunOutputs`): its own folder,
`metrics.jsonl`, TensorBoard scalars, checkpoints and network. `seconds_total` in a group is
the group's iteration time; there are no per-stage times (their host callbacks would fire
once per run). Resume: every run's checkpoint is written before any run's old ones are
pruned, so after a kill at any point all runs hold a checkpoint of the same iteration k (the
slowest run's newest); the group resumes from there, runs that were ahead drop their later
metrics and redo that iteration, bit for bit as before.

Devices: with several devices (and R a multiple of their number) the runs axis is sharded
across them with `jax.sharding` (`NamedSharding` over a one-axis mesh "runs"); each device
then advances its own runs, with no communication between them.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.train.config import ConfigError, RunConfig
from warmjax.train.iteration import Trainer, TrainState
from warmjax.train.loop import RunOutputs, plain_row, progress_line, use_compilation_cache

# Settings a group's runs may differ in: traced values (seed, I′) and bookkeeping.
PER_RUN = ("seed", "warmstart.iprime", "run_dir", "tensorboard", "keep_checkpoints")


def program_key(config: RunConfig) -> str:
    """What must be equal for runs to share one compiled program (a canonical string)."""
    raw = config.to_dict()
    for path in PER_RUN:
        *parents, leaf = path.split(".")
        node = raw
        for name in parents:
            node = node[name]
        node.pop(leaf, None)
    return repr(sorted(_flat_items(raw)))


def _flat_items(d: dict, prefix: str = ""):
    for k, v in d.items():
        if isinstance(v, dict) and k != "params":
            yield from _flat_items(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", repr(v)


def groups(configs: Sequence[RunConfig], max_runs: int) -> list[list[int]]:
    """Indices of `configs` split into groups that share a program, at most `max_runs`
    each, in the order the runs were given."""
    if max_runs < 1:
        raise ConfigError(f"max_runs must be at least 1, got {max_runs}")
    by_key: dict[str, list[int]] = {}
    for index, config in enumerate(configs):
        by_key.setdefault(program_key(config), []).append(index)
    out = []
    for members in by_key.values():
        out.extend(members[i:i + max_runs] for i in range(0, len(members), max_runs))
    return out


def stack(trees: Sequence) -> object:
    return jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *trees)


def unstack(tree, index: int) -> object:
    return jax.tree_util.tree_map(lambda x: x[index], tree)


def runs_sharding(runs: int):
    """A `NamedSharding` of the leading runs axis over all devices, or None (one device, or
    R not a multiple of the device count)."""
    devices = jax.devices()
    if len(devices) < 2 or runs % len(devices):
        return None
    mesh = jax.sharding.Mesh(np.array(devices), ("runs",))
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("runs"))


def train_group(configs: Sequence[RunConfig], log: Callable[[str], None] = print,
                stop_after: int | None = None) -> list[TrainState]:
    """Trains (or resumes) R runs that share one program, as one vmapped program.

    Args:
      configs: validated run configurations with equal `program_key`s and distinct run
        folders.
      log: where progress lines go (one per run per iteration).
      stop_after: run at most this many iterations in this call.

    Returns:
      Each run's final training state.

    Raises:
      ConfigError: runs that cannot share a program, or two runs in one folder.
    """
    configs = list(configs)
    if not configs:
        raise ConfigError("a group needs at least one run")
    keys = {program_key(c) for c in configs}
    if len(keys) > 1:
        raise ConfigError("these runs differ in more than seed and warmstart.iprime and cannot "
                          "share one compiled program")
    folders = [str(c.run_dir) for c in configs]
    if len(set(folders)) != len(folders):
        raise ConfigError(f"two runs of a group share a run folder: {folders}")
    runs = len(configs)
    first = configs[0]
    # One trainer builds the program; the clock's host callbacks stay off under vmap.
    trainer = Trainer(dataclasses.replace(first, stage_times=False))
    outputs = [RunOutputs(c, trainer.network) for c in configs]
    use_compilation_cache(first, outputs[0].dir)
    templates = [trainer.init_state(c.seed) for c in configs]
    states = [out.resume(t, log) for out, t in zip(outputs, templates)]
    done_by_run = [int(s.iteration) for s in states]
    common = min(done_by_run)
    if max(done_by_run) > common:
        # A kill between two runs' checkpoints: every run goes back to the common iteration.
        states = [out.resume(t, log, iteration=common) if done > common else s
                  for out, t, s, done in zip(outputs, templates, states, done_by_run)]
    total = first.train.iterations
    if common >= total:
        log(f"the group of {runs} runs is complete ({common} iterations)")
        return states
    iprimes = jnp.asarray([c.warmstart.iprime for c in configs], jnp.int32)
    batched = stack(states)
    sharding = runs_sharding(runs)
    if sharding is not None:
        batched, iprimes = jax.device_put((batched, iprimes), sharding)
    tic = time.perf_counter()
    step = jax.jit(jax.vmap(trainer.iteration), donate_argnums=0).lower(batched, iprimes).compile()
    log(f"compiled the iteration of {runs} runs in {time.perf_counter() - tic:.1f}s "
        f"({first.game.name}, E={first.train.games}, m={first.search.simulations}, warm start "
        f"{first.warmstart.mode}" + (f", sharded over {len(jax.devices())} devices)"
                                     if sharding is not None else ")"))
    oracle = None
    if trainer.oracle is not None:
        oracle = jax.jit(jax.vmap(trainer.oracle, in_axes=(0, None, None)))
    for out in outputs:
        out.open()
    done = 0
    try:
        while int(batched.iteration[0]) < total and (stop_after is None or done < stop_after):
            tic = time.perf_counter()
            batched, metrics = step(batched, iprimes)
            metrics = jax.device_get(metrics)
            seconds = time.perf_counter() - tic
            probe = None
            it = int(metrics["iteration"][0])
            if oracle is not None and it % first.oracle.every == 0:
                tic = time.perf_counter()
                probe = jax.device_get(oracle(batched.params, jax.random.PRNGKey(0),
                                              trainer.oracle_states))
                oracle_seconds = time.perf_counter() - tic
            host = jax.device_get(batched)
            for r, out in enumerate(outputs):
                row = plain_row({k: v[r] for k, v in metrics.items()})
                row["seconds_total"] = seconds
                if probe is not None:
                    row.update(plain_row({k: v[r] for k, v in probe.items()}))
                    row["seconds_oracle"] = oracle_seconds
                out.record(unstack(host, r), row, prune=False)
                log(f"[{out.dir.name}] " + progress_line(row, total, configs[r]))
            for out in outputs:  # only now: every run holds this iteration's checkpoint
                out.checkpoints.prune()
            done += 1
    finally:
        for out in outputs:
            out.close()
    host = jax.device_get(batched)
    return [unstack(host, r) for r in range(runs)]
