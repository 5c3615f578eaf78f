"""Time to strength, the floor rule and the decline rule (method.md §12). No JAX here:
families in, JSON-ready records out.

**Time to strength.** Each game has a ladder of optimal-move rates for the policy head and
for the search (`LADDERS`). For every run and step, the first iteration, and the compute,
at which the run's probe reaches the step (`survival.first_passage`; censored at the run's
budget when it never does). Per arm and step: Kaplan–Meier median with its interval and
the restricted mean time (RMST) up to the smallest budget among the family's runs. Per
warm-start arm against the family's baseline and step: the log-rank test and the speed-up
ratio RMST(baseline) / RMST(arm) with a seed-bootstrap interval. The log-rank p-values of
the policy-head ladder are adjusted by Benjamini–Hochberg over every (arm, step) of the
report (`adjust`); the search ladder's are reported unadjusted.

The time axis is the iterations, and the compute where a compute curve is given
(`analysis.compute.ComputeCurve`: the ledger's estimated seconds, reconstructed counts or
measured wall seconds; the record names which).

**Verdict on speed** (`speed_verdict`), by the rule of docs/experiments.md: *faster* if the
adjusted log-rank p < α and the ratio > 1; *slower* if p < α and the ratio < 1; *no
speed-up ≥ 1.25×* if the ratio's interval lies below 1.25 and at least half the runs of
each arm reached the step (else *open (most runs censored)*: the registration's first
wording lacked that condition, and `verdict_registered` keeps it); *neither arm reached it*
where no run of the two did (its p of 1 still counts in the adjustment); otherwise *open*.

**The floor rule.** A family whose baseline did not learn decides nothing: its policy head
at the last iteration is not significantly above the probe set's random-move rate
(one-sample t-test over the baseline's runs, one-sided, α = 0.05). Every claim and
across-board step it holds then reads *not informative: the baseline did not learn*.

**The decline rule.** A family whose baseline learned and then got worse compares
collapsing learners at its horizon: per baseline run, the policy head's mean rate over the
last tenth of the family's iterations (`late_window`) and over a reference window fixed
before the data (a registration's); paired by seed, one-sided t-test that the late mean is
lower, α = 0.05. Where it is, every horizon claim of the family carries the label *the
recipe declines: these learners are collapsing* (`declined`); the verdict itself stands.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats

from warmjax.analysis import survival
from warmjax.analysis.claims import Claim
from warmjax.analysis.compute import ComputeCurve
from warmjax.analysis.model import METRICS, Family, curve, final
from warmjax.analysis.stats import (
    ALPHA,
    CONTRADICTED,
    NOT_INFORMATIVE,
    Decision,
    adjusted,
    quiet_moments,
)

SPEEDUP_DELTA = 1.25  # the smallest speed-up worth finding


@dataclasses.dataclass(frozen=True)
class Ladder:
    """Steps of the optimal-move rate, for the policy head and for the search."""

    policy: tuple[float, ...]
    search: tuple[float, ...]


# The default ladders, by game and board (`Family.board`, "" for the game's registered
# board); a design gives its own (`time_to_strength(..., ladder=)`).
LADDERS: dict[tuple[str, str], Ladder] = {
    ("connect_four", ""): Ladder((0.50, 0.55, 0.60, 0.65), (0.80, 0.825, 0.85, 0.875)),
    ("hex", "5×5"): Ladder((0.40, 0.50, 0.60, 0.70), (0.60, 0.70, 0.80, 0.90)),
    ("hex", "7×7"): Ladder((0.25, 0.30, 0.40, 0.50), (0.60, 0.65, 0.70, 0.75)),
}


def ladder_for(family: Family) -> Ladder | None:
    return LADDERS.get((family.game, family.board))


def _values(run, measure: str) -> list[float | None]:
    return [getattr(row, METRICS[measure]) for row in run.metrics]


def _times(run, axis: str, curves: Mapping | None) -> list[float] | None:
    if axis == "iterations":
        return [float(row.iteration) for row in run.metrics]
    curve = (curves or {}).get(run.path)
    return None if curve is None else list(curve.seconds)


def passages(arm, measure: str, threshold: float, axis: str, curves, hold: int = 1
             ) -> dict | None:
    """`{seed: survival.Passage}` of the arm's runs over `threshold` of `measure` ("policy"
    or "search") on `axis` ("iterations" or "compute", with `curves`), the step held for
    `hold` iterations (`survival.first_passage`); None where a run has no time on that
    axis."""
    out = {}
    for run in arm.runs:
        times = _times(run, axis, curves)
        if times is None or not run.metrics:
            return None
        out[run.id.seed] = survival.first_passage(_values(run, measure), times, threshold,
                                                  hold)
    return out


def _km_json(km: survival.KaplanMeier) -> dict:
    return {"runs": km.runs, "reached": km.reached, "median": km.median,
            "median_ci": list(km.median_ci), "rmst": km.rmst, "tau": km.tau}


def time_to_strength(family: Family, curves: Mapping | None = None,
                     ladder: Ladder | None = None,
                     resamples: int = survival.RESAMPLES) -> dict | None:
    """The family's time-to-strength record (the module docstring), or None where it has
    no ladder or no baseline.

    Args:
      family: a study family.
      curves: `{run path: ComputeCurve}` for the compute axis; None: iterations only.
      ladder: the steps; None: the game's registered ladder (`LADDERS`).
      resamples: the speed-up interval's bootstrap resamples.
    """
    ladder = ladder or ladder_for(family)
    if ladder is None or family.baseline is None:
        return None
    runs = [r for a in family.all_arms() for r in a.runs]
    axes = ["iterations"]
    sources = {c.source for c in (curves or {}).values() if isinstance(c, ComputeCurve)}
    if curves and all(r.path in curves and curves[r.path].budget > 0 for r in runs):
        axes.append("compute")
    record = {"family": family.title, "tag": family.tag,
              "ladder": {"policy": list(ladder.policy), "search": list(ladder.search)},
              "compute_source": ", ".join(sorted(sources)) if "compute" in axes else None,
              "axes": {}, "runs": []}
    for run in runs:
        entry = {"arm": run.id.label(), "seed": run.id.seed}
        for measure, steps in (("policy", ladder.policy), ("search", ladder.search)):
            its = [float(row.iteration) for row in run.metrics]
            seconds = _times(run, "compute", curves) if "compute" in axes else None
            entry[measure] = [
                {"threshold": t, "reached": p.reached,
                 "iteration": int(p.time) if p.reached else None,
                 "compute": (survival.first_passage(_values(run, measure), seconds, t).time
                             if seconds is not None else None)}
                for t in steps for p in [survival.first_passage(_values(run, measure), its, t)]]
        entry["budget"] = {"iterations": run.iterations,
                           "compute": curves[run.path].budget if "compute" in axes else None}
        record["runs"].append(entry)
    for axis in axes:
        arms, comparisons = [], []
        for measure, steps in (("policy", ladder.policy), ("search", ladder.search)):
            for threshold in steps:
                by_arm = {a.label: passages(a, measure, threshold, axis, curves)
                          for a in family.all_arms()}
                tau = min(_times(run, axis, curves)[-1] for run in runs)
                for label, ps in by_arm.items():
                    km = survival.kaplan_meier(list(ps.values()), tau)
                    arms.append({"arm": label, "measure": measure, "threshold": threshold,
                                 **_km_json(km)})
                base = by_arm[family.baseline.label]
                for arm in family.main:
                    mine = by_arm[arm.label]
                    if len(set(base) & set(mine)) < 2 or tau <= 0:
                        continue  # no speed-up without two seeds of both, or a budget
                    speed = survival.speedup(base, mine, tau, resamples)
                    comparisons.append({
                        "arm": arm.label, "measure": measure, "threshold": threshold,
                        "logrank_p": survival.log_rank(list(base.values()),
                                                       list(mine.values())),
                        "p_adjusted": None, "speedup": speed.ratio,
                        "speedup_ci": list(speed.ci), "seeds": speed.seeds, "tau": tau,
                        "reached": any(p.reached for p in (*base.values(), *mine.values())),
                        "mostly_reached": _mostly(base) and _mostly(mine)})
        record["axes"][axis] = {"arms": arms, "comparisons": comparisons}
    return record


def adjust(records: Sequence[dict], measure: str | Sequence[str] = "policy",
           speedup_delta: float = SPEEDUP_DELTA) -> None:
    """Benjamini–Hochberg over every (arm, step) comparison of `measure` (or of several
    measures together) in `records`, per axis, written into each comparison's
    `p_adjusted`, and each one's speed verdict (`speed_verdict` with `speedup_delta`)."""
    measures = (measure,) if isinstance(measure, str) else tuple(measure)
    for axis in ("iterations", "compute"):
        rows = [c for r in records if axis in r["axes"] for c in r["axes"][axis]["comparisons"]
                if c["measure"] in measures]
        for c, p in zip(rows, adjusted([c["logrank_p"] for c in rows])):
            c["p_adjusted"] = p
    for r in records:
        for block in r["axes"].values():
            for c in block["comparisons"]:
                c["verdict"] = speed_verdict(c, speedup_delta=speedup_delta)
                c["verdict_registered"] = speed_verdict(c, registered=True,
                                                        speedup_delta=speedup_delta)


