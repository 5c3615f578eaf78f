"""A registered horizon study's analysis: each warm-start arm against its own study's
baseline, paired by seed, over several studies (boards), exactly as the study's `Design`
fixes it. No JAX and no paths here: the studies' families in (`study.families`), one
JSON-ready record out (its report: `render.markdown`, from the record alone).

- **(a) Final Elo** (primary, the papers' measure): per seed, arm − baseline in Bayesian
  Elo from the round robin of the final networks; paired t, Benjamini–Hochberg over the
  design's comparisons, the verdict rule (`stats.decide`) with δ in Elo. The Elo at the
  earlier horizons is computed the same way, unadjusted, and decides nothing.
- **(b) Compute to strength** (primary): `strength.time_to_strength` against the ledger's
  estimated CPU-seconds (the registered calibration table), with the log-rank p-values of
  the policy-head ladder adjusted by Benjamini–Hochberg over every (comparison, step) pair
  (`strength.adjust`). The same against measured wall seconds is reported beside,
  labelled, and decides nothing.
- **(c) Early learning** (primary): the policy head's AUC over the first iterations,
  paired t, Benjamini–Hochberg over the comparisons, δ in points; robustness: the same
  decision for every window k = 3–15 and the whole run.
- **The floor rule** (`strength.floor`): every verdict of a study whose baseline did not
  learn reads *not informative*.
- **The decline rule** (`strength.decline`): the baseline's policy head over the last tenth
  of a study's iterations against its plan's reference window, paired by seed, one-sided;
  where it is significantly lower, every verdict of (a) and (b) carries *the recipe
  declines: these learners are collapsing*.
- Beside each paired t of (a), the exact sign-flip p (all 2ⁿ sign patterns of the n
  per-seed differences), Benjamini–Hochberg over the comparisons too; it decides nothing.
- **Growth with the board** (secondary, no adjustment), where the design names a larger
  and a smaller board: Welch's test of the larger board's per-seed Elo leads against the
  smaller's (δ in Elo), and the ratio of the larger board's speed-up to the smaller's at
  the first step of the policy-head ladder on the compute axis, with a bootstrap interval
  over seeds (`survival.speedup_growth`): "grows" if it lies above 1. Where either board's
  baseline did not learn: "no evidence either way".

No interim look: `gaps` names what a study still lacks (runs, iterations, round robins),
and with any gap every verdict reads "incomplete: no verdict".
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

from warmjax.analysis import strength
from warmjax.analysis.measures import EloAt, Measure, groups
from warmjax.analysis.model import Family
from warmjax.analysis.record import comparison_json, num
from warmjax.analysis.registered import Board, Design, plan_json
from warmjax.analysis.stats import (
    CONTRADICTED,
    REPRODUCED,
    UNRESOLVED,
    Comparison,
    Tested,
    compare,
    compare_by_seed,
    decide,
)
from warmjax.analysis.verdicts import (
    INCOMPLETE,
    decide_each,
    floored,
    labelled,
    role_gaps,
    verdict_words,
)

NO_EVIDENCE = "no evidence either way"  # growth with the board, neither way resolved
# The registered measures (`registered.Measure`) a horizon design decides on: (a), (b), (c).
MEASURES = ("elo", "compute", "auc")


@dataclasses.dataclass(frozen=True)
class StudyData:
    """One study as read: its family with the final round robin's Elo, the same family
    with each earlier horizon's Elo (`{horizon: Family}`, absent where that round robin is
    missing), and the random move's rate on its probe positions (the floor rule)."""

    board: Board
    family: Family
    horizons: Mapping[int, Family]
    random_rate: float


def gaps(data: Sequence[StudyData], design: Design) -> list[str]:
    """What the registered design still lacks: per study and arm the missing seeds and
    unfinished runs, and networks the final or a horizon's round robin did not rate."""
    out = []
    for d in data:
        p, arms = d.board, design.roles(d.family)
        out += role_gaps(p.name, {role: arms.get(role) for role in p.roles}, p.seeds,
                         p.iterations)
        for label, family in [("final", d.family),
                              *((f"iteration {h}", d.horizons.get(h)) for h in design.horizons
                                if h < p.iterations)]:
            rated = [set(design.roles(family).get(r).by_seed("elo")) if family is not None
                     and design.roles(family).get(r) is not None else set() for r in p.roles]
            unrated = sorted(set(p.seeds) - set.intersection(*rated)) if rated else []
            if unrated:
                out.append(f"{p.name}: the {label} round robin rated no network of seed(s) "
                           f"{', '.join(map(str, unrated))} in some arm")
    return out


