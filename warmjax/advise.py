"""Will warm start pay on this game? `python -m warmjax.advise [OVERRIDES] [options]`.

    python -m warmjax.advise game=othello                  # the main job's recipe on Othello
    python -m warmjax.advise game=hex_7 search.simulations=100
    PYTHONPATH=examples python -m warmjax.advise game=registered game.name=toy_three \
        game.module=toy_three --labelled toy_three.json

Measures the warm-start predictor (`warmjax.matches.predictor`) of a recipe: how much better
its warm-start enhancement's search plays than its baseline search while the network is
untrained, on the game's labelled positions (shipped, or made with `python -m
warmjax.labels` and given with `--labelled`). The recipe is `+experiment=adaptive
profile=fast` (the main job) with the overrides given, any run setting included.

Beside it, the registered study that asked whether the predictor ranks boards by what warm
start gains early (`studies/where_it_helps/`): each studied board's predictor and, once the
study is analysed, its measured early gain and what the study concluded. It says no more
than that study found.
"""

from __future__ import annotations

import json
from pathlib import Path

from warmjax import cli
from warmjax.markdown import table

RECORD = Path(__file__).resolve().parent / "data" / "warm_start_boards.json"
DEFAULTS = ("+experiment=adaptive", "profile=fast")


def recipe_overrides(overrides: list[str]) -> list[str]:
    """The main job's recipe with `overrides` over it (an `+experiment=` or `profile=` given
    replaces the default one)."""
    given = {o.lstrip("+").split("=", 1)[0] for o in overrides}
    return [d for d in DEFAULTS if d.lstrip("+").split("=", 1)[0] not in given] + overrides


def read_record(path: Path = RECORD) -> dict:
    """The registered study's record: the studied boards' predictor values and, once
    analysed, their early gains and the verdict (`analysed`)."""
    return json.loads(path.read_text())


def _points(x: float) -> str:
    return f"{x:+.1f}"


def studied_table(record: dict) -> str:
    """The studied boards as a Markdown table, and what the study concluded (or that it has
    not been analysed)."""
    outcomes = record.get("outcomes") or {}
    rows = []
    for board in record["boards"]:
        p = board["predictor"]
        gain = outcomes.get(board["name"])
        rows.append([board["title"], f"{_points(p['points'])} [{_points(p['interval'][0])}, "
                     f"{_points(p['interval'][1])}]",
                     "not yet measured" if gain is None else
                     f"{_points(gain['points'])} [{_points(gain['interval'][0])}, "
                     f"{_points(gain['interval'][1])}]",
                     board.get("sample", "")])
    head = (f"The registered study ({record['study']}): the predictor of the main job's "
            "recipe on five boards, and warm start's early gain (adaptive − baseline, the "
            "search's optimal-move rate over iterations 1–10, paired by seed), in points:")
    verdict = record.get("verdict") or (
        "Not yet analysed: the study's runs are training. The ranking is a registered "
        "prediction, untested out of sample; until the analysis, the predictor says "
        "nothing about whether warm start will pay.")
    return (head + "\n\n" + table(["board", "predictor", "early gain", "sample"], rows)
            .rstrip("\n") + "\n\n" + verdict)


def analysed(record: dict, analysis: dict, when: str) -> dict:
    """`record` (`read_record`) once the study is analysed: each board's early gain in
    points from the analysis record's `prediction` (`analysis.ranking.prediction`, written
    by `python -m warmjax.report --design studies/where_it_helps`), and the verdict in the
    words that record gives: both tests, and "The prediction failed" unless both hold.

    Raises:
      ValueError: the analysis has no prediction, or misses a board of the record.
    """
    from warmjax.analysis.ranking import HOLDS

    found = analysis.get("prediction")
    if not found:
        raise ValueError("the analysis record has no prediction: it is not the study's "
                         "complete analysis")
    gains = {b["name"]: b["gain"] for b in found["boards"]}
    missing = [b["name"] for b in record["boards"] if b["name"] not in gains]
    if missing:
        raise ValueError(f"the analysis has no early gain for {', '.join(missing)}")
    s, o = found["spearman"], found.get("out_of_sample")
    words = [f"Across the five boards the predictor's ranking {s['verdict']}: Spearman's ρ = "
             f"{s['rho']:+.2f}, exact one-sided p = {s['p']:.3g} over {s['orderings']} "
             f"orderings (holds at p ≤ {s['holds_at']:g})."]
    if o is not None:
        titles = {b["name"]: b["title"] for b in record["boards"]}
        words.append(f"Out of sample ({', '.join(titles.get(n, n) for n in o['boards'])}): "
                     f"{o['verdict']}, conditional p = {o['p']:.3g} over {o['placements']} "
                     f"placements (holds at p ≤ {o['holds_at']:g}).")
    held = s["verdict"] == HOLDS and (o is None or o["verdict"] == HOLDS)
    words.append("The prediction held: a new game's predictor places it among these five "
                 "boards, no more." if held else
                 "The prediction failed: the predictor's value says nothing about whether "
                 "warm start will pay on a new game.")
    return {**record, "analysed": when,
            "outcomes": {n: {"points": 100 * g["mean"],
                             "interval": [100 * x for x in g["interval"]],
                             "seeds": len(g["seeds"])} for n, g in gains.items()},
            "verdict": " ".join(words)}


