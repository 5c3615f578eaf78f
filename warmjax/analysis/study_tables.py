"""A study's tables, read from its record alone (`report.study_record`: the families',
claims', boards', contrasts' and floors' entries of `study.json`), the way
`render.markdown` reads a registered record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from warmjax.analysis import strength
from warmjax.analysis.contrasts import SWITCH_DELTA
from warmjax.analysis.stats import CONTRADICTED, NOT_INFORMATIVE, REPRODUCED
from warmjax.analysis.verdicts import p_text, ratio
from warmjax.markdown import percent, table
from warmjax.train.run_id import game_name


def estimate_text(mean: float | None, ci, scale: float = 100, decimals: int = 1) -> str:
    """A mean with its interval: "54.3 [51.0, 57.6]" (points by default; "—" for none)."""
    if mean is None:
        return "—"
    text = f"{scale * mean:.{decimals}f}"
    if ci[0] is not None:
        text += f" [{scale * ci[0]:.{decimals}f}, {scale * ci[1]:.{decimals}f}]"
    return text


def _fixed(x: float | None, scale: float = 100, decimals: int = 1) -> str:
    return "—" if x is None else f"{scale * x:.{decimals}f}"


def _signed(x: float | None, scale: float = 100, decimals: int = 1) -> str:
    return "—" if x is None else f"{scale * x:+.{decimals}f}"


def interval_text(c: Mapping, scale: float = 100, decimals: int = 1) -> str:
    """A comparison's difference with its interval, signed: "+2.3 [−0.4, +5.0]" (points by
    default)."""
    return (f"{_signed(c['diff'], scale, decimals)} [{_signed(c['ci'][0], scale, decimals)}, "
            f"{_signed(c['ci'][1], scale, decimals)}]")


def _diff(c: Mapping | None, scale: float = 100, decimals: int = 1) -> list[str]:
    """Δ [CI] (paired by seed), p (paired t), p adjusted (Benjamini–Hochberg over the arms),
    p (Wilcoxon), p (Welch), 80%-power effect."""
    if c is None:
        return ["", "", "", "", "", ""]
    if c["test"] == "paired t":
        welch = None if c["welch"] is None else c["welch"]["p"]
    else:  # an unpaired comparison is Welch's itself
        welch = c["p"]
    return [interval_text(c, scale, decimals), p_text(c["p"]), p_text(c["p_adjusted"]),
            p_text(c.get("p_wilcoxon")), p_text(welch), _fixed(c["effect80"], scale, decimals)]


def _pts(c: Mapping | None) -> str:
    """A paired difference in points with its interval ("" for none)."""
    return "" if c is None else interval_text(c)


def _padj(c: Mapping | None) -> str:
    return "" if c is None else f"{p_text(c['p'])} ({p_text(c['p_adjusted'])})"


def _span(c: Mapping | None, scale: float = 100, decimals: int = 1) -> str:
    """"+2.3 [−0.4, +5.0], p 0.09 (adj. 0.12)" ("—" for none)."""
    if c is None:
        return "—"
    text = f"{interval_text(c, scale, decimals)}, p {p_text(c['p'])}"
    return text + ("" if c["p_adjusted"] is None else f" (adj. {p_text(c['p_adjusted'])})")


# --- one family (its entry of the record: `record.family_json`) ------------------------------


def all_arms(family: Mapping) -> list[dict]:
    """The family's arm entries, the baseline first."""
    return ([family["baseline"]] if family["baseline"] else []) + family["arms"]


def main_arms(family: Mapping) -> list[dict]:
    """The main comparison's warm-start arms (those outside the I′ sweep)."""
    return [a for a in family["arms"] if not a["sweep"]]


def metric_markdown(family: Mapping, metric: str) -> str:
    """One measure's table: per arm the AUC and the final rate, each against the baseline
    (paired by seed)."""
    rows = []
    for arm in all_arms(family):
        m = arm[metric]
        final = _diff(m["final_vs_baseline"])
        rows.append([arm["arm"], arm["runs"], estimate_text(m["auc"], m["auc_ci"]),
                     *_diff(m["vs_baseline"]), estimate_text(m["final"], m["final_ci"]),
                     final[0], final[1], final[2], final[5]])
    k, last = family["auc_iterations"], family["final_iteration"]
    return table(["Arm", "Runs", f"AUC 1-{k} % [95% CI]", "Δ vs baseline, paired [95% CI]",
                  "p (paired t)", "p (BH)", "p (Wilcoxon)", "p (Welch)", "80%-power effect",
                  f"Final (it. {last}) %", "Δ final, paired", "p final", "p final (BH)",
                  "80%-power effect, final"], rows, "lrrrrrrrrrrrrr")


