"""The one Markdown renderer of the registered analyses: a report read from its record
alone (`markdown`), the design's facts it needs being the record's `plan`
(`registered.plan_json`). Three kinds of record, by the analysis that made it:

- "hypotheses" (`registered.analyse`): named hypotheses adjusted together per measure,
  with their claims (`registered.md`);
- "horizons" (`horizon.analyse`): each warm-start arm against its own board's baseline at
  its horizons, compute to strength, early learning and growth with the board;
- "two_arms" (`two_arms.analyse`): compute to strength and the final agent over boards,
  with its robustness and self-play health.

The sections every kind shares (the incomplete notice, the floor rule, the looks) are
written once here. Pure Python: no JAX, no numpy.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

from warmjax.analysis import ranking, strength, study_tables
from warmjax.analysis.model import TITLES
from warmjax.analysis.registered import Hypothesis
from warmjax.analysis.stats import NOT_INFORMATIVE
from warmjax.analysis.two_arms import HEALTH
from warmjax.analysis.verdicts import interval, p_text, ratio
from warmjax.markdown import percent, table

NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
FIGURE = "elo_leads.png"  # a horizon design's `elo_leads`, drawn by `plots.plot_elo_leads`
HEALTH_AT = (1, 10, 20, 40)  # the health table's iterations, with the last


def markdown(record: dict, command: str) -> str:
    """The report of any registered analysis's record; `command` made it."""
    kind = record["plan"]["kind"]
    render = {"hypotheses": hypotheses_markdown, "horizons": horizons_markdown,
              "two_arms": two_arms_markdown}.get(kind)
    if render is None:
        raise ValueError(f"no report for a record of kind {kind!r}")
    return render(record, command)


@dataclasses.dataclass(frozen=True)
class Plan:
    """The design's facts as the record states them (`registered.plan_json`)."""

    title: str
    registration: str
    hypotheses: tuple[Hypothesis, ...]
    measures: Mapping[str, Mapping]
    horizons: tuple[int, ...]
    full_iterations: int | None
    calibration: str
    decline_after_data: bool
    decline_windows: tuple[tuple[int, int], ...]
    growth: tuple[str, str] | None  # (larger, smaller) boards

    @classmethod
    def of(cls, record: Mapping) -> Plan:
        p = record["plan"]
        growth = [(m["larger"], m["smaller"]) for m in p["measures"].values()
                  if m["kind"] == "Growth"]
        return cls(p["title"], p["registration"],
                   tuple(Hypothesis(**h) for h in p["hypotheses"]), p["measures"],
                   tuple(p["horizons"]), p["full_iterations"], p["calibration"],
                   p["decline_after_data"],
                   tuple(sorted({tuple(b["decline_window"]) for b in p["boards"]})),
                   growth[0] if growth else None)

    @property
    def count(self) -> str:
        """The hypotheses' number in words ("four")."""
        return NUMBERS.get(len(self.hypotheses), str(len(self.hypotheses)))


def _incomplete(record: Mapping) -> list[str]:
    if record["complete"]:
        return []
    return ["**Incomplete: no verdict is claimed.** Missing: " + "; ".join(record["gaps"]),
            ""]


def _floor(record: Mapping, unit: str) -> list[str]:
    """The floor rule's section: each `unit` ("board", "study") whose baseline learned."""
    return ["## The floor rule", "",
            (f"A {unit} whose baseline did not learn decides nothing: its baseline's policy "
             "head at the last iteration against a random legal move on the same positions "
             "(one-sided one-sample t-test, α = 0.05)."), "",
            study_tables.floor_markdown(list(record["floor"].values())), ""]


# --- hypotheses --------------------------------------------------------------------------------


