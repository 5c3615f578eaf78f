"""Names every layer shares, in a module that imports nothing: the warm-start enhancements in
the papers' order, with the labels reports print for them.

Two lists, kept apart on purpose: `PAPERS_ENHANCEMENTS`, the papers' five, which the
claims, the head-to-head table and the reports' comparisons loop over and which never
grows; and `WARMSTART_ENHANCEMENTS`, what `warmstart.enhancement` accepts, where a new
enhancement is added (after the papers' five, so arm order keeps theirs first).

The search (`search/variants.py`) builds each enhancement's search under these names; the
run identity (`train/run_id.py`) and the study analysis (`analysis`, which imports neither
the search nor the games) sort and label arms by them.
"""

MODES = ("none", "fixed", "adaptive")  # warm start: none, fixed I′, or the adaptive switch
PAPERS_ENHANCEMENTS = ("rollout", "rave", "rora", "wro", "wrora")
WARMSTART_ENHANCEMENTS = PAPERS_ENHANCEMENTS  # + any enhancement added since
# The value target before a game's last explored ply (`train.explore_return`; selfplay.py).
EXPLORE_RETURNS = ("q", "watkins")
ENHANCEMENT_NAMES = {"rollout": "Rollout", "rave": "Rave", "rora": "RoRa", "wro": "WRo",
                     "wrora": "WRoRa"}


def enhancement_name(enhancement: str | None) -> str:
    """`Rollout`, `RoRa`, …, or `Baseline` for None."""
    if enhancement is None:
        return "Baseline"
    return ENHANCEMENT_NAMES.get(enhancement, enhancement)
