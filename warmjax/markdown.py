"""Markdown for the reports: one table helper, so every table reads the same."""

from __future__ import annotations

import math
from collections.abc import Sequence


def table(header: Sequence[str], rows: Sequence[Sequence[object]],
          align: str | None = None) -> str:
    """A Markdown table, one line per row, ending in a newline.

    Args:
      header: the column titles.
      rows: the cells, one sequence per row (each converted with `str`).
      align: one letter per column, `l` (left) or `r` (right); None: no alignment marks.

    Raises:
      ValueError: a row or `align` whose length differs from the header's.
    """
    if align is not None and len(align) != len(header):
        raise ValueError(f"align {align!r} does not have one letter per column "
                         f"({len(header)})")
    marks = {"l": ":---", "r": "---:", None: "---"}
    rule = [marks[a] for a in align] if align is not None else ["---"] * len(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a row of {len(row)} cells in a table of {len(header)} columns")
        lines.append("| " + " | ".join(str(cell) for cell in row) + " |")
    return "\n".join(lines) + "\n"


def percent(value: float | None, decimals: int = 1, missing: str = "—") -> str:
    """A rate as a percentage without the sign (`0.905` → `90.5`); `missing` for None or
    NaN."""
    if value is None or math.isnan(value):
        return missing
    return f"{100 * value:.{decimals}f}"


def points(x: float | None) -> str:
    """A rate difference in signed percentage points (`0.023` → `+2.3`); "—" for None."""
    return "—" if x is None else f"{100 * x:+.1f}"
