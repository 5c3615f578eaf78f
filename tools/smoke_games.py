"""Runs `python -m warmjax.run +experiment=adaptive game=<id> profile=smoke` for every
supported pgx game (and the three hand-written ones) and prints a table: whether it ran,
its wall time, and its last iteration's line. Each run goes to its own folder under `--root`
(default: a temporary one, removed afterwards).

    JAX_PLATFORMS=cpu python tools/smoke_games.py                      # every game
    JAX_PLATFORMS=cpu python tools/smoke_games.py --games tic_tac_toe hex
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GAMES = ("connect_four", "othello", "gobang", "tic_tac_toe", "pgx_connect_four",
         "pgx_othello", "hex", "go", "animal_shogi", "gardner_chess", "chess", "shogi")


def smoke(game: str, root: Path, timeout: float) -> tuple[str, float, str]:
    """`(outcome, seconds, last iteration line)` of one smoke run."""
    cmd = [sys.executable, "-m", "warmjax.run", "+experiment=adaptive", f"game={game}",
           "profile=smoke", "tensorboard=false", f"run_dir={root / game}"]
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, JAX_PLATFORMS=os.environ.get(
                                  "JAX_PLATFORMS", "cpu")))
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:.0f} s", time.perf_counter() - start, ""
    seconds = time.perf_counter() - start
    lines = [x for x in done.stdout.splitlines() if x.startswith("iter ")]
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return f"failed ({done.returncode})", seconds, last
    return "ran", seconds, lines[-1] if lines else ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--root", type=Path, default=None)
    parser.add_argument("--timeout", type=float, default=1800.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        root = args.root or Path(scratch)
        print("| game | outcome | seconds | last iteration |\n|---|---|---:|---|", flush=True)
        failed = 0
        for game in args.games:
            outcome, seconds, last = smoke(game, root, args.timeout)
            failed += outcome != "ran"
            print(f"| {game} | {outcome} | {seconds:.0f} | `{last}` |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