def family_elo_markdown(family: Mapping) -> str:
    """The final networks' Elo per arm, and against the baseline paired by seed."""
    rows = []
    for arm in all_arms(family):
        elo = arm["elo"]
        if elo is None:
            continue
        diff = _diff(elo["vs_baseline"], 1, 0)
        rows.append([arm["arm"], len(elo["runs"]), estimate_text(elo["mean"], elo["ci"], 1, 0),
                     *diff[:4], diff[5]])
    if not rows:
        return ""
    return table(["Arm", "Runs", "Elo vs seed block [95% CI]", "Δ vs baseline, paired [95% CI]",
                  "p (paired t)", "p (BH)", "p (Wilcoxon)", "80%-power effect"], rows,
                 "lrrrrrrr")


def compact_markdown(family: Mapping) -> str:
    """results.md §1's table of a family: per arm the policy head's AUC and final rate
    against the baseline (paired by seed, p with its Benjamini–Hochberg adjustment), the
    search's differences, the warm-start iterations and Elo."""
    rows = []
    for arm in ([family["baseline"]] if family["baseline"] else []) + main_arms(family):
        pol, sea = arm["policy"], arm["search"]
        base = arm["mode"] == "none"
        elo = None if arm["elo"] is None else arm["elo"]["vs_baseline"]
        rows.append([
            arm["arm"], arm["runs"], f"{_fixed(pol['auc'])}%", _pts(pol["vs_baseline"]),
            _padj(pol["vs_baseline"]),
            "" if pol["vs_baseline"] is None else _fixed(pol["vs_baseline"]["effect80"]),
            f"{_fixed(pol['final'])}%", _pts(pol["final_vs_baseline"]),
            _padj(pol["final_vs_baseline"]),
            f"({_fixed(sea['auc'])}%)" if base else
            f"{_signed(sea['vs_baseline']['diff'])}, {_padj(sea['vs_baseline'])}"
            if sea["vs_baseline"] else "",
            f"({_fixed(sea['final'])}%)" if base else
            f"{_signed(sea['final_vs_baseline']['diff'])}, {_padj(sea['final_vs_baseline'])}"
            if sea["final_vs_baseline"] else "",
            "" if base else _fixed(arm["warm_iterations_mean"], 1),
            "" if elo is None else interval_text(elo, 1, 0)])
    k, last = family["auc_iterations"], family["final_iteration"]
    return table(["arm", "runs", f"AUC 1–{k}", "Δ AUC, paired [95% CI]", "p (adj.)",
                  "80%-power effect", f"final (it. {last})", "Δ final, paired [95% CI]", "p (adj.)",
                  "search: Δ AUC, p (adj.)", "search: Δ final, p (adj.)",
                  "warm-start iterations", "Δ Elo, paired [95% CI]"], rows,
                 "lrrrrrrrrrrrr")


def gaps_markdown(family: Mapping) -> str:
    """Per iteration: the baseline's mean rate and each main arm's mean gap to it, paired by
    seed (its 95% interval where two or more seeds; `Family.gaps`)."""
    if not family["gaps"]:
        return ""
    main = main_arms(family)
    rows = [[g["iteration"], f"{_fixed(g['baseline'])}%",
             *("" if c is None else _pts(c) + ("*" if c["p"] is not None and c["p"] < 0.05
                                                else "") for c in g["arms"])]
            for g in family["gaps"]]
    return table(["iteration", "baseline", *[f"{a['arm']} − baseline" for a in main]],
                 rows, "r" * (2 + len(main)))


def spearman_markdown(family: Mapping) -> str:
    """Per adaptive arm: does a run's warm-start length predict its final policy-head rate?
    Spearman's ρ over the arm's seeds (`Arm.spearman`)."""
    rows = []
    for arm in family["arms"]:
        found = arm.get("spearman_warm_vs_final")
        if found is None:
            continue
        rho = found["rho"]
        rows.append([arm["arm"], arm["runs"], "—" if rho is None else f"{rho:+.2f}",
                     "—" if rho is None else p_text(found["p"])])
    if not rows:
        return ""
    return table(["Arm", "Runs", f"Spearman ρ (warm-start iterations, policy rate at it. "
                  f"{family['final_iteration']})", "p"], rows, "lrrr")


