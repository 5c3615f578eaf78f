"""The draw-collapse check (results.md §10): c4_long's baseline with root noise against the
committed baseline of the same seeds, read against the prediction written before its runs
(conf/study/c4_long_noise.yaml): with root noise the papers' recipe does **not** decline
(the decline rule, method.md §12, over iterations 21–30 against 91–100, not significant)
and its arena draws over iterations 91–100 stay at or below 50% in every seed.

Prints a Markdown report: per arm and seed the policy head and search over the two windows,
the late arena draw share and the late self-play health figures (method.md §5; the
committed c4_long runs predate them); the same for c4_long's baseline trained again on this
machine without noise (`studies/draw_collapse/c4_long_health`: the same-machine control, since the
committed runs' numerics are another machine's, so that its runs are other trajectories,
each checked field by field against the committed run); then the decline rule on each arm,
the noise runs' paired differences from both no-noise arms, and the prediction's verdict.

    python studies/draw_collapse/analysis.py
    python studies/draw_collapse/analysis.py --noise DIR --paper DIR --health DIR
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy import stats

from warmjax.analysis import study
from warmjax.analysis.strength import decline, late_window
from warmjax.markdown import table
from warmjax.train import run_folder

WINDOW = (21, 30)  # the decline rule's reference window for c4_long (its registration)
DRAW_LIMIT = 0.5  # the prediction: late arena draws at or below this share in every seed
RETRAINED = "none, retrained"  # c4_long's baseline trained again by this code (c4_long_health)
HEALTH = (("selfplay_draws", "self-play draws"), ("selfplay_mean_plies", "plies"),
          ("selfplay_openings", "distinct openings"),
          ("selfplay_target_entropy", "target entropy"))


def baseline_runs(folder: Path, seeds: Sequence[int] | None = None) -> dict[int, run_folder.Run]:
    """`{seed: run}` of the baseline runs (warm start off) under `folder`."""
    if not folder.is_dir():
        return {}
    return {r.id.seed: r for r in run_folder.find_runs([folder])
            if r.id.mode == "none" and (seeds is None or r.id.seed in seeds)}


def span_mean(run, field: str, span: tuple[int, int]) -> float | None:
    """The mean of a metrics field over iterations `span` (inclusive); None where the run
    has no value there."""
    values = [getattr(row, field) for row in run.metrics if span[0] <= row.iteration <= span[1]
              and getattr(row, field) is not None]
    return float(np.mean(values)) if values else None


def arena_draws(run, span: tuple[int, int]) -> float | None:
    """The share of arena games drawn over iterations `span`."""
    rows = [r for r in run.metrics if span[0] <= r.iteration <= span[1]]
    games = sum(r.arena_wins + r.arena_draws + r.arena_losses for r in rows)
    return sum(r.arena_draws for r in rows) / games if games else None


def summary(run, health_run, late: tuple[int, int]) -> dict:
    """One run's figures: probe means over the window and the late span, late arena draws,
    late health figures (from `health_run`, the run itself or its retrained copy)."""
    out = {"seed": run.id.seed}
    for field, name in (("oracle_policy", "policy"), ("oracle_optimal", "search")):
        out[f"{name}_window"] = span_mean(run, field, WINDOW)
        out[f"{name}_late"] = span_mean(run, field, late)
    out["arena_draws"] = arena_draws(run, late)
    for field, _ in HEALTH:
        out[field] = None if health_run is None else span_mean(health_run, field, late)
    return out


def same_run(committed, retrained) -> str:
    """Whether the retrained copy repeats the committed run: every field the committed
    metrics rows hold (wall times aside) equal, row by row, in words."""
    old = [r.to_json() for r in committed.metrics]
    new = [r.to_json() for r in retrained.metrics]
    fields = sorted({k for row in old for k in row if not k.startswith("seconds_")})
    differ = sorted({k for a, b in zip(old, new) for k in fields if a.get(k) != b.get(k)})
    if differ:
        return f"**differs** in {', '.join(differ)}"
    so_far = f" so far (iteration {len(new)} of {len(old)})" if len(new) < len(old) else ""
    return f"identical in all {len(fields)} fields of its {min(len(new), len(old))} rows{so_far}"


def arm_decline(runs: dict):
    """The decline rule on one arm's runs (`strength.Decline`); None below two seeds."""
    if len(runs) < 2:
        return None
    (family,) = study.families(list(runs.values()), tables=False)
    return decline(family, WINDOW)


