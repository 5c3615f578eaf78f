"""A trained agent against perfect play: `python -m warmjax.oracle RUN [options]`.

Any game with a shipped labelled set (6×6 Connect Four, Othello and Gobang). See
`warmjax.matches.oracle_run` for the settings and the output, and `warmjax.perfect` for
the solvers and the labelled sets.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from warmjax import cli
from warmjax.matches.oracle_run import PLAYERS, markdown, oracle


def main(argv=None) -> None:
    parser = cli.ArgumentParser("oracle", description=__doc__.split("\n")[0])
    parser.add_argument("run_dir")
    parser.add_argument("--simulations", type=int, default=None,
                        help="m of the trained and untrained searches (default: the run's)")
    parser.add_argument("--playouts", type=int, default=None,
                        help="network-free MCTS's playouts (default 100; 600 with --benchmark)")
    parser.add_argument("--seed", type=int, default=None,
                        help="draws the untrained network and the network-free players' "
                             "keys (default: the run's seed)")
    parser.add_argument("--positions", type=int, default=None,
                        help="score only the first n labelled positions")
    parser.add_argument("--players", nargs="+", default=list(PLAYERS), choices=PLAYERS)
    parser.add_argument("--fpu", default=None,
                        help="the searches' first-play urgency: a number or 'parent' "
                             "(default: the run's search.fpu)")
    parser.add_argument("--win-check", default=None, action=argparse.BooleanOptionalAction,
                        help="play a move that wins at once if one exists (default: the "
                             "run's search.win_check)")
    parser.add_argument("--benchmark", choices=("pons",), default=None,
                        help="score a Connect Four 6×7 run on Pons' benchmark instead, as "
                             "AlphaZero.jl does (its six sets; --positions: the first n of "
                             "each; writes pons.json)")
    parser.add_argument("--deep-simulations", type=int, default=600,
                        help="with --benchmark: the second, deeper search's m (600)")
    parser.add_argument("--pure-mcts", default=True, action=argparse.BooleanOptionalAction,
                        help="with --benchmark: score pure MCTS too, for reference (default)")
    parser.add_argument("--iteration", type=int, default=None,
                        help="judge the network the run kept after this iteration "
                             "(keep_networks); writes oracle_iteration_NNN.json or "
                             "pons_iteration_NNN.json")
    parser.add_argument("--misses", action="store_true",
                        help="print instead what the trained search gets wrong: its misses "
                             "by kind, on quiet positions, handing over a win at once, shared "
                             "with the policy head, and by ply (warmjax.probe.misses); writes "
                             "nothing")
    parser.add_argument("--out", default=None, help="JSON output (default: run folder)")
    args = parser.parse_args(argv)
    if args.benchmark:
        return _benchmark(parser, args)
    if args.misses:
        return _misses(parser, args)
    for flag in ("simulations", "iteration"):
        if getattr(args, flag) is not None and getattr(args, flag) < 1:
            parser.error(f"--{flag} must be at least 1")
    if not Path(args.run_dir).is_dir():
        parser.fail(f"no run folder {args.run_dir}")
    fpu = args.fpu
    if fpu is not None and fpu != "parent":
        try:
            fpu = float(fpu)
        except ValueError:
            parser.error(f"--fpu must be a number or 'parent', got {fpu!r}")
    _report(parser, args, _named("oracle", args), markdown, lambda: oracle(
        args.run_dir, args.simulations, 100 if args.playouts is None else args.playouts,
        args.seed, args.positions, players=args.players, fpu=fpu, win_check=args.win_check,
        iteration=args.iteration))


def _named(stem: str, args) -> str:
    """The output's file name: `stem.json`, or `stem_iteration_NNN.json` for a kept network."""
    return f"{stem}.json" if args.iteration is None else \
        f"{stem}_iteration_{args.iteration:03d}.json"


def _report(parser, args, name: str, render, compute) -> None:
    """Runs `compute`, prints `render` of its result and writes it as JSON (`--out`, or
    `name` in the run folder); a ValueError is the command's one error line, and so is an
    output that cannot be written, found before the work."""
    out = Path(args.out) if args.out else Path(args.run_dir) / name
    cli.check_writable(out, parser)
    try:
        result = compute()
    except ValueError as err:
        parser.fail(err)
    print(render(result))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")


def _misses(parser, args) -> None:
    from warmjax.perfect import positions
    from warmjax.probe.misses import markdown as misses_markdown
    from warmjax.probe.misses import misses

    if not Path(args.run_dir).is_dir():
        parser.fail(f"no run folder {args.run_dir}")
    try:
        result = oracle(args.run_dir, args.simulations, seed=args.seed,
                        count=args.positions, players=("search", "policy_head"),
                        keep_actions=True, iteration=args.iteration)
    except (OSError, ValueError) as err:
        parser.fail(err)
    labelled = positions.load(result["settings"]["labelled_set"])
    if args.positions is not None:
        labelled = labelled.take(slice(0, args.positions))
    moves = result["actions"]
    print(misses_markdown(misses(labelled, moves["search"], moves["policy_head"],
                                 positions.quiet(labelled))))


def _benchmark(parser, args) -> None:
    from warmjax.matches.benchmark import benchmark, markdown

    if not Path(args.run_dir).is_dir():
        parser.fail(f"no run folder {args.run_dir}")
    for flag in ("simulations", "deep_simulations", "positions", "playouts", "iteration"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            parser.error(f"--{flag.replace('_', '-')} must be at least 1")
    playouts = 600 if args.playouts is None else args.playouts
    _report(parser, args, _named("pons", args), markdown, lambda: benchmark(
        args.run_dir, args.simulations, args.deep_simulations, playouts, args.positions,
        args.seed, iteration=args.iteration, pure_mcts=args.pure_mcts))


if __name__ == "__main__":
    main()
