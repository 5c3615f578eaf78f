"""Draw and label positions with an exact solver: `python -m warmjax.labels [options]`.

    python -m warmjax.labels --count 1000 --seed 0                       # Connect Four 6×6
    python -m warmjax.labels --game othello --count 1000 --seed 0        # 12–20 empty cells
    python -m warmjax.labels --game gobang --count 1000 --seed 0         # plies 8–20
    python -m warmjax.labels --game hex --size 5 --count 1000 --seed 0   # 10–16 empty cells

A game without an exact solver that registers search labels (`probe/search_labels.py`)
is labelled by a deep network-free search of each move instead (`--simulations`, 1000 by
default): estimates, whose agreement with perfect play `studies/search_labels/check.py`
measures on games that have a solver.

Writes the labelled set that `python -m warmjax.oracle` scores players on (by default into
the package's data folder, where training's perfect-play probe finds it). See
`warmjax.perfect.positions` for how positions are drawn and kept.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from warmjax import cli
from warmjax.games import make, registry
from warmjax.perfect import positions


def labelled_games() -> tuple[str, ...]:
    """The registered games with a way to label positions (`GameSpec.labels`: an exact
    solver, or search)."""
    return tuple(spec.name for spec in registry.specs() if spec.labels is not None)


def main(argv: Sequence[str] | None = None) -> None:
    parser = cli.ArgumentParser("labels", description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="connect_four",
                        help=f"a game with labels: {', '.join(labelled_games())}, or one "
                             "that --module registers")
    parser.add_argument("--module", default=None,
                        help="import this module first: a game kept outside warmjax "
                             "(on PYTHONPATH), as game.module in a run")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", type=int, default=None, help="Connect Four")
    parser.add_argument("--cols", type=int, default=None, help="Connect Four")
    parser.add_argument("--size", type=int, default=None, help="Othello, Gobang and Hex")
    parser.add_argument("--win-length", type=int, default=None, help="Connect Four and Gobang")
    parser.add_argument("--min-ply", type=int, default=None, help="games labelled by ply")
    parser.add_argument("--max-ply", type=int, default=None, help="games labelled by ply")
    parser.add_argument("--min-empties", type=int, default=None,
                        help="games labelled by empty cells")
    parser.add_argument("--max-empties", type=int, default=None,
                        help="games labelled by empty cells")
    parser.add_argument("--simulations", type=int, default=None,
                        help="games labelled by search: each move's search (default 1000)")
    parser.add_argument("--out", type=Path, default=None,
                        help="output file (default: the package's data folder)")
    args = parser.parse_args(argv)
    try:
        if args.module:
            registry.import_game_module(args.module)
        spec = registry.get(args.game)
    except (ValueError, ImportError) as err:
        parser.fail(err)
    labels = spec.labels
    if labels is None:
        parser.fail(f"{args.game} has no way to label positions: register it with "
                    "GameSpec(labels=...), an exact solver or search (docs/experiments.md, "
                    "\"Your own game\")")
    # The board settings the game takes, over its registered defaults.
    params = {**spec.params, **{k: getattr(args, k) for k in spec.params
                                if getattr(args, k, None) is not None}}
    given = ((args.min_empties, args.max_empties) if labels.depth == "empties" else
             (args.min_ply, args.max_ply))
    low = labels.low if given[0] is None else given[0]
    high = labels.high if given[1] is None else given[1]
    if args.count < 1 or not 0 <= low <= high:
        parser.error("--count must be at least 1 and the depths 0 ≤ min ≤ max")
    settings = {}
    if args.simulations is not None:
        if not labels.by_search:
            parser.error(f"--simulations is for games labelled by search; {args.game} has an "
                         "exact solver")
        if args.simulations < 1:
            parser.error("--simulations must be at least 1")
        settings["simulations"] = args.simulations
    out = args.out or positions.DATA_DIR / make(args.game, **params).labelled_set_name
    cli.check_writable(out, parser)  # before the work, not after it
    tic = time.perf_counter()
    try:
        labelled = labels.draw(args.game, args.count, args.seed, params, low, high, log=print,
                               **settings)
    except ValueError as err:
        parser.fail(err)
    short = positions.exhausted_line(labelled, args.count)
    if short is not None:
        print(short)
    positions.save(labelled, out)
    best = labelled.best
    print(f"wrote {len(labelled)} positions to {out} in {time.perf_counter() - tic:.0f} s "
          f"({labelled.meta['games_drawn']} random games drawn); position values: "
          f"{np.mean(best == 1):.1%} win, {np.mean(best == 0):.1%} draw, "
          f"{np.mean(best == -1):.1%} loss"
          + (f" (labelled by search: {labelled.meta['labels']})" if labels.by_search
             else ""))


if __name__ == "__main__":
    main()
