"""What each registered game costs: playouts, search and a study-scale training iteration.

For every game (`--games`, default all registered ones plus Hex and Go at 7×7), on this
device:

- **playout**: ms per uniformly random playout from the first position (`search.rollouts.rollout`,
  the playouts of the rollout variants), and the mean plies;
- **search**: simulations per second of the baseline (`mcts`) and each warm-start
  enhancement (rollout, rave, rora, wro, wrora) at B = 256 root positions and m = 100
  simulations with the small network, and the compiled search's scratch memory per game
  (XLA's memory analysis) for mcts and rave;
- **iteration**: seconds of one training iteration at the CPU study's scale (c4_cpu: E = 50
  self-play games and an n = 40-game arena at m = 100, 4 epochs of minibatches of 64 over a
  full 20-iteration buffer, the small network): self-play and arena timed, training timed for
  `--train-steps` minibatches and scaled to the full count (as `iteration_time.py` does).

Where a figure at full size would take longer than `--budget` seconds, it is measured at a
smaller size and scaled linearly (B·m for the search's rate is not scaled: its sizes are
printed; self-play and arena times are scaled by the games × simulations they lack), and
the table marks it `~`. The last column says whether a CPU-scale study (15 iterations × 11
arms × 8 seeds, c4_cpu) fits a day here: "CPU" if one 15-iteration run takes under 30
minutes, otherwise "GPU".

    JAX_PLATFORMS=cpu python benchmarks/games.py                       # all (about an hour)
    JAX_PLATFORMS=cpu python benchmarks/games.py --games tic_tac_toe hex:size=7 --budget 30
    JAX_PLATFORMS=cpu python benchmarks/games.py --quick               # tiny sizes, a smoke run
"""

from __future__ import annotations

import argparse
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from common import step_buffer, warmed

from warmjax.games import make, registry
from warmjax.nets import make_network
from warmjax.search import SearchConfig, variant_search
from warmjax.search.leaf import Inputs
from warmjax.search.rollouts import rollout
from warmjax.train.iteration import Trainer
from warmjax.train.run_config import RunConfig
from warmjax.train.update import make_update
from warmjax.train.warmstart import BASELINE

VARIANTS = ("mcts", "rollout", "rave", "rora", "wro", "wrora")
EXTRA = ("hex:size=7", "go:size=7")


@dataclasses.dataclass
class Sizes:
    """The full sizes of each measurement (`--quick` shrinks them)."""

    playouts: int = 1000
    batch: int = 256
    simulations: int = 100
    games: int = 50
    arena: int = 40
    epochs: int = 4
    replay: int = 20
    train_steps: int = 20


def parse_game(text: str) -> tuple[str, dict]:
    """`name` or `name:key=value,key=value` (values read as int, float or text)."""
    name, _, rest = text.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        for kind in (int, float):
            try:
                value = kind(value)
                break
            except ValueError:
                pass
        params[key] = value
    return name, params


def label(name: str, params: dict) -> str:
    return name + "".join(f" {v}×{v}" if k == "size" else f" {k}={v}" for k, v in params.items())


def playout_cost(env, sizes: Sizes, budget: float) -> tuple[float, float, int]:
    """`(ms per playout, mean plies, batch)`: random playouts from B first positions."""

    def run(batch):
        keys = jax.random.split(jax.random.key(0), batch)
        states = jax.vmap(env.init)(keys)
        play = jax.jit(jax.vmap(lambda k, s: rollout(env, k, s, record=1)))  # 1: its length
        keys = jax.random.split(jax.random.key(1), batch)
        return warmed(play, keys, states)

    probe = min(32, sizes.playouts)
    played, seconds = run(probe)
    batch = probe
    if seconds * sizes.playouts / probe <= budget and sizes.playouts > probe:
        batch = sizes.playouts
        played, seconds = run(batch)
    return 1000 * seconds / batch, float(np.mean(np.asarray(played.length))), batch


