"""Search throughput: simulations per second for every variant, against mctx.

For each network and batch size B this times one jitted search call (m simulations on B
root positions) for each warmjax variant, and `mctx.muzero_policy` configured to the same
AlphaZero PUCT on the same network, game and positions. It prints simulations per second
(B·m / seconds), the ratio to mctx and the ratio to our baseline (`mcts`, listed first).
With `--step-playouts` the playout variants are also timed with playouts through the game's
`step` (`step_rollout`) instead of its playout rules.

mctx is set up to match AlphaZero's Q + c·P·√N/(1+n): pb_c_init = c, a huge pb_c_base,
raw Q with 0 for unvisited edges, no Dirichlet noise, illegal logits at the dtype minimum
in the recurrent function (mctx masks only the root), discount −1 per ply and 0 at terminals.

Run (about 10 minutes on a 2-core CPU with the defaults):

    JAX_PLATFORMS=cpu python benchmarks/search_throughput.py
    JAX_PLATFORMS=cpu python benchmarks/search_throughput.py --nets azg512 --batches 1 50 256 \
        --variants mcts

For reference, AlphaZero General's sequential MCTS manages about 250 simulations/s with
its 512-channel network and about 2,000/s with 64 channels on the same 2-core machine.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import mctx

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.search import SearchConfig, variant_search
from warmjax.search.leaf import Inputs, network_leaf
from warmjax.search.variants import SEARCH_VARIANTS


def mctx_search(env, apply_fn, simulations, c_puct):
    """`mctx.muzero_policy` as AlphaZero PUCT on a pgx-style game."""

    def recurrent_fn(params, rng_key, action, state):
        del rng_key
        player = state.current_player
        state = jax.vmap(env.step)(state, action)
        logits, value = apply_fn(params, state.observation)
        logits = jnp.where(state.legal_action_mask, logits, jnp.finfo(logits.dtype).min)
        reward = jnp.take_along_axis(state.rewards, player[:, None], axis=1)[:, 0]
        value = jnp.where(state.terminated, 0.0, value)
        discount = jnp.where(state.terminated, 0.0, -1.0)
        out = mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits,
                                     value=value)
        return out, state

    def raw_q(tree, node_index):
        q = tree.qvalues(node_index)
        return jnp.where(tree.children_visits[node_index] > 0, q, 0.0)

    def search(params, key, states):
        logits, value = apply_fn(params, states.observation)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=states)
        return mctx.muzero_policy(
            params, key, root, recurrent_fn, simulations,
            invalid_actions=~states.legal_action_mask,
            qtransform=raw_q, dirichlet_fraction=0.0, pb_c_init=c_puct, pb_c_base=1e12,
        )

    return search


def time_call(fn, *args, repeats):
    jax.block_until_ready(fn(*args))  # compile and warm up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="othello")
    parser.add_argument("--nets", nargs="+", default=["small", "azg512"])
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 50, 256, 1024])
    parser.add_argument("--variants", nargs="+", default=list(SEARCH_VARIANTS))
    parser.add_argument("--sims", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--step-playouts", action="store_true",
                        help="also time the playout variants with playouts through `env.step` "
                             "(`step_rollout`, the code before the games' playout rules)")
    parser.add_argument("--no-mctx", action="store_true", help="skip the mctx reference")
    parser.add_argument("--max-sims-512", type=int, default=30_000,
                        help="skip azg512 runs with more than B·m simulations (CPU time)")
    args = parser.parse_args()

    env = make(args.game)
    # The same game with its playout rules hidden: playouts go through `env.step`.
    step_env = make(args.game)
    step_env.playout_rules = lambda: None
    print(f"game {args.game}, m = {args.sims}, device {jax.devices()[0].device_kind}")
    header = (f"{'net':>8} {'B':>5} {'variant':>15} {'sims/s':>10} {'vs mctx':>8} "
              f"{'vs mcts':>9}")
    print(header)
    print("-" * len(header))
    for net_name in args.nets:
        net = make_network(env.num_actions, env.observation_shape, net_name)
        params = net.init(jax.random.key(0))
        for batch in args.batches:
            if net_name == "azg512" and batch * args.sims > args.max_sims_512:
                print(f"{net_name:>8} {batch:>5} {'(skipped: raise --max-sims-512)':>35}")
                continue
            states = jax.vmap(env.init)(jax.random.split(jax.random.key(1), batch))
            key = jax.random.key(2)
            total = batch * args.sims
            mctx_rate = float("nan")
            if not args.no_mctx:
                reference = jax.jit(mctx_search(env, net.apply, args.sims, 1.0))
                mctx_rate = total / time_call(reference, params, key, states,
                                              repeats=args.repeats)
                print(f"{net_name:>8} {batch:>5} {'mctx':>15} {mctx_rate:>10.0f} {1.0:>8.2f}")
            baseline = None
            runs = [(v, env, v) for v in args.variants]
            if args.step_playouts:
                runs += [(v, step_env, f"{v}/step") for v in args.variants
                         if SEARCH_VARIANTS[v].leaf is not network_leaf]
            for variant, game, label in runs:
                config = SearchConfig(simulations=args.sims)
                search = jax.jit(variant_search(variant, game, net.apply, config))
                seconds = time_call(search, Inputs(params, jnp.float32(0.5)), key, states,
                                    repeats=args.repeats)
                rate = total / seconds
                baseline = rate if variant == "mcts" and baseline is None else baseline
                versus = f"{rate / baseline:>9.2f}" if baseline else f"{'':>9}"
                print(f"{net_name:>8} {batch:>5} {label:>15} {rate:>10.0f} "
                      f"{rate / mctx_rate:>8.2f} {versus}", flush=True)


if __name__ == "__main__":
    main()