def hypotheses_markdown(record: dict, command: str) -> str:
    """A one-board design's hypotheses (`registered.analyse`): `registered.md`."""
    design = Plan.of(record)
    lines = [f"# {design.title}", "",
             (f"Computed by `{command}` as {design.registration} registers it; "
              f"δ = {100 * record['delta']:g} points; seeds "
              f"{record['seeds'][0]}–{record['seeds'][-1]} ({len(record['seeds'])})."), ""]
    lines += _incomplete(record)
    for measure in record["measures"]:
        title = design.measures[measure]["title"]
        rows = []
        for h, r in record["measures"][measure].items():
            rows.append([h, r["comparison"], r["n"],
                         interval(r),
                         f"{r['p']:.3g}", f"{r['p_adjusted']:.3g}",
                         f"{r.get('p_wilcoxon', math.nan):.3g}",
                         f"{r['welch']['p']:.3g}" if r.get("welch") else "—",
                         f"{100 * r['effect80']:.1f}" if r["effect80"] is not None else "—",
                         f"{r['power_at_delta']:.2f}" if r["power_at_delta"] is not None
                         else "—", f"**{r['verdict']}**"])
        names = f"{design.hypotheses[0].name}–{design.hypotheses[-1].name}"
        lines += [f"## {title[0].upper() + title[1:]}", "",
                  table(["", "comparison", "pairs", "Δ points, paired [95% CI]", "p",
                         f"p (BH, {names})",
                         "Wilcoxon p", "Welch p", "80%-power effect", "power at δ", "verdict"],
                        rows, "llrlrrrrrrl")]
        lines += [f"- {claim}: **{v}**" for claim, v in record["claims"][measure].items()]
        lines.append("")
    elo = [[h, r["comparison"], r["n"], f"{r['diff']:+.0f} [{r['ci'][0]:+.0f}, "
            f"{r['ci'][1]:+.0f}]", f"{r['p']:.3g}"]
           for h, r in record["elo"].items() if r is not None]
    if elo:
        lines += ["## The papers' measure: final Elo, paired by seed (decides nothing)", "",
                  table(["", "comparison", "pairs", "Δ Elo [95% CI]", "p"], elo, "llrlr")]
    return "\n".join(lines) + "\n"

# --- horizons ----------------------------------------------------------------------------------


def elo_leads(record: dict) -> dict[str, list[tuple[int, dict | None]]]:
    """Per comparison (its title): `(iteration, Elo comparison)` at each horizon and at the
    end (each study's last iteration), for `plots.plot_elo_leads`."""
    design, out = Plan.of(record), {}
    for c in design.hypotheses:
        if c.board not in record["studies"]:
            continue
        last = record["studies"][c.board]["iterations"]
        out[c.comparison] = [*((h, record["elo_horizons"][str(h)].get(c.name))
                          for h in design.horizons
                          if h < last), (last, record["elo"].get(c.name))]
    return out


def _decided_table(rows: dict, unit: str, design: Plan) -> str:
    scale, digits = (1.0, 0) if unit == "Elo" else (100.0, 1)
    body = [[r["comparison"], r["n"], interval(r, unit), p_text(r["p"]), p_text(r["p_adjusted"]),
             f"{p_text(r.get('p_permutation'))} ({p_text(r.get('p_permutation_adjusted'))})",
             p_text(r.get("p_wilcoxon")),
             "—" if r["effect80"] is None else f"{scale * r['effect80']:.{digits}f}",
             p_text(r["power_at_delta"]), f"**{r['verdict']}**"]
            for r in rows.values() if r is not None]
    return table(["comparison", "pairs", f"Δ {unit}, paired [95% CI]", "p",
                  f"p (BH, the {design.count})",
                  "exact sign-flip p (BH)", "Wilcoxon p", f"80%-power effect, {unit}",
                  "power at δ", "verdict"], body, "lrlrrrrrrl")


def _policy_speed(record: dict, axis: str = "compute") -> list[dict]:
    """The policy-head comparisons of every study on `axis`, with their study."""
    return [{**c, "study": r["study"]} for r in record["speed"]["ledger"]
            if axis in r["axes"] for c in r["axes"][axis]["comparisons"]
            if c["measure"] == "policy"]


def horizons_text(record: dict, design: Plan) -> str:
    """Each study's last iteration, named: "Connect Four 6×6 at iteration 100, the papers'
    I; Hex 5×5 at iteration 60, the registered cut"."""
    return "; ".join(f"{s['title']} at iteration {s['iterations']}, "
                     + ("the papers' I" if s["iterations"] == design.full_iterations
                        else "the registered cut")
                     for s in record["studies"].values())


