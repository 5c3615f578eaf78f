"""A two-arm registered design over boards, as data (`design.json` beside its
registration), and the analysis that design fixes. No JAX and no paths: a study's driver
reads the runs and hands in the families; one JSON-ready record comes out (its report:
`render.markdown`, from the record alone).

A design names **boards**, each a study folder of runs of two arms on the same seeds and
iterations: the baseline (warm start off; the design's first arm) and one warm-start arm
(its second). Per board, a **ladder** of optimal-move rates for the policy head and for the
search. What it decides:

- **(A) Compute to strength.** `strength.time_to_strength` on the board's ladder against
  the ledger's estimated seconds on the registered calibration table: per step, the
  log-rank test and the speed-up ratio RMST(baseline) / RMST(arm) with a seed-bootstrap
  interval. The log-rank p-values of every (board, measure, step) are adjusted together by
  Benjamini–Hochberg, per axis, and each step gets `strength.speed_verdict` with the
  design's smallest speed-up worth finding. A step that no baseline run reached but some
  warm-start run did is *budget-bound*: its ratio is a lower bound set by the budget. The
  same against measured wall seconds is reported beside and decides nothing.
- **(B) The final agent.** Per board and measure, the rate at the design's last iteration,
  arm − baseline paired by seed: paired t, Benjamini–Hochberg over every (board, measure),
  the verdict rule (`stats.decide`) with the design's δ. The exact sign-flip and Wilcoxon
  p-values are reported beside and decide nothing. The same on the quiet positions is
  secondary: unadjusted, no verdict.
- **The floor rule** (`strength.floor`): a board whose baseline did not learn decides
  nothing. **The decline rule** (`strength.decline`, over the design's reference window):
  a board whose baseline declines carries the label on every verdict.
- **Self-play health** (secondary): per board, arm and iteration, the mean over seeds of
  the health figures every metrics row holds (method.md §5).
- **Robustness of (A)** (beside it, deciding nothing; `robustness`): per board and step on
  the ledger's compute, how many seeds reached the step sooner and how many later with warm
  start, the exact sign-flip p of those paired times (Benjamini–Hochberg over every step
  together), the speed-up where a step counts only once the probe has held it for `HOLD`
  iterations, and the range of the speed-up with any one seed left out. The answers say,
  per board, which *faster* step is faster at the first touch only (held, its speed-up's
  interval reaches 1), which steps warm start reached later (or sooner) in every seed, and
  which *open* steps have a speed-up interval wholly above 1.

A design whose arms lack any registered seed or iteration gets "incomplete: no verdict"
everywhere (`gaps`). A registered cut (`registered.Design.under_cuts`) applies the first
steps of the design's cut order: "<board> to seeds A-B" keeps those seeds, "<board>
dropped" removes the board. The design itself is a `registered.Design`, the one type of
every registered study's design; `from_json` reads it from the file.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from warmjax.analysis import registered, strength, survival
from warmjax.analysis.measures import ComputeToStep, FinalRate, Measure
from warmjax.analysis.model import METRICS, TITLES, Arm, Family
from warmjax.analysis.record import comparison_json, num
from warmjax.analysis.registered import Board, Design, Hypothesis
from warmjax.analysis.stats import (
    Comparison,
    adjusted,
    compare_by_seed,
    sign_flip_p,
)
from warmjax.analysis.survival import RESAMPLES
from warmjax.analysis.verdicts import (
    INCOMPLETE,
    decide_groups,
    labelled,
    role_gaps,
    verdict_words,
)

BUDGET_BOUND = "budget-bound: no baseline run reached it, so the ratio is a lower bound"
# The self-play health figures (metrics row fields, method.md §5) the record follows.
HEALTH = {"selfplay_draws": "draws", "selfplay_first_wins": "first-player wins",
          "selfplay_mean_plies": "mean plies", "selfplay_max_plies": "longest game",
          "selfplay_openings": "distinct openings", "selfplay_target_entropy":
          "target entropy, nats"}
HOLD = 3  # robustness: a step counts once the probe has held it this many iterations


def from_json(data: Mapping, source: str = "") -> Design:
    """The `registered.Design` a `design.json`'s contents state: per board a hypothesis
    (the warm-start arm − the baseline, paired by seed), the measures "compute" (the
    ladders' speed-ups, δ the smallest speed-up) and the final rates (`final.measures`,
    δ `final.delta`).

    Raises:
      ValueError: a missing key, not exactly two arms, or an unknown measure.
    """
    try:
        seeds = tuple(int(s) for s in data["seeds"])
        window = tuple(data.get("decline_window", (21, 30)))
        boards = tuple(Board(b["name"], b["title"], seeds, int(data["iterations"]),
                             decline_window=window, ladder=strength.Ladder(
                                 tuple(b["ladder"]["policy"]), tuple(b["ladder"]["search"])))
                       for b in data["boards"])
        arms = dict(data["arms"])
        speed = data.get("speed", {})
        measures: dict[str, Measure] = {"compute": ComputeToStep(
            "estimated CPU-seconds to each step of the board's ladders",
            float(speed.get("speedup_delta", strength.SPEEDUP_DELTA)),
            resamples=int(speed.get("resamples", RESAMPLES)))}
        finals = tuple(data["final"]["measures"])
        delta = float(data["final"]["delta"])
        calibration, device = data["compute"]["calibration"], data["compute"]["device"]
        registration = data["registration"]
    except KeyError as e:
        raise ValueError(f"the design {source or '(given)'} has no {e.args[0]!r}") from None
    if len(arms) != 2:
        raise ValueError(f"the design {source} names {len(arms)} arms; it needs "
                         "two, the baseline first and the warm-start arm second")
    unknown = [m for m in finals if m not in METRICS]
    if unknown:
        raise ValueError(f"the design {source} names unknown measures {unknown}; known: "
                         + ", ".join(METRICS))
    measures.update({m: FinalRate(f"{TITLES[m].lower()} at the last iteration", delta,
                                  group="final", metric=m) for m in finals})
    # beside them, each on the quiet positions: unadjusted, no verdict
    measures.update({q: FinalRate(f"{TITLES[q].lower()} at the last iteration", delta,
                                  decides=False, metric=q)
                     for m in finals if (q := f"{m}_quiet") in METRICS})
    baseline, warm = arms
    question = data.get("question", "")
    return Design(
        title=question or "The registered analysis", registration=registration,
        boards=boards,
        hypotheses=tuple(Hypothesis(b.name, f"{b.title}: {warm} − {baseline}", warm, baseline,
                                    b.name) for b in boards),
        measures=measures, roles=BaselineAndWarm(baseline, warm), calibration=calibration,
        device=device, source=source, question=question, arms=arms,
        cut_order=tuple(data.get("cut_order", ())))


def read(path: str | Path) -> Design:
    """The design in a `design.json` file (`from_json`)."""
    return from_json(json.loads(Path(path).read_text()), str(path))


@dataclasses.dataclass(frozen=True)
class BaselineAndWarm:
    """A two-arm design's roles: the family's baseline and its one warm-start arm, under the
    design's names for them (those present); called on a family, `{role: Arm}`."""

    baseline: str
    warm: str

    def __call__(self, family: Family) -> dict[str, Arm]:
        return {role: arm for role, arm in zip((self.baseline, self.warm), arms_of(family))
                if arm is not None}


