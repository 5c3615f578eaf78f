"""The confirmatory Connect Four study's analysis exactly as registered
(results/study/c4_confirm/REGISTRATION.md), written next to the study's data.

Three hypotheses on the policy head's optimal-move rate, each paired by seed
(`scipy.stats.ttest_rel` via `warmjax.analysis.study.compare_by_seed`, two-sided):

- H1: adaptive WRoRa − baseline;
- H2: fixed WRoRa I′ = 5 − baseline;
- H3: adaptive WRoRa − fixed WRoRa I′ = 5.

The primary measure is the AUC over iterations 1–8, the secondary the rate at iteration
15. Per measure the three p-values are adjusted together by Benjamini–Hochberg, and each
hypothesis is decided by the verdict rule (`study.decide`, δ = 2 points) on its adjusted p.
Claim 1 is H1 and H2 decided together (reproduced if both are; contradicted if both
intervals lie below +δ or either is significantly negative); claim 3 is H3. Wilcoxon's
and Welch's p are sensitivity columns; the final networks' Elo in each seed's round robin,
centred on the seed's mean and paired by seed, is reported beside and decides nothing.

The registration allows no interim analysis: the tool refuses a study whose arms do not all
have the registered seeds with every iteration, unless `--incomplete`, which labels the
output incomplete and claims no verdict.

    python tools/registered_analysis.py results/study/c4_confirm
    python tools/registered_analysis.py DIR --seeds 0 1 2 3 --incomplete   # a dry run
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from statsmodels.stats.power import TTestPower

from warmjax.analysis import study, tables
from warmjax.analysis.study import Arm, Comparison, Decision, Tested
from warmjax.markdown import table
from warmjax.train import run_folder

SEEDS = tuple(range(8, 40))
ITERATIONS = 15
AUC_ITERATIONS = 8
DELTA = 0.02
MEASURES = {"auc": "primary: policy head's AUC, iterations 1–8",
            "final": "secondary: policy head's rate at iteration 15"}
HYPOTHESES = (("H1", "adaptive WRoRa − baseline", "adaptive", "baseline"),
              ("H2", "fixed WRoRa I′ = 5 − baseline", "fixed", "baseline"),
              ("H3", "adaptive WRoRa − fixed WRoRa I′ = 5", "adaptive", "fixed"))


def arms_of(family: study.Family) -> dict[str, Arm]:
    """The study's three arms by role."""
    out = {"baseline": family.baseline}
    for a in family.arms:
        v = a.id
        if v.enhancement == "wrora" and v.mode == "adaptive":
            out["adaptive"] = a
        elif v.enhancement == "wrora" and v.mode == "fixed" and v.iprime == 5:
            out["fixed"] = a
    missing = {"baseline", "adaptive", "fixed"} - {k for k, a in out.items() if a is not None}
    if missing:
        raise ValueError(f"the study has no {', '.join(sorted(missing))} arm")
    return out


def incomplete(arms: dict[str, Arm], seeds: tuple[int, ...], iterations: int) -> list[str]:
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


def power_at(c: Comparison, delta: float) -> float:
    """The paired test's power at a true difference `delta`, at the observed SD."""
    if c is None or math.isnan(c.sd) or c.sd == 0 or c.n < 2:
        return math.nan
    return float(TTestPower().power(effect_size=delta / c.sd, nobs=c.n, alpha=study.ALPHA,
                                    alternative="two-sided"))


