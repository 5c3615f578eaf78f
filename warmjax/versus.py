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
from warmjax.matches.tournament_folder import VERSUS_FILE


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
    parser.add_argument("--out", default=None,
                        help=f"JSON output (default: the run folder's {VERSUS_FILE})")
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
    out = Path(args.out) if args.out else Path(args.run_dir) / VERSUS_FILE
    cli.check_writable(out, parser)  # before the games, which would be lost after them
    try:
        # `versus` loads (and checks) the network before it compiles anything.
        result = versus(args.run_dir, args.opponents, args.games, args.simulations,
                        args.playouts, args.seed, args.temperature_moves, args.reuse_tree,
                        status=cli.status)
    except ValueError as err:
        parser.fail(err)
    print(f"the agent: {describe(result['agent'])}; {args.games} games per opponent, each "
          "side first in half")
    rows = []
    for name, r in result["opponents"].items():
        low, high = r["score_ci95"]
        rows.append([name, describe(r["settings"]), r["wins"], r["draws"], r["losses"],
                     f"{r['score']:.3f}", f"[{low:.3f}, {high:.3f}]"])
    print(table(["opponent", "settings", "wins", "draws", "losses", "score", "95% interval"],
                rows), end="")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out} (the score's interval: Wilson's, a draw as half a win)")


def describe(settings: dict) -> str:
    """A side's settings in one phrase: player, m, T′, its network, other changed settings."""
    rest = {k: v for k, v in settings.items()
            if k not in ("player", "simulations", "temperature_moves", "network")}
    words = [settings["player"], f"m = {settings['simulations']}",
             f"T′ = {settings['temperature_moves']}"]
    if settings.get("network"):
        words.append(f"{settings['network']} network")
    words += [f"{k} {v}" for k, v in rest.items()]
    return ", ".join(words)

if __name__ == "__main__":
    main()
