"""A study's statistics (`warmjax.evaluate.study`) as Markdown tables."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from warmjax.evaluate.markdown import table
from warmjax.evaluate.study import (
    Arm,
    Claim,
    Comparison,
    Estimate,
    Family,
    MetricSummary,
    iprime_sweep,
    on_seeds,
)


def _pct(x: float) -> str:
    return "—" if math.isnan(x) else f"{100 * x:.1f}"


def _estimate(e: Estimate, scale: float = 100, decimals: int = 1) -> str:
    if math.isnan(e.mean):
        return "—"
    text = f"{scale * e.mean:.{decimals}f}"
    if not math.isnan(e.ci[0]):
        text += f" [{scale * e.ci[0]:.{decimals}f}, {scale * e.ci[1]:.{decimals}f}]"
    return text


def _p(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:.3g}"


def _diff(c: Comparison | None, scale: float = 100, decimals: int = 1) -> list[str]:
    """Δ [CI], p, p adjusted (Benjamini–Hochberg over the arms), permutation p,
    ± detectable."""
    if c is None:
        return ["", "", "", "", ""]
    return [(f"{scale * c.diff:+.{decimals}f} [{scale * c.ci[0]:+.{decimals}f}, "
            f"{scale * c.ci[1]:+.{decimals}f}]"), _p(c.p), _p(c.p_adjusted),
            _p(c.p_permutation), f"±{scale * c.detectable:.{decimals}f}"]


def metric_markdown(family: Family, metric: str) -> str:
    """One measure's table: per arm the AUC and the final rate, each against the baseline."""
    rows = []
    for arm in family.all_arms():
        m: MetricSummary = arm.metrics[metric]
        final = _diff(m.final_vs_baseline)
        rows.append([arm.label, len(arm.runs), _estimate(m.auc), *_diff(m.auc_vs_baseline),
                     _estimate(m.final), *final[:3]])
    k, last = family.auc_iterations, family.final_iteration
    return table(["Arm", "Runs", f"AUC 1-{k} % [95% CI]", "Δ vs baseline [95% CI]", "p (Welch)",
                  "p (BH)", "p (permutation)", "detectable", f"Final (it. {last}) %",
                  "Δ final", "p final", "p final (BH)"], rows, "lrrrrrrrrrrr")


def elo_markdown(family: Family) -> str:
    rows = [[arm.label, len(arm.elo.values), _estimate(arm.elo, 1, 0),
             *_diff(arm.elo_vs_baseline, 1, 0)] for arm in family.all_arms()
            if arm.elo is not None]
    if not rows:
        return ""
    return table(["Arm", "Runs", "Elo vs seed block [95% CI]", "Δ vs baseline, paired [95% CI]",
                  "p (paired t)", "p (BH)", "p (sign flips)", "detectable"], rows, "lrrrrrrr")


def iprime_markdown(family: Family) -> str:
    """Claim 4's data: the fixed arms of the swept enhancement by I′, and the baseline, each
    on the seeds that ran at every I′ (means; Elo relative to the seed's round robin)."""
    _, arms, seeds = iprime_sweep(family)
    if len(arms) < 3 or not seeds:
        return ""
    rows = []
    shown = ([family.baseline] if family.baseline else []) + arms
    for arm in shown:
        cells = [arm.label, len(on_seeds(arm, arm.seeds, seeds))]
        for metric in ("policy", "search"):
            m = arm.metrics[metric]
            cells += [_pct(np.mean(on_seeds(arm, m.auc.values, seeds))),
                      _pct(np.mean(on_seeds(arm, m.final.values, seeds)))]
        elo = on_seeds(arm, arm.elo.values, seeds) if arm.elo is not None else []
        cells.append(f"{np.mean(elo):+.0f}" if elo else "—")
        rows.append(cells)
    k, last = family.auc_iterations, family.final_iteration
    return table(["Arm", "Runs", f"Policy AUC 1-{k} %", f"Policy final (it. {last}) %",
                  f"Search AUC 1-{k} %", "Search final %", "Elo vs seed block"], rows,
                 "lrrrrrr")


def warm_markdown(arms: Sequence[Arm]) -> str:
    """Iterations self-played with the enhancement and, for adaptive arms, the switch
    iteration (mean ± population std over the seeds that switched, as the papers give it)."""
    rows = []
    for arm in arms:
        if arm.variant.is_baseline:
            continue
        warm = np.asarray(arm.warm_iterations(), float)
        switched = [s for s in arm.switches if s is not None]
        switch = "—"
        if arm.variant.mode == "adaptive":
            switch = (f"{np.mean(switched):.1f} ± {np.std(switched):.1f}" if switched else
                      "never")
            if len(switched) < len(arm.runs):
                switch += f" ({len(switched)}/{len(arm.runs)} switched)"
        rows.append([arm.label, len(arm.runs), f"{warm.mean():.1f}", switch,
                     ", ".join(str(s) if s is not None else "—" for s in arm.switches)])
    return table(["Arm", "Runs", "Warm-start iterations (mean)",
                  "Switch iteration (mean ± pop. std)", "Per seed"], rows, "lrrrl")


def claims_markdown(found: Sequence[Claim]) -> str:
    return table(["Claim", "Family", "Verdict", "What decides it"],
                 [[c.claim, c.family, f"**{c.verdict}**", c.evidence] for c in found], "llll")