def final_delta(design: Design) -> float:
    """(B)'s δ, in the rates' unit (its measures: `registered.rate_measures`)."""
    return design.delta(registered.rate_measures(design)[0])


def arms_of(family: Family) -> tuple[Arm | None, Arm | None]:
    """The family's baseline and its one warm-start arm (None where absent).

    Raises:
      ValueError: more than one warm-start arm: a design compares two arms.
    """
    if len(family.main) > 1:
        raise ValueError(f"{family.title} has {len(family.main)} warm-start arms "
                         f"({', '.join(a.label for a in family.main)}); a design has one")
    return family.baseline, (family.main[0] if family.main else None)


def gaps(design: Design, families: Mapping[str, Family]) -> list[str]:
    """What the design still lacks: per board a missing family or arm, missing seeds and
    runs short of the design's iterations."""
    out = []
    for board in design.boards:
        family = families.get(board.name)
        if family is None:
            out.append(f"{board.name}: no run")
            continue
        out += role_gaps(board.name, dict(zip(design.arms, arms_of(family))), board.seeds,
                         design.iterations)
    return out


def _final_rows(design: Design, families: Mapping[str, Family], measures: Sequence[str],
                ) -> dict[tuple[str, str], Comparison | None]:
    """Per board and measure (its name in the design): the warm-start arm's values against
    the baseline's, paired by seed; None where an arm or the measure is absent."""
    out = {}
    for board in design.boards:
        family = families.get(board.name)
        for name in measures:
            m = design.measures[name]
            base, warm = arms_of(family) if family is not None else (None, None)
            out[board.name, name] = None if (
                base is None or warm is None or m.metric not in family.measures) else \
                compare_by_seed(m.values(warm, board.iterations),
                                m.values(base, board.iterations))
    return out


