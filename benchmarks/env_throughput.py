"""Random-play throughput of warmjax's games, and of ours against pgx's at pgx's sizes.

Run from the repository root (CPU shown; drop JAX_PLATFORMS to use an accelerator):

    JAX_PLATFORMS=cpu python benchmarks/env_throughput.py            # full table
    JAX_PLATFORMS=cpu python benchmarks/env_throughput.py --quick    # smoke run, ~1 min
    JAX_PLATFORMS=cpu python benchmarks/env_throughput.py --batch 1 64 --games othello

What is timed, identically for every environment: one jitted function that runs K steps of
B games in a `lax.fori_loop`. Each step every game picks a uniformly random legal action
with its own key, all games step at once (`vmap(env.step)`), and games that have ended are
replaced by fresh ones (`vmap(env.init)` with their own keys), so every step counts. The
function is compiled and run once before timing; the figure is the best of `--repeats`
timed calls, in game steps per second (B * K / seconds).

Rows:

- our three games at the papers' 6x6 size (othello, connect_four, gobang);
- ours against pgx in the same run, batch and harness: `make("othello", size=8)` vs
  `pgx.make("othello")`, `make("connect_four", rows=6, cols=7)` vs
  `pgx.make("connect_four")`, with the ratio ours / pgx (> 1 means ours is faster).

A game whose module is not written yet is reported as missing and skipped.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import pgx

from warmjax.games import make

BATCHES = (1, 64, 1024, 4096)
# (label, our game and settings, pgx env id or None)
CASES = (
    ("othello 6x6", ("othello", {"size": 6}), None),
    ("connect_four 6x6", ("connect_four", {"rows": 6, "cols": 6}), None),
    ("gobang 6x6", ("gobang", {"size": 6}), None),
    ("othello 8x8", ("othello", {"size": 8}), "othello"),
    ("connect_four 6x7", ("connect_four", {"rows": 6, "cols": 7}), "connect_four"),
)


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """A uniformly random legal action of one game: `[A] bool -> [] int32`."""
    num_legal = jnp.sum(legal_action_mask, dtype=jnp.int32)
    pick = jnp.floor(jax.random.uniform(key) * num_legal).astype(jnp.int32)
    # The action whose running count of legal actions first exceeds `pick`.
    rank = jnp.cumsum(legal_action_mask, dtype=jnp.int32)
    return jnp.argmax(legal_action_mask & (rank > pick)).astype(jnp.int32)


def make_runner(env, batch: int, num_steps: int):
    """Jitted `(states [B], key) -> (states [B], key)` playing `num_steps` random steps."""

    def one_game(state, key):
        act_key, init_key = jax.random.split(key)
        state = env.step(state, random_legal_action(act_key, state.legal_action_mask))
        fresh = env.init(init_key)
        return jax.tree.map(lambda f, s: jnp.where(state.terminated, f, s), fresh, state)

    def body(_, carry):
        states, key = carry
        key, step_key = jax.random.split(key)
        states = jax.vmap(one_game)(states, jax.random.split(step_key, batch))
        return states, key

    def run(states, key):
        return jax.lax.fori_loop(0, num_steps, body, (states, key))

    return jax.jit(run)


def steps_per_second(envs, batch: int, num_steps: int, repeats: int, seed: int = 0):
    """Best-of-`repeats` game steps per second of `make_runner(env, batch, num_steps)`.

    With several envs the timed calls alternate between them, so that load from other
    processes falls on all of them alike. Returns one figure per env.
    """
    init_key, run_key = jax.random.split(jax.random.key(seed))
    jobs = []
    for env in envs:
        states = jax.jit(jax.vmap(env.init))(jax.random.split(init_key, batch))
        run = make_runner(env, batch, num_steps)
        states, _ = jax.block_until_ready(run(states, run_key))  # compile; leave the start
        jobs.append((run, states))
    best = [float("inf")] * len(envs)
    for i in range(repeats):
        key = jax.random.fold_in(run_key, i)
        for j, (run, states) in enumerate(jobs):
            start = time.perf_counter()
            jax.block_until_ready(run(states, key))
            best[j] = min(best[j], time.perf_counter() - start)
    return [batch * num_steps / seconds for seconds in best]


def num_steps_for(batch: int, work: int, min_steps: int) -> int:
    """Steps per call so that a call does about `work` game steps (at least `min_steps`)."""
    return max(min_steps, work // batch)


def build(name: str, params: dict):
    try:
        return make(name, **params)
    except ModuleNotFoundError as err:
        if err.name == f"warmjax.games.{name}":
            return None
        raise


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--batch", type=int, nargs="+", default=None, help="batch sizes (default 1 64 1024 4096)"
    )
    parser.add_argument(
        "--work", type=int, default=1 << 17, help="game steps per timed call (default 131072)"
    )
    parser.add_argument("--min-steps", type=int, default=32, help="fewest steps per call")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls; best is shown")
    parser.add_argument(
        "--games", nargs="+", default=None, help="only rows whose label starts with these"
    )
    parser.add_argument(
        "--quick", action="store_true", help="batches 1 and 256, little work, 2 repeats"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.work, args.min_steps, args.repeats = 1 << 12, 8, 2
        args.batch = args.batch or [1, 256]
    args.batch = args.batch or list(BATCHES)

    print(f"devices: {jax.devices()}  jax {jax.__version__}  pgx {pgx.__version__}")
    print(f"work per call ~{args.work} game steps, best of {args.repeats}\n")
    header = (
        f"{'game':<18} {'batch':>6} {'steps':>6} {'ours steps/s':>14} "
        f"{'pgx steps/s':>14} {'ours/pgx':>9}"
    )
    print(header)
    print("-" * len(header))
    for label, (name, params), pgx_id in CASES:
        if args.games and not any(label.startswith(g) for g in args.games):
            continue
        ours = build(name, params)
        if ours is None:
            print(f"{label:<18} (warmjax.games.{name} not written yet)")
            continue
        theirs = pgx.make(pgx_id) if pgx_id else None
        for batch in args.batch:
            num_steps = num_steps_for(batch, args.work, args.min_steps)
            envs = [ours] if theirs is None else [ours, theirs]
            figures = steps_per_second(envs, batch, num_steps, args.repeats)
            line = f"{label:<18} {batch:>6} {num_steps:>6} {figures[0]:>14,.0f}"
            if theirs is not None:
                line += f" {figures[1]:>14,.0f} {figures[0] / figures[1]:>8.2f}x"
            print(line, flush=True)


if __name__ == "__main__":
    main()