def power_markdown(family: Mapping) -> str:
    """The main comparison's power (`Family.power`): per arm the SD of its paired
    differences from the baseline (policy AUC), the effect 80% power detects at its seeds,
    and the seeds 80% power at δ needs; last row the family's (root mean square of the
    SDs)."""
    if not family["power"]:
        return ""
    rows = [[r["arm"], r["pairs"] or "", _fixed(r["sd"], 100, 2),
             "" if not r["pairs"] else _fixed(r["effect80"]), _n(r["seeds_for_delta"])]
            for r in family["power"]]
    return table(["Arm", "Pairs", "SD of paired differences (points)",
                  "80%-power effect (points)", f"seeds for 80% power at δ = "
                  f"{100 * family['power_delta']:.0f} points"], rows, "lrrrr")


def _n(x: float | None) -> str:
    return "—" if x is None else f"{x:.0f}"


def iprime_markdown(family: Mapping) -> str:
    """Claim 4's data (`Family.iprime`): the fixed arms of the swept enhancement by I′, and
    the baseline, each on the seeds that ran at every I′ (means; Elo relative to the seed's
    round robin)."""
    if not family["iprime"]:
        return ""
    rows = [[r["arm"], r["runs"], percent(r["policy_auc"]), percent(r["policy_final"]),
             percent(r["search_auc"]), percent(r["search_final"]),
             "—" if r["elo"] is None else f"{r['elo']:+.0f}"] for r in family["iprime"]]
    k, last = family["auc_iterations"], family["final_iteration"]
    return table(["Arm", "Runs", f"Policy AUC 1-{k} %", f"Policy final (it. {last}) %",
                  f"Search AUC 1-{k} %", "Search final %", "Elo vs seed block"], rows,
                 "lrrrrrr")


def warm_markdown(family: Mapping) -> str:
    """Iterations self-played with the enhancement and, for adaptive arms, the switch
    iteration (mean ± population std over the seeds that switched, as the papers give it)."""
    rows = []
    for arm in family["arms"]:
        if arm["mode"] == "none":
            continue
        switch = "—"
        if arm["mode"] == "adaptive":
            switches = arm["switch_iterations"]
            switched = sum(s is not None for s in switches)
            switch = ("never" if not switched else
                      f"{arm['switch_mean']:.1f} ± {arm['switch_std']:.1f}")
            if switched < arm["runs"]:
                switch += f" ({switched}/{arm['runs']} switched)"
        rows.append([arm["arm"], arm["runs"], _fixed(arm["warm_iterations_mean"], 1), switch,
                     ", ".join(str(s) if s is not None else "—"
                               for s in arm.get("switch_iterations", ()))])
    return table(["Arm", "Runs", "Warm-start iterations (mean)",
                  "Switch iteration (mean ± pop. std)", "Per seed"], rows, "lrrrl")


def claims_markdown(claims: Sequence[Mapping]) -> str:
    """The claims' verdicts (`record.claim_json`)."""
    return table(["Claim", "Family", "Verdict", "What decides it", "The papers' measure "
                  "(final Elo, paired by seed)"],
                 [[c["claim"], c["family"], f"**{c['label']}**", c["evidence"],
                   c["papers_measure"] or "—"] for c in claims], "lllll")


def looks_markdown(looks: dict) -> str:
    """Every analysis each study folder has had (`study.read_looks`)."""
    rows = []
    for folder, entries in looks.items():
        for look in entries:
            seeds = look["seeds"]
            if isinstance(seeds, dict):
                seeds = "; ".join(f"{k}: {seed_span(v)}" for k, v in seeds.items())
            else:
                seeds = seed_span(seeds)
            rows.append([folder, look["date"], look.get("commit", ""), seeds, look["note"]])
    if not rows:
        return ""
    return table(["Study", "Date", "Commit", "Seeds", "What was looked at"], rows, "lllll")


def seed_span(seeds: Sequence[int]) -> str:
    seeds = sorted(seeds)
    if seeds and seeds == list(range(seeds[0], seeds[-1] + 1)) and len(seeds) > 2:
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


# --- families set against each other (`contrasts.steps_json`, `contrasts_json`) -----------


def verdict_words(d: Mapping | None, delta: float, unit: str = "points",
                  scale: float = 100.0) -> str:
    """The rule's verdict (a decision's record: verdict, reason, effect80) in a few words:
    "gain", "no gain ≥ 2 points", "opposite" or "open (80%: 4.6 points)"."""
    if d is None:
        return "—"
    if d["verdict"] == NOT_INFORMATIVE:
        return f"not informative: {d['reason']}"
    if d["verdict"] == REPRODUCED:
        return "gain"
    if d["verdict"] == CONTRADICTED and d["reason"] == "opposite":
        return "opposite"
    if d["verdict"] == CONTRADICTED:
        return f"no gain ≥ {scale * delta:g} {unit}"
    need = "" if d["effect80"] is None else f" (80%: {scale * d['effect80']:.1f} {unit})"
    return f"open{need}"