def _mostly(passages: Mapping) -> bool:
    """At least half of an arm's runs reached the step."""
    return 2 * sum(p.reached for p in passages.values()) >= len(passages)


def speed_verdict(c: Mapping, registered: bool = False,
                  speedup_delta: float = SPEEDUP_DELTA) -> str:
    """The rule on one comparison's speed-up (the module docstring). A *no speed-up*
    needs at least half the runs of both arms to have reached the step: where most are
    censored at τ, both restricted means are near τ and their ratio near 1 whatever the
    true speed-up, so that is *open (most runs censored)*. `registered`: the rule as the
    first registration to use it stated it, without that condition."""
    if not c["reached"]:
        return "neither arm reached it"
    p = c["p_adjusted"] if c.get("p_adjusted") is not None else c["logrank_p"]
    if p < ALPHA and c["speedup"] > 1:
        return "faster"
    if p < ALPHA and c["speedup"] < 1:
        return "slower"
    if c["speedup_ci"][1] < speedup_delta:
        if registered or c.get("mostly_reached", True):
            return f"no speed-up ≥ {speedup_delta:g}×"
        return "open (most runs censored)"
    return "open"


# --- the floor rule ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Floor:
    """Whether a family's baseline learned (the module docstring)."""

    family: str
    random_rate: float
    iteration: int  # the family's last common iteration
    rates: tuple[float, ...]  # the baseline runs' policy head there
    p: float  # one-sided one-sample t-test, rates > random_rate
    learned: bool

    @property
    def reason(self) -> str:
        return "the baseline did not learn" if not self.learned else ""

    @property
    def mean(self) -> float | None:
        """The baseline runs' mean rate (None without runs)."""
        return float(np.mean(self.rates)) if self.rates else None

    def to_json(self) -> dict:
        return {"family": self.family, "random_rate": self.random_rate,
                "iteration": self.iteration, "baseline_rates": list(self.rates),
                "baseline_mean": self.mean,
                "p": self.p, "learned": self.learned}