def _reached(record: dict, study: str, arm: str, threshold: float) -> tuple[int, int] | None:
    """`(runs, reached)` of the arm labelled `arm` at a policy-head step, compute axis."""
    for r in record["speed"]["ledger"]:
        if r["study"] == study and "compute" in r["axes"]:
            for a in r["axes"]["compute"]["arms"]:
                if (a["arm"], a["measure"], a["threshold"]) == (arm, "policy", threshold):
                    return a["runs"], a["reached"]
    return None


def _step_note(record: dict, c: dict) -> str:
    """"budget-bound: …" where no baseline run reached a step that some run reached: its
    ratio is then a lower bound set by the budget; "" otherwise."""
    compared = {x["arm"] for x in _policy_speed(record) if x["study"] == c["study"]}
    base = {a["arm"] for r in record["speed"]["ledger"] if r["study"] == c["study"]
            for a in r["axes"]["compute"]["arms"]} - compared
    got = _reached(record, c["study"], base.pop(), c["threshold"]) if len(base) == 1 else None
    if got is None or got[1] > 0 or not c["reached"]:
        return ""
    return (f"budget-bound: 0 of {got[0]} baseline runs reached it, so the ratio is a lower "
            "bound set by the budget")


def _horizon_answers(record: dict, design: Plan) -> list[str]:
    titles = {c.name: c.comparison for c in design.hypotheses}
    k = design.measures["auc"]["iterations"]
    elo, auc = record["elo"], record["auc"]
    lines = ["## The three questions, answered", "",
             f"**1. At each study's horizon ({horizons_text(record, design)}), does warm start "
             f"still lead?** (a) final Elo, δ = {record['deltas']['elo']:g} Elo; (c) AUC 1–{k} "
             "beside it:", ""]
    for key, title in titles.items():
        a, c = elo.get(key), auc.get(key)
        if a is None and c is None:
            continue
        lines.append(f"- {title}: final Elo {interval(a, 'Elo')}, **{a['verdict'] if a else '—'}**;"
                     f" AUC 1–{k} {interval(c, 'points')} points, {c['verdict'] if c else '—'}.")
    lines += ["", "**2. Does warm start save compute, and how much?** (b) the speed-up "
              "RMST(baseline) / RMST(arm) in estimated CPU-seconds, per step of the "
              "policy head's ladder:", ""]
    arms = {}
    for c in _policy_speed(record):
        note = _step_note(record, c)
        arms.setdefault((c["study"], c["arm"]), []).append(
            f"{percent(c['threshold'])}%: {c['speedup']:.2f}× [{c['speedup_ci'][0]:.2f}, "
            f"{c['speedup_ci'][1]:.2f}] ({c['verdict']}{'; ' + note if note else ''})")
    lines += [f"- {record['studies'][study]['title']}, {arm}: " + "; ".join(parts) + "."
              for (study, arm), parts in arms.items()]
    lines += ["", "An *open* step is not resolved either way: its ratio's interval and the "
              "log-rank test leave a speed-up and none both possible."]
    if design.growth is None:
        return lines + [""]
    g = record["growth"]
    large, small = design.growth
    big, little = (record["studies"][n]["title"] if n in record["studies"] else n
                   for n in design.growth)
    lines += ["", f"**3. Does its effect grow with the board?** {big} against {little}:", ""]
    if g["elo"] is not None:
        lines.append(f"- The final-Elo lead, {big} − {little} (Welch): "
                     f"{interval(g['elo'], 'Elo')} Elo, p {p_text(g['elo']['p'])}: "
                     f"**{g['elo']['verdict']}**.")
    if g["speedup"] is not None:
        s = g["speedup"]
        lines.append(f"- The speed-up at the first step ({big} at "
                     f"{percent(s['steps'][large])}%: {s['speedup_large']:.2f}×; {little} at "
                     f"{percent(s['steps'][small])}%: {s['speedup_small']:.2f}×): ratio "
                     f"{s['ratio']:.2f} [{s['ci'][0]:.2f}, {s['ci'][1]:.2f}]: "
                     f"**{s['verdict']}**.")
    return lines + [""]


