"""The exploratory CPU studies' design: every family of their runs judged on the papers'
four claims (`registered.Papers`), written to `report/` by `python -m warmjax.report
--design studies/cpu`.
"""

from __future__ import annotations

from warmjax.analysis.registered import Papers

PAPERS = (Papers(("othello_cpu", "c4_cpu", "c4_cpu_departures", "gobang_cpu")),)
