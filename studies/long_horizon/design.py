"""The long-horizon study's design, as studies/long_horizon/REGISTRATION.md fixes it: the
three studies (Connect Four 6×6 at the papers' I = 100; Hex 5×5 and 7×7, cut as registered
to 60 iterations on seeds 8–13), the four comparisons, each a warm-start arm against its
own study's baseline, and Hex 7×7 against Hex 5×5 for growth with the board (a `measures.Growth`). A
`registered.Design`, as every registered study's is; the analysis is the generic one
(`warmjax.analysis.horizon`).
"""

from __future__ import annotations

from warmjax.analysis.measures import Auc, ComputeToStep, FinalElo, Growth
from warmjax.analysis.registered import PAPERS_ROLES, Board, Design, Hypothesis

ROLES = PAPERS_ROLES  # baseline, fixed WRoRa I′ = 5, adaptive WRoRa

DESIGN = Design(
    title="The long-horizon study: the registered analysis",
    registration="studies/long_horizon/REGISTRATION.md",
    boards=(
        Board("c4_long", "Connect Four 6×6", tuple(range(40, 48)), 100,
              ("baseline", "fixed", "adaptive")),
        # The registered cut applies to the Hex studies (`Design.cut`).
        Board("hex_5x5_long", "Hex 5×5", tuple(range(8, 16)), 100, ("baseline", "adaptive"),
              cut=True),
        Board("hex_7x7_long", "Hex 7×7", tuple(range(8, 16)), 100, ("baseline", "adaptive"),
              cut=True),
    ),
    hypotheses=(
        Hypothesis("c4_adaptive", "Connect Four 6×6: adaptive WRoRa − baseline", "adaptive",
                   board="c4_long"),
        Hypothesis("c4_fixed", "Connect Four 6×6: fixed WRoRa I′ = 5 − baseline", "fixed",
                   board="c4_long"),
        Hypothesis("hex5_adaptive", "Hex 5×5: adaptive WRoRa − baseline", "adaptive",
                   board="hex_5x5_long"),
        Hypothesis("hex7_adaptive", "Hex 7×7: adaptive WRoRa − baseline", "adaptive",
                   board="hex_7x7_long"),
    ),
    measures={
        "elo": FinalElo("(a) the final networks' Bayesian Elo", 50.0),
        "compute": ComputeToStep("(b) estimated CPU-seconds to each step of the policy-head "
                           "ladder"),
        "auc": Auc("(c) the policy head's AUC, iterations 1–8", 0.02, iterations=8),
        # secondary: Hex 7×7's lead and speed-up against Hex 5×5's, unadjusted
        "growth": Growth("growth with the board", 50.0, "Elo", larger="hex_7x7_long",
                         smaller="hex_5x5_long"),
    },
    roles=ROLES,
    calibration="results/calibration/cpu.json",  # the registered calibration table
    device="cpu: 2 cores",  # its row
    horizons=(15, 30, 60),
    full_iterations=100,
    # The decline rule and its window 21-30, where Connect Four's probe peaked, were added
    # after the data (the registration's departures).
    decline_after_data=True,
)

# The registered cut (REGISTRATION.md, "Budget and cut"), in its order: Hex at 60
# iterations, then Hex on its first 6 seeds (`python -m warmjax.report --design
# studies/long_horizon --cut 2`, the analysis of record).
CUTS = ({"iterations": 60}, {"iterations": 60, "seeds": 6})
# The note its looks are recorded under (each board's looks.json): the re-issue under the
# decline rule and the corrections (the registration's departures, 2 December 2026), named
# as it was made then, so that the analysis again records no new look.
LOOK_NOTE = ("the registered analysis, re-issued with the decline rule and the corrections "
             "(studies/long_horizon/analysis.py)")
OUT = "report"
