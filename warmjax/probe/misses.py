"""What a trained search gets wrong on its game's labelled set (`python -m warmjax.oracle RUN
--misses`): each position where the run's search (the oracle's own moves: argmax of the
visits, one search per position) misses the optimal move, by what it gave away (a win drawn
or lost, a draw lost), whether it was quiet, whether the move hands the opponent a win at
once (a miss a two-ply lookahead would catch), whether the policy head misses it too, and at
what ply.

It decides what kind of fix a search's shortfall asks for: misses that hand over a win at
once ask for a shallow tactical check; misses the policy head shares, early in the game, ask
for a better network.
"""

from __future__ import annotations

import numpy as np

from warmjax.markdown import table
from warmjax.perfect import positions
from warmjax.perfect.connect_four_solver import DRAW, LOSS, WIN
from warmjax.perfect.positions import LabelledSet

KINDS = {(WIN, DRAW): "won → drawn", (WIN, LOSS): "won → lost", (DRAW, LOSS): "drawn → lost"}


def misses(labelled: LabelledSet, search: np.ndarray, policy: np.ndarray,
           calm: np.ndarray) -> dict:
    """The misses of `search [P]` (actions) classified; `policy [P]` the policy head's
    actions and `calm [P]` the quiet positions (`positions.quiet`)."""
    search, policy = np.asarray(search), np.asarray(policy)
    rows = np.arange(len(labelled))
    best = labelled.best
    chosen = labelled.values[rows, search]
    missed = chosen != best
    gifts = np.zeros(len(labelled), bool)
    if missed.any():
        gifts[missed] = positions.gives_immediate_win(labelled.take(missed), search[missed])
    plies = labelled.plies
    return {"positions": len(labelled), "misses": int(missed.sum()),
            "by_kind": {name: int((missed & (best == b) & (chosen == c)).sum())
                        for (b, c), name in KINDS.items()},
            "quiet": int((missed & calm).sum()),
            "gives_immediate_win": int(gifts.sum()),
            "policy_head_misses_too": int((missed & (labelled.values[rows, policy]
                                                     != best)).sum()),
            "plies_of_misses": [float(q) for q in np.percentile(plies[missed], [25, 50, 75])]
            if missed.any() else None,
            "plies_of_all": [float(q) for q in np.percentile(plies, [25, 50, 75])]}


def markdown(result: dict) -> str:
    quartiles = lambda q: "—" if q is None else " / ".join(f"{x:g}" for x in q)  # noqa: E731
    rows = [["positions", result["positions"]], ["misses", result["misses"]],
            *[[f"misses, {k}", v] for k, v in result["by_kind"].items()],
            ["misses on quiet positions", result["quiet"]],
            ["misses handing the opponent a win at once", result["gives_immediate_win"]],
            ["misses the policy head shares", result["policy_head_misses_too"]],
            ["ply of the misses, quartiles", quartiles(result["plies_of_misses"])],
            ["ply of all positions, quartiles", quartiles(result["plies_of_all"])]]
    return table(["", "count"], rows, "lr")
