"""Many runs, one compiled program: `Trainer.iteration` vmapped over R runs (method.md §11).

Runs that differ only in settings the iteration can take as traced values — the seed (it
lives in the state's PRNG key and the first network) and I′ of the fixed mode — share one
program: their states are stacked on a leading runs axis and a single `jax.vmap`ped,
jitted iteration advances all R at once. Everything else (game, variant, sizes, search
settings, iterations) fixes shapes or code paths and must be equal: `program_key` says
which runs can share, `groups` splits a list of runs into such groups, and
`loop.train_group` trains a group (through `loop.train_runs`, the driver of lone runs too).

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

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.settings import flatten
from warmjax.train.run_config import ConfigError, RunConfig, per_run_paths

AXIS = "runs"  # the vmapped runs axis's name, which the iteration's group reductions read


def vmapped_iteration(iteration):
    """`Trainer.iteration` vmapped over a group's runs `(states, iprimes)`, told its axis,
    so that self-play pays only for the warm-start branches its runs play
    (`warmstart.group_kind`)."""
    return jax.vmap(lambda state, iprime: iteration(state, iprime, group=AXIS),
                    axis_name=AXIS)


def program_key(config: RunConfig) -> str:
    """What must be equal for runs to share one compiled program (a canonical string): every
    setting but those marked `per_run` (`run_config.per_run_paths`)."""
    per_run = per_run_paths()
    items = flatten(config.to_dict())
    return repr(sorted((path, repr(value)) for path, value in items.items()
                       if path not in per_run))


def groups(configs: Sequence[RunConfig], max_runs: int) -> list[list[int]]:
    """Indices of `configs` split into groups that share a program, at most `max_runs`
    each; the groups in the order of their first runs (with `max_runs=1`, the order given)."""
    if max_runs < 1:
        raise ConfigError(f"max_runs must be at least 1, got {max_runs}")
    by_key: dict[str, list[int]] = {}
    for index, config in enumerate(configs):
        by_key.setdefault(program_key(config), []).append(index)
    out = []
    for members in by_key.values():
        out.extend(members[i:i + max_runs] for i in range(0, len(members), max_runs))
    return sorted(out, key=lambda members: members[0])  # each group where its first run was


def seed_major(configs: Sequence[RunConfig]) -> list[int]:
    """Indices of `configs` ordered by seed, the given order kept within a seed (the vmap
    launcher's `seed_major`: a study trains seed block by seed block)."""
    return sorted(range(len(configs)), key=lambda i: configs[i].seed)


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