def analyse(folder: Path, seeds: tuple[int, ...] = SEEDS, iterations: int = ITERATIONS,
            allow_incomplete: bool = False, delta: float = DELTA) -> dict:
    """The registered analysis of the study in `folder` (its runs and `tournament/`)."""
    runs = [r for r in run_folder.find_runs([folder]) if r.id.seed in seeds]
    found = []
    if (folder / "tournament" / "tournament.json").exists():
        found.append(tables.journal_tournament(folder / "tournament"))
    (family,) = study.families(runs, found, AUC_ITERATIONS)
    arms = arms_of(family)
    gaps = incomplete(arms, seeds, iterations)
    if gaps and not allow_incomplete:
        raise SystemExit("the registered analysis needs every run of every seed (no interim "
                         "look); missing: " + "; ".join(gaps))
    out = {"folder": str(folder), "seeds": list(seeds), "complete": not gaps, "gaps": gaps,
           "delta": delta, "measures": {}, "claims": {}, "elo": {}}
    for measure in MEASURES:
        comps = [study.compare_by_seed(arms[a].by_seed("policy", measure),
                                       arms[b].by_seed("policy", measure))
                 for _, _, a, b in HYPOTHESES]
        p_adj = study.adjusted([c.p for c in comps])
        rows = {}
        for (h, name, _, _), c, p in zip(HYPOTHESES, comps, p_adj):
            d = study.decide([Tested(name, c)], delta, p_adjusted=[p])
            rows[h] = {"comparison": name, **study.comparison_json(c, delta),
                       "p_adjusted": study.num(p), "power_at_delta": study.num(power_at(c, delta)),
                       "verdict": _verdict(d, gaps)}
        out["measures"][measure] = rows
        tested = {h: Tested(name, c) for (h, name, _, _), c in zip(HYPOTHESES, comps)}
        p_by = dict(zip((h for h, *_ in HYPOTHESES), p_adj))
        out["claims"][measure] = {
            "claim 1 (H1 and H2)": _verdict(study.decide(
                [tested["H1"], tested["H2"]], delta, p_adjusted=[p_by["H1"], p_by["H2"]]),
                gaps),
            "claim 3 (H3)": _verdict(study.decide([tested["H3"]], delta,
                                                  p_adjusted=[p_by["H3"]]), gaps)}
    for h, name, a, b in HYPOTHESES:
        c = study.compare_by_seed(arms[a].by_seed("elo"), arms[b].by_seed("elo"))
        out["elo"][h] = None if c is None else {"comparison": name,
                                                **study.comparison_json(c, delta)}
    return out


def _verdict(d: Decision, gaps: list[str]) -> str:
    if gaps:
        return "incomplete: no verdict"
    if d.verdict == study.CONTRADICTED:
        return f"contradicted ({'opposite' if d.reason == 'opposite' else 'no gain ≥ δ'})"
    if d.verdict == study.UNRESOLVED:
        return (f"not resolvable (80% power needed {100 * d.effect80:.1f} points)"
                if not math.isnan(d.effect80) else "not resolvable")
    return d.verdict


def _pts(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:+.1f}"


def markdown(result: dict) -> str:
    lines = ["# The confirmatory Connect Four study: the registered analysis", "",
             ("Computed by `python tools/registered_analysis.py "
              f"{result['folder']}` as results/study/c4_confirm/REGISTRATION.md "
              f"registers it; δ = {100 * result['delta']:g} points; seeds "
              f"{result['seeds'][0]}–{result['seeds'][-1]} ({len(result['seeds'])})."), ""]
    if not result["complete"]:
        lines += ["**Incomplete: no verdict is claimed.** Missing: "
                  + "; ".join(result["gaps"]), ""]
    for measure, title in MEASURES.items():
        rows = []
        for h, r in result["measures"][measure].items():
            rows.append([h, r["comparison"], r["n"],
                         f"{_pts(r['diff'])} [{_pts(r['ci'][0])}, {_pts(r['ci'][1])}]",
                         f"{r['p']:.3g}", f"{r['p_adjusted']:.3g}",
                         f"{r.get('p_wilcoxon', math.nan):.3g}",
                         f"{r['welch']['p']:.3g}" if r.get("welch") else "—",
                         f"{100 * r['effect80']:.1f}" if r["effect80"] is not None else "—",
                         f"{r['power_at_delta']:.2f}" if r["power_at_delta"] is not None
                         else "—", f"**{r['verdict']}**"])
        lines += [f"## {title[0].upper() + title[1:]}", "",
                  table(["", "comparison", "pairs", "Δ points, paired [95% CI]", "p",
                         "p (BH, H1–H3)", "Wilcoxon p", "Welch p", "80%-power effect",
                         "power at δ", "verdict"], rows, "llrlrrrrrrl")]
        lines += [f"- {claim}: **{v}**" for claim, v in result["claims"][measure].items()]
        lines.append("")
    elo = [[h, r["comparison"], r["n"], f"{r['diff']:+.0f} [{r['ci'][0]:+.0f}, "
            f"{r['ci'][1]:+.0f}]", f"{r['p']:.3g}"]
           for h, r in result["elo"].items() if r is not None]
    if elo:
        lines += ["## The papers' measure: final Elo, paired by seed (decides nothing)", "",
                  table(["", "comparison", "pairs", "Δ Elo [95% CI]", "p"], elo, "llrlr")]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    parser.add_argument("--iterations", type=int, default=ITERATIONS)
    parser.add_argument("--incomplete", action="store_true",
                        help="analyse what there is, labelled incomplete, with no verdict")
    parser.add_argument("--out", type=Path, help="folder for registered.md and "
                        "registered.json (default: the study folder)")
    args = parser.parse_args(argv)
    result = analyse(args.folder, tuple(args.seeds), args.iterations, args.incomplete)
    out = args.out or args.folder
    out.mkdir(parents=True, exist_ok=True)
    (out / "registered.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "registered.md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
