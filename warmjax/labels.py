"""Draw and label positions with the exact solver: `python -m warmjax.labels [options]`.

Writes the labelled set that `python -m warmjax.oracle` scores players on (by default into
the package's data folder, where training's perfect-play probe finds it). See
`warmjax.perfect.positions` for how positions are drawn and kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from warmjax import cli
from warmjax.perfect import positions


def main(argv: Sequence[str] | None = None) -> None:
    parser = cli.ArgumentParser("labels", description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", type=int, default=6)
    parser.add_argument("--cols", type=int, default=6)
    parser.add_argument("--win-length", type=int, default=4)
    parser.add_argument("--min-ply", type=int, default=8)
    parser.add_argument("--max-ply", type=int, default=24)
    parser.add_argument("--out", type=Path, default=None,
                        help="output file (default: the package's data folder)")
    args = parser.parse_args(argv)
    if args.count < 1 or not 0 <= args.min_ply <= args.max_ply:
        parser.error("--count must be at least 1 and 0 ≤ --min-ply ≤ --max-ply")
    labelled = positions.generate(args.count, args.seed, args.rows, args.cols, args.win_length,
                                  args.min_ply, args.max_ply)
    out = args.out or positions.default_path(args.rows, args.cols, args.win_length)
    positions.save(labelled, out)
    best = labelled.best
    print(f"wrote {len(labelled)} positions to {out} "
          f"({labelled.meta['games_drawn']} random games drawn); position values: "
          f"{np.mean(best == 1):.1%} win, {np.mean(best == 0):.1%} draw, "
          f"{np.mean(best == -1):.1%} loss")


if __name__ == "__main__":
    main()