def _rule(found, runs: dict) -> str:
    """The decline rule's finding on one arm, in words."""
    if found is None:
        return f"needs two seeds ({len(runs)} committed)"
    words = "**declines**" if found.declines else "no significant decline"
    return (f"{words}: late − window {100 * found.diff:+.1f} points, one-sided p = "
            f"{found.p:.2g}, {sum(a < b for a, b in zip(found.late_rates, found.window_rates))}"
            f" of {len(found.seeds)} seeds lower")


def _f(x: float | None, percent: bool = True) -> str:
    if x is None:
        return "—"
    return f"{100 * x:.1f}" if percent else f"{x:.2f}"


def report(noise_dir: Path, paper_dir: Path, health_dir: Path) -> str:
    noise = baseline_runs(noise_dir)
    if not noise:
        raise SystemExit(f"no run with root noise under {noise_dir}")
    seeds = sorted(noise)
    paper = baseline_runs(paper_dir, seeds)
    health = baseline_runs(health_dir, seeds)
    iterations = min(r.iterations for r in (*noise.values(), *paper.values()))
    late = late_window(iterations)
    noisy = arm_decline(noise)
    rows, figures = [], {}
    arms = [("root noise ε = 0.25", noise, True), ("none (c4_long)", paper, False)]
    if health:  # the same recipe without noise, trained again by the noise runs' code
        arms.append((RETRAINED, health, True))
    for arm, runs, own in arms:
        for seed in seeds:
            if seed not in runs:
                continue
            # The committed runs predate the health figures, and their retrained copies are
            # other trajectories (another machine's numerics): they show none.
            s = summary(runs[seed], runs[seed] if own else None, late)
            figures[(arm, seed)] = s
            rows.append([arm, seed, _f(s["policy_window"]), _f(s["policy_late"]),
                         _f(s["search_window"]), _f(s["search_late"]), _f(s["arena_draws"]),
                         *(_f(s[f], f != "selfplay_mean_plies" and f != "selfplay_target_entropy")
                           for f, _ in HEALTH)])
    lines = ["# The draw-collapse check", "",
             f"c4_long's baseline with and without root noise, seeds "
             f"{', '.join(map(str, seeds))}; window {WINDOW[0]}–{WINDOW[1]}, late "
             f"{late[0]}–{late[1]}.", "",
             table(["arm", "seed", "policy head, window %", "late %", "search, window %",
                    "late %", "arena draws, late %",
                    *(f"{name}, late" + (" %" if f not in ("selfplay_mean_plies",
                                                          "selfplay_target_entropy") else "")
                      for f, name in HEALTH)],
                   rows, "lr" + "r" * (5 + len(HEALTH))), "",
             *(f"- Seed {seed} retrained without noise for its health figures: "
               f"{same_run(paper[seed], health[seed])} (wall times aside)."
               for seed in seeds if seed in paper and seed in health),
             f"- The decline rule, root noise: {_rule(noisy, noise)}.",
             f"- The decline rule, no noise: {_rule(arm_decline(paper), paper)}."]
    if health:
        lines.append("- The decline rule, no noise, retrained: "
                     f"{_rule(arm_decline(health), health)}.")
    for other, runs in (("none (c4_long)", paper), (RETRAINED, health)):
        paired = [s for s in seeds if s in runs]
        if len(paired) < 2:
            continue
        d = [figures[("root noise ε = 0.25", s)]["policy_late"]
             - figures[(other, s)]["policy_late"] for s in paired]
        t = stats.ttest_1samp(d, 0.0)
        ci = t.confidence_interval()
        lines.append(f"- Late policy head, noise − {other}, paired by seed: "
                     f"{100 * np.mean(d):+.1f} [{100 * ci.low:+.1f}, {100 * ci.high:+.1f}] "
                     f"points, p = {t.pvalue:.2g}.")
    draws = [figures[("root noise ε = 0.25", s)]["arena_draws"] for s in seeds]
    kept = all(x is not None and x <= DRAW_LIMIT for x in draws)
    if noisy is None:
        verdict = "not yet decided: the decline rule needs two seeds"
    else:
        flat = not noisy.declines
        verdict = ("holds" if flat and kept else "does not hold") + (
            f" (no significant decline: {'yes' if flat else 'no'}; late arena draws ≤ 50% in "
            f"every seed: {'yes' if kept else 'no'})")
    lines += [f"- **The prediction** (no significant decline with root noise, and late arena "
              f"draws ≤ 50% in every seed): {verdict}.", ""]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--noise", type=Path, default=Path("studies/draw_collapse/c4_long_noise"))
    parser.add_argument("--paper", type=Path, default=Path("studies/long_horizon/c4_long"))
    parser.add_argument("--health", type=Path, default=Path("studies/draw_collapse/c4_long_health"))
    args = parser.parse_args(argv)
    print(report(args.noise, args.paper, args.health), end="")


if __name__ == "__main__":
    main()
