"""A registered analysis: named hypotheses, each an arm against a reference arm paired by
seed, decided exactly as a registration fixes them (`Design`), and written as one record
that the Markdown renders.

Per measure the hypotheses' p-values are adjusted together by Benjamini–Hochberg, and each
hypothesis is decided by the verdict rule (`stats.decide`, δ in the measure's unit) on its
adjusted p; a claim is some hypotheses decided together. Wilcoxon's and Welch's p are
sensitivity columns; the final networks' Elo, paired by seed, is reported beside and decides
nothing (its comparisons carry no δ: Elo is not in the rates' unit). A design whose arms do
not all have the registered seeds with every iteration gets no verdict: "incomplete".

Importing this module leaves JAX unloaded; it reads the model (`model.Family`) that
`study.families` builds.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping

from warmjax.analysis.model import Arm, Family
from warmjax.analysis.record import comparison_json, num
from warmjax.analysis.stats import (
    CONTRADICTED,
    UNRESOLVED,
    Comparison,
    Decision,
    Tested,
    adjusted,
    compare_by_seed,
    decide,
    power_at,
)
from warmjax.markdown import table


@dataclasses.dataclass(frozen=True)
class Hypothesis:
    """`name` ("H1"): the arm of role `arm` minus the arm of role `reference`."""

    name: str
    comparison: str
    arm: str
    reference: str


@dataclasses.dataclass(frozen=True)
class Design:
    """What a registration fixes.

    Attributes:
      title: the analysis's heading.
      registration: the registration's path, as the output cites it.
      seeds: the registered seeds; iterations: each run's.
      delta: δ, the smallest gain that matters, in the measures' unit (rates).
      measures: `{summary name (model.SUMMARIES): its description}`, primary first.
      hypotheses: the comparisons, adjusted together per measure.
      claims: `{claim: hypothesis names decided together}`.
      roles: `Family -> {role: Arm}`, the arms the hypotheses name.
    """

    title: str
    registration: str
    seeds: tuple[int, ...]
    iterations: int
    delta: float
    measures: Mapping[str, str]
    hypotheses: tuple[Hypothesis, ...]
    claims: Mapping[str, tuple[str, ...]]
    roles: Callable[[Family], dict[str, Arm]]


@dataclasses.dataclass(frozen=True)
class Roles:
    """A design's arms by role, those the family has: each role names the fields of its
    arm's identity (`RunId`), e.g. `{"baseline": {"mode": "none"}, "fixed": {"mode":
    "fixed", "enhancement": "wrora", "iprime": 5}}`; called on a family, `{role: Arm}`."""

    spec: Mapping[str, Mapping[str, object]]

    def __call__(self, family: Family) -> dict[str, Arm]:
        out = {}
        for role, fields in self.spec.items():
            found = [a for a in family.all_arms()
                     if all(getattr(a.id, k) == v for k, v in fields.items())]
            if found:
                out[role] = found[0]
        return out


def arm_gaps(where: str, arm: Arm, seeds, iterations: int) -> list[str]:
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


def missing(arms: Mapping[str, Arm], seeds: tuple[int, ...], iterations: int) -> list[str]:
    """What the registered design lacks: per arm the missing seeds and unfinished runs."""
    gaps = []
    for role, arm in arms.items():
        lacking = sorted(set(seeds) - set(arm.seeds))
        if lacking:
            gaps.append(f"{role}: no run of seed(s) {', '.join(map(str, lacking))}")
        short = [r.id.seed for r in arm.runs if r.iterations < iterations]
        if short:
            gaps.append(f"{role}: seed(s) {', '.join(map(str, short))} unfinished")
    return gaps


def verdict(d: Decision, gaps: list[str]) -> str:
    """A hypothesis's or claim's verdict in words ("incomplete: no verdict" with gaps)."""
    if gaps:
        return "incomplete: no verdict"
    if d.verdict == CONTRADICTED:
        return f"contradicted ({'opposite' if d.reason == 'opposite' else 'no gain ≥ δ'})"
    if d.verdict == UNRESOLVED:
        return (f"not resolvable (80% power needed {100 * d.effect80:.1f} points)"
                if not math.isnan(d.effect80) else "not resolvable")
    return d.verdict


def analyse(family: Family, design: Design, gaps: list[str] | None = None,
            folder: str = "") -> dict:
    """The registered analysis of `family`, as a record (`registered.json`). `gaps`: what
    the design lacks (`missing`); None: worked out here."""
    arms = design.roles(family)
    gaps = missing(arms, design.seeds, design.iterations) if gaps is None else gaps
    delta = design.delta
    out = {"folder": folder, "seeds": list(design.seeds), "complete": not gaps, "gaps": gaps,
           "delta": delta, "measures": {}, "claims": {}, "elo": {}}
    for measure in design.measures:
        comps: list[Comparison] = [
            compare_by_seed(arms[h.arm].by_seed("policy", measure),
                            arms[h.reference].by_seed("policy", measure))
            for h in design.hypotheses]
        p_adj = adjusted([c.p for c in comps])
        rows = {}
        for h, c, p in zip(design.hypotheses, comps, p_adj):
            d = decide([Tested(h.comparison, c)], delta, p_adjusted=[p])
            rows[h.name] = {"comparison": h.comparison, **comparison_json(c, delta),
                            "p_adjusted": num(p), "power_at_delta": num(power_at(c, delta)),
                            "verdict": verdict(d, gaps)}
        out["measures"][measure] = rows
        tested = {h.name: Tested(h.comparison, c) for h, c in zip(design.hypotheses, comps)}
        p_by = {h.name: p for h, p in zip(design.hypotheses, p_adj)}
        out["claims"][measure] = {
            claim: verdict(decide([tested[n] for n in names], delta,
                                  p_adjusted=[p_by[n] for n in names]), gaps)
            for claim, names in design.claims.items()}
    for h in design.hypotheses:
        c = compare_by_seed(arms[h.arm].by_seed("elo"), arms[h.reference].by_seed("elo"))
        out["elo"][h.name] = None if c is None else {
            "comparison": h.comparison, **comparison_json(c, delta=None)}
    return out


def _pts(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:+.1f}"


def markdown(record: dict, design: Design, command: str) -> str:
    """`registered.md`, read from the record alone."""
    lines = [f"# {design.title}", "",
             (f"Computed by `{command}` as {design.registration} registers it; "
              f"δ = {100 * record['delta']:g} points; seeds "
              f"{record['seeds'][0]}–{record['seeds'][-1]} ({len(record['seeds'])})."), ""]
    if not record["complete"]:
        lines += ["**Incomplete: no verdict is claimed.** Missing: "
                  + "; ".join(record["gaps"]), ""]
    for measure, title in design.measures.items():
        rows = []
        for h, r in record["measures"][measure].items():
            rows.append([h, r["comparison"], r["n"],
                         f"{_pts(r['diff'])} [{_pts(r['ci'][0])}, {_pts(r['ci'][1])}]",
                         f"{r['p']:.3g}", f"{r['p_adjusted']:.3g}",
                         f"{r.get('p_wilcoxon', math.nan):.3g}",
                         f"{r['welch']['p']:.3g}" if r.get("welch") else "—",
                         f"{100 * r['effect80']:.1f}" if r["effect80"] is not None else "—",
                         f"{r['power_at_delta']:.2f}" if r["power_at_delta"] is not None
                         else "—", f"**{r['verdict']}**"])
        names = f"{design.hypotheses[0].name}–{design.hypotheses[-1].name}"
        lines += [f"## {title[0].upper() + title[1:]}", "",
                  table(["", "comparison", "pairs", "Δ points, paired [95% CI]", "p",
                         f"p (BH, {names})",
                         "Wilcoxon p", "Welch p", "80%-power effect", "power at δ", "verdict"],
                        rows, "llrlrrrrrrl")]
        lines += [f"- {claim}: **{v}**" for claim, v in record["claims"][measure].items()]
        lines.append("")
    elo = [[h, r["comparison"], r["n"], f"{r['diff']:+.0f} [{r['ci'][0]:+.0f}, "
            f"{r['ci'][1]:+.0f}]", f"{r['p']:.3g}"]
           for h, r in record["elo"].items() if r is not None]
    if elo:
        lines += ["## The papers' measure: final Elo, paired by seed (decides nothing)", "",
                  table(["", "comparison", "pairs", "Δ Elo [95% CI]", "p"], elo, "llrlr")]
    return "\n".join(lines) + "\n"
