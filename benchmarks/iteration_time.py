"""One paper-sized Othello iteration, stage by stage, against AlphaZero General's figures.

Paper sizes (method.md §11): E = 50 self-play games, m = 100 simulations, a replay buffer full
with 20 iterations of examples (with the 8 symmetries), 10 epochs of minibatches of 64, and
n = 40 arena games. Each stage is the same function the compiled iteration runs, jitted on
its own here so that it can be timed separately:

- self-play: one full call (E games to the end);
- training: `--train-steps` minibatch steps are timed and scaled to the full 10 epochs over
  the buffer (the buffer's size is that of 20 iterations of the measured self-play; a full
  run at 512 channels would take hours on a CPU, so this stage is extrapolated, and says so);
- arena: one full call (n games).

It also reports the training stage's achieved FLOP/s (XLA's cost analysis of one step) as a
fraction of this machine's float32 matmul throughput measured in the same run.

AlphaZero General on the same 2-core machine (DEVELOPERS.md): about 15 minutes per such
iteration with 64 channels and about 2.5 hours with 512.

    JAX_PLATFORMS=cpu python benchmarks/iteration_time.py              # small, azg64, azg512
    JAX_PLATFORMS=cpu python benchmarks/iteration_time.py --nets small azg64
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from common import paper_config, step_buffer, timed

from warmjax.search.leaf import Inputs
from warmjax.train.buffer import ReplayBuffer
from warmjax.train.iteration import Trainer
from warmjax.train.warmstart import BASELINE

AZG_SECONDS = {"azg64": 15 * 60, "azg512": 150 * 60}


def matmul_flops_per_second(size: int = 2048, repeats: int = 5) -> float:
    a = jnp.ones((size, size), jnp.float32)
    f = jax.jit(lambda x: x @ x)
    jax.block_until_ready(f(a))
    best = min(timed(f, a)[1] for _ in range(repeats))
    return 2 * size**3 / best


def bench(preset: str, train_steps: int) -> dict:
    config = paper_config(preset)
    trainer = Trainer(config)
    state = trainer.init_state()
    params = state.params

    selfplay = jax.jit(trainer.selfplay)
    key = jax.random.PRNGKey(1)
    jax.block_until_ready(selfplay(Inputs(params, 0.0), key, BASELINE))  # compile
    games, t_selfplay = timed(selfplay, Inputs(params, 0.0), jax.random.PRNGKey(2), BASELINE)
    slot = trainer.examples(games)
    full_buffer = int(slot.valid.sum()) * config.train.replay_iterations
    # Time `train_steps` minibatches: a buffer with exactly that many minibatches, 1 epoch.
    from warmjax.train.update import make_update

    total_steps, buffer = step_buffer(config, slot, train_steps)
    update = jax.jit(make_update(trainer.network, trainer.optimizer, 1, config.train.batch_size))
    opt_state = trainer.optimizer.init(params["params"])
    lowered = update.lower(params, opt_state, buffer, key)
    compiled = lowered.compile()
    jax.block_until_ready(compiled(params, opt_state, buffer, key))
    _, t_steps = timed(compiled, params, opt_state, buffer, jax.random.PRNGKey(3))
    t_train = t_steps / train_steps * total_steps

    # FLOPs of one training step, from XLA's cost analysis of a one-step update.
    one = ReplayBuffer(obs=buffer.obs[:64], policy=buffer.policy[:64],
                       value=buffer.value[:64], valid=buffer.valid[:64])
    cost = update.lower(params, opt_state, one, key).compile().cost_analysis()
    cost = cost[0] if isinstance(cost, (list, tuple)) else cost
    step_flops = float(cost.get("flops", float("nan")))

    arena = jax.jit(trainer.arena)
    jax.block_until_ready(arena(params, params, key))  # compile
    _, t_arena = timed(arena, params, params, jax.random.PRNGKey(4))
    return {
        "net": preset, "selfplay": t_selfplay, "train": t_train, "arena": t_arena,
        "train_steps": total_steps, "buffer": full_buffer, "step_seconds": t_steps / train_steps,
        "step_flops": step_flops, "mean_plies": float(np.mean(np.asarray(games.plies))),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nets", nargs="+", default=["small", "azg64", "azg512"])
    parser.add_argument("--train-steps", type=int, default=50,
                        help="minibatch steps timed (then scaled to the full 10 epochs)")
    args = parser.parse_args()
    peak = matmul_flops_per_second()
    print(f"device: {jax.devices()[0].device_kind}; float32 matmul: {peak / 1e9:.1f} GFLOP/s")
    print("paper-sized Othello 6x6 iteration: E=50, m=100, 20-iteration buffer, 10 epochs x "
          "bs 64, n=40 arena games\n")
    print(f"{'net':>7} {'self-play':>10} {'train*':>10} {'arena':>8} {'total':>9} "
          f"{'AZG':>8} {'speed-up':>9} {'train FLOP/s':>13} {'of matmul':>9}")
    for preset in args.nets:
        r = bench(preset, args.train_steps)
        total = r["selfplay"] + r["train"] + r["arena"]
        azg = AZG_SECONDS.get(preset)
        speedup = f"{azg / total:>8.1f}x" if azg else f"{'-':>9}"
        azg_s = f"{azg / 60:>6.0f}m" if azg else f"{'-':>7}"
        rate = r["step_flops"] / r["step_seconds"]
        print(f"{preset:>7} {r['selfplay']:>9.1f}s {r['train']:>9.1f}s {r['arena']:>7.1f}s "
              f"{total:>8.1f}s {azg_s:>8} {speedup} {rate / 1e9:>9.1f} GF/s {rate / peak:>8.0%}",
              flush=True)
        print(f"{'':>7} ({r['buffer']} examples in the buffer, {r['train_steps']} training steps "
              f"at {r['step_seconds'] * 1000:.1f} ms; games averaged {r['mean_plies']:.1f} plies)")
        # The ceiling: every training FLOP at the machine's full matmul rate, nothing else.
        floor = r["selfplay"] + r["arena"] + r["train_steps"] * r["step_flops"] / peak
        ceiling = f"; {azg / floor:.1f}x faster than AZG" if azg else ""
        print(f"{'':>7} (with training at 100% of matmul throughput: {floor:.1f}s{ceiling})")
    print("\n* training extrapolated from the timed steps to the full 10 epochs.")


if __name__ == "__main__":
    main()
