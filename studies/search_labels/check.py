"""How far labels made by search (`warmjax/probe/search_labels.py`) can be trusted: the
positions of solved sets labelled again by search and set against their exact labels.

    JAX_PLATFORMS=cpu python studies/search_labels/check.py --positions 200 --simulations 1000 \
        --out studies/search_labels/check.json

For each game (by default tic-tac-toe, Connect Four 6×6 and Hex 5×5, whose shipped sets are
exact) and its first `--positions` positions, it prints and writes:

- value agreement: positions whose value (win, draw or loss) the search labels give right;
- same optimal moves: positions whose set of optimal moves is exactly the solver's;
- precision: of the moves the search labels optimal, the share that are optimal;
- recall: of the optimal moves, the share the search labels optimal;
- what an oracle would misreport: the optimal-move rate of a uniformly random player and of
  pure MCTS (100 playouts, argmax) scored on the search labels against the exact ones.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import jax
import numpy as np

from warmjax.games import make
from warmjax.perfect import positions
from warmjax.probe import score
from warmjax.probe.search_labels import labels_of, move_values
from warmjax.search.players import make_player

GAMES = ("tic_tac_toe", "connect_four", "hex")
SETS = {"tic_tac_toe": "tic_tac_toe_3x3.json", "connect_four": "connect_four_6x6.json",
        "hex": "hex_5x5.json"}


def compare(exact: positions.LabelledSet, labels: np.ndarray, actions: np.ndarray) -> dict:
    """The agreement figures of the module docstring, for search `labels [P, A]` of the
    positions of `exact`, and `actions [P]` of a player scored on both."""
    legal = exact.values != positions.ILLEGAL
    truth, guess = exact.optimal & legal, (labels == labels.max(axis=1, keepdims=True)) & legal
    rows = np.arange(len(exact))
    return {
        "positions": len(exact),
        "value_agreement": float(np.mean(labels.max(axis=1) == exact.best)),
        "same_optimal_moves": float(np.mean(np.all(truth == guess, axis=1))),
        "precision": float((truth & guess).sum() / guess.sum()),
        "recall": float((truth & guess).sum() / truth.sum()),
        "random_rate_exact": positions.random_move_rate(exact.values),
        "random_rate_search": positions.random_move_rate(np.where(legal, labels, -2)),
        "pure_mcts_rate_exact": float(np.mean(truth[rows, actions])),
        "pure_mcts_rate_search": float(np.mean(guess[rows, actions])),
    }


def check(game: str, count: int, simulations: int, seed: int) -> dict:
    exact = positions.load(positions.DATA_DIR / SETS[game]).subset(count)
    env = make(exact.game_name, **exact.game_params)
    tic = time.perf_counter()
    moves = [list(m[:n]) for m, n in zip(exact.moves, exact.plies)]
    labels = labels_of(move_values(env, moves, simulations, seed))
    seconds = time.perf_counter() - tic
    pure = make_player("pure_mcts", env, simulations=100, temperature_moves=0)
    states = score.replay(env, exact)
    actions = np.asarray(jax.jit(lambda k, s: pure(None, k, s).action)(
        jax.random.PRNGKey(seed), states))
    return {"game": game, "simulations": simulations, "seconds": round(seconds, 1),
            **compare(exact, labels, actions)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    results = [check(g, args.positions, args.simulations, args.seed) for g in args.games]
    print("| game | positions | m | value right | same optimal set | precision | recall | "
          "random: exact → search | pure MCTS-100: exact → search |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['game']} | {r['positions']} | {r['simulations']} | "
              f"{r['value_agreement']:.1%} | {r['same_optimal_moves']:.1%} | "
              f"{r['precision']:.1%} | {r['recall']:.1%} | {r['random_rate_exact']:.1%} → "
              f"{r['random_rate_search']:.1%} | {r['pure_mcts_rate_exact']:.1%} → "
              f"{r['pure_mcts_rate_search']:.1%} |")
    if args.out:
        args.out.write_text(json.dumps({"command": "python studies/search_labels/check.py "
                                        f"--positions {args.positions} --simulations "
                                        f"{args.simulations} --seed {args.seed}",
                                        "games": results}, indent=2) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