def boards_markdown(group: Mapping, families: Mapping[str, Mapping]) -> str:
    """Per board: the baseline's policy-head AUC and final rate, and per warm-start arm its
    lead (paired by seed) and its switch iterations; `families`: the family entries by
    tag."""
    rows = []
    for board in group["boards"]:
        base = families[board["family"]]["baseline"]
        for label, arm in board["arms"].items():
            switch = "—"
            if arm["switches"]:
                switch = estimate_text(arm["switch"]["mean"], arm["switch"]["ci"], 1)
                if arm["never"]:
                    switch += f" ({arm['never']} never)"
            rows.append([board["board"], board["cells"], arm["runs"],
                         "—" if base is None else estimate_text(base["auc"], base["auc_ci"]),
                         "—" if base is None else estimate_text(base["final"], base["final_ci"]),
                         label, _span(arm["lead"]), switch])
    return table(["board", "cells", "seeds", "baseline AUC % [95% CI]",
                  "baseline final %", "arm", "lead: arm − baseline, AUC points, paired",
                  "switch iteration [95% CI]"], rows, "lrrrrlll")


def steps_markdown(groups: Sequence[Mapping], delta: float) -> str:
    """Each larger board against the smallest: the growth of the lead and the delay of the
    switch (Welch; p adjusted over every step), with the rule's verdicts."""
    rows = []
    for group in groups:
        for s in group["steps"]:
            rows.append([game_name(group["game"]), f"{s['large']} vs {s['small']}",
                         s["arm"], _span(s["growth"]),
                         verdict_words(s["growth_verdict"], delta),
                         _span(s["delay"], 1, 2), p_text(s["p_mannwhitney"]),
                         verdict_words(s["delay_verdict"], SWITCH_DELTA, "iterations", 1.0)])
    if not rows:
        return ""
    return table(["game", "boards", "arm", "growth of the lead, points (Welch)",
                  f"lead verdict (δ = {100 * delta:g})", "delay of the switch, iterations "
                  "(Welch)", "Mann–Whitney p", f"switch verdict (δ = {SWITCH_DELTA:g})"],
                 rows, "llllllrl")


def contrast_markdown(contrast: Mapping, delta: float) -> str:
    """A family's arms against its reference family's, paired by seed."""
    rows = [[r["comparison"], r["seeds"], _span(r["auc"]), verdict_words(r["auc_verdict"], delta),
             _span(r["final"]), verdict_words(r["final_verdict"], delta), _span(r["elo"], 1, 0)]
            for r in contrast["rows"]]
    return table(["comparison", "seeds", f"Δ AUC 1–{contrast['auc_iterations']}, points",
                  "verdict (AUC)", "Δ final, points", "verdict (final)",
                  "Δ Elo, one round robin per seed"], rows, "lrlllll")


# --- the floor rule, robustness and time to strength (`warmjax.analysis.strength`) --------


def floor_markdown(floors: Sequence[Mapping]) -> str:
    """Each family's baseline against a random legal move (the floor rule; `Floor.to_json`
    entries)."""
    rows = [[f["family"], f["iteration"], percent(f["baseline_mean"]),
             percent(f["random_rate"]), p_text(f["p"]),
             "learned" if f["learned"] else "**did not learn**"] for f in floors]
    return table(["family", "last iteration", "baseline's policy head, %", "random move, %",
                  "p (one-sided)", "floor"], rows, "lrrrrl")


def step_key(group: Mapping, step: Mapping) -> str:
    """An across-board step's name in the robustness record."""
    return f"{group['title']}: {step['arm']}, {step['large']} vs {step['small']}"


def robustness_markdown(claims: Sequence[Mapping], boards: Sequence[Mapping],
                        robust: Mapping) -> str:
    """Over which AUC windows k each claim's, and each across-board step's, verdict holds
    (`report.robustness`)."""
    rows = []
    for c in claims:
        by_k = _by_window(robust["claims"].get(f"{c['claim']} | {c['family']}", {}))
        verdict = strength.verdict_text(c["verdict"], c.get("reason", ""))
        rows.append([c["claim"], c["family"], verdict, strength.holds_over(by_k, verdict),
                     strength.elsewhere(by_k, verdict)])
    for group in boards:
        for s in group["steps"]:
            by_k = _by_window(robust["boards"].get(step_key(group, s), {}))
            d = s["growth_verdict"]
            verdict = None if d is None else strength.verdict_text(d["verdict"], d["reason"])
            rows.append([f"growth of the lead: {s['arm']}", group["title"], verdict or "—",
                         strength.holds_over(by_k, verdict), strength.elsewhere(by_k, verdict)])
    if not rows:
        return ""
    return table(["claim", "family", "verdict", "holds for k =", "other windows"], rows,
                 "lllll")


