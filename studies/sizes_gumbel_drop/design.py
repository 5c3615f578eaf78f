"""The three studies of REGISTRATION.md, each analysed as the exploratory studies are (the
papers' four claims, `registered.Papers`) beside the data it is compared with: the Gumbel
baseline against c4_confirm's PUCT baseline (`report_gumbel/`), the larger boards beside the
6×6 ones (`report_sizes/`), and dropping warm-start games beside the quick profile's
departures (`report_drop/`). `python -m warmjax.report --design studies/sizes_gumbel_drop`
writes all three.
"""

from __future__ import annotations

from warmjax.analysis.registered import Papers

PAPERS = (
    Papers(("c4_gumbel", "../c4_confirm/c4_confirm"), "report_gumbel"),
    Papers(("c4_6x7_cpu", "../cpu/c4_cpu", "othello_8x8_cpu", "../cpu/othello_cpu"),
           "report_sizes"),
    Papers(("c4_cpu_departures_drop", "../cpu/c4_cpu_departures"), "report_drop"),
)