def main(argv=None) -> None:
    parser = cli.ArgumentParser("advise", description=__doc__.split("\n")[0])
    parser.add_argument("overrides", nargs="*",
                        help="run settings over the main job's recipe (game=othello, …)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(8)),
                        help="the untrained networks (default 0-7)")
    parser.add_argument("--positions", type=int, default=None,
                        help="score only the first n labelled positions")
    parser.add_argument("--labelled", type=Path, default=None,
                        help="a labelled set (python -m warmjax.labels --out FILE); default: "
                             "the game's shipped set")
    parser.add_argument("--warm-player", default=None,
                        help="the warm-start player (default: the recipe's "
                             "warmstart.enhancement)")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    bad = [o for o in args.overrides if "=" not in o]
    if bad:
        parser.fail(f"{bad[0]!r} is not a setting (key=value)")
    if args.positions is not None and args.positions < 1:
        parser.error(f"--positions must be at least 1, got {args.positions}")
    if len(set(args.seeds)) != len(args.seeds) or any(s < 0 for s in args.seeds):
        parser.error("--seeds must be distinct and non-negative")
    if args.labelled is not None and not args.labelled.is_file():
        parser.fail(f"no labelled set {args.labelled}")
    if args.out is not None:
        cli.check_writable(args.out, parser)
    overrides = recipe_overrides(args.overrides)
    cli.check_overrides("config", "advise", overrides)
    from hydra.errors import HydraException

    from warmjax.matches.predictor import measure
    from warmjax.perfect import positions
    from warmjax.run import compose_run_config
    from warmjax.search.players import PLAYERS
    from warmjax.settings import ConfigError

    try:
        config = compose_run_config(overrides, "runs/advise")
    except (ConfigError, HydraException) as err:
        parser.fail(err)
    if args.warm_player is not None and args.warm_player not in PLAYERS:
        parser.fail(f"unknown player {args.warm_player!r}; choose from {', '.join(PLAYERS)}")
    try:
        labelled = None
        if args.labelled is not None:
            from warmjax.games import make

            env = make(config.game.name, **config.game.params)
            labelled = positions.load(args.labelled, env.num_actions)
        with cli.status("advise: searching the labelled positions"):
            result = measure(config, args.seeds, labelled, args.positions, args.warm_player)
    except ValueError as err:
        parser.fail(err)
    s = result.settings
    low, high = result.interval
    print(f"recipe: {' '.join(overrides)}")
    print(f"{s['game']} {s['params']}: {s['positions']} labelled positions "
          f"({s['labelled_set']}), m = {s['simulations']}, {len(s['seeds'])} untrained "
          f"networks (seeds {' '.join(map(str, s['seeds']))})")
    print(f"  {s['warm_player']} (warm start) optimal: "
          + ", ".join(f"{x:.1%}" for x in result.warm))
    print(f"  {s['baseline_player']} (baseline) optimal: "
          + ", ".join(f"{x:.1%}" for x in result.base))
    print(f"predictor: {_points(result.points)} points [{_points(low)}, {_points(high)}] "
          f"(95% bootstrap over networks and positions; {s['seconds']:.0f} s)\n")
    print(studied_table(read_record()))
    if args.out is not None:
        args.out.write_text(json.dumps(result.to_dict(), indent=2) + "\n")
        print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