def search_rates(env, network, params, sizes: Sizes, budget: float, ms_playout: float):
    """`{variant: (sims/s, B, m, scratch KB per game)}`; B and m shrink (B first, to 8, then
    m, to 10) where the rollout variants' playouts alone would take over `budget`."""
    batch, sims = sizes.batch, sizes.simulations
    while batch * sims * ms_playout / 1000 > budget and (batch > 8 or sims > 10):
        if batch > 8:
            batch //= 2
        else:
            sims = max(10, sims // 2)
    states = jax.vmap(env.init)(jax.random.split(jax.random.key(1), batch))
    inputs = Inputs(params, jnp.float32(0.5))
    rates = {}
    for variant in VARIANTS:
        search = jax.jit(variant_search(variant, env, network.apply,
                                        SearchConfig(simulations=sims)))
        compiled = search.lower(inputs, jax.random.key(2), states).compile()
        _, seconds = warmed(compiled, inputs, jax.random.key(2), states)
        memory = compiled.memory_analysis()
        scratch = getattr(memory, "temp_size_in_bytes", float("nan")) / batch / 2**10
        rates[variant] = (batch * sims / seconds, batch, sims, scratch)
    return rates


def iteration_seconds(name: str, params: dict, sizes: Sizes, budget: float, mcts_rate: float,
                      plies: float) -> dict:
    """Self-play, training and arena seconds of one study-scale iteration (scaled where a
    full one would take over `budget`, from the baseline search's rate)."""
    games, sims = sizes.games, sizes.simulations
    while games * plies * sims / mcts_rate > budget and (games > 2 or sims > 4):
        if games > 2:
            games = max(2, games // 4 * 2)
        else:
            sims = max(4, sims // 2)
    arena_games = max(2, sizes.arena * games // sizes.games // 2 * 2)
    config = RunConfig.from_dict({
        "game": {"name": name, "params": params},
        "model": {"preset": "small"},
        "search": {"simulations": sims, "temperature_moves": 15},
        "train": {"iterations": 15, "games": games, "replay_iterations": sizes.replay,
                  "epochs": sizes.epochs, "batch_size": 64, "learning_rate": 0.005},
        "arena": {"games": arena_games, "threshold": 0.6, "temperature_moves": 15},
    })
    trainer = Trainer(config)
    state = trainer.init_state()
    selfplay = jax.jit(trainer.selfplay)
    record, t_selfplay = warmed(selfplay, Inputs(state.params, 0.0), jax.random.key(2),
                               BASELINE)
    slot = trainer.examples(record)
    # Minibatch steps of a full buffer (E games' examples per iteration, not `games`').
    total_steps, buffer = step_buffer(config, slot, sizes.train_steps)
    total_steps = int(total_steps * sizes.games / games)
    update = jax.jit(make_update(trainer.network, trainer.optimizer, 1, 64))
    opt_state = trainer.optimizer.init(state.params["params"])
    _, t_steps = warmed(update, state.params, opt_state, buffer, jax.random.key(3))
    arena = jax.jit(trainer.arena)
    _, t_arena = warmed(arena, state.params, state.params, jax.random.key(4))
    factor = sizes.games * sizes.simulations / (games * sims)
    arena_factor = sizes.arena * sizes.simulations / (arena_games * sims)
    return {"selfplay": t_selfplay * factor, "train": t_steps / sizes.train_steps
            * total_steps, "arena": t_arena * arena_factor, "scaled": factor > 1,
            "truncated": int(np.sum(np.asarray(record.truncated)))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=None,
                        help="names, or name:key=value,... (default: every registered game, "
                             "and hex and go at 7×7)")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds a measurement may take before it is scaled down")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    args = parser.parse_args()
    sizes = Sizes(16, 8, 8, 4, 4, 1, 2, 2) if args.quick else Sizes()
    games = args.games or [*registry.names(), *EXTRA]
    print(f"device: {jax.devices()[0].device_kind}; sizes: {sizes}; budget {args.budget} s")
    header = ("| game | A | playout ms | plies | sims/s " + " | ".join(VARIANTS)
              + " | B, m | scratch KB/game mcts, rave | iteration s (self-play + train + "
              "arena) | truncated | study |")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for text in games:
        name, params = parse_game(text)
        env = make(name, **params)
        network = make_network(env.num_actions, env.observation_shape, "small")
        variables = network.init(jax.random.key(0))
        ms, plies, batch = playout_cost(env, sizes, args.budget)
        rates = search_rates(env, network, variables, sizes, args.budget, ms)
        b, m = rates["mcts"][1:3]
        it = iteration_seconds(name, params, sizes, args.budget, rates["mcts"][0], plies)
        total = it["selfplay"] + it["train"] + it["arena"]
        mark = "~" if it["scaled"] else ""
        study = "CPU" if 15 * total <= 30 * 60 else "GPU"
        print(f"| {label(name, params)} | {env.num_actions} | {ms:.3f}"
              f"{'' if batch == sizes.playouts else f' (B={batch})'} | {plies:.0f} | "
              + " | ".join(f"{rates[v][0]:,.0f}" for v in VARIANTS)
              + f" | {b}, {m} | {rates['mcts'][3]:,.0f}, {rates['rave'][3]:,.0f} | "
              f"{mark}{total:.1f} ({it['selfplay']:.1f} + {it['train']:.1f} + "
              f"{it['arena']:.1f}) | {it['truncated']} | {study} |", flush=True)


if __name__ == "__main__":
    main()
