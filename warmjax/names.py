"""Names every layer shares, in a module that imports nothing: the warm-start enhancements in
the papers' order, with the labels reports print for them.

The search (`search/variants.py`) builds each enhancement's search under these names; the
run identity (`train/run_id.py`) and the study analysis (`analysis`, which imports neither
the search nor the games) sort and label arms by them.
"""

MODES = ("none", "fixed", "adaptive")  # warm start: none, fixed I′, or the adaptive switch
ENHANCEMENTS = ("rollout", "rave", "rora", "wro", "wrora")
# The value target before a game's last explored ply (`train.explore_return`; selfplay.py).
EXPLORE_RETURNS = ("q", "watkins")
ENHANCEMENT_NAMES = {"rollout": "Rollout", "rave": "Rave", "rora": "RoRa", "wro": "WRo",
                     "wrora": "WRoRa"}


def enhancement_name(enhancement: str | None) -> str:
    """`Rollout`, `RoRa`, …, or `Baseline` for None."""
    if enhancement is None:
        return "Baseline"
    return ENHANCEMENT_NAMES.get(enhancement, enhancement)