def _by_window(verdicts: Mapping) -> dict[int, str | None]:
    """`{k: verdict}` with the windows as numbers (study.json writes its keys as text)."""
    return {int(k): v for k, v in verdicts.items()}


POLICY_ADJUSTED = ("every arm and step of the policy head's ladder (the search's "
                   "unadjusted)")


def speed_intro(records: Sequence[dict], calibration: str | None,
                adjusted: str = POLICY_ADJUSTED) -> str:
    """The time-to-strength section's first paragraph; `adjusted`: what the log-rank
    p-values are adjusted over, in words."""
    sources = sorted({r["compute_source"] for r in records if r["compute_source"]})
    axis = ("iterations only (no compute curve for these runs)" if not sources else
            "iterations and compute: " + ", ".join(sources)
            + (f" (estimated seconds, calibration table {calibration})" if calibration
               else " (the wall seconds the runs logged, `seconds_total`)"))
    return ("When each run's probe first reached each step of its game's ladder; a run "
            "that never did is censored at its budget (Kaplan–Meier). Median [95% interval] "
            "and the restricted mean time up to the smallest budget of the family (RMST); "
            "speed-up = RMST(baseline) / RMST(arm), seed-bootstrap 95% interval; log-rank "
            f"p, adjusted by Benjamini–Hochberg over {adjusted}. Compute: 'ledger' = the "
            "ledger's counts "
            "costed by the calibration table; 'reconstructed' = counts rebuilt for runs "
            "from before the ledger (their playout steps missing); 'measured' = wall "
            f"seconds. Axis: {axis}.\n")


def _time(x: float | None, axis: str) -> str:
    if x is None:
        return "—"
    return f"{x:.0f}" if axis == "iterations" else f"{x / 60:.1f}"


def speed_markdown(record: dict) -> str:
    """One family's time to strength: per arm and step, and each arm against the baseline."""
    out = []
    for axis, block in record["axes"].items():
        unit = "iterations" if axis == "iterations" else "minutes of compute"
        arms = [[a["arm"], a["measure"], percent(a["threshold"]),
                 f"{a['reached']}/{a['runs']}",
                 f"{_time(a['median'], axis)} [{_time(a['median_ci'][0], axis)}, "
                 f"{_time(a['median_ci'][1], axis)}]", _time(a["rmst"], axis)]
                for a in block["arms"]]
        comps = [[c["arm"], c["measure"], percent(c["threshold"]),
                  ratio(c["speedup"], c["speedup_ci"]),
                  p_text(c["logrank_p"]) + ("" if c["p_adjusted"] is None
                                        else f" (adj. {p_text(c['p_adjusted'])})"),
                  c["verdict"]] for c in block["comparisons"]]
        out += [f"Against {unit}:", "",
                table(["arm", "measure", "step, %", "reached", f"median [95%], {unit}",
                       f"RMST, {unit}"], arms, "lllrll"),
                table(["arm vs baseline", "measure", "step, %", "speed-up [95%]",
                       "log-rank p", "verdict"], comps, "llllll")]
    return "\n".join(out)


def decline_markdown(declines: Mapping[str, dict]) -> str:
    """The decline rule's table: per study, the windows, the baseline's means, the paired
    difference, p and the label."""
    rows = [[d["family"], f"{d['window'][0]}–{d['window'][1]}", f"{d['late'][0]}–{d['late'][1]}",
             len(d["seeds"]), percent(sum(d["window_rates"]) / len(d["window_rates"])),
             percent(sum(d["late_rates"]) / len(d["late_rates"])),
             f"{100 * d['diff']:+.1f}",
             f"{sum(a < b for a, b in zip(d['late_rates'], d['window_rates']))} of "
             f"{len(d['seeds'])}", p_text(d["p"]),
             "**declines**" if d["declines"] else "no decline"]
            for d in declines.values()]
    return table(["study", "window", "late", "seeds", "baseline policy head, window %",
                  "late %", "late − window, points", "seeds lower late", "one-sided p",
                  "rule"], rows, "lllrrrrrrl")