def _paired(data: Mapping[str, StudyData], measure: Measure, design: Design
            ) -> dict[str, Comparison | None]:
    """Per registered comparison: the measure's values of the arm against its study's
    baseline, paired by seed."""
    out = {}
    for c in design.hypotheses:
        d = data.get(c.board)
        arms = design.roles(d.family) if d is not None else {}
        arm, base = arms.get(c.arm), arms.get("baseline")
        out[c.name] = (None if arm is None or base is None else compare_by_seed(
            measure.values(arm, d.board.iterations), measure.values(base, d.board.iterations)))
    return out


def _decided(comps: Mapping[str, Comparison | None], design: Design, delta: float, unit: str,
             incomplete: bool, floors: Mapping[str, strength.Floor | None],
             declines: Mapping[str, strength.Decline | None] | None = None) -> dict:
    """The comparisons adjusted together (Benjamini–Hochberg) and each decided; the
    exact sign-flip p-values adjusted the same way beside them. `declines`: a horizon
    measure's, whose verdicts carry the decline label (`strength.declined`)."""
    decided = decide_each({c.name: (c.comparison, comps.get(c.name))
                           for c in design.hypotheses}, delta)
    rows = {}
    for c in design.hypotheses:
        x = decided[c.name]
        if x is None:
            rows[c.name] = None
            continue
        verdict = labelled(verdict_words(x.decision, incomplete, unit), floors[c.board],
                           None if declines is None else declines.get(c.board),
                           decline_after_floor=True)
        rows[c.name] = {"comparison": c.comparison,
                       **comparison_json(x.comparison, delta if unit == "points" else None),
                       "p_adjusted": num(x.p_adjusted),
                       "p_permutation_adjusted": num(x.p_permutation_adjusted),
                       "power_at_delta": num(x.power_at_delta),
                       "verdict": verdict,
                       "decided": floored(verdict_words(x.decision, incomplete, None),
                                          floors[c.board])}
    return rows


def _windows(data: Mapping[str, StudyData]) -> list[int]:
    """k = 3–15 and the whole run (the shortest study's iterations)."""
    last = min(d.family.final_iteration for d in data.values())
    return [k for k in range(3, 16) if k <= last] + ([last] if last > 15 else [])


def _growth_elo(data: Mapping[str, StudyData], floors, incomplete: bool, design: Design
                ) -> dict | None:
    """Welch's test of the larger board's per-seed Elo leads against the smaller's."""
    growth = design.growth
    large, small = growth.boards
    leads = growth.leads({n: data[n].family for n in growth.boards}, design.roles)
    if leads is None:
        return None
    comp = compare(leads[large], leads[small])
    d = decide([Tested(f"{data[large].board.title} lead − {data[small].board.title} lead",
                       comp)], growth.delta)
    words = {REPRODUCED: "grows", CONTRADICTED: "shrinks" if d.reason == "opposite"
             else f"no growth ≥ {growth.delta:g} Elo"}
    text = words.get(d.verdict, NO_EVIDENCE)
    if d.verdict == UNRESOLVED and not math.isnan(d.effect80):
        text += f" (80% power needed {d.effect80:.0f} Elo)"
    return {"leads": {k: [num(x) for x in v] for k, v in leads.items()},
            **comparison_json(comp, None),
            "verdict": _growth_floor(text, floors, incomplete, design)}


def _growth_floor(text: str, floors, incomplete: bool, design: Design) -> str:
    if incomplete:
        return INCOMPLETE
    dead = [floors[n].family for n in design.growth.boards if floors[n] is not None
            and not floors[n].learned]
    if dead:
        return f"no evidence either way: the baseline did not learn ({', '.join(dead)})"
    return text


def _growth_speed(data: Mapping[str, StudyData], curves, floors, incomplete: bool,
                  design: Design) -> dict | None:
    """The larger board's speed-up over the smaller's at the first policy-head step, on the
    compute axis."""
    growth = design.growth
    found = growth.speedup({n: data[n].family for n in growth.boards}, design.roles,
                           design.measures["compute"], curves)
    if found is None:
        return None
    steps, g = found
    text = "grows" if g.ci[0] > 1 else "shrinks" if g.ci[1] < 1 else NO_EVIDENCE
    return {"steps": steps, "ratio": num(g.ratio), "ci": [num(x) for x in g.ci],
            "speedup_large": num(g.large), "speedup_small": num(g.small),
            "verdict": _growth_floor(text, floors, incomplete, design)}


