"""Seconds per unit of the compute ledger on this machine: `python -m warmjax.calibrate`.

    python -m warmjax.calibrate --out calibration.json
    python -m warmjax.calibrate --game connect_four --game hex:size=7 --model small \\
        --out calibration.json

Times a network evaluation (with its search's tree work), a random-playout step and a
training sample (`warmjax.train.calibration`) for each game, on the CPU and on the first
accelerator where there is one, prints the table and writes it as JSON (read by
`warmjax.analysis.compute` and `report --calibration`) with a Markdown copy beside it.
Measure on an otherwise idle machine: the figures are wall times.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from warmjax import cli
from warmjax.markdown import table

DEFAULT_GAMES = ("connect_four", "hex:size=5", "hex:size=7")


def parse_game(text: str) -> tuple[str, dict]:
    """`choice` or `choice:key=value,...` → `(name, params)`, integer values as ints.

    `choice` is a `game=` choice (`conf/game/<choice>.yaml`: `connect_four`, `hex_7`, ...),
    whose settings are spelt out as a run's config.yaml spells them, so that a run finds
    its row (`analysis.compute.unit_seconds_for`); another name is taken as a registered
    game with no settings.

    Raises:
      ValueError: a setting without `=`.
    """
    import yaml

    choice, _, rest = text.partition(":")
    conf = Path(cli.CONF_DIR) / "game" / f"{choice}.yaml"
    name, params = choice, {}
    if conf.exists():
        raw = yaml.safe_load(conf.read_text())
        name, params = raw["name"], dict(raw.get("params") or {})
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--game {text!r}: settings are key=value, got {item!r}")
        params[key] = int(value) if value.lstrip("-").isdigit() else value
    return name, params


def markdown(rows) -> str:
    def game(r):
        return r.game + "".join(f" {k}={v}" for k, v in sorted(r.params.items()))

    return table(
        ["device", "game", "network", "µs / evaluation", "µs / playout step",
         "µs / training sample"],
        [[r.device, game(r), r.model, f"{1e6 * r.seconds_per_evaluation:.2f}",
          f"{1e6 * r.seconds_per_playout_step:.3f}", f"{1e6 * r.seconds_per_train_sample:.2f}"]
         for r in rows], "lllrrr")


def main(argv: Sequence[str] | None = None) -> None:
    parser = cli.ArgumentParser("calibrate", description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", default=None,
                        help="name or name:key=value,... (repeat; default: connect_four, "
                             "hex:size=5, hex:size=7)")
    parser.add_argument("--model", default="small", help="network preset (default small)")
    parser.add_argument("--games", type=int, default=50,
                        help="positions per search call, a run's E (default 50)")
    parser.add_argument("--simulations", type=int, default=100, help="m (default 100)")
    parser.add_argument("--repeats", type=int, default=3, help="timings per unit (default 3)")
    parser.add_argument("--cpu-only", action="store_true", help="leave any accelerator out")
    parser.add_argument("--out", required=True, help="the table's JSON file")
    args = parser.parse_args(argv)
    for name in ("games", "simulations", "repeats"):
        if getattr(args, name) < 1:
            parser.fail(f"--{name} must be at least 1, got {getattr(args, name)}")
    try:
        games = [parse_game(g) for g in (args.game or DEFAULT_GAMES)]
    except ValueError as err:
        parser.fail(err)

    from warmjax.analysis.compute import UnitSeconds, write_calibration
    from warmjax.games import registry
    from warmjax.nets import PRESETS
    from warmjax.train import calibration

    if args.model not in PRESETS:
        parser.fail(f"unknown network preset {args.model!r}; choose from {', '.join(PRESETS)}")
    for name, _ in games:
        if name not in registry.names():
            parser.fail(f"unknown game {name!r}; choose from {', '.join(registry.names())}")
    devices = calibration.devices()[:1] if args.cpu_only else calibration.devices()
    rows = []
    for device in devices:
        for name, params in games:
            try:
                costs = calibration.calibrate(name, params, args.model, games=args.games,
                                              simulations=args.simulations,
                                              repeats=args.repeats, device=device)
            except (TypeError, ValueError) as err:
                parser.fail(f"--game {name}: {err}")
            rows.append(UnitSeconds(**dataclasses.asdict(costs)))
            print(f"{costs.device} {name} {params}: {1e6 * costs.seconds_per_evaluation:.2f} µs "
                  f"per evaluation, {1e6 * costs.seconds_per_playout_step:.3f} µs per playout "
                  f"step, {1e6 * costs.seconds_per_train_sample:.2f} µs per training sample",
                  flush=True)
    out = Path(args.out)
    write_calibration(out, rows, note=f"python -m warmjax.calibrate, m = {args.simulations}, "
                                      f"{args.games} positions per search, "
                                      f"median of {args.repeats}")
    out.with_suffix(".md").write_text(markdown(rows))
    print(markdown(rows), end="")
    print(f"wrote {out} and {out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
