"""The long-horizon study's design, as studies/long_horizon/REGISTRATION.md fixes it: the
three studies (Connect Four 6×6 at the papers' I = 100; Hex 5×5 and 7×7, cut as registered
to 60 iterations on seeds 8–13), the four comparisons, each a warm-start arm against its
own study's baseline, and Hex 7×7 against Hex 5×5 for growth with the board. The analysis
is the generic one (`warmjax.analysis.horizon`).
"""

from __future__ import annotations

from warmjax.analysis.horizon import Contrast, Design, Plan
from warmjax.analysis.registered import Roles

ROLES = Roles({"baseline": {"mode": "none"},
               "fixed": {"mode": "fixed", "enhancement": "wrora", "iprime": 5},
               "adaptive": {"mode": "adaptive", "enhancement": "wrora"}})

DESIGN = Design(
    title="The long-horizon study: the registered analysis",
    registration="studies/long_horizon/REGISTRATION.md",
    calibration="results/calibration/cpu.json",  # the registered calibration table
    device="cpu: 2 cores",  # its row
    plans=(
        Plan("c4_long", "Connect Four 6×6", tuple(range(40, 48)), 100,
             ("baseline", "fixed", "adaptive")),
        # The registered cut applies to the Hex studies (`Design.cut`).
        Plan("hex_5x5_long", "Hex 5×5", tuple(range(8, 16)), 100, ("baseline", "adaptive"),
             cut=True),
        Plan("hex_7x7_long", "Hex 7×7", tuple(range(8, 16)), 100, ("baseline", "adaptive"),
             cut=True),
    ),
    comparisons=(
        Contrast("c4_adaptive", "c4_long", "adaptive",
                 "Connect Four 6×6: adaptive WRoRa − baseline"),
        Contrast("c4_fixed", "c4_long", "fixed",
                 "Connect Four 6×6: fixed WRoRa I′ = 5 − baseline"),
        Contrast("hex5_adaptive", "hex_5x5_long", "adaptive",
                 "Hex 5×5: adaptive WRoRa − baseline"),
        Contrast("hex7_adaptive", "hex_7x7_long", "adaptive",
                 "Hex 7×7: adaptive WRoRa − baseline"),
    ),
    roles=ROLES,
    growth=("hex_7x7_long", "hex_5x5_long"),
    elo_delta=50.0, auc_delta=0.02, auc_iterations=8, horizons=(15, 30, 60),
    full_iterations=100,
    # The decline rule and its window 21-30, where Connect Four's probe peaked, were added
    # after the data (the registration's departures).
    decline_after_data=True,
)
