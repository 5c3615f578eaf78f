"""The one record of a study's analysis, `study.json`: the model (`model`), its statistics
(`stats`) and the claims (`claims`) as plain JSON, every number the report's tables and
figures show. Importing this module leaves JAX unloaded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from warmjax.analysis.claims import Claim
from warmjax.analysis.model import DELTA, METRICS, PRIMARY, Arm, Family, MetricSummary
from warmjax.analysis.stats import ALPHA, CONFIDENCE, POWER, Comparison


def num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, 6)


def comparison_json(c: Comparison | None, delta: float | None = DELTA) -> dict | None:
    """A comparison's entry of `study.json`; `delta` None (an Elo comparison, whose unit
    is not the rates' δ): no `seeds_for_delta`."""
    if c is None:
        return None
    out = {"test": c.test, "n": c.n, "diff": num(c.diff), "ci": [num(c.ci[0]),
                                                                   num(c.ci[1])],
           "p": num(c.p), "p_adjusted": num(c.p_adjusted),
           "p_permutation": num(c.p_permutation), "sd": num(c.sd),
           "effect80": num(c.effect80),
           "seeds_for_delta": None if delta is None else num(c.seeds_for(delta))}
    if c.paired:
        out["p_wilcoxon"] = num(c.p_wilcoxon)
        out["welch"] = None if c.welch is None else {
            "diff": num(c.welch.diff), "ci": [num(x) for x in c.welch.ci],
            "p": num(c.welch.p), "effect80": num(c.welch.effect80)}
    return out


def _metric_json(m: MetricSummary) -> dict:
    """Per summary: its mean, interval and per-run values, and its comparison with the
    baseline (`vs_baseline` for the AUC, the primary summary; `<name>_vs_baseline` else)."""
    out = {}
    for name, estimate in m.values.items():
        out.update({name: num(estimate.mean), f"{name}_ci": [num(x) for x in estimate.ci],
                    f"{name}_runs": [num(x) for x in estimate.values]})
    for name, comparison in m.vs_baseline.items():
        out["vs_baseline" if name == "auc" else f"{name}_vs_baseline"] = \
            comparison_json(comparison)
    return out


def arm_json(arm: Arm, sweep: bool = False) -> dict:
    """An arm's entry of `study.json`: the primary measure's keys at the top, each measure
    in full under its name; `sweep`: the arm belongs to the family's I′ sweep."""
    out = {"arm": arm.label, "mode": arm.id.mode, "enhancement": arm.id.enhancement,
           "iprime": arm.id.iprime, "sweep": sweep, "runs": len(arm.runs),
           "seeds": list(arm.seeds),
           "folders": [str(r.path) for r in arm.runs]}
    out.update({k: v for k, v in _metric_json(arm.primary).items()
                if k in ("auc", "auc_ci", "final", "final_ci", "vs_baseline")})
    out.update({name: _metric_json(m) for name, m in arm.metrics.items()})
    out["elo"] = None if arm.elo is None else {
        "mean": num(arm.elo.mean), "ci": [num(x) for x in arm.elo.ci],
        "runs": [num(x) for x in arm.elo.values],
        "vs_baseline": comparison_json(arm.elo_vs_baseline, delta=None)}
    if arm.id.mode == "adaptive":
        out["switch_iterations"] = list(arm.switches)
        summary = arm.switch_summary
        out["switch_mean"] = None if summary is None else num(summary[0])
        out["switch_std"] = None if summary is None else num(summary[1])
    if arm.spearman is not None:
        out["spearman_warm_vs_final"] = {"rho": num(arm.spearman[0]),
                                         "p": num(arm.spearman[1])}
    out["warm_iterations"] = list(arm.warm_iterations())
    out["warm_iterations_mean"] = num(arm.warm_mean)
    if arm.bands:  # the learning curves the figures draw
        out["curves"] = {m: {"iterations": list(b.iterations), "mean": [num(x) for x in b.mean],
                             "low": [num(x) for x in b.low], "high": [num(x) for x in b.high]}
                         for m, b in arm.bands.items()}
    return out


def claim_json(c: Claim) -> dict:
    out = {"claim": c.claim, "family": c.family, "verdict": c.verdict, "label": c.label,
           "evidence": c.evidence, "papers_measure": c.papers}
    if c.decision is not None:
        out["reason"] = c.decision.reason
        out["effect80"] = num(c.decision.effect80)
        out["comparisons"] = [{"name": t.name, **comparison_json(t.comparison),
                               "elo": comparison_json(t.elo, delta=None)}
                              for t in c.decision.tested]
    return out


def study_json(study: Sequence[Family], found: Sequence[Claim], delta: float,
               looks: dict | None = None) -> dict:
    """`study.json`: the families, the claims, and `looks`: `{study folder: [look, ...]}`,
    every analysis each study folder has had (`looks.json`)."""
    return {
        "primary": f"{PRIMARY} ({METRICS[PRIMARY]}): auc and final are optimal-move rates in "
                   "[0, 1]; vs_baseline is the arm minus the baseline",
        "confidence": CONFIDENCE, "alpha": ALPHA, "power": POWER, "delta": delta,
        "tests": "95% t-interval of each mean; differences paired by seed (paired t-test, "
                 "its interval, sign-flip permutation p, Wilcoxon signed-rank p), with Welch's "
                 "unpaired test as a secondary column; effect80: the smallest difference the "
                 "test detects with 80% power at alpha; seeds_for_delta: the seeds (pairs) "
                 "80% power at delta needs; p_adjusted: Benjamini-Hochberg over a family's "
                 "warm-start arms per measure and comparison (the main comparison's and the "
                 "I' sweep's apart), and within a claim; claims decided by one rule "
                 "(docs/experiments.md, 'The verdict rule')",
        "families": [family_json(f, delta) for f in study],
        "claims": [claim_json(c) for c in found],
        "looks": looks or {},
    }


def family_json(f: Family, delta: float = DELTA) -> dict:
    swept = f.swept
    return {"game": f.game, **({"board": f.board} if f.board else {}),
            **({"study": f.study} if f.study else {}),
            "departures": list(f.departures),
            "auc_iterations": f.auc_iterations, "final_iteration": f.final_iteration,
            "games_per_iteration": f.games_per_iteration,
            "spread": num(f.spread()), "seeds_for_delta": num(f.seeds_for(delta)),
            "baseline": None if f.baseline is None else arm_json(f.baseline),
            "arms": [arm_json(a, a.id in swept) for a in f.arms],
            "power": [{"arm": r.label, "pairs": r.pairs, "sd": num(r.sd),
                       "effect80": num(r.effect80), "seeds_for_delta": num(r.seeds)}
                      for r in f.power],
            "iprime": [{"arm": r.label, "runs": r.runs, "policy_auc": num(r.policy_auc),
                        "policy_final": num(r.policy_final), "search_auc": num(r.search_auc),
                        "search_final": num(r.search_final), "elo": num(r.elo)}
                       for r in f.iprime],
            "gaps": [{"iteration": g.iteration, "baseline": num(g.baseline),
                      "arms": [None if c is None else {"arm": a.label, **comparison_json(c)}
                               for a, c in zip(f.main, g.arms)]} for g in f.gaps]}