def analyse(data: Sequence[StudyData], design: Design, ledger: Mapping, measured: Mapping,
            missing: Sequence[str] | None = None) -> dict:
    """The registered analysis, as one record.

    Args:
      data: the three studies as read (`StudyData`).
      ledger: `{run path: analysis.compute.ComputeCurve}`, the ledger's estimated seconds on
        the registered calibration: measure (b).
      measured: the same from the measured wall seconds, reported beside.
      missing: the design's gaps (`gaps`); None: worked out here.
    """
    lacking = [m for m in MEASURES if m not in design.measures]
    if lacking:
        raise ValueError(f"{design.title}: a horizon design needs the measures "
                         f"{', '.join(MEASURES)}; it lacks {', '.join(lacking)}")
    shared = [g for g, names in groups(design.measures).items()
              if len(names) > 1 and set(names) & set(MEASURES)]
    if shared:
        raise ValueError(f"{design.title}: a horizon design adjusts (a), (b) and (c) each "
                         f"on its own; the group(s) {', '.join(shared)} join(s) one of them "
                         "with another measure")
    missing = gaps(data, design) if missing is None else list(missing)
    incomplete = bool(missing)
    by_name = {d.board.name: d for d in data}
    floors = {n: strength.floor(d.family, d.random_rate) for n, d in by_name.items()}
    declines = {n: strength.decline(d.family, d.board.decline_window)
                for n, d in by_name.items()}
    out: dict = {"registration": design.registration, "complete": not incomplete, "gaps": missing,
                 "studies": {d.board.name: {"title": d.board.title, "seeds": list(d.board.seeds),
                                           "iterations": d.board.iterations,
                                           "family": d.family.title}
                             for d in data},
                 "floor": {n: f.to_json() for n, f in floors.items() if f is not None},
                 "decline": {n: x.to_json() for n, x in declines.items() if x is not None},
                 "deltas": {"elo": design.delta("elo"), "auc": design.delta("auc")},
                 "plan": plan_json(design, "horizons")}
    # (a) the final networks' Elo, and the earlier horizons beside it
    elo = design.measures["elo"]
    out["elo"] = _decided(_paired(by_name, elo, design), design, elo.delta, elo.unit,
                          incomplete, floors, declines)
    out["elo_horizons"] = {}
    for h in design.horizons:
        at = {n: dataclasses.replace(d, family=d.horizons[h]) for n, d in by_name.items()
              if h in d.horizons}
        out["elo_horizons"][str(h)] = {k: comparison_json(c, None) for k, c in _paired(
            at, EloAt(f"Elo at iteration {h}", elo.delta, horizon=h), design).items()}
    # (c) the policy head's AUC over the first iterations, and over every window
    auc = design.measures["auc"]
    out["auc"] = _decided(_paired(by_name, auc, design), design, auc.delta, auc.unit,
                          incomplete, floors)
    windows = _windows(by_name)
    by_k = {c.name: {} for c in design.hypotheses}
    for k in windows:
        rows = _decided(_paired(by_name, auc.at(k), design), design, auc.delta, auc.unit,
                        incomplete, floors)
        for key, row in rows.items():
            if row is not None:
                by_k[key][k] = row["decided"]
    out["auc_robustness"] = {"windows": windows, "verdicts": {
        key: {"by_k": {str(k): v for k, v in ks.items()},
              "holds_over": {v: strength.holds_over(ks, v) for v in sorted(set(ks.values()))}}
        for key, ks in by_k.items() if ks}}
    # (b) compute to each step of the ladder
    speed = {}
    for curves, name in ((ledger, "ledger"), (measured, "measured")):
        pairs = [(r, d) for d in data
                 if (r := design.measures["compute"].record(d.family, curves)) is not None]
        records = [r for r, _ in pairs]
        strength.adjust(records)
        for r, d in pairs:
            r["study"] = d.board.name
            for block in r["axes"].values():
                for c in block["comparisons"]:
                    if incomplete:
                        c["verdict"] = c["verdict_registered"] = INCOMPLETE
                    else:
                        c["verdict"] = labelled(c["verdict"], floors[d.board.name],
                                                declines[d.board.name],
                                                decline_after_floor=True)
        speed[name] = records
    out["speed"] = speed
    grows = design.growth is not None and set(design.growth.boards) <= set(by_name)
    out["growth"] = {"elo": _growth_elo(by_name, floors, incomplete, design) if grows
                     else None,
                     "speedup": _growth_speed(by_name, ledger, floors, incomplete, design)
                     if grows else None}
    return out
