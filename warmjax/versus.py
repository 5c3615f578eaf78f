"""A trained network against reference opponents: `python -m warmjax.versus RUN [options]`.

See `warmjax.matches.opponents` for the settings and the output.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from warmjax import cli
from warmjax.markdown import table
from warmjax.matches.opponents import OPPONENTS, versus


def main(argv=None):
    parser = cli.ArgumentParser("versus", description=__doc__.split("\n")[0])
    parser.add_argument("run_dir")
    parser.add_argument("--opponents", nargs="+", default=["random", "untrained", "pure_mcts"],
                        choices=OPPONENTS)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--simulations", type=int, default=None)
    parser.add_argument("--playouts", type=int, default=100)
    parser.add_argument("--reuse-tree", default=None, action=argparse.BooleanOptionalAction,
                        help="tree searches keep the played move's subtree (default: the "
                             "run's search.reuse_tree)")
    parser.add_argument("--temperature-moves", type=int, default=None,
                        help="plies sampled at the start of each game (default: the run's T′)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error(f"--games must be even and at least 2 (each side first in half), "
                     f"got {args.games}")
    for flag in ("simulations", "playouts"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            parser.error(f"--{flag} must be at least 1, got {value}")
    if args.temperature_moves is not None and args.temperature_moves < 0:
        parser.error(f"--temperature-moves must be non-negative, got {args.temperature_moves}")
    if not Path(args.run_dir).is_dir():
        parser.fail(f"no run folder {args.run_dir}")
    try:
        # `versus` loads (and checks) the network before it compiles anything.
        results = versus(args.run_dir, args.opponents, args.games, args.simulations,
                         args.playouts, args.seed, args.temperature_moves, args.reuse_tree)
    except ValueError as err:
        parser.fail(err)
    print(table(["opponent", "wins", "draws", "losses", "score"],
                [[name, r["wins"], r["draws"], r["losses"], f"{r['score']:.3f}"]
                 for name, r in results.items()]), end="")
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
