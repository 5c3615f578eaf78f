"""Self-play speed: simulations and searched positions per second for one self-play batch.

For each network and batch size B: one compiled self-play call (`train.selfplay`) of B
Connect Four games (7×6 by default) played to the end with the search the runs use
(PUCT MCTS at m simulations, the fast profile's search settings, an untrained network),
timed once after compiling it ahead of time. Prints, per row:

- simulations per second: the network evaluations the searches made (the compute ledger's
  count, 1 + m per searched position) over the call's seconds;
- searched positions per second: the plies searched (one search each) over the seconds.

AlphaZero.jl's published figure on an RTX 2070 (Connect Four, its 1.67M-parameter ResNet)
is 23–29K simulations per second; it is printed beside as a published figure, not a
same-run ratio. `--limit`: once a row's call took longer than this many seconds, the
network's larger batches are skipped and the sweep moves on to the next network.

    JAX_PLATFORMS=cpu python benchmarks/selfplay_speed.py --batches 256 1024
    python benchmarks/selfplay_speed.py --nets small medium resnet5x128 \
        --batches 256 1024 4096 16384 --mixed-precision --json speed.json     # on a GPU
"""

from __future__ import annotations

import argparse
import json
import time

import jax
import numpy as np

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.run import compose_run_config
from warmjax.search import Inputs, make_player
from warmjax.train.selfplay import SelfPlayRules, make_selfplay

PUBLISHED = "AlphaZero.jl, RTX 2070, 1.67M-parameter ResNet: 23–29K simulations/s (published)"


def measure(env, preset: str, games: int, simulations: int, mixed: bool, search) -> dict:
    network = make_network(env.num_actions, env.observation_shape, preset,
                           mixed_precision=mixed)
    variables = network.init(jax.random.PRNGKey(0))
    player = make_player("mcts", env, network.apply, search, simulations=simulations)
    inputs, key = Inputs(variables, 0.0), jax.random.PRNGKey(2)
    tic = time.perf_counter()
    selfplay = jax.jit(make_selfplay(env, player, None, SelfPlayRules(games))).lower(
        inputs, key, 0).compile()
    first = time.perf_counter() - tic
    tic = time.perf_counter()
    games_out = jax.block_until_ready(selfplay(inputs, key, 0))
    seconds = time.perf_counter() - tic
    evaluations = int(games_out.evaluations)
    positions = int(np.asarray(games_out.valid).sum())
    return dict(net=preset, games=games, simulations=simulations, mixed_precision=mixed,
                seconds=seconds, compile_seconds=first, evaluations=evaluations,
                positions=positions, simulations_per_second=evaluations / seconds,
                positions_per_second=positions / seconds,
                parameters=sum(int(x.size) for x in jax.tree_util.tree_leaves(
                    variables["params"])))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nets", nargs="+", default=["small", "medium", "resnet5x128"])
    parser.add_argument("--batches", type=int, nargs="+", default=[256, 1024, 4096, 16384])
    parser.add_argument("--simulations", type=int, default=64, help="m")
    parser.add_argument("--cols", type=int, default=7, help="Connect Four's columns")
    parser.add_argument("--mixed-precision", action="store_true",
                        help="bfloat16 multiplications (as profile=gpu)")
    parser.add_argument("--limit", type=float, default=300.0,
                        help="skip a network's larger batches once a row's call took "
                             "longer than this many seconds")
    parser.add_argument("--json", default=None, help="also write the rows as JSON")
    args = parser.parse_args(argv)
    env = make("connect_four", cols=args.cols)
    search = compose_run_config(["+experiment=baseline_c4", "profile=fast"],
                                "/tmp/unused").search.without_noise()
    device = f"{jax.devices()[0].device_kind} ({jax.default_backend()}, " \
             f"{len(jax.devices())} device(s))"
    print(f"{device}; Connect Four 6×{args.cols}; m = {args.simulations}; "
          f"{'bfloat16' if args.mixed_precision else 'float32'} multiplications")
    print("| network | parameters | B games | seconds | simulations/s | searched positions/s |")
    print("|---|---:|---:|---:|---:|---:|", flush=True)
    rows = []
    for preset in args.nets:
        for games in sorted(args.batches):
            row = measure(env, preset, games, args.simulations, args.mixed_precision, search)
            rows.append(row)
            print(f"| {preset} | {row['parameters']:,} | {games:,} | {row['seconds']:.2f} | "
                  f"{row['simulations_per_second']:,.0f} | {row['positions_per_second']:,.0f} |",
                  flush=True)
            if row["seconds"] > args.limit:
                break
    print(f"\n{PUBLISHED}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device, "rows": rows, "published": PUBLISHED}, f, indent=2)


if __name__ == "__main__":
    main()