def _health(family: Family) -> dict:
    """Per arm and health figure: `{iteration: mean over the arm's seeds}` (None where no
    run logged it there)."""
    out = {}
    for arm in family.all_arms():
        figures = {}
        for field in HEALTH:
            by_it: dict[int, list[float]] = {}
            for run in arm.runs:
                for row in run.metrics:
                    value = getattr(row, field, None)
                    if value is not None:
                        by_it.setdefault(row.iteration, []).append(float(value))
            figures[field] = {str(it): num(float(np.mean(v))) for it, v in sorted(by_it.items())}
        out[arm.label] = figures
    return out


def _speed(design: Design, families: Mapping[str, Family], curves: Mapping,
           incomplete: bool, floors, declines, axes=("iterations", "compute")) -> list[dict]:
    """(A) on one time source (`curves`) and `axes`, every board's record adjusted
    together; a board with none of the axes is left out."""
    records = []
    for board in design.boards:
        family = families.get(board.name)
        if family is None:
            continue
        r = design.measures["compute"].record(family, curves, board.ladder, axes)
        if r is not None:
            r["board"] = board.name
            records.append(r)
    strength.adjust(records, ("policy", "search"), design.delta("compute"))
    for r in records:
        for block in r["axes"].values():
            reached = {(a["arm"], a["measure"], a["threshold"]): a["reached"]
                       for a in block["arms"]}
            base = arms_of(families[r["board"]])[0].label
            for c in block["comparisons"]:
                c["budget_bound"] = (reached[base, c["measure"], c["threshold"]] == 0
                                     and reached[c["arm"], c["measure"], c["threshold"]] > 0)
                c["decided"] = INCOMPLETE if incomplete else c["verdict"]
                if incomplete:
                    c["verdict"] = INCOMPLETE
                    continue
                text = c["verdict"] + (f"; {BUDGET_BOUND}" if c["budget_bound"] else "")
                c["verdict"] = labelled(text, floors.get(r["board"]),
                                         declines.get(r["board"]))
    return records


def robustness(design: Design, families: Mapping[str, Family], curves: Mapping,
               speed: Sequence[dict], hold: int = HOLD) -> list[dict]:
    """Beside (A), deciding nothing (the module docstring): one row per (board, measure,
    step) of `speed` (its records on `curves`) on the compute axis, the paired p-values
    adjusted by Benjamini–Hochberg over all rows."""
    rows = []
    for r in speed:
        if "compute" not in r["axes"]:
            continue
        base, warm = arms_of(families[r["board"]])
        compute = design.measures["compute"]
        for c in r["axes"]["compute"]["comparisons"]:
            step = (c["measure"], c["threshold"], curves)
            first = [compute.passages(arm, *step) for arm in (base, warm)]
            held = [compute.passages(arm, *step, hold=hold) for arm in (base, warm)]
            seeds = sorted(set(first[0]) & set(first[1]))
            # compute to the step, each run stopped at τ; positive: warm start sooner
            diffs = [min(first[0][s].time, c["tau"]) - min(first[1][s].time, c["tau"])
                     for s in seeds]
            up = survival.speedup(held[0], held[1], c["tau"], compute.bootstrap)
            left_out = (survival.left_out_range(first[0], first[1], c["tau"])
                        if len(seeds) >= 3 else None)
            rows.append({
                "board": r["board"], "measure": c["measure"], "threshold": c["threshold"],
                "decided": c["decided"], "speedup": c["speedup"],
                "speedup_ci": c["speedup_ci"], "seeds": len(seeds),
                "sooner": sum(d > 0 for d in diffs), "later": sum(d < 0 for d in diffs),
                "paired_p": sign_flip_p(diffs), "paired_p_adjusted": None, "hold": hold,
                "held_speedup": up.ratio, "held_speedup_ci": list(up.ci),
                "held_reached": [sum(p.reached for p in h.values()) for h in held],
                "left_out_speedup": None if left_out is None else list(left_out)})
    for row, p in zip(rows, adjusted([row["paired_p"] for row in rows])):
        row["paired_p_adjusted"] = p
    return rows


