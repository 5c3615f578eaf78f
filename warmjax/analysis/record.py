"""The one record of a study's analysis, `study.json`: the model (`model`), its statistics
(`stats`) and the claims (`claims`) as plain JSON, every number the report's tables and
figures show. Importing this module leaves JAX unloaded.

A study's record (`report.study_record`) keeps its summaries at full precision (`exact`),
so that the tables rendered from it (`study_tables`) print what the statistics computed;
`study.json` writes them rounded to 6 decimals (`jsonable`), as `num` does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from warmjax.analysis.claims import Claim, iprime_series
from warmjax.analysis.model import DELTA, METRICS, PRIMARY, Arm, Family, MetricSummary
from warmjax.analysis.stats import ALPHA, CONFIDENCE, POWER, Comparison


def num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, 6)


class Exact(float):
    """A number of a study's record at full precision; `written` is what study.json holds
    (`num`'s rounding)."""

    written: float


def exact(x: float | None) -> Exact | None:
    """`x` kept whole for the tables, written as `num(x)` (None for None and nan)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    out = Exact(x)
    out.written = round(x, 6)
    return out


def jsonable(obj):
    """A record as study.json writes it: every `Exact` number as its `written` value."""
    if isinstance(obj, Exact):
        return obj.written
    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return obj


def comparison_json(c: Comparison | None, delta: float | None = DELTA,
                    whole: bool = False) -> dict | None:
    """A comparison's entry of `study.json`; `delta` None (an Elo comparison, whose unit
    is not the rates' δ): no `seeds_for_delta`; `whole`: its numbers `exact` (a study's
    record), else rounded (`num`)."""
    if c is None:
        return None
    n = exact if whole else num
    out = {"test": c.test, "n": c.n, "diff": n(c.diff), "ci": [n(c.ci[0]),
                                                                   n(c.ci[1])],
           "p": n(c.p), "p_adjusted": n(c.p_adjusted),
           "p_permutation": n(c.p_permutation), "sd": n(c.sd),
           "effect80": n(c.effect80),
           "seeds_for_delta": None if delta is None else n(c.seeds_for(delta))}
    if c.paired:
        out["p_wilcoxon"] = n(c.p_wilcoxon)
        out["welch"] = None if c.welch is None else {
            "diff": n(c.welch.diff), "ci": [n(x) for x in c.welch.ci],
            "p": n(c.welch.p), "effect80": n(c.welch.effect80)}
    return out


def _metric_json(m: MetricSummary) -> dict:
    """Per summary: its mean, interval and per-run values, and its comparison with the
    baseline (`vs_baseline` for the AUC, the primary summary; `<name>_vs_baseline` else)."""
    out = {}
    for name, estimate in m.values.items():
        out.update({name: exact(estimate.mean), f"{name}_ci": [exact(x) for x in estimate.ci],
                    f"{name}_runs": [exact(x) for x in estimate.values]})
    for name, comparison in m.vs_baseline.items():
        out["vs_baseline" if name == "auc" else f"{name}_vs_baseline"] = \
            comparison_json(comparison, whole=True)
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
        "mean": exact(arm.elo.mean), "ci": [exact(x) for x in arm.elo.ci],
        "runs": [exact(x) for x in arm.elo.values],
        "vs_baseline": comparison_json(arm.elo_vs_baseline, delta=None, whole=True)}
    if arm.id.mode == "adaptive":
        out["switch_iterations"] = list(arm.switches)
        summary = arm.switch_summary
        out["switch_mean"] = None if summary is None else exact(summary[0])
        out["switch_std"] = None if summary is None else exact(summary[1])
    if arm.spearman is not None:
        out["spearman_warm_vs_final"] = {"rho": exact(arm.spearman[0]),
                                         "p": exact(arm.spearman[1])}
    out["warm_iterations"] = list(arm.warm_iterations())
    out["warm_iterations_mean"] = exact(arm.warm_mean)
    if arm.bands:  # the learning curves the figures draw
        out["curves"] = {m: {"iterations": list(b.iterations), "mean": [exact(x) for x in b.mean],
                             "low": [exact(x) for x in b.low], "high": [exact(x) for x in b.high]}
                         for m, b in arm.bands.items()}
    return out


def claim_json(c: Claim) -> dict:
    out = {"claim": c.claim, "family": c.family, "verdict": c.verdict, "label": c.label,
           "evidence": c.evidence, "papers_measure": c.papers}
    if c.decision is not None:
        out["reason"] = c.decision.reason
        out["effect80"] = exact(c.decision.effect80)
        out["comparisons"] = [{"name": t.name, **comparison_json(t.comparison, whole=True),
                               "elo": comparison_json(t.elo, delta=None, whole=True)}
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
    """A family's entry of `study.json`: its arms, power, claim 4's data and gaps, and how
    the report names and orders them (`tag`, `title`, `measures`, `sweep`)."""
    swept = f.swept
    enhancement, series, seeds = iprime_series(f)
    return {"game": f.game, **({"board": f.board} if f.board else {}),
            **({"study": f.study} if f.study else {}),
            "departures": list(f.departures),
            "auc_iterations": f.auc_iterations, "final_iteration": f.final_iteration,
            "games_per_iteration": f.games_per_iteration,
            "spread": exact(f.spread()), "seeds_for_delta": exact(f.seeds_for(delta)),
            "baseline": None if f.baseline is None else arm_json(f.baseline),
            "arms": [arm_json(a, a.id in swept) for a in f.arms],
            "power": [{"arm": r.label, "pairs": r.pairs, "sd": exact(r.sd),
                       "effect80": exact(r.effect80), "seeds_for_delta": exact(r.seeds)}
                      for r in f.power],
            "iprime": [{"arm": r.label, "runs": r.runs, "policy_auc": exact(r.policy_auc),
                        "policy_final": exact(r.policy_final), "search_auc": exact(r.search_auc),
                        "search_final": exact(r.search_final), "elo": exact(r.elo)}
                       for r in f.iprime],
            "gaps": [{"iteration": g.iteration, "baseline": exact(g.baseline),
                      "arms": [None if c is None else
                               {"arm": a.label, **comparison_json(c, whole=True)}
                               for a, c in zip(f.main, g.arms)]} for g in f.gaps],
            "tag": f.tag, "title": f.title, "measures": list(f.measures),
            "runs": sum(len(a.runs) for a in f.all_arms()), "power_delta": f.power_delta,
            "sweep": {"enhancement": enhancement, "arms": [a.label for a in series],
                      "seeds": list(seeds)}}
