"""What every registered analysis says the same way, written once: what a design still
lacks, a decision's verdict in words, the floor and decline labels on it, and the number
formats of its tables. Pure Python (no JAX, no numpy arrays).

The registered analyses (`registered`, `horizon`, `two_arms`) and the study tables read their
words and formats from here, so a verdict or an interval reads alike in every report.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from warmjax.analysis import strength
from warmjax.analysis.measures import Measure, groups
from warmjax.analysis.model import Arm
from warmjax.analysis.stats import (
    CONTRADICTED,
    NOT_INFORMATIVE,
    UNRESOLVED,
    Comparison,
    Decision,
    Tested,
    adjusted,
    decide,
    power_at,
)

INCOMPLETE = "incomplete: no verdict"


def arm_gaps(where: str, arm: Arm, seeds: Iterable[int], iterations: int) -> list[str]:
    """What one arm of a design lacks, each prefixed by `where` ("c4_long baseline"): the
    registered seeds it has no run of, and its runs short of the registered iterations."""
    out = []
    lacking = sorted(set(seeds) - set(arm.seeds))
    if lacking:
        out.append(f"{where}: no run of seed(s) {', '.join(map(str, lacking))}")
    short = sorted(r.id.seed for r in arm.runs if r.iterations < iterations)
    if short:
        out.append(f"{where}: seed(s) {', '.join(map(str, short))} short of {iterations} "
                   "iterations")
    return out


Key = TypeVar("Key", bound=Hashable)


@dataclasses.dataclass(frozen=True)
class Decided:
    """One registered comparison, decided within its Benjamini–Hochberg group
    (`decide_each`)."""

    comparison: Comparison
    decision: Decision
    p_adjusted: float  # the paired t-test's p, adjusted over the group
    p_permutation_adjusted: float  # the exact permutation p, adjusted the same way beside
    power_at_delta: float


def decide_each(group: Mapping[Key, tuple[str, Comparison | None]], delta: float
                ) -> dict[Key, Decided | None]:
    """The verdict rule over one group of comparisons (`{key: (what it compares, the
    comparison paired by seed)}`; None where a side has no run): their p-values adjusted
    together by Benjamini–Hochberg, and beside them their permutation p-values, then each
    decided alone with δ (`stats.decide`), with its power at δ. The registered analyses
    (`registered`, `horizon`, `two_arms`) all decide this way."""
    keys = [k for k, (_, c) in group.items() if c is not None]
    p_adj = dict(zip(keys, adjusted([group[k][1].p for k in keys])))
    flips = dict(zip(keys, adjusted([group[k][1].p_permutation for k in keys])))
    out: dict[Key, Decided | None] = {}
    for key, (what, c) in group.items():
        out[key] = None if c is None else Decided(
            c, decide([Tested(what, c)], delta, p_adjusted=[p_adj[key]]), p_adj[key],
            flips[key], power_at(c, delta))
    return out


def decide_groups(measures: Mapping[str, Measure],
                  comps: Mapping[Key, tuple[str, str, Comparison | None]]
                  ) -> dict[Key, Decided | None]:
    """`decide_each` over the design's Benjamini–Hochberg groups (`measures.groups`):
    `comps` is `{key: (measure name, what it compares, the comparison)}`; each group's
    comparisons are adjusted together and decided with the group's δ. In `comps`' order.

    Raises:
      ValueError: a group's measures differ in δ.
    """
    found: dict[Key, Decided | None] = {}
    for name, members in groups(measures).items():
        group = {k: (what, c) for k, (m, what, c) in comps.items() if m in members}
        if not group:
            continue
        deltas = {measures[m].delta for m in members}
        if len(deltas) != 1:
            raise ValueError(f"the Benjamini–Hochberg group {name!r} mixes δs "
                             f"({', '.join(members)})")
        found.update(decide_each(group, deltas.pop()))
    return {k: found[k] for k in comps}


def role_gaps(where: str, arms: Mapping[str, Arm | None], seeds: Iterable[int],
              iterations: int) -> list[str]:
    """What a design's arms lack (`{role: arm}`, None where its runs are absent): an absent
    arm in one line, else its missing seeds and short runs (`arm_gaps`), each prefixed by
    `where` and the role ("c4_long baseline"; the role alone where `where` is empty)."""
    out = []
    for role, arm in arms.items():
        if arm is None:
            out.append(f"{where}: no {role} arm")
        else:
            out += arm_gaps(f"{where} {role}".strip(), arm, seeds, iterations)
    return out


def verdict_words(d: Decision, incomplete: bool = False, unit: str | None = "points") -> str:
    """A decision in words: INCOMPLETE while the design lacks runs; "contradicted" with its
    reason; "not resolvable" with the effect 80% power would have needed, in `unit`
    ("points" for rates, "Elo"; None: the verdict alone, as a robustness check groups
    verdicts whose needed effects differ); else the verdict itself."""
    if incomplete:
        return INCOMPLETE
    if d.verdict == CONTRADICTED:
        return f"contradicted ({'opposite' if d.reason == 'opposite' else 'no gain ≥ δ'})"
    if d.verdict == UNRESOLVED:
        if math.isnan(d.effect80) or unit is None:
            return "not resolvable"
        need = f"{100 * d.effect80:.1f}" if unit == "points" else f"{d.effect80:.0f}"
        return f"not resolvable (80% power needed {need} {unit})"
    return d.verdict


def floored(text: str, floor: strength.Floor | None) -> str:
    """A verdict under the floor rule alone (`labelled` without a decline): where the
    baseline did not learn, the comparison decides nothing."""
    return labelled(text, floor, None)


def labelled(text: str, floor: strength.Floor | None, decline: strength.Decline | None,
             *, decline_after_floor: bool = False) -> str:
    """A verdict under the floor rule, then the decline rule (`strength.declined`): a
    baseline that did not learn decides nothing. Its label replaces the decline's, as the
    fast-recipe design registers; with `decline_after_floor` (the long-horizon design's
    rule) a declining family's label follows it. An incomplete verdict stays as it is."""
    if text == INCOMPLETE:
        return text
    if floor is not None and not floor.learned:
        text = f"{NOT_INFORMATIVE}: the baseline did not learn"
        if not decline_after_floor:
            return text
    return strength.declined(text, decline)


def p_text(x: float | None) -> str:
    """A p-value to three significant digits; "—" for none."""
    return "—" if x is None else f"{x:.3g}"


def interval(c: Mapping | None, unit: str = "points") -> str:
    """A difference with its interval from a comparison's record entry: "+1.2 [−0.4,
    +2.8]" (points) or "+12 [−30, +54]" (Elo); "—" for none."""
    if c is None or c.get("diff") is None:
        return "—"
    scale, digits = (1.0, 0) if unit == "Elo" else (100.0, 1)

    def f(x):
        return "—" if x is None else f"{scale * x:+.{digits}f}"

    return f"{f(c['diff'])} [{f(c['ci'][0])}, {f(c['ci'][1])}]"


def ratio(x: float, ci: Sequence[float], times: str = "") -> str:
    """A speed-up with its interval: "1.19 [0.83, 1.66]" ("1.19× [0.83, 1.66]" with
    `times` "×")."""
    return f"{x:.2f}{times} [{ci[0]:.2f}, {ci[1]:.2f}]"
