"""Training-step time of the paper's Othello 6x6 networks: convolution, precision and R.

Times `make_update` (the compiled training of one iteration) vmapped over R runs, on random
examples shaped like Othello 6x6's (`[6, 6, 2]` observations, 37 actions, minibatch 64),
for each network, training convolution (`model.train_conv`: "patches" is patches @ kernel,
"xla" is XLA's convolution) and precision (float32, or `model.mixed_precision`). It prints
milliseconds per minibatch step per run and the full-buffer paper iteration's training
time per run (40,570 steps per run at the papers' sizes, the count that
`benchmarks/study_time.py` derives from real self-play), so the choice of
`model.train_conv = auto` can be checked on a device (patches on a CPU and a GPU).

    python benchmarks/train_step.py                      # a GPU
    JAX_PLATFORMS=cpu python benchmarks/train_step.py --nets azg64 --runs 1 2 --steps 5

Before timing, it checks that the two convolutions give the same training gradients within
float32 tolerance on the same examples.
"""

from __future__ import annotations

import argparse
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from common import paper_config, timed

from warmjax.train.buffer import ReplayBuffer
from warmjax.train.group import stack
from warmjax.train.iteration import Trainer
from warmjax.train.update import loss_fn, make_update

PAPER_STEPS = 40_570  # 10 epochs over a full 20-iteration buffer of Othello 6x6 self-play


def examples(steps: int, batch: int, seed: int = 0) -> ReplayBuffer:
    rng = np.random.default_rng(seed)
    rows = steps * batch
    obs = rng.random((rows, 6, 6, 2)) < 0.3
    policy = rng.random((rows, 37)).astype(np.float32)
    policy /= policy.sum(-1, keepdims=True)
    value = rng.choice([-1.0, 0.0, 1.0], rows).astype(np.float32)
    return ReplayBuffer(obs=jnp.asarray(obs), policy=jnp.asarray(policy),
                        value=jnp.asarray(value), valid=jnp.ones(rows, bool))


def trainer(preset: str, conv: str, precision: str) -> Trainer:
    config = paper_config(preset)
    model = dataclasses.replace(config.model, train_conv=conv,
                                mixed_precision=precision == "mixed")
    return Trainer(dataclasses.replace(config, model=model))


def bench(preset: str, conv: str, precision: str, runs: int, steps: int) -> float:
    """Milliseconds per minibatch step per run."""
    t = trainer(preset, conv, precision)
    params = stack([t.init_state(seed).params for seed in range(runs)])
    buffers = stack([examples(steps, t.config.train.batch_size, seed) for seed in range(runs)])
    update = jax.jit(jax.vmap(make_update(t.network, t.optimizer, 1, t.config.train.batch_size)))
    opt_state = jax.vmap(t.optimizer.init)(params["params"])
    keys = jax.random.split(jax.random.PRNGKey(3), runs)
    jax.block_until_ready(update(params, opt_state, buffers, keys))  # compile
    best = min(timed(update, params, opt_state, buffers, keys)[1] for _ in range(2))
    return 1000 * best / steps / runs


def check_equal(preset: str) -> float:
    """‖g_patches − g_xla‖ / ‖g_xla‖: the training gradients of one minibatch with the two
    convolutions, at `highest` matmul precision (so that TF32 rounding on a GPU does not
    hide a real difference). Parameters after Adam steps are no test: Adam's first step is
    about lr · sign(gradient), so rounding flips near-zero gradients into large changes."""
    grads = []
    for conv in ("patches", "xla"):
        t = trainer(preset, conv, "float32")
        variables = t.init_state(0).params
        data = examples(1, t.config.train.batch_size)
        batch = (data.obs, data.policy, data.value)
        with jax.default_matmul_precision("highest"):
            g = jax.jit(jax.grad(lambda p, v=variables, n=t.network: loss_fn(
                n, p, v["batch_stats"], batch, jax.random.PRNGKey(1))[0]))(variables["params"])
        grads.append(jnp.concatenate([x.ravel() for x in jax.tree_util.tree_leaves(g)]))
    return float(jnp.linalg.norm(grads[0] - grads[1]) / jnp.linalg.norm(grads[1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nets", nargs="+", default=["azg512", "azg64"])
    parser.add_argument("--runs", nargs="+", type=int, default=[1, 16])
    parser.add_argument("--convs", nargs="+", choices=("patches", "xla"),
                        default=["patches", "xla"])
    parser.add_argument("--precisions", nargs="+", choices=("float32", "mixed"),
                        default=["float32", "mixed"])
    parser.add_argument("--steps", type=int, default=40, help="minibatch steps timed")
    args = parser.parse_args()
    device = jax.devices()[0]
    print(f"device: {device.platform} ({device.device_kind}), jax {jax.__version__}")
    for preset in args.nets:
        print(f"\n{preset}: patches vs XLA convolution, relative difference of the "
              f"training gradients {check_equal(preset):.1e}")
        print("| R | convolution | precision | ms per run-step | training s per run-iteration |")
        print("|---:|---|---|---:|---:|")
        for runs in args.runs:
            for conv in args.convs:
                for precision in args.precisions:
                    ms = bench(preset, conv, precision, runs, args.steps)
                    print(f"| {runs} | {conv} | {precision} | {ms:.3f} | "
                          f"{ms * PAPER_STEPS / 1000:.1f} |", flush=True)


if __name__ == "__main__":
    main()
