"""The papers' claims, each decided on one family by the one verdict rule (`stats.decide`):

1. warm start beats the baseline; 2. WRoRa is the best enhancement; 3. the adaptive switch
beats a fixed I′ = 5; 4. the result varies with I′. Each claim only chooses its comparisons
(on the primary measure, the policy head's AUC, paired by seed) and puts the decision into
words. Importing this module leaves JAX unloaded.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from warmjax.analysis.model import DELTA, MAIN_IPRIME, Arm, Family, IprimeRow, PowerRow
from warmjax.analysis.stats import (
    ALPHA,
    CONTRADICTED,
    NOT_TESTED,
    REPRODUCED,
    UNRESOLVED,
    Comparison,
    Decision,
    Tested,
    compare_by_seed,
    compare_paired,
    decide,
    friedman,
)
from warmjax.markdown import points
from warmjax.names import PAPERS_ENHANCEMENTS, enhancement_name


@dataclasses.dataclass(frozen=True)
class Claim:
    """One of the papers' claims, decided on one family by `decide`.

    Attributes:
      claim: its number and statement.
      family: the family's title.
      verdict: REPRODUCED, CONTRADICTED, UNRESOLVED or NOT_TESTED.
      label: the verdict in words that name the deciding measure and the reason.
      evidence: the numbers that decide it.
      papers: the papers' measure (final Elo, paired by seed) in words; "" without one.
      decision: the rule's record (comparisons, adjusted p, 80%-power effect).
    """

    claim: str
    family: str
    verdict: str
    label: str
    evidence: str
    papers: str = ""
    decision: Decision | None = None


def _span(c: Comparison) -> str:
    return f"{points(c.diff)} points [{points(c.ci[0])}, {points(c.ci[1])}], p = {c.p:.3g}"


def _elo_span(c: Comparison) -> str:
    return f"{c.diff:+.0f} [{c.ci[0]:+.0f}, {c.ci[1]:+.0f}], p = {c.p:.2g}"


def _label(d: Decision, measure: str, delta: float) -> str:
    """The verdict in words that say which measure decided it and why."""
    if d.verdict == REPRODUCED:
        if d.reason == "all better" and len(d.tested) > 1:
            return f"reproduced: every comparison significantly better in the {measure}"
        return f"reproduced: significantly better in the {measure}"
    if d.verdict == CONTRADICTED and d.reason == "opposite":
        worse = ", ".join(t.name for t in d.tested
                          if t.comparison.p_adjusted < ALPHA and t.comparison.diff < 0)
        return f"contradicted: significantly below zero in the {measure} ({worse})"
    if d.verdict == CONTRADICTED:
        return f"contradicted: no gain ≥ {100 * delta:.0f} points in the {measure}"
    if d.verdict == UNRESOLVED:
        need = ("" if math.isnan(d.effect80) else
                f"; 80% power needed a true difference of {100 * d.effect80:.1f} points")
        return f"not resolvable in the {measure}{need}"
    return NOT_TESTED


def _claim(name: str, family: Family, tested: Sequence[Tested], delta: float,
           measure: str, intro: str, omnibus: tuple[float, str] | None = None) -> Claim:
    """Decide `tested` by the rule and put the claim into words."""
    d = decide(tested, delta, None if omnibus is None else omnibus[0])
    rows = "; ".join(f"{t.name} {_span(t.comparison)} (adj. {t.comparison.p_adjusted:.3g})"
                     for t in d.tested)
    evidence = f"{intro}: " + (f"{omnibus[1]}; pairs: " if omnibus else "") + rows
    papers = "; ".join(f"{t.name} {_elo_span(t.elo)}" for t in d.tested if t.elo is not None)
    return Claim(name, family.title, d.verdict, _label(d, measure, delta), evidence, papers, d)


def _not_tested(name: str, family: Family, why: str) -> Claim:
    return Claim(name, family.title, NOT_TESTED, NOT_TESTED, why)


def _measure(family: Family) -> str:
    return f"policy head's AUC 1-{family.auc_iterations}"


def _pair(a: Arm, b: Arm, name: str | None = None) -> Tested | None:
    """`a` against `b` on the primary AUC, paired by seed (None below two common seeds)."""
    c = compare_by_seed(a.by_seed(), b.by_seed())
    if c is None:
        return None
    return Tested(name or f"{a.label} − {b.label}", c,
                  compare_by_seed(a.by_seed("elo"), b.by_seed("elo")))


def claim_beats_baseline(family: Family, delta: float) -> Claim:
    """Claim 1: warm start beats the baseline: every warm-start arm of the main comparison
    against the baseline."""
    name = "1. Warm start beats the baseline"
    if family.baseline is None:
        return _not_tested(name, family, "no baseline")
    tested = [t for a in family.main if (t := _pair(a, family.baseline)) is not None]
    if not tested:
        return _not_tested(name, family, "no warm-start arm with two seeds")
    return _claim(name, family, tested, delta, _measure(family),
                  f"{_measure(family)}, each warm-start arm − baseline, paired by seed "
                  f"({len(tested)} arm{'' if len(tested) == 1 else 's'})")


def claim_wrora_best(family: Family, delta: float) -> Claim:
    """Claim 2: WRoRa is the best enhancement: WRoRa against every other enhancement, among
    the adaptive arms and among the fixed arms at I′ = 5 alike."""
    name = "2. WRoRa is the best enhancement"
    tested = []
    for mode in ("adaptive", "fixed"):
        arms = [a for a in family.main if a.id.mode == mode
                and (mode == "adaptive" or a.id.iprime == MAIN_IPRIME)]
        wrora = next((a for a in arms if a.id.enhancement == "wrora"), None)
        if wrora is None:
            continue
        tested += [t for a in arms if a is not wrora
                   if (t := _pair(wrora, a, f"{mode} WRoRa − "
                                  f"{enhancement_name(a.id.enhancement)}")) is not None]
    if not tested:
        return _not_tested(name, family,
                           "no two enhancements with WRoRa among them in one mode")
    return _claim(name, family, tested, delta, _measure(family),
                  f"{_measure(family)}, WRoRa − each other enhancement in the same mode, "
                  "paired by seed")


def claim_adaptive_beats_fixed(family: Family, delta: float) -> Claim:
    """Claim 3: the adaptive switch beats a fixed I′ = 5: adaptive − fixed per enhancement
    that ran in both modes."""
    name = "3. Adaptive beats fixed I′ = 5"
    adaptive = {a.id.enhancement: a for a in family.arms if a.id.mode == "adaptive"}
    fixed = {a.id.enhancement: a for a in family.arms
             if a.id.mode == "fixed" and a.id.iprime == MAIN_IPRIME}
    tested = [t for e in PAPERS_ENHANCEMENTS if e in adaptive and e in fixed
              if (t := _pair(adaptive[e], fixed[e])) is not None]
    if not tested:
        others = sorted({a.id.iprime for a in family.arms if a.id.mode == "fixed"})
        if others and not fixed:
            return _not_tested(name, family, "no fixed arm at I′ = 5 (its fixed arms switch "
                               f"at I′ = {', '.join(map(str, others))})")
        return _not_tested(name, family, "no enhancement in both modes with two seeds each")
    return _claim(name, family, tested, delta, _measure(family),
                  f"{_measure(family)}, adaptive − fixed I′ = 5 per enhancement, paired by "
                  "seed")


def iprime_series(family: Family) -> tuple[str | None, list[Arm], list[int]]:
    """The enhancement with the most fixed I′ values, its fixed arms by I′ and the seeds that
    ran at every one of them (claim 4's data)."""
    by_enh: dict[str, list[Arm]] = {}
    for a in family.arms:
        if a.id.mode == "fixed":
            by_enh.setdefault(a.id.enhancement, []).append(a)
    enh, arms = max(by_enh.items(), key=lambda kv: len(kv[1]), default=(None, []))
    arms = sorted(arms, key=lambda a: a.id.iprime)
    seeds = sorted(set.intersection(*(set(a.seeds) for a in arms))) if arms else []
    return enh, arms, seeds


def on_seeds(arm: Arm, values: Sequence[float], seeds: Sequence[int]) -> list[float]:
    """An arm's per-run values (in `arm.runs` order) restricted to `seeds`."""
    return [v for s, v in zip(arm.seeds, values) if s in seeds]


def iprime_rows(family: Family) -> tuple[IprimeRow, ...]:
    """Claim 4's data: the fixed arms of the swept enhancement by I′, and the baseline, each
    on the seeds that ran at every I′ (means; Elo relative to the seed's round robin); none
    below three I′ values."""
    _, arms, seeds = iprime_series(family)
    if len(arms) < 3 or not seeds:
        return ()
    rows = []
    for arm in ([family.baseline] if family.baseline else []) + arms:
        means = [float(np.mean(on_seeds(arm, getattr(arm.metrics[m], which).values, seeds)))
                 for m in ("policy", "search") for which in ("auc", "final")]
        elo = on_seeds(arm, arm.elo.values, seeds) if arm.elo is not None else []
        rows.append(IprimeRow(arm.label, len(on_seeds(arm, arm.seeds, seeds)), *means,
                              float(np.mean(elo)) if elo else None))
    return tuple(rows)


def power_rows(family: Family, delta: float) -> tuple[PowerRow, ...]:
    """The main comparison's power (`PowerRow`): per main arm compared with the baseline,
    then the family's row; none without a comparison."""
    rows = [PowerRow(arm.label, c.n, c.sd, c.effect80, c.seeds_for(delta))
            for arm in family.main if (c := arm.primary.auc_vs_baseline) is not None]
    if not rows:
        return ()
    return (*rows, PowerRow("family (RMS of the SDs)", 0, family.spread(), math.nan,
                            family.seeds_for(delta)))


def claim_iprime(family: Family, delta: float) -> Claim:
    """Claim 4: how long warm start lasts matters (fixed warm start; the enhancement with
    the most I′ values): Friedman's test over the I′ values on the seeds that ran at every
    I′, decided on the primary measure; every pair of I′ values compared, paired by seed,
    for "no variation of δ or more". The papers' measure, Elo, gets its own Friedman test.

    Only the seeds that ran at every I′ count: blocks must be complete, and a seed's Elo is
    centred on its own round robin (`_centred_ratings`)."""
    name = "4. The result varies with I′"
    enh, arms, seeds = iprime_series(family)
    if len(arms) < 3:
        return _not_tested(name, family, "fewer than three I′ values")
    if len(seeds) < 2:
        return _not_tested(name, family, "fewer than two seeds ran at every I′")
    values = [[a.by_seed()[s] for s in seeds] for a in arms]
    stat, p = friedman(values)
    tested = []
    for i, a in enumerate(arms):
        for b in arms[i + 1:]:
            c = compare_paired([b.by_seed()[s] for s in seeds], [a.by_seed()[s] for s in seeds])
            tested.append(Tested(f"I′={b.id.iprime} − I′={a.id.iprime}", c))
    means = ", ".join(f"I′={a.id.iprime}: {100 * np.mean(v):.1f}%"
                      for a, v in zip(arms, values))
    omnibus = f"Friedman χ² = {stat:.2f}, p = {p:.3g} (means {means})"
    out = _claim(name, family, tested, delta, _measure(family),
                 f"{enhancement_name(enh)} fixed, {_measure(family)} per I′ on seeds "
                 f"{', '.join(map(str, seeds))}", (p, omnibus))
    if all(a.elo is not None for a in arms):
        elos = [[a.by_seed("elo")[s] for s in seeds] for a in arms]
        e_stat, e_p = friedman(elos)
        elo_means = ", ".join(f"I′={a.id.iprime}: {np.mean(v):+.0f}"
                              for a, v in zip(arms, elos))
        out = dataclasses.replace(out, papers=f"Elo per I′ ({elo_means}); Friedman χ² = "
                                  f"{e_stat:.2f}, p = {e_p:.3g}")
    if out.verdict == REPRODUCED:  # the omnibus test decided: say so
        out = dataclasses.replace(out, label=f"reproduced: the {_measure(family)} differs "
                                  "between I′ values (Friedman)")
    elif out.verdict == CONTRADICTED:
        out = dataclasses.replace(out, label=f"contradicted: no two I′ values differ by "
                                  f"≥ {100 * delta:.0f} points in the {_measure(family)}")
    return out


CLAIMS = (claim_beats_baseline, claim_wrora_best, claim_adaptive_beats_fixed, claim_iprime)


def claims(study: Sequence[Family], delta: float = DELTA) -> list[Claim]:
    """Every claim on every family (claim 3 only where both modes ran, claim 4 only where
    fixed runs with three or more I′ values did)."""
    return [decide_claim(family, delta) for family in study for decide_claim in CLAIMS]