def verdict_text(verdict: str, reason: str) -> str:
    """A verdict with the rule's reason (`Decision.reason`) where it has one that tells
    verdicts apart: "contradicted (no gain)", "contradicted (opposite)"."""
    if verdict == CONTRADICTED and reason in ("no gain", "opposite"):
        return f"{verdict} ({reason})"
    return verdict


def elsewhere(by_k: dict, verdict: str) -> str:
    """The other verdicts over the windows, each with its windows: "not resolvable at this
    power (9–15)"."""
    others = sorted({v for v in by_k.values() if v != verdict and v is not None})
    return "; ".join(f"{v} ({holds_over(by_k, v)})" for v in others) or "—"


def floor(family: Family, random_rate: float) -> Floor | None:
    """The floor rule on `family` (None without a baseline)."""
    if family.baseline is None:
        return None
    last = family.final_iteration
    rates = tuple(float(final(run, "policy", last)) for run in family.baseline.runs)
    if len(rates) >= 2 and np.std(rates) > 0:
        with quiet_moments():
            p = float(stats.ttest_1samp(rates, random_rate, alternative="greater").pvalue)
    else:  # a constant sample: above the rate for sure, or not at all
        p = 0.0 if rates and min(rates) > random_rate else 1.0
    return Floor(family.title, float(random_rate), last, rates, p, p < ALPHA)


# --- the decline rule ---------------------------------------------------------------------------

DECLINE_SHARE = 0.1  # the late window: the last tenth of the family's iterations
DECLINING = "the recipe declines: these learners are collapsing"


@dataclasses.dataclass(frozen=True)
class Decline:
    """Whether a family's baseline got worse late in its runs (the module docstring)."""

    family: str
    window: tuple[int, int]  # the reference window, first and last iteration, inclusive
    late: tuple[int, int]  # the last tenth of the family's iterations
    seeds: tuple[int, ...]
    window_rates: tuple[float, ...]  # per baseline run (in `seeds` order): its mean rate
    late_rates: tuple[float, ...]  # over the window, and over the late iterations
    p: float  # one-sided paired t-test, late < window
    declines: bool

    @property
    def diff(self) -> float:
        """The mean of the per-seed differences, late − window (negative: lower late)."""
        return float(np.mean(np.subtract(self.late_rates, self.window_rates)))

    def to_json(self) -> dict:
        return {"family": self.family, "window": list(self.window), "late": list(self.late),
                "seeds": list(self.seeds), "window_rates": list(self.window_rates),
                "late_rates": list(self.late_rates), "diff": self.diff, "p": self.p,
                "declines": self.declines}