def horizons_markdown(record: dict, command: str) -> str:
    """A horizon design's report (`horizon.analyse`)."""
    design = Plan.of(record)
    studies = record["studies"]
    k = design.measures["auc"]["iterations"]
    seeds = min(len(s["seeds"]) for s in studies.values())
    decline_windows = design.decline_windows
    lines = [f"# {design.title}", "",
             (f"Computed by `{command}` as {record['registration']} registers it: "
              + "; ".join(f"{s['title']} seeds {study_tables.seed_span(s['seeds'])}, "
                          f"{s['iterations']} iterations" for s in studies.values()) + "."),
             ""]
    lines += _incomplete(record)
    lines += _horizon_answers(record, design)
    lines += ["## (a) The final networks' Elo (primary; the papers' measure)", "",
              ("Per seed, arm − baseline in Bayesian Elo from the round robin of the final "
               "networks, each seed's block centred; paired t over seeds, Benjamini–Hochberg "
               f"over the {design.count} comparisons, δ = {record['deltas']['elo']:g} Elo."), "",
              _decided_table(record["elo"], "Elo", design), "",
              ("**The Elo scale.** Each seed's final networks, one per arm, and the random "
               "player play one round robin; the seeds' blocks are linked only through the "
               "random player, whom every network beats nearly always, and each block is "
               "centred. So a rating is meaningful only within its seed: a lead is an arm's "
               "difference from its own seed's baseline, resting on that pair's games, and "
               "it is not on the papers' scale, where the networks of one tournament are "
               "rated together. The exact sign-flip p is the share of the 2ⁿ sign patterns "
               "of the n per-seed leads whose mean is at least as far from zero: with "
               f"{seeds} seeds its smallest value is 1/{2 ** (seeds - 1)}."), "",
              "Elo against iterations: the same difference from each horizon's round robin "
              "(unadjusted; decides nothing).", ""]
    rows = []
    for c in design.hypotheses:
        cells = [interval(record["elo_horizons"][str(h)].get(c.name), "Elo")
                 for h in design.horizons]
        rows.append([c.comparison, *cells, interval(record["elo"].get(c.name), "Elo")])
    lines += [table(["comparison", *(f"iteration {h}" for h in design.horizons), "final"],
                    rows, "ll" + "l" * len(design.horizons)), "",
              f"![Elo lead against the rated iteration]({FIGURE})", ""]
    lines += ["## (b) Compute to strength (primary)", "",
              study_tables.speed_intro(record["speed"]["ledger"], design.calibration)]
    for r in record["speed"]["ledger"]:
        lines += [f"### {studies[r['study']]['title']}", "", study_tables.speed_markdown(r), ""]
    lines += ["### Beside it: against measured wall seconds (decides nothing)", "",
              ("The same passages against the seconds each run logged (`seconds_total`, "
               "the probe included, other jobs on the machine too); their verdicts are "
               "computed by the same rule for comparison only."), ""]
    for r in record["speed"]["measured"]:
        lines += [f"#### {studies[r['study']]['title']}", "", study_tables.speed_markdown(r),
                  ""]
    lines += [f"## (c) Early learning: the policy head's AUC over iterations 1–{k} (primary)",
              "", (f"Paired t over seeds, Benjamini–Hochberg over the {design.count} comparisons, "
               f"δ = {100 * record['deltas']['auc']:g} points."), "",
              _decided_table(record["auc"], "points", design), ""]
    robust = record["auc_robustness"]
    windows = robust["windows"]
    lines += [f"How far each verdict holds: decided the same way for every window k in "
              f"{strength.holds_over({k: 0 for k in windows}, 0)}.", "",
              table(["comparison", f"verdict at k = {k}", "holds over k", "elsewhere"],
                    [[c.comparison, record["auc"][c.name]["verdict"],
                      robust["verdicts"][c.name]["holds_over"].get(
                          record["auc"][c.name]["decided"], "none"),
                      "; ".join(f"{v} ({ks})" for v, ks in
                                robust["verdicts"][c.name]["holds_over"].items()
                                if v != record["auc"][c.name]["decided"]) or "—"]
                     for c in design.hypotheses if record["auc"].get(c.name) is not None
                     and c.name in robust["verdicts"]], "llll"), ""]
    lines += _floor(record, "study")
    if record.get("decline"):
        lines += ["## The decline rule", "",
                  (("Added after the data (the registration's departures): a study whose "
                    if design.decline_after_data else "A study whose ")
                   + "baseline's policy head is significantly lower over the last tenth of its "
                   "iterations than over iterations "
                   + ", ".join(f"{a}–{b}" for a, b in decline_windows)
                   + " (the mean over each span per run, "
                   "paired by seed, one-sided t-test, α = 0.05) compares collapsing learners "
                   "at its horizon; every verdict of (a) and (b) of that study says so. The "
                   "verdicts themselves are unchanged."), "",
                  study_tables.decline_markdown(record["decline"]), ""]
    if record.get("looks"):
        lines += ["## Looks", "", "Every analysis of these studies, oldest first "
                  "(`looks.json` in each study folder).", "",
                  study_tables.looks_markdown(record["looks"]), ""]
    return "\n".join(lines) + "\n"

