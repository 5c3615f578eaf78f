"""Why does the papers' Gobang switch at the first iteration and ours not? (results §1)

The adaptive switch (method.md §6) happens after an iteration whose enhancement-against-
baseline self-play games the baseline side won on balance (r > 0). At iteration 1 both
sides search with the same untrained network and the enhancement's weight is w = 1/1 = 1
(WRoRa: RAVE with pure rollout values). This tool plays that first iteration's pairing
alone, many times over, and reports the enhancement's score and the balance r it implies
per 50 games (r = −(2·score − 1)·50), under candidate explanations:

- `ours`: the project's Gobang, as the study ran it;
- `width`: the same with a wider untrained network (`--models`), the papers' being 512
  channels: does a wider network's prior or value favour the baseline?
- `winner_colour`: rollout results read as AlphaZero General's Gobang reports a result,
  the winner's colour (+1 if the first player won) instead of the result for the player to
  move (gobang.py's docstring; method.md §1 says not to copy it). The rollout's value is then
  right for leaves where the first player is to move and of the wrong sign for the others.
  This emulates one place where that reading could reach the warm-start search; it is a
  hypothesis test, not a claim about the papers' code.

    JAX_PLATFORMS=cpu python studies/gobang_switch/check.py --seeds 0 1 2 3 --games 50

Each seed draws one untrained network shared by both sides (as in self-play), T′ = 15
sampled plies as in the study, m = 100. Prints one Markdown table.
"""

from __future__ import annotations

import argparse
import contextlib
import math

import jax
import jax.numpy as jnp
import numpy as np

from warmjax import headtohead
from warmjax.games.env import FIRST
from warmjax.markdown import table
from warmjax.search import leaf
from warmjax.search.config import SearchConfig
from warmjax.train.run_config import GameConfig, ModelConfig


@contextlib.contextmanager
def winner_colour_rollouts():
    """Rollout values as the winner's colour (+1: the first player won) for every leaf."""
    original = leaf.rollout

    def misread(env, key, state, record=0):
        played = original(env, key, state, record)
        first_to_move = state._colour == FIRST
        return played._replace(value=jnp.where(first_to_move, played.value, -played.value))

    rows = dict(leaf.LEAF_VALUES)  # each playing row's playout, a row of the leaf table
    leaf.LEAF_VALUES.update({name: row._replace(playout=misread) for name, row in rows.items()
                             if row.playout is not None})
    try:
        yield
    finally:
        leaf.LEAF_VALUES.update(rows)


def score(model: str, seed: int, games: int, enhancement: str) -> float:
    config = headtohead.HeadToHeadConfig(
        game=GameConfig("gobang", {"size": 6, "win_length": 4}), model=ModelConfig(model),
        search=SearchConfig(simulations=100, temperature_moves=15), games=games, seed=seed,
        weight=1.0, networks="shared", enhancements=(enhancement,), out="/dev/null")
    return headtohead.run(config)["score"][enhancement]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--models", nargs="+", default=["small", "azg64"])
    parser.add_argument("--enhancement", default="wrora")
    args = parser.parse_args()
    rows = []
    cases = [(m, "ours") for m in args.models] + [(args.models[0], "winner_colour")]
    for model, reading in cases:
        context = winner_colour_rollouts() if reading == "winner_colour" else \
            contextlib.nullcontext()
        with context:
            jax.clear_caches()  # the rollout is traced into the compiled search
            scores = [score(model, s, args.games, args.enhancement) for s in args.seeds]
        r = [-(2 * x - 1) * 50 for x in scores]
        half = 1.96 * np.std(r, ddof=1) / math.sqrt(len(r)) if len(r) > 1 else math.nan
        rows.append([reading, model, f"{np.mean(scores):.3f}",
                     f"{np.mean(r):+.1f} ± {half:.1f}", ", ".join(f"{x + 0.0:+.0f}" for x in r),
                     sum(x > 0 for x in r)])
    print(table(["rollout result", "network", f"{args.enhancement} score (w = 1)",
                 "r per 50 games, mean ± 95%", "r per seed", "seeds that would switch"],
                rows, "llrrlr"))


if __name__ == "__main__":
    main()
