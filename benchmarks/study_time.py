"""The papers' study on this device: seconds per run-iteration with R runs in one program.

The study is 3 games x (baseline + 5 enhancements, fixed and adaptive) x 8 seeds, about 144
runs of 100 iterations (method.md §11). `warmjax.train.group` runs R of them as one vmapped
program. This benchmark measures the paper-sized Othello 6x6 iteration's stages with the
same functions vmapped over R runs, for each network and each R:

- self-play: one call of E games per run, R runs at once;
- training: `--train-steps` minibatch steps per run (all R at once), scaled to the full
  10 epochs over a full 20-iteration buffer (as `iteration_time.py` does for one run);
- arena: one call of n games per run.

It prints seconds per run-iteration (the R-run iteration divided by R), the speed-up over
R = 1 measured in the same run, and the projected time of the 144-run study at that R.
On a CPU the paper sizes take hours: `--games`, `--simulations` and `--arena-games` shrink
them (the output says so), and R stays small.

    python benchmarks/study_time.py                                   # a GPU: R = 1, 8, 16, 32
    JAX_PLATFORMS=cpu python benchmarks/study_time.py --nets azg64 --runs 1 2 4 \
        --games 4 --simulations 8 --arena-games 4 --train-steps 10
    python benchmarks/study_time.py --precision float32 mixed     # bf16's effect on speed
"""

from __future__ import annotations

import argparse
import dataclasses

import jax
from common import paper_config, step_buffer, timed

from warmjax.search.leaf import Inputs
from warmjax.train.group import stack
from warmjax.train.iteration import Trainer
from warmjax.train.update import make_update
from warmjax.train.warmstart import BASELINE

STUDY_RUNS = 144
ITERATIONS = 100


def sized(preset: str, games: int | None, simulations: int | None, arena_games: int | None,
          mixed_precision: bool = False):
    config = paper_config(preset)
    config = dataclasses.replace(config, model=dataclasses.replace(
        config.model, mixed_precision=mixed_precision))
    train = dataclasses.replace(config.train, games=games or config.train.games)
    search = dataclasses.replace(config.search,
                                 simulations=simulations or config.search.simulations)
    arena = dataclasses.replace(config.arena, games=arena_games or config.arena.games)
    return dataclasses.replace(config, train=train, search=search, arena=arena)


def bench(config, runs: int, train_steps: int) -> dict:
    trainer = Trainer(config)
    params = stack([trainer.init_state(seed).params for seed in range(runs)])
    keys = jax.random.split(jax.random.PRNGKey(1), runs)

    selfplay = jax.jit(jax.vmap(trainer.selfplay, in_axes=(Inputs(0, None), 0, None)))
    jax.block_until_ready(selfplay(Inputs(params, 0.0), keys, BASELINE))  # compile
    games, t_selfplay = timed(selfplay, Inputs(params, 0.0),
                              jax.random.split(jax.random.PRNGKey(2), runs), BASELINE)
    first = jax.tree_util.tree_map(lambda x: x[0], games)
    total_steps, one = step_buffer(config, trainer.examples(first), train_steps)
    buffers = stack([one] * runs)
    update = jax.jit(jax.vmap(make_update(trainer.network, trainer.optimizer, 1,
                                          config.train.batch_size)))
    opt_state = jax.vmap(trainer.optimizer.init)(params["params"])
    jax.block_until_ready(update(params, opt_state, buffers, keys))  # compile
    _, t_steps = timed(update, params, opt_state, buffers,
                       jax.random.split(jax.random.PRNGKey(3), runs))
    t_train = t_steps / train_steps * total_steps

    arena = jax.jit(jax.vmap(trainer.arena))
    jax.block_until_ready(arena(params, params, keys))  # compile
    _, t_arena = timed(arena, params, params, jax.random.split(jax.random.PRNGKey(4), runs))
    total = t_selfplay + t_train + t_arena
    return {"selfplay": t_selfplay / runs, "train": t_train / runs, "arena": t_arena / runs,
            "per_run_iteration": total / runs, "step_ms": 1000 * t_steps / train_steps / runs,
            "train_steps": total_steps}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nets", nargs="+", default=["azg512", "azg64"])
    parser.add_argument("--runs", nargs="+", type=int, default=[1, 8, 16, 32])
    parser.add_argument("--train-steps", type=int, default=50,
                        help="minibatch steps timed per run (then scaled to the full 10 epochs)")
    parser.add_argument("--games", type=int, default=None, help="E (default: the papers' 50)")
    parser.add_argument("--simulations", type=int, default=None,
                        help="m (default: the papers' 100)")
    parser.add_argument("--arena-games", type=int, default=None,
                        help="n (default: the papers' 40)")
    parser.add_argument("--precision", nargs="+", choices=("float32", "mixed"),
                        default=["float32"],
                        help="float32 (the papers') and/or mixed (model.mixed_precision)")
    args = parser.parse_args()
    if min(args.runs) < 1 or args.train_steps < 1:
        parser.error("--runs and --train-steps must be positive")
    device = jax.devices()[0]
    shrunk = any(x is not None for x in (args.games, args.simulations, args.arena_games))
    print(f"device: {device.platform} ({device.device_kind}), jax {jax.__version__}")
    print("Othello 6x6, 20-iteration buffer, 10 epochs x bs 64"
          + (" — sizes SHRUNK from the papers' (E, m, n):" if shrunk else ", the papers' sizes:"))
    for preset, precision in [(p, q) for p in args.nets for q in args.precision]:
        config = sized(preset, args.games, args.simulations, args.arena_games,
                       mixed_precision=precision == "mixed")
        print(f"\n{preset}, {precision}: E = {config.train.games}, "
              f"m = {config.search.simulations}, n = {config.arena.games}")
        print("| R | self-play s | train s* | arena s | s per run-iteration | vs R = 1 "
              "| ms per run-step | 144-run study |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        alone = None
        for runs in args.runs:
            r = bench(config, runs, args.train_steps)
            alone = alone or (r["per_run_iteration"] if runs == 1 else None)
            ratio = f"{alone / r['per_run_iteration']:.2f}x" if alone else "—"
            study_h = r["per_run_iteration"] * ITERATIONS * STUDY_RUNS / 3600
            print(f"| {runs} | {r['selfplay']:.2f} | {r['train']:.2f} | {r['arena']:.2f} | "
                  f"{r['per_run_iteration']:.2f} | {ratio} | {r['step_ms']:.3f} | "
                  f"{study_h:.1f} h |", flush=True)
        print(f"(per run: {r['train_steps']} training steps per full-buffer iteration)")
    print("\n* training extrapolated from the timed steps to the full 10 epochs over the buffer;"
          " all columns per run (the R-run time divided by R).")


if __name__ == "__main__":
    main()
