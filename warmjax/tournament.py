"""Round-robin tournament with Bayesian Elo: `python -m warmjax.tournament RUN... --out DIR`.

See `warmjax.matches.round_robin` for the settings, the outputs and resuming.
"""

from __future__ import annotations

from collections.abc import Sequence

from warmjax import cli
from warmjax.matches.round_robin import ANCHORS, TournamentConfig, plural_pairs, run_tournament


def parse_args(argv: Sequence[str] | None = None) -> tuple[TournamentConfig, int | None]:
    """The command line → `(config, max_batches)` (ValueError for impossible settings)."""
    parser = cli.ArgumentParser(
        "tournament", description="Round-robin tournament of trained networks (and anchors) "
                                  "with Bayesian Elo. Rerun the same command to resume.")
    parser.add_argument("runs", nargs="+", help="run folders or (quoted) glob patterns")
    parser.add_argument("--anchors", nargs="*", default=["random"], choices=ANCHORS,
                        help="network-free players to add (default: random, as in the papers; "
                             "--anchors alone: none)")
    parser.add_argument("--playouts", type=int, default=100,
                        help="simulations per move of the anchors' searches (default 100)")
    parser.add_argument("--games", type=int, default=20,
                        help="games per pair, even; each side first in half (default 20)")
    parser.add_argument("--simulations", type=int, default=None,
                        help="m of every network's baseline MCTS (default: the runs' common m)")
    parser.add_argument("--temperature-moves", type=int, default=None,
                        help="plies sampled at the start of each game (default: the runs' T′)")
    parser.add_argument("--pairing", choices=("all", "seed"), default="all",
                        help="all: every player meets every other (default); seed: networks "
                             "meet only networks of the same seed (a study's round robin "
                             "within each seed), anchors meet everyone")
    parser.add_argument("--iteration", type=int, default=None,
                        help="rate the networks each run kept after this iteration "
                             "(keep_networks; default: the final networks)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="output folder (and resume journal)")
    parser.add_argument("--max-games-per-call", type=int, default=2048,
                        help="most games in one compiled call (default 2048)")
    parser.add_argument("--max-pairs-per-call", type=int, default=32,
                        help="most pairs in one compiled call (default 32)")
    parser.add_argument("--max-batches", type=int, default=None,
                        help="stop after this many calls (resume later with the same command)")
    parser.add_argument("--fast-compile", action="store_true",
                        help="XLA optimisation level 0: faster compiling, slower games")
    args = parser.parse_args(argv)
    # The journal is written game batch by game batch: a folder that cannot take it is
    # refused before any game is played.
    problem = cli.folder_problem(args.out)  # before the work, not after it
    if problem is not None:
        parser.fail(problem)
    config = TournamentConfig(
        runs=tuple(args.runs), out=args.out, anchors=tuple(args.anchors), games=args.games,
        simulations=args.simulations, temperature_moves=args.temperature_moves,
        playouts=args.playouts, seed=args.seed, max_games_per_call=args.max_games_per_call,
        max_pairs_per_call=args.max_pairs_per_call, fast_compile=args.fast_compile,
        pairing=args.pairing, iteration=args.iteration)
    return config, args.max_batches


def main(argv: Sequence[str] | None = None) -> None:
    try:
        config, max_batches = parse_args(argv)
        result = run_tournament(config, max_batches=max_batches)
    except ValueError as err:
        cli.fail(err, "tournament")
    if result.elo is None:
        print(f"{plural_pairs(result.pending_pairs)} still to play; rerun to go on")
        return
    print(result.elo.table("plain"))
    print(f"\nwrote {config.out}/elo.md, elo.json, pairs.json, games.json, players.json")


if __name__ == "__main__":
    main()
