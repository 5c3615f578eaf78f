"""Hex 5×5 against 7×7 (REGISTRATION.md), analysed as the exploratory studies are: every
family judged on the papers' four claims and the across-board steps (`registered.Papers`),
written to `report/` by `python -m warmjax.report --design studies/hex_sizes`.
"""

from __future__ import annotations

from warmjax.analysis.registered import Papers

PAPERS = (Papers(("hex_5x5_cpu", "hex_7x7_cpu")),)
