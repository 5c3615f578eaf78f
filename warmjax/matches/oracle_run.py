"""Judge a trained agent against perfect play, in any game with a labelled set.

    python -m warmjax.oracle runs/adaptive_c4/profile=fast [--simulations N]

Every player picks one move (argmax, nothing sampled) in each labelled position of the
run's game (`warmjax.perfect`: 1,000 positions of 6×6 Connect Four, Othello or Gobang from
random play, each move labelled win / draw / loss by the game's exact solver). Players: the
run's network with the run's baseline search (PUCT MCTS, or Gumbel: `search.baseline_search`) at
the run's m (or `--simulations`); its policy head alone;
the same search with an untrained network of the same architecture (drawn with `--seed`,
default the run's seed); network-free MCTS with `--playouts` random playouts (100); uniform
random. Prints a table of the optimal-move rate, the blunders by what they give away
(win→draw, win→loss, draw→loss) and the rate at which a move that wins at once (completes a
line, or ends an Othello game ahead) is taken where one exists; writes the same as JSON
(`--out`, default `<run folder>/oracle.json`).
"""

from __future__ import annotations

import time
from pathlib import Path

import jax
import numpy as np

from warmjax import cli
from warmjax.markdown import table
from warmjax.matches.agent import load_agent
from warmjax.perfect import positions
from warmjax.probe import score
from warmjax.search.players import make_player
from warmjax.train import network_io
from warmjax.train.run_folder import kept_network_folder

PLAYERS = ("search", "policy_head", "untrained_search", "pure_mcts", "random")


def oracle(run_dir, simulations=None, playouts=100, seed=None, count=None, labelled_path=None,
           players=PLAYERS, log=None, fpu=None, win_check=None, keep_actions=False,
           labelled=None, iteration=None) -> dict:
    """Returns `{"settings": ..., "players": {name: rates}}` (rates as in `score.judge`),
    and with `keep_actions` also `"actions": {name: [P] int array}`, each player's move in
    each position (not JSON: for analyses of the moves themselves).

    The positions are the game's labelled set, or the file `labelled_path`, or the set
    `labelled` itself (a `LabelledSet`, e.g. a benchmark's, `pons.load`).

    `seed` draws the untrained network and the network-free players' keys; None: the run's
    own seed, so that runs of several seeds are judged against as many untrained networks.
    `iteration`: judge the best network the run kept after that iteration (`keep_networks`)
    instead of its final one.

    Raises:
      ValueError: a run folder that is not Connect Four of the labelled size, a missing or
        corrupt network, or an unknown player.
    """
    log = log or (lambda s: None)
    unknown = [p for p in players if p not in PLAYERS]
    if unknown:
        raise ValueError(f"unknown player {unknown[0]!r}; choose from {', '.join(PLAYERS)}")
    # The run's search, one move per position: argmax from the first ply, no tree carried.
    agent = load_agent(run_dir, simulations=simulations, fpu=fpu, win_check=win_check,
                       temperature_moves=0, reuse_tree=False, iteration=iteration)
    env, network, variables, search = agent.env, agent.network, agent.variables, agent.search
    if labelled is not None:
        labelled_path = labelled.meta.get("set", "given")
    else:
        if labelled_path is None:
            labelled_path = positions.path_for(env)
            if labelled_path is None:
                rows, cols = env.board_shape
                raise ValueError(f"{run_dir} trained {env.name} {rows}x{cols}, which has no "
                                 f"labelled perfect-play positions")
        labelled = positions.load(labelled_path, env.num_actions)
    if seed is None:
        seed = agent.run.config.seed
    if count is not None:
        labelled = labelled.subset(count)
    states = score.replay(env, labelled)
    immediate = positions.immediate_wins(labelled)
    calm = positions.quiet(labelled, immediate)
    key = jax.random.PRNGKey(seed)
    key, net_key = jax.random.split(key)
    trained = agent.player
    pure = make_player("pure_mcts", env, simulations=playouts)
    rand = make_player("random", env)
    # Everything is an argument of the jitted functions: closed-over arrays would be
    # constant-folded by XLA at compile time, slowly.
    choose = {
        "search": lambda v, k, s: trained(v, k, s).action,
        "policy_head": lambda v, k, s: score.policy_head_actions(network.apply, v, s),
        "untrained_search": lambda v, k, s: trained(v, k, s).action,
        "pure_mcts": lambda v, k, s: pure(None, k, s).action,
        "random": lambda v, k, s: rand(None, k, s).action,
    }
    untrained = network.init(net_key)
    results, chosen = {}, {}
    for name in players:
        key, k_play = jax.random.split(key)
        tic = time.perf_counter()
        params = untrained if name == "untrained_search" else variables
        with cli.status(f"oracle: {name} on {len(labelled)} positions"):
            actions = jax.jit(choose[name])(params, k_play, states)
        results[name] = score.judge(labelled, actions, immediate, calm)
        results[name]["seconds"] = time.perf_counter() - tic
        chosen[name] = np.asarray(actions)
        log(f"{name}: {results[name]['optimal']:.1%} optimal")
    # Which network was judged: a report marks the file stale once the run has moved on.
    judged = network_io.network_info(Path(run_dir) if iteration is None
                                     else kept_network_folder(run_dir, iteration))
    settings = dict(run_dir=str(run_dir), iteration=judged.get("iteration"),
                    network_sha256=judged["sha256"], simulations=search.simulations,
                    playouts=playouts,
                    seed=seed, positions=len(labelled), labelled_set=str(labelled_path),
                    fpu=search.fpu, win_check=search.win_check, search=search.baseline_search)
    return {"settings": settings, "players": results, **({"actions": chosen} if keep_actions
                                                          else {})}


NAMES = {"search": "trained network + {search}", "policy_head": "policy head alone (argmax)",
         "untrained_search": "untrained network + {search}", "pure_mcts": "network-free MCTS",
         "random": "uniform random"}
# The run's search as the tables name it (`search.baseline_search`; files before it: MCTS).
SEARCH_NAMES = {"mcts": "MCTS", "gumbel": "Gumbel search"}


def markdown(result: dict) -> str:
    s = result["settings"]
    search = SEARCH_NAMES.get(s.get("search", "mcts"), s.get("search"))
    rows = []
    quiet = next((r["quiet_positions"] for r in result["players"].values()
                  if "quiet_positions" in r), None)
    for name, r in result["players"].items():
        label = NAMES[name].format(search=search)
        if name == "pure_mcts":
            label += f" ({s['playouts']})"
        elif name in ("search", "untrained_search"):
            label += f" (m = {s['simulations']})"
        calm = [] if quiet is None else [f"{r['quiet_optimal']:.1%}" if quiet else "—"]
        rows.append([label, f"{r['optimal']:.1%}", *calm, f"{r['win_to_draw']:.1%}",
                     f"{r['win_to_loss']:.1%}", f"{r['draw_to_loss']:.1%}",
                     f"{r['immediate_win_taken']:.1%} of {r['immediate_win_positions']}"
                     if r["immediate_win_positions"] else "— (none in the set)"])
    return (f"{s['positions']} positions; {search} at m = {s['simulations']} (fpu {s['fpu']}, "
            f"win check {'on' if s['win_check'] else 'off'}), network-free MCTS with "
            f"{s['playouts']} playouts.\n\n"
            + table(["player", "optimal",
                     *([] if quiet is None else [f"optimal, quiet ({quiet})"]),
                     "win→draw", "win→loss", "draw→loss", "immediate win taken"],
                    rows).rstrip("\n"))
