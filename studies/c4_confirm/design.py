"""The confirmatory Connect Four study's design, as studies/c4_confirm/REGISTRATION.md fixes
it: three hypotheses on the policy head's optimal-move rate, each paired by seed (H1:
adaptive WRoRa − baseline; H2: fixed WRoRa I′ = 5 − baseline; H3: adaptive − fixed), the
AUC over iterations 1–8 primary and the rate at iteration 15 secondary, δ = 2 points,
seeds 8–39. The analysis is the generic one (`warmjax.analysis.registered`).
"""

from __future__ import annotations

from warmjax.analysis import registered
from warmjax.analysis.model import Arm, Family

SEEDS = tuple(range(8, 40))
ITERATIONS = 15
AUC_ITERATIONS = 8
DELTA = 0.02


ROLES = registered.Roles({"baseline": {"mode": "none"},
                          "fixed": {"mode": "fixed", "enhancement": "wrora", "iprime": 5},
                          "adaptive": {"mode": "adaptive", "enhancement": "wrora"}})


def arms_of(family: Family) -> dict[str, Arm]:
    """The study's three arms by role."""
    out = ROLES(family)
    missing = {"baseline", "adaptive", "fixed"} - set(out)
    if missing:
        raise ValueError(f"the study has no {', '.join(sorted(missing))} arm")
    return out


def design(seeds: tuple[int, ...] = SEEDS, iterations: int = ITERATIONS,
           delta: float = DELTA) -> registered.Design:
    """The registration's design (studies/c4_confirm/REGISTRATION.md)."""
    return registered.Design(
        title="The confirmatory Connect Four study: the registered analysis",
        registration="studies/c4_confirm/REGISTRATION.md", seeds=seeds,
        iterations=iterations, delta=delta,
        measures={"auc": "primary: policy head's AUC, iterations 1–8",
                  "final": "secondary: policy head's rate at iteration 15"},
        hypotheses=(
            registered.Hypothesis("H1", "adaptive WRoRa − baseline", "adaptive", "baseline"),
            registered.Hypothesis("H2", "fixed WRoRa I′ = 5 − baseline", "fixed", "baseline"),
            registered.Hypothesis("H3", "adaptive WRoRa − fixed WRoRa I′ = 5", "adaptive",
                                  "fixed")),
        claims={"claim 1 (H1 and H2)": ("H1", "H2"), "claim 3 (H3)": ("H3",)},
        roles=arms_of)