# --- two arms ----------------------------------------------------------------------------------


def _final_table(record: dict, rows: Sequence[dict], decided: bool) -> str:
    body = []
    for r in rows:
        c = r["comparison"]
        cells = [record["boards"][r["board"]]["title"], TITLES[r["measure"]],
                 "—" if c is None else c["n"], interval(c), p_text(None if c is None else c["p"])]
        if decided:
            cells += [p_text(r.get("p_adjusted")),
                      "—" if c is None else f"{p_text(c.get('p_permutation'))} "
                      f"({p_text(r.get('p_permutation_adjusted'))})",
                      "—" if c is None else p_text(c.get("p_wilcoxon")),
                      "—" if c is None or c["effect80"] is None
                      else f"{100 * c['effect80']:.1f}",
                      p_text(r.get("power_at_delta")), f"**{r['verdict']}**"]
        body.append(cells)
    head = ["board", "measure", "pairs", "Δ points, paired [95% CI]", "p"]
    if decided:
        head += ["p (BH)", "exact sign-flip p (BH)", "Wilcoxon p", "80%-power effect, points",
                 "power at δ", "verdict"]
    return table(head, body, "llrlr" + ("rrrrrl" if decided else ""))


def _two_arms_answers(record: dict) -> list[str]:
    lines = ["## The answers", ""]
    for name, board in record["boards"].items():
        finals = [r for r in record["final"] if r["board"] == name]
        speed = [c for r in record["speed"]["ledger"] if r["board"] == name
                 and "compute" in r["axes"] for c in r["axes"]["compute"]["comparisons"]]
        parts = [f"{TITLES[r['measure']].lower()} at iteration {record['iterations']} "
                 f"{interval(r['comparison'])} points: **{r['decided']}**" for r in finals]
        verdicts: dict[str, list[str]] = {}
        for c in speed:
            verdicts.setdefault(c["decided"], []).append(
                f"{c['measure']} {percent(c['threshold'])}% ({c['speedup']:.2f}×"
                + (", budget-bound" if c["budget_bound"] else "") + ")")
        lines.append(f"- **{board['title']}.** " + "".join(
            f"*{label[0].upper() + label[1:]}.* " for label in _board_labels(record, name))
            + "The final agent, warm start − baseline: " + "; ".join(parts) + ".")
        if verdicts:
            lines.append("  Compute to strength: " + "; ".join(
                f"{v}: {', '.join(steps)}" for v, steps in verdicts.items()) + ".")
        else:
            lines.append("  Compute to strength: no compute axis (the calibration table has "
                         "no row for these runs).")
        beside = _beside([r for r in record.get("robustness", []) if r["board"] == name])
        if beside and record["complete"]:
            lines.append("  Beside it (decides nothing): " + "; ".join(beside) + ".")
    return lines + [""]


def _step(row: Mapping) -> str:
    return f"{row['measure']} {percent(row['threshold'])}%"


