"""A Connect Four 6×7 run on Pons' benchmark, scored as AlphaZero.jl scores itself
(`python -m warmjax.oracle RUN --benchmark pons`; `warmjax/perfect/pons.py`).

Per set, the mistake rate (a move whose perfect-play outcome is worse than the best move's)
of the run's search at its own m and at m = 600, of its policy head alone, and of pure
MCTS (600 playouts), beside AlphaZero.jl's and a depth-5 minimax's published figures; then,
for the search at m = 600 and the policy head, the rate by position class: won and drawn
positions, and quiet ones (no immediate win, no threat to block) against tactical ones.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from warmjax.markdown import table
from warmjax.matches.oracle_run import oracle
from warmjax.perfect import pons, positions

PLAYERS = (("search", "search, run's m"), ("deep_search", "search, m = {deep}"),
           ("policy_head", "policy head"), ("pure_mcts", "pure MCTS, {playouts} playouts"))
CLASSES = (("won", "won"), ("drawn", "drawn"), ("quiet", "quiet"), ("tactical", "tactical"))


def combined(count: int | None = None) -> tuple[positions.LabelledSet, np.ndarray]:
    """The six sets as one (each cut to its first `count`), and `[P]` each position's set
    index into `pons.SETS`: one batch, so that every player compiles once."""
    parts = [pons.load(s.name) for s in pons.SETS]
    if count is not None:
        parts = [p.subset(count) for p in parts]
    longest = max(p.moves.shape[1] for p in parts)
    moves = np.concatenate([np.pad(p.moves, ((0, 0), (0, longest - p.moves.shape[1])),
                                   constant_values=-1) for p in parts])
    joined = dataclasses.replace(parts[0], moves=moves,
                                 plies=np.concatenate([p.plies for p in parts]),
                                 values=np.concatenate([p.values for p in parts]),
                                 meta={"benchmark": "pons", "set": "pons"}, calm=None)
    index = np.concatenate([np.full(len(p), i) for i, p in enumerate(parts)])
    return joined, index


def mistake_rates(labelled: positions.LabelledSet, actions: np.ndarray) -> np.ndarray:
    """`[P]` bool: each chosen move's outcome sign is below the best move's."""
    chosen = labelled.values[np.arange(len(actions)), np.asarray(actions)]
    return chosen < labelled.best


def benchmark(run_dir, simulations=None, deep=600, playouts=600, count=None, seed=None,
              log=None, iteration=None, pure_mcts=True) -> dict:
    """`{"settings", "sets": {name: {player: rate, "classes": {...}, "published": ...}}}`:
    the run's final network, or the one it kept after `iteration`; `pure_mcts` False leaves
    out the network-free reference (the same for every network of a board).

    Raises:
      ValueError: a run that is not Connect Four 7 columns × 6 rows, or a corrupt one.
    """
    from warmjax.train.run_folder import read_run

    game = read_run(run_dir).config.game
    if game.name != "connect_four" or (game.params.get("rows", 6), game.params.get("cols", 6)) \
            != (6, 7):
        shape = f"{game.params.get('rows', 6)}×{game.params.get('cols', 6)}"
        raise ValueError(f"{run_dir} trained {game.name} {shape}; Pons' benchmark is "
                         "Connect Four 7 columns × 6 rows: train with game.params.cols=7 "
                         "(e.g. +experiment=adaptive_c4 profile=fast game.params.cols=7)")
    labelled, index = combined(count)
    shallow = oracle(run_dir, simulations, playouts, seed, labelled=labelled,
                     players=("search", "policy_head") + (("pure_mcts",) if pure_mcts else ()),
                     log=log,
                     keep_actions=True, iteration=iteration)
    deeper = oracle(run_dir, deep, playouts, seed, labelled=labelled, players=("search",),
                    log=log, keep_actions=True, iteration=iteration)
    actions = {**shallow["actions"], "deep_search": deeper["actions"]["search"]}
    wrong = {name: mistake_rates(labelled, a) for name, a in actions.items()}
    best = labelled.best
    calm = positions.quiet(labelled)
    classes = {"won": best == 1, "drawn": best == 0, "quiet": calm, "tactical": ~calm}
    sets = {}
    for i, spec in enumerate(pons.SETS):
        mine = index == i
        entry = {name: float(np.mean(w[mine])) for name, w in wrong.items()}
        entry["positions"] = int(mine.sum())
        entry["classes"] = {
            c: {"positions": int((mine & m).sum()),
                **{name: (float(np.mean(wrong[name][mine & m])) if (mine & m).any()
                          else None) for name in ("deep_search", "policy_head")}}
            for c, m in classes.items()}
        entry["published"] = {"alphazero_jl": list(spec.alphazero_jl),
                              "minimax_depth5": spec.minimax5}
        sets[spec.name] = entry
    settings = {**shallow["settings"], "deep_simulations": deep, "labelled_set": "pons"}
    return {"settings": settings, "sets": sets}


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def markdown(result: dict) -> str:
    s = result["settings"]
    names = [label.format(deep=s["deep_simulations"], playouts=s["playouts"])
             for _, label in PLAYERS]
    rows = []
    for spec in pons.SETS:
        r = result["sets"][spec.name]
        low, high = r["published"]["alphazero_jl"]
        published = f"{100 * low:.1f}%" if low == high else f"{100 * low:.1f}–{100 * high:.1f}%"
        rows.append([f"{spec.name} ({r['positions']})",
                     *(_pct(r.get(key)) for key, _ in PLAYERS), published,
                     _pct(r["published"]["minimax_depth5"])])
    head = (f"Mistake rates on Pons' benchmark (a move whose outcome is worse than the best "
            f"move's); the run's search at m = {s['simulations']} and {s['deep_simulations']}. "
            "AlphaZero.jl: its published agent, 600 simulations, iterations 10–15.\n\n")
    text = head + table(["set", *names, "AlphaZero.jl", "minimax, depth 5"], rows)
    class_rows = []
    for spec in pons.SETS:
        c = result["sets"][spec.name]["classes"]
        class_rows.append([spec.name, *(f"{_pct(c[k]['deep_search'])} / "
                                        f"{_pct(c[k]['policy_head'])} ({c[k]['positions']})"
                                        for k, _ in CLASSES)])
    text += (f"\nBy position class: search at m = {s['deep_simulations']} / policy head "
             "(positions)\n\n" + table(["set", *(label for _, label in CLASSES)], class_rows))
    return text