def late_window(iterations: int) -> tuple[int, int]:
    """The last tenth of `iterations` (rounded up, at least one): 91–100 of 100, 55–60 of
    60."""
    width = max(1, int(np.ceil(DECLINE_SHARE * iterations - 1e-9)))
    return iterations - width + 1, iterations


def decline(family: Family, window: tuple[int, int]) -> Decline | None:
    """The decline rule on `family`'s baseline (None without one): per run, the policy
    head's mean rate over `window` and over the last tenth of the family's iterations;
    paired by seed, one-sided t-test that the late mean is lower, α = 0.05.

    Raises:
      ValueError: the window is not inside the runs or reaches into the late iterations.
    """
    if family.baseline is None:
        return None
    late = late_window(family.final_iteration)
    if not 1 <= window[0] <= window[1] < late[0]:
        raise ValueError(f"the decline window {window[0]}-{window[1]} must end before the "
                         f"late iterations {late[0]}-{late[1]} of {family.title}")

    def mean_over(run, span):
        points = [v for it, v in curve(run, "policy").items() if span[0] <= it <= span[1]]
        if not points:
            raise ValueError(f"{run.path} logged no probe in iterations {span[0]}-{span[1]}")
        return float(np.mean(points))

    runs = sorted(family.baseline.runs, key=lambda r: r.id.seed)
    before = tuple(mean_over(r, window) for r in runs)
    after = tuple(mean_over(r, late) for r in runs)
    d = np.subtract(after, before)
    if len(d) >= 2 and np.std(d) > 0:
        with quiet_moments():
            p = float(stats.ttest_rel(after, before, alternative="less").pvalue)
    else:  # no spread: lower for sure, or not at all
        p = 0.0 if len(d) and np.all(d < 0) else 1.0
    return Decline(family.title, tuple(window), late, tuple(r.id.seed for r in runs),
                   before, after, p, p < ALPHA)


def declined(text: str, decline_: Decline | None) -> str:
    """A horizon claim's verdict with the decline label where its family declines."""
    if decline_ is None or not decline_.declines:
        return text
    return f"{text}; {DECLINING}"


def _not_informative(floor_: Floor) -> str:
    return (f"{NOT_INFORMATIVE}: the baseline did not learn (its policy head "
            f"{100 * np.mean(floor_.rates):.1f}% at iteration {floor_.iteration}, a random "
            f"move {100 * floor_.random_rate:.1f}%, one-sided p = {floor_.p:.2g})")


def floored_claims(claims: Sequence[Claim], floors: Mapping[str, Floor]) -> list[Claim]:
    """The claims, those of a family whose baseline did not learn relabelled; `floors` by
    family title."""
    out = []
    for c in claims:
        f = floors.get(c.family)
        if f is not None and not f.learned:
            c = dataclasses.replace(c, verdict=NOT_INFORMATIVE, label=_not_informative(f))
        out.append(c)
    return out


def floored_step(step, floors: Mapping[str, Floor]):
    """An across-board step (`contrasts.Step`) with both its verdicts floored by the two
    boards' families (`floors` by family title)."""
    pair = [floors.get(step.small.family.title), floors.get(step.large.family.title)]
    return dataclasses.replace(step, lead_decision=floored_decision(step.lead_decision, pair),
                               delay_decision=floored_decision(step.delay_decision, pair))


def floored_decision(decision: Decision | None, floors: Sequence[Floor | None]
                     ) -> Decision | None:
    """A decision that rests on several families (an across-board step): not informative
    where any of them did not learn."""
    if decision is None or all(f is None or f.learned for f in floors):
        return decision
    return dataclasses.replace(decision, verdict=NOT_INFORMATIVE,
                               reason="the baseline did not learn")


def holds_over(by_k: dict, verdict: str) -> str:
    """The windows k over which `verdict` holds, as ranges: "3–8, 11"."""
    ks = sorted(k for k, v in by_k.items() if v == verdict)
    spans, start = [], None
    for i, k in enumerate(ks):
        if start is None:
            start = k
        if i + 1 == len(ks) or ks[i + 1] != k + 1:
            spans.append(f"{start}–{k}" if k > start else f"{k}")
            start = None
    return ", ".join(spans) or "none"
