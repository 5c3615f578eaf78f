"""The confirmatory Connect Four study's design, as studies/c4_confirm/REGISTRATION.md fixes
it: three hypotheses on the policy head's optimal-move rate, each paired by seed (H1:
adaptive WRoRa − baseline; H2: fixed WRoRa I′ = 5 − baseline; H3: adaptive − fixed), the
AUC over iterations 1–8 primary and the rate at iteration 15 secondary, δ = 2 points,
seeds 8–39. A `registered.Design`, as every registered study's is; the analysis is the
generic one (`warmjax.analysis.registered`). Beside it, `report/` judges the same runs on
the papers' four claims as the exploratory studies are (`PAPERS`).
"""

from __future__ import annotations

from warmjax.analysis.measures import Auc, FinalRate
from warmjax.analysis.registered import PAPERS_ROLES, Board, Design, Hypothesis, Papers

ROLES = PAPERS_ROLES  # baseline, fixed WRoRa I′ = 5, adaptive WRoRa

DESIGN = Design(
    title="The confirmatory Connect Four study: the registered analysis",
    registration="studies/c4_confirm/REGISTRATION.md",
    boards=(Board("c4_confirm", "Connect Four 6×6", tuple(range(8, 40)), 15,
                  ("baseline", "fixed", "adaptive")),),
    hypotheses=(
        Hypothesis("H1", "adaptive WRoRa − baseline", "adaptive"),
        Hypothesis("H2", "fixed WRoRa I′ = 5 − baseline", "fixed"),
        Hypothesis("H3", "adaptive WRoRa − fixed WRoRa I′ = 5", "adaptive", "fixed")),
    measures={"auc": Auc("primary: policy head's AUC, iterations 1–8", 0.02,
                             iterations=8),
              "final": FinalRate("secondary: policy head's rate at iteration 15", 0.02)},
    roles=ROLES,
    claims={"claim 1 (H1 and H2)": ("H1", "H2"), "claim 3 (H3)": ("H3",)},
)

PAPERS = (Papers(("c4_confirm",)),)  # report/: the papers' four claims, beside