def _beside(rows: Sequence[Mapping]) -> list[str]:
    """What the robustness rows of one board say beside its verdicts (the module docstring):
    whether a *faster* step is faster held as well (its held speed-up's interval above 1) or
    at the first touch only, with its paired p; the steps later or sooner in every seed; and
    the *open* steps whose speed-up interval lies wholly above 1."""
    out = []
    for r in rows:
        if r["decided"] == "faster":
            held = r["held_speedup_ci"][0] > 1
            out.append(
                f"{_step(r)} is faster " + ("held as well" if held else
                                            "at the first touch only")
                + f": held for {r['hold']} iterations "
                f"{ratio(r['held_speedup'], r['held_speedup_ci'], '×')}"
                f", paired by seed exact p = {p_text(r['paired_p'])} (BH "
                f"{p_text(r['paired_p_adjusted'])}; {r['sooner']} of {r['seeds']} seeds sooner)")
    for side, word in (("later", "later"), ("sooner", "sooner")):
        every = [r for r in rows if r["seeds"] and r[side] == r["seeds"]
                 and r["decided"] != "faster"]  # a faster step is said above
        if every:
            out.append(f"warm start {word} in every seed: " + ", ".join(
                f"{_step(r)} ({ratio(r['speedup'], r['speedup_ci'], '×')}, paired exact p = "
                f"{p_text(r['paired_p'])}, BH {p_text(r['paired_p_adjusted'])})"
                for r in every))
    above = [r for r in rows if r["decided"].startswith("open") and r["speedup_ci"][0] > 1]
    if above:
        out.append("open, with the speed-up's interval wholly above 1: " + ", ".join(
            f"{_step(r)} ({ratio(r['speedup'], r['speedup_ci'], '×')})" for r in above))
    return out


def _robustness_markdown(record: dict) -> str:
    rows = [[record["boards"][r["board"]]["title"], r["measure"], percent(r["threshold"]),
             r["decided"], ratio(r["speedup"], r["speedup_ci"]),
             f"{r['sooner']} / {r['later']} of {r['seeds']}",
             f"{p_text(r['paired_p'])} ({p_text(r['paired_p_adjusted'])})",
             ratio(r["held_speedup"], r["held_speedup_ci"]),
             " / ".join(str(n) for n in r["held_reached"]),
             "—" if r.get("left_out_speedup") is None
             else "{:.2f}–{:.2f}".format(*r["left_out_speedup"])]
            for r in record["robustness"]]
    hold = record["robustness"][0]["hold"]
    return table(["board", "measure", "step, %", "verdict", "speed-up [95%]",
                  "seeds sooner / later", "paired exact p (BH)",
                  f"held {hold} iterations: speed-up [95%]",
                  "held: runs reached, baseline / warm",
                  "speed-up, any one seed left out"], rows, "llllllllll")


def _board_labels(record: dict, name: str) -> list[str]:
    """What the floor and decline rules say of every verdict of a board."""
    if not record["complete"]:
        return []
    floor, decline = record["floor"].get(name), record["decline"].get(name)
    if floor is not None and not floor["learned"]:
        return [f"{NOT_INFORMATIVE}: the baseline did not learn, so this board decides "
                "nothing"]
    return [strength.DECLINING] if decline is not None and decline["declines"] else []


def _health_markdown(record: dict, name: str) -> str:
    last = record["iterations"]
    its = [i for i in HEALTH_AT if i < last] + [last]
    rows = []
    for arm, figures in record["health"][name].items():
        for field, title in HEALTH.items():
            by_it = figures.get(field, {})
            if not by_it:
                continue
            cells = []
            for i in its:
                v = by_it.get(str(i))
                cells.append("—" if v is None else
                             percent(v) if field in ("selfplay_draws", "selfplay_first_wins",
                                                     "selfplay_openings") else f"{v:.2f}")
            rows.append([arm, title + (", %" if field in ("selfplay_draws",
                                                          "selfplay_first_wins",
                                                          "selfplay_openings") else ""),
                         *cells])
    if not rows:
        return "No run logged the self-play health figures."
    return table(["arm", "figure", *(f"iteration {i}" for i in its)], rows,
                 "ll" + "r" * len(its))


