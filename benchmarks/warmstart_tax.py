"""The warm-start tax of a vmapped group: a group of runs whose warm start is over, against
the baseline group of the same seeds and settings, iteration for iteration, in one process.

Three groups of R runs (seeds 0 … R−1), each one compiled, vmapped iteration
(`group.vmapped_iteration`, as `hydra/launcher=vmap` trains them):

- `baseline`: `warmstart.mode=none`;
- `switched`: the main job's adaptive warm start with Rollout, every run already switched
  (its state's `switched` set), so that it plays the baseline's self-play from iteration 1;
- `switched, no group kind`: the same program vmapped without the runs' axis name, as
  every group was before: self-play's switch on the runs' batched kinds runs every branch
  (Rollout's playouts and the versus games) and selects. Off with `--no-old`.

The groups' iterations are timed in turn (baseline, switched, old, baseline, …), so that the
machine's load falls on all alike, after one untimed warm-up iteration each. Prints each
iteration's seconds and the ratios of the means over the timed iterations; a ratio is
against the baseline group in the same run. Nothing else should run meanwhile.

    JAX_PLATFORMS=cpu python benchmarks/warmstart_tax.py     # Connect Four 6×6, E=48, m=16
    python benchmarks/warmstart_tax.py --overrides game=hex_7 --games 256 --simulations 64
"""

from __future__ import annotations

import argparse
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.run import compose_run_config
from warmjax.train import group
from warmjax.train.iteration import Trainer


def build(overrides: list[str], runs: int, switched: bool, tagged: bool, root: str):
    """`(step, state)`: the compiled vmapped iteration of a group of `runs` seeds and its
    stacked first state (every run switched, for an adaptive group)."""
    config = compose_run_config(overrides, f"{root}/run")
    trainer = Trainer(config)
    states = [trainer.init_state(seed) for seed in range(runs)]
    if switched:
        states = [s.replace(switched=jnp.bool_(True)) for s in states]
    state = group.stack(states)
    iprimes = jnp.full((runs,), config.warmstart.iprime, jnp.int32)
    iteration = (group.vmapped_iteration(trainer.iteration) if tagged
                 else jax.vmap(trainer.iteration))
    tic = time.perf_counter()
    compiled = jax.jit(iteration, donate_argnums=0).lower(state, iprimes).compile()
    print(f"  compiled in {time.perf_counter() - tic:.1f} s", flush=True)
    return (lambda s: compiled(s, iprimes)), state


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--overrides", nargs="*", default=[],
                        help="run settings over +experiment=adaptive_c4 profile=fast")
    parser.add_argument("--runs", type=int, default=2, help="runs per group (seeds 0 … R−1)")
    parser.add_argument("--games", type=int, default=48, help="E")
    parser.add_argument("--simulations", type=int, default=16, help="m")
    parser.add_argument("--iterations", type=int, default=4, help="timed iterations each")
    parser.add_argument("--old", default=True, action=argparse.BooleanOptionalAction,
                        help="also time the group as it was, without its axis name")
    args = parser.parse_args(argv)
    common = ["+experiment=adaptive_c4", "profile=fast", f"train.games={args.games}",
              f"search.simulations={args.simulations}", "probe.every=0", "tensorboard=false",
              *args.overrides]
    groups = {"baseline": ([*common, "warmstart.mode=none"], False, True),
              "switched": (common, True, True)}
    if args.old:
        groups["switched, no group kind"] = (common, True, False)
    print(f"{jax.devices()[0].device_kind} ({jax.default_backend()}); {args.runs} runs a group; "
          f"{' '.join(common)}")
    built = {}
    with tempfile.TemporaryDirectory() as root:
        for name, (overrides, switched, tagged) in groups.items():
            print(f"{name}:", flush=True)
            built[name] = list(build(overrides, args.runs, switched, tagged, root))
        seconds = {name: [] for name in groups}
        for it in range(args.iterations + 1):
            for name, pair in built.items():
                step, state = pair
                tic = time.perf_counter()
                state, metrics = step(state)
                jax.block_until_ready(metrics)
                pair[1] = state
                if it > 0:  # the first is a warm-up
                    seconds[name].append(time.perf_counter() - tic)
    base = float(np.mean(seconds["baseline"]))
    print(f"\nseconds per iteration (iterations 2–{args.iterations + 1}; the first untimed):")
    for name, values in seconds.items():
        mean = float(np.mean(values))
        print(f"  {name:24s} " + "  ".join(f"{v:6.2f}" for v in values)
              + f"   mean {mean:6.2f}   ×{mean / base:.2f} the baseline group")


if __name__ == "__main__":
    main()