def analyse(design: Design, families: Mapping[str, Family],
            random_rates: Mapping[str, float | None], ledger: Mapping, measured: Mapping,
            missing: Sequence[str] | None = None) -> dict:
    """The design's analysis (the module docstring), as one record.

    Args:
      design: the design, under its cuts.
      families: `{board name: Family}` of the runs read (the design's seeds only).
      random_rates: `{board name: a random move's optimal-move rate on its probe set}`.
      ledger: `{run path: ComputeCurve}`, the ledger's estimated seconds: (A).
      measured: the same from the measured seconds, reported beside.
      missing: the design's gaps (`gaps`); None: worked out here.
    """
    missing = gaps(design, families) if missing is None else list(missing)
    incomplete = bool(missing)
    delta, (baseline, warm) = final_delta(design), list(design.arms)
    floors = {b.name: strength.floor(families[b.name], random_rates[b.name])
              for b in design.boards if b.name in families
              and random_rates.get(b.name) is not None}
    declines = {b.name: strength.decline(families[b.name], b.decline_window)
                for b in design.boards if b.name in families}
    out: dict = {
        "design": design.source, "registration": design.registration,
        "question": design.question, "arms": dict(design.arms),
        "iterations": design.iterations, "cuts": list(design.cut_order[:design.cuts]),
        "complete": not incomplete, "gaps": missing,
        "boards": {b.name: {"title": b.title, "seeds": list(b.seeds),
                            "ladder": {"policy": list(b.ladder.policy),
                                       "search": list(b.ladder.search)},
                            "family": families[b.name].title if b.name in families else None}
                   for b in design.boards},
        "deltas": {"final": delta, "speedup": design.delta("compute")},
        "calibration": {"table": design.calibration, "device": design.device},
        "floor": {n: f.to_json() for n, f in floors.items() if f is not None},
        "decline": {n: d.to_json() for n, d in declines.items() if d is not None},
        "plan": registered.plan_json(design, "two_arms")}
    # (B) the final agent
    comps = _final_rows(design, families, registered.rate_measures(design))
    decided = decide_groups(design.measures, {(b, m): (m, f"{warm} − {baseline}", c)
                                              for (b, m), c in comps.items()})
    final_rows = []
    for (board, measure), x in decided.items():
        row = {"board": board, "measure": measure, "comparison": None, "verdict": INCOMPLETE,
               "decided": INCOMPLETE}
        if x is not None:
            words = verdict_words(x.decision)
            row.update(comparison=comparison_json(x.comparison, delta),
                       p_adjusted=num(x.p_adjusted),
                       p_permutation_adjusted=num(x.p_permutation_adjusted),
                       power_at_delta=num(x.power_at_delta),
                       decided=INCOMPLETE if incomplete else words,
                       verdict=INCOMPLETE if incomplete else labelled(
                           words, floors.get(board), declines.get(board)))
        final_rows.append(row)
    out["final"] = final_rows
    quiet = _final_rows(design, families, [n for n, m in design.measures.items()
                                           if isinstance(m, FinalRate) and not m.decides])
    out["final_quiet"] = [{"board": b, "measure": m, "comparison": comparison_json(
        c, delta)} for (b, m), c in quiet.items()]
    # (A) compute to strength, and beside it against measured seconds
    out["speed"] = {"ledger": _speed(design, families, ledger, incomplete, floors, declines),
                    "measured": _speed(design, families, measured, incomplete, floors,
                                       declines, axes=("compute",))}
    out["health"] = {b.name: _health(families[b.name]) for b in design.boards
                     if b.name in families}
    out["robustness"] = robustness(design, families, ledger, out["speed"]["ledger"])
    return out