def two_arms_markdown(record: dict, command: str) -> str:
    """A two-arm design's report (`two_arms.analyse`)."""
    boards = record["boards"]
    seeds = "; ".join(f"{b['title']} seeds {study_tables.seed_span(b['seeds'])}"
                      for b in boards.values())
    lines = ["# " + (record["question"] or "The registered analysis"), "",
             (f"Computed by `{command}` from {record['design']}, as {record['registration']} "
              f"registers it: {seeds}; {record['iterations']} iterations a run; arms "
              + " and ".join(f"`{a}` ({what})" for a, what in record["arms"].items()) + "."),
             ""]
    if record["cuts"]:
        lines += ["Under the registered cuts: " + "; ".join(record["cuts"]) + ".", ""]
    lines += _incomplete(record)
    lines += _two_arms_answers(record)
    delta = record["deltas"]["final"]
    lines += [f"## (B) The final agent (primary): the rates at iteration "
              f"{record['iterations']}", "",
              ("Warm start − baseline per seed, on the board's whole labelled set; paired t, "
               "Benjamini–Hochberg over every (board, measure), the verdict rule with "
               f"δ = {100 * delta:g} points. The exact sign-flip p (Benjamini–Hochberg the "
               "same way) and the Wilcoxon p decide nothing."), "",
              _final_table(record, record["final"], decided=True), ""]
    quiet = [r for r in record["final_quiet"] if r["comparison"] is not None]
    if quiet:
        lines += ["The same on the quiet positions (secondary: unadjusted, no verdict):", "",
                  _final_table(record, quiet, decided=False), ""]
    lines += ["## (A) Compute to strength (primary)", "",
              study_tables.speed_intro(record["speed"]["ledger"],
                                       record["calibration"]["table"],
                                       "every (board, measure, step) together, per axis"),
              (f"*No speed-up* means none of {record['deltas']['speedup']:g}× or more; a "
               "step is *budget-bound* where no baseline run reached it and some warm-start "
               "run did."), ""]
    for r in record["speed"]["ledger"]:
        title = boards[r["board"]]["title"]
        lines += [f"### {title}", "", study_tables.speed_markdown(r), ""]
        if record.get("figures", {}).get(r["board"]):
            lines += [f"![{title}: each run against the ledger's compute]"
                      f"({record['figures'][r['board']]})", ""]
    lines += ["### Beside it: against measured wall seconds (decides nothing)", ""]
    for r in record["speed"]["measured"]:
        lines += [f"#### {boards[r['board']]['title']}", "", study_tables.speed_markdown(r),
                  ""]
    if record.get("robustness"):
        hold = record["robustness"][0]["hold"]
        lines += ["### Beside it: robustness of the compute verdicts (decides nothing)", "",
                  ("Per step on the ledger's compute: how many seeds reached it sooner and "
                   "how many later with warm start (each run stopped at τ), the exact "
                   "sign-flip p of those paired times (Benjamini–Hochberg over every step "
                   "together), the speed-up where a step counts only once the probe has "
                   f"held it for {hold} iterations in a row (timed at the last of them), and "
                   "the smallest and largest speed-up with any one seed left out."), "",
                  _robustness_markdown(record), ""]
    if record["floor"]:
        lines += _floor(record, "board")
    if record["decline"]:
        lines += ["## The decline rule", "",
                  ("A board whose baseline's policy head is significantly lower over the "
                   "last tenth of its iterations than over the registered window (paired by "
                   "seed, one-sided, α = 0.05) carries *the recipe declines* on every "
                   "verdict."), "", study_tables.decline_markdown(record["decline"]), ""]
    lines += ["## Self-play health (secondary, decides nothing)", "",
              "Each figure's mean over the arm's seeds at some iterations (method.md §5).", ""]
    for name in record["health"]:
        lines += [f"### {boards[name]['title']}", "", _health_markdown(record, name), ""]
    if record.get("glimpses"):
        lines += ["## Glimpses before the look", "",
                  (f"Data seen outside the looks, as {record['registration']} records them "
                   "(none changed a setting):"), ""]
        lines += [f"- **{g['when']}.** {g['what'][0].upper()}{g['what'][1:]}."
                  for g in record["glimpses"]] + [""]
    if record.get("looks"):
        lines += ["## Looks", "", "Every analysis of this study, oldest first.", "",
                  study_tables.looks_markdown(record["looks"]), ""]
    text = "\n".join(lines) + "\n"
    if record.get("prediction"):  # a registered prediction across boards
        text += "\n## The prediction across boards\n\n" + ranking.prediction_markdown(
            record["prediction"])
    return text
