"""Self-play cost when the enhancement plays the baseline (adaptive warm start).

Each side searches only the half of the games where it is to move (`search.game_loop.side_moves`).
The reference, measured in the same run, is the way self-play used to do it: both players
search the whole batch every ply and each game keeps its own side's move. The baseline-only
self-play is printed too, as the floor. All three play the same number of games with the
same players and network, through the same game loop.

    JAX_PLATFORMS=cpu python benchmarks/selfplay_sides.py
    python benchmarks/selfplay_sides.py --game othello --games 256 --simulations 100 \
        --enhancement rollout --preset azg512      # on a GPU
"""

from __future__ import annotations

import argparse
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.search import game_loop
from warmjax.search.leaf import Inputs
from warmjax.search.players import Move, make_player
from warmjax.train.selfplay import SelfPlayRules, make_selfplay
from warmjax.train.warmstart import BASELINE, ENHANCED_VS_BASELINE


def whole_batch_reference(env, baseline, enhancement, num_games):
    """Self-play games as before: both players search all games, each game keeps its side's
    move (the enhancement first in games [0, E/2))."""
    first_half = jnp.arange(num_games) < num_games // 2

    class BothSearch(NamedTuple):
        params: Any

        def start(self, states):
            return ()

        def move(self, key, states, ply, memories):
            key, k_enh, k_base = jax.random.split(key, 3)
            enh_a, enh_p = enhancement(self.params, k_enh, states)[:2]
            base_a, base_p = baseline(self.params, k_base, states)[:2]
            use_enh = (ply % 2 == 0) == first_half
            action = jnp.where(use_enh, enh_a, base_a)
            policy = jnp.where(use_enh[:, None], enh_p, base_p)
            value = jnp.zeros(action.shape, jnp.float32)  # not compared
            return key, Move(action, policy, value, memories), ~states.terminated

        def follow(self, memories, action):
            return memories

    def selfplay(params, key):
        key, init_key = jax.random.split(key)
        states = jax.vmap(env.init)(jax.random.split(init_key, num_games))
        return game_loop.play_games(env, states, key, BothSearch(params), keep_examples=True)

    return selfplay


def timed(fn, *args, repeats):
    jax.block_until_ready(fn(*args))  # compile
    start = time.perf_counter()
    for _ in range(repeats):
        jax.block_until_ready(fn(*args))
    return (time.perf_counter() - start) / repeats


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--enhancement", default="rollout")
    parser.add_argument("--preset", default="small")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    env = make(args.game)
    net = make_network(env.num_actions, env.observation_shape, args.preset)
    params = net.init(jax.random.PRNGKey(0))
    kwargs = dict(simulations=args.simulations, temperature_moves=15)
    baseline = make_player("mcts", env, net.apply, **kwargs)
    enhancement = make_player(args.enhancement, env, net.apply, **kwargs)
    selfplay = jax.jit(make_selfplay(env, baseline, enhancement, SelfPlayRules(args.games)))
    reference = jax.jit(whole_batch_reference(env, baseline, enhancement, args.games))
    key = jax.random.PRNGKey(1)

    versus, alone = jnp.int32(ENHANCED_VS_BASELINE), jnp.int32(BASELINE)  # traced, as in training
    sides = timed(selfplay, Inputs(params, 0.5), key, versus, repeats=args.repeats)
    both = timed(reference, params, key, repeats=args.repeats)
    base = timed(selfplay, Inputs(params, 0.5), key, alone, repeats=args.repeats)
    print(f"{args.game}, E = {args.games} games, m = {args.simulations}, {args.enhancement} vs "
          f"mcts, network '{args.preset}', {jax.devices()[0].platform}")
    print("| self-play | seconds per call | vs whole-batch reference |\n|---|---:|---:|")
    print(f"| {args.enhancement} vs baseline, each side its own half | {sides:.2f} | "
          f"{sides / both:.2f} |")
    print(f"| {args.enhancement} vs baseline, both search every game (reference) | {both:.2f} "
          f"| 1.00 |")
    print(f"| baseline only | {base:.2f} | {base / both:.2f} |")


if __name__ == "__main__":
    main()
