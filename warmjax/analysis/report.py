"""The report: the papers' figures and tables from run folders and tournaments, and a
study's statistics, curves and claims, as PNG and Markdown. `python -m warmjax.report`
parses its arguments and calls `write_runs` or `write_study`.

`write_runs` writes into its folder `summary.md`, which links and inlines everything; per
tournament `elo_<name>.png/.md` (Elo per arm, mean ± std over seeds) and, where it holds
fixed-I′ runs, `iprime_sweep_<name>.png/.md`; from the adaptive runs `switch_iterations.md`
(mean ± std of the switch iteration per game and enhancement, and per run) and
`r_balance_<game>.png` with `r_balance.md`; from runs that logged the perfect-play probe,
`probe_<game>.png` (the probe's learning curves per arm, mean ± std over seeds) and `probe.md`;
from every run, `training_<game>.png` (losses and arena per iteration) and `training.md`.
See `warmjax.analysis.tables` for the conventions (sample std, runs that never switched,
grouping into arms). `write_study` writes `study.md` and `study.json` (see
`warmjax.analysis.study`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from warmjax.analysis import (
    arm_measures,
    claims,
    compute,
    contrasts,
    model,
    plots,
    record,
    stats,
    strength,
    study,
    study_tables,
    tables,
)
from warmjax.analysis.tournaments import journal_tournament, load_tournament
from warmjax.matches.tournament_folder import TournamentFolder
from warmjax.train import run_folder, run_settings
from warmjax.train.run_config import run_identity
from warmjax.train.run_folder import expand_runs
from warmjax.train.run_id import enhancement_name, game_name

TOURNAMENT = "tournament"  # a study's round robin: <study folder>/tournament


def _tag(text: str, taken: set[str]) -> str:
    tag = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "tournament"
    base, k = tag, 2
    while tag in taken:
        tag, k = f"{base}_{k}", k + 1
    taken.add(tag)
    return tag


def _link(tournament_dir: str, out_dir: Path) -> str:
    """A relative link from the report to a tournament's `elo.md`."""
    return Path(os.path.relpath(Path(tournament_dir) / "elo.md", out_dir)).as_posix()


def write_runs(runs: Sequence[str] = (), tournaments: Sequence[str] = (),
                 out: str = "report", log=None) -> dict[str, Path]:
    """Writes the figures, the tables and `summary.md` into `out`.

    Args:
      runs: run folders or glob patterns (folders without `config.yaml` are skipped).
      tournaments: tournament folders (or their `elo.json`).
      out: the output folder.
      log: where notes go (default: stderr).

    Returns:
      `{artefact name: path}` of everything written.

    Raises:
      ValueError: an unreadable run folder or an unfinished tournament.
    """
    log = log or (lambda s: print(s, file=sys.stderr))
    out_dir = Path(out)  # made at the first write, so bad input leaves no folder behind
    written: dict[str, Path] = {}

    def write(name: str, text: str) -> Path:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / name
        path.write_text(text)
        written[name] = path
        return path

    summaries = []
    for folder in expand_runs(runs) if runs else []:
        if not run_folder.is_run_folder(folder):
            log(f"skipping {folder}: no config.yaml")
            continue
        summaries.append(run_folder.read_run(folder))
        if not summaries[-1].metrics:
            state = "empty" if (Path(folder) / run_folder.METRICS).exists() else "missing"
            log(f"note: {folder} has finished no iteration (its {run_folder.METRICS} is "
                f"{state}): nothing of its training is drawn")

    lines = ["# warmjax report", ""]
    if runs:
        lines.append(f"{len(summaries)} run folders; {len(tournaments)} tournaments.")
        lines.append("")

    taken: set[str] = set()
    for source in tournaments:
        t = load_tournament(source)
        tag = _tag(t.tag, taken)
        game = tables.game_name(t.game)
        rows = tables.elo_by_arm(t)
        table = tables.arm_elo_markdown(rows)
        plots.plot_elo_by_arm(rows, f"{game}: Elo per arm ({t.tag})",
                                  out_dir / f"elo_{tag}.png")
        written[f"elo_{tag}.png"] = out_dir / f"elo_{tag}.png"
        write(f"elo_{tag}.md", f"# {game}: Elo per arm\n\nTournament {t.path} "
              f"(players' ratings: {t.path}/elo.md). Mean ± sample std over seeds.\n\n{table}")
        lines += [f"## Tournament {t.tag} ({game})", "",
                  f"![Elo per arm](elo_{tag}.png)", "", table,
                  (f"Ratings of every player: [{t.path}/elo.md]({_link(t.path, out_dir)}); "
                   f"this table: [elo_{tag}.md](elo_{tag}.md)."), ""]
        sweep = tables.elo_by_iprime(rows)
        if sweep.curves:
            sweep_table = tables.iprime_elo_markdown(sweep)
            plots.plot_elo_by_iprime(sweep, f"{game}: Elo against I′ ({t.tag})",
                                    out_dir / f"iprime_sweep_{tag}.png")
            written[f"iprime_sweep_{tag}.png"] = out_dir / f"iprime_sweep_{tag}.png"
            write(f"iprime_sweep_{tag}.md", f"# {game}: fixed-I′ sweep\n\n{sweep_table}")
            lines += [f"### Fixed-I′ sweep ({game})", "",
                      f"![Elo against I′](iprime_sweep_{tag}.png)", "", sweep_table,
                      f"Table: [iprime_sweep_{tag}.md](iprime_sweep_{tag}.md).", ""]

    cells = tables.switch_table(summaries)
    if cells:
        table = tables.switch_markdown(cells)
        write("switch_iterations.md",
              "# Switch iteration of the adaptive warm start\n\nMean ± population std (ddof = 0, "
              "as the PRICAI 2021 paper reports it) over the "
              "seeds that switched; (switched/runs; never switched > iterations run).\n\n"
              + tables.switch_markdown(cells, summaries))
        lines += ["## Adaptive switch iteration", "", table,
                  "Per run: [switch_iterations.md](switch_iterations.md).", ""]

    series = [tables.balance_json(s) for s in tables.balance_series(summaries)]
    if series:
        write("r_balance.md", "# Baseline side's reward balance r before the switch\n\n"
              + tables.balance_markdown(series))
        lines += ["## Reward balance before the switch", ""]
        for game in dict.fromkeys(s["game"] for s in series):
            name = f"r_balance_{game}.png"
            written[name] = plots.plot_balance(series, game, out_dir / name)
            lines += [f"![{tables.game_name(game)}]({name})", ""]
        lines += ["Mean r per iteration: [r_balance.md](r_balance.md).", ""]

    curves = tables.probe_curves(summaries)
    if curves:
        table = tables.probe_markdown(curves)
        write("probe.md", "# Optimal moves against perfect play (last logged iteration)\n\n"
              "Mean ± sample std over seeds; the labelled positions of warmjax.oracle.\n\n"
              + table)
        lines += ["## Learning curves against perfect play", ""]
        for game in dict.fromkeys(c.game for c in curves):
            name = f"probe_{game}.png"
            written[name] = plots.plot_probe_curves(curves, game, out_dir / name)
            lines += [f"![{tables.game_name(game)}]({name})", ""]
        lines += [table, "Table: [probe.md](probe.md).", ""]

    training = tables.training_markdown(summaries)
    if training:
        write("training.md", "# Training per run\n\nEvery game, probed or not: the losses, "
              "the arena's decisions, the switch and the self-play games.\n\n" + training)
        lines += ["## Training curves", ""]
        for game in dict.fromkeys(r.id.game for r in summaries if r.metrics):
            name = f"training_{game}.png"
            written[name] = plots.plot_training(summaries, game, out_dir / name)
            lines += [f"![{tables.game_name(game)}: training]({name})", ""]
        lines += [training, "Table: [training.md](training.md).", ""]

    judged = tables.judged_markdown(summaries)
    if judged:
        write("judged.md", "# Runs judged against perfect play and reference opponents\n\n"
              "Optimal-move rates of `python -m warmjax.oracle` (oracle.json), blunder kinds "
              "as means over seeds, and `python -m warmjax.versus` (versus.json).\n\n"
              + judged)
        lines += ["## Judged against perfect play", "", judged,
                  "Table: [judged.md](judged.md).", ""]

    if len(lines) <= 4:
        lines.append("Nothing to report: pass --runs (adaptive runs) and/or --tournaments.")
    write("summary.md", "\n".join(lines) + "\n")
    return written


def refuse_duplicates(runs, study_of) -> None:
    """Two run folders of one study with the same identity (arm, seed, game, departures)
    hold the same run: a study would count it twice as two seeds.

    Raises:
      ValueError: naming the first such pair and what to do.
    """
    seen: dict = {}
    for run in runs:
        key = (study_of(run), run_identity(run.config))
        if key in seen:
            raise ValueError(
                f"{seen[key]} and {run.path} hold the same run ({run.id.label(seed=True)}"
                f"): a study would count it as two seeds; move one of them out of the study "
                "folder")
        seen[key] = run.path


def random_rate(family: model.Family) -> float | None:
    """The optimal-move rate of a random legal move on the positions the family's probe
    used (`run_settings.random_rate`); None without a labelled set."""
    runs = [r for a in family.all_arms() for r in a.runs]
    return run_settings.random_rate(runs[0].config)


def compute_curves(runs, calibration: str | None, device: str | None, log
                   ) -> dict[Path, compute.ComputeCurve]:
    """Each run's compute curve: the ledger's (or reconstructed) estimated seconds on the
    calibrated `device` where a calibration table is given, else the measured seconds."""
    rows = compute.read_calibration(calibration) if calibration else None
    curves, missing = {}, set()
    for run in runs:
        if rows is None:
            curve = compute.compute_curve(run, None, "measured")
        else:
            c = run.config
            model = c.model.preset or f"{c.model.channels}ch"
            # the calibration's rows spell out every setting of the game
            settings = run_settings.settings(run)
            units = compute.unit_seconds_for(rows, c.game.name, settings, model, device)
            if units is None:
                missing.add(f"{c.game.name} {settings} ({model})")
            curve = compute.compute_curve(run, units)
        if curve is not None:
            curves[run.path] = curve
    for what in sorted(missing):
        log(f"the calibration table {calibration} has no row for {what}: its runs are "
            "drawn against iterations only")
    return curves


def robustness(runs, found, study_of, delta: float, windows: Sequence[int],
               floors: dict) -> dict:
    """Each claim's and across-board step's verdict for every AUC window k in `windows`
    (the floor rule applied): `{"claims": {claim | family: {k: verdict}}, "boards": ...}`."""
    out: dict = {"claims": {}, "boards": {}}
    for k in windows:
        fams = study.families(runs, found, k, study_of, delta, tables=False)
        for c in strength.floored_claims(claims.claims(fams, delta), floors):
            out["claims"].setdefault(f"{c.claim} | {c.family}", {})[k] = \
                strength.verdict_text(c.verdict, _reason(c.decision))
        for group in contrasts.board_steps(fams, delta):
            for s in group.steps:
                d = strength.floored_step(s, floors).lead_decision
                key = f"{group.title}: {s.arm}, {s.large.name} vs {s.small.name}"
                out["boards"].setdefault(key, {})[k] = (
                    None if d is None else strength.verdict_text(d.verdict, d.reason))
    return out


def _reason(decision) -> str:
    return "" if decision is None else decision.reason


def compute_json(family: model.Family, curves: dict[Path, compute.ComputeCurve]) -> list[dict]:
    """A family's learning curves against compute, as the record keeps them: per arm, each
    run's compute source and its `[seconds, rate]` points per measure (policy head and
    search), drawn by `plots.plot_against_compute`. A run without a curve (no calibration
    row for its game: `compute_curves`) is left out."""
    out = []
    for arm in family.all_arms():
        runs = []
        for run in arm.runs:
            curve = curves.get(run.path)
            if curve is None:
                continue
            runs.append({"source": curve.source, **{
                measure: [[s, getattr(row, field)] for s, row in zip(curve.seconds, run.metrics)
                          if getattr(row, field) is not None]
                for measure, field in (("policy", "oracle_policy"),
                                       ("search", "oracle_optimal"))}})
        out.append({"arm": arm.label, "baseline": arm.id.is_baseline, "runs": runs})
    return out


def study_record(studies: Sequence[str], tournaments: Sequence[str] = (),
                 auc_iterations: int | None = None, delta: float = model.DELTA, log=None,
                 calibration: str | None = None, device: str | None = None,
                 measures: Sequence[str] = ()) -> dict:
    """A study's analysis as one record (`warmjax.analysis.study`): the families, the
    claims with the floor rule applied, the across-board steps, the contrasts, the floor,
    time to strength, the verdicts' robustness, the reward balance and the compute curves:
    everything `render_study` shows. Its summaries are kept whole (`record.exact`).

    Args:
      studies: study folders (their run folders at any depth); each one's round robin is
        rated from the games in `<folder>/tournament` (its journal: all games played there,
        also over several invocations).
      tournaments: further tournament folders.
      auc_iterations: k of the area under the learning curve (default: half the runs'
        iterations, rounded up).
      delta: the smallest gain worth finding (optimal-move rate), for the claims.
      log: where notes go (default: stderr).
      calibration: a calibration table (`python -m warmjax.calibrate`): time to strength
        is then also drawn against the ledger's estimated seconds on `device` (None: the
        table's first row for the game); without one, against the measured seconds.
      measures: further measures of the arms (`arm_measures.MEASURES`), by name: each
        family's entry `arm_measures` holds them.

    Raises:
      ValueError: no runs, a run without the perfect-play probe, an unfinished
        tournament named in `tournaments`, or an unknown measure.
    """
    log = log or (lambda s: print(s, file=sys.stderr))
    extra = {name: arm_measures.measure(name) for name in measures}
    runs = run_folder.find_runs(studies)
    if not runs:
        raise ValueError(f"no run folders under {', '.join(studies)}")
    found = [load_tournament(t) for t in tournaments]
    for folder in studies:
        candidate = Path(folder) / TOURNAMENT
        if TournamentFolder(candidate).has_header():
            found.append(journal_tournament(candidate))
    folders = [Path(folder).resolve() for folder in studies]

    def study_of(run) -> str:  # the study folder holding the run
        path = run.path.resolve()
        return next((f.name for f in folders if f == path or f in path.parents), "")

    refuse_duplicates(runs, study_of)

    measured = study.families(runs, found, auc_iterations, study_of, delta)
    floors = {}
    for family in measured:
        rate = random_rate(family) if family.baseline is not None else None
        if rate is not None:
            floors[family.title] = strength.floor(family, rate)
    verdicts = strength.floored_claims(claims.claims(measured, delta), floors)
    boards = [dataclasses.replace(group, steps=tuple(strength.floored_step(s, floors)
                                                     for s in group.steps))
              for group in contrasts.board_steps(measured, delta)]
    curves = compute_curves(runs, calibration, device, log)
    speed = [r for f in measured if (r := strength.time_to_strength(f, curves)) is not None]
    strength.adjust(speed)
    last = min(f.final_iteration for f in measured)
    # The AUC windows k = 3-15 and the whole run (runs shorter than 3 iterations: each k).
    windows = ([k for k in range(3, 16) if k <= last] + ([last] if last > 15 else [])
               or list(range(1, last + 1)))
    robust = robustness(runs, found, study_of, delta, windows, floors)
    against = contrasts.departure_contrasts(measured, found, delta)
    looks = {str(folder): study.read_looks(folder) for folder in studies}
    looks = {k: v for k, v in looks.items() if v}
    out = record.study_json(measured, verdicts, delta, looks)
    out["studies"] = [str(s) for s in studies]
    out["tournaments"] = [t.path for t in found]
    if boards:
        out["boards"] = contrasts.steps_json(boards, delta)
    if against:
        out["contrasts"] = contrasts.contrasts_json(against, delta)
    out["floor"] = [f.to_json() for f in floors.values()]
    out["time_to_strength"] = speed
    out["robustness"] = {"windows": windows, **robust}
    timed = {entry["tag"] for entry in speed if "compute" in entry["axes"]}
    for family, entry in zip(measured, out["families"]):
        balance = tables.balance_series([r for a in family.all_arms() for r in a.runs])
        if balance:
            entry["balance"] = [tables.balance_json(s) for s in balance]
        if family.tag in timed:
            entry["compute_curves"] = compute_json(family, curves)
        if extra:
            entry["arm_measures"] = {name: m.of(family) for name, m in extra.items()}
    out["runs"] = len(runs)
    out["calibration"] = calibration
    return out


def render_study(rec: dict, out: str = "report") -> dict[str, Path]:
    """A study's report from its record alone (`rec`, made by `study_record`): `study.json`
    (the record, its summaries rounded to 6 decimals), `study.md` and the figures in `out`.

    Returns:
      `{artefact name: path}` of everything written.
    """
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    (out_dir / "study.json").write_text(json.dumps(record.jsonable(rec), indent=1) + "\n")
    written["study.json"] = out_dir / "study.json"
    families = {f["tag"]: f for f in rec["families"]}
    # The figures draw each family's arm entries, by family tag and arm label.
    arms_of = {tag: {a["arm"]: a for a in study_tables.all_arms(f)}
               for tag, f in families.items()}
    delta, boards = rec["delta"], rec.get("boards", [])

    lines = ["# Warm-start study", "",
             (f"{rec['runs']} runs from {', '.join(rec['studies'])}; "
              f"{len(rec['tournaments'])} tournament(s). Optimal-move rates against perfect "
              "play, in percent; AUC = the mean rate over the first k iterations; Δ = arm "
              "minus baseline, paired by seed (a seed gives every arm the same initial "
              "network), with the paired t-test's 95% interval and p; p (BH) = that p "
              "adjusted by Benjamini–Hochberg over the family's warm-start arms (the main "
              "comparison's and an I′ sweep's apart); Wilcoxon signed-rank and Welch's "
              "unpaired p as secondary columns; 80%-power effect = the smallest true "
              "difference the paired test detects with 80% power at "
              f"α = {stats.ALPHA}, from the observed SD. The claims are decided by one rule "
              "(docs/experiments.md, \"The verdict rule\") on the policy head's AUC, "
              f"δ = {100 * delta:.0f} points. Everything is also in study.json."), "",
             "## Claims", "", study_tables.claims_markdown(rec["claims"])]
    windows = rec["robustness"]["windows"]
    lines += ["### How far each verdict holds", "",
              ("The same claims decided with the AUC over the first k iterations, for every k "
               f"in {strength.holds_over({k: 0 for k in windows}, 0)}: the windows over "
               "which each verdict holds."), "",
              study_tables.robustness_markdown(rec["claims"], boards, rec["robustness"])]
    if rec["floor"]:
        lines += ["### The floor rule", "",
                  ("A family whose baseline did not learn decides nothing: its baseline's "
                   "policy head at the last iteration against a random legal move on the same "
                   "positions (one-sided one-sample t-test, α = 0.05)."), "",
                  study_tables.floor_markdown(rec["floor"])]
    if rec["looks"]:
        lines += ["## Looks", "", "Every analysis of these studies, oldest first "
                  "(`looks.json` in each study folder).", "",
                  study_tables.looks_markdown(rec["looks"])]
    for family in rec["families"]:
        lines += _family_section(family, arms_of[family["tag"]], out_dir, written)
    if boards:
        lines += ["## Across boards", "",
                  ("One game on several boards, each probed on its own labelled set (so rates "
                   "of two boards are not compared, only each board's lead of a warm-start "
                   "arm over its baseline). Lead = arm − baseline in the policy head's AUC, "
                   "paired by seed; switch = the adaptive runs' switch iteration (never "
                   "switched: the last iteration + 1). Growth and delay = larger board − "
                   "smallest, Welch's test (boards share no networks), p adjusted by "
                   "Benjamini–Hochberg over every step; verdicts by the rule, δ = "
                   f"{100 * delta:g} points for the lead and {contrasts.SWITCH_DELTA:g} "
                   "iteration for the switch."), ""]
        for group in boards:
            name = f"boards_{group['game']}.png"
            compared = {s["arm"] for s in group["steps"]}
            drawn = []  # per board: its baseline and the arms the steps compare across boards
            for board in group["boards"]:
                family = families[board["family"]]
                shown = ([family["baseline"]["arm"]] if family["baseline"] else []) + [
                    label for label in board["arms"] if not compared or label in compared]
                drawn.append((board["board"], [arms_of[board["family"]][a] for a in shown]))
            written[name] = plots.plot_board_curves(group["title"], drawn, out_dir / name)
            lines += [f"### {group['title']}", "",
                      study_tables.boards_markdown(group, families),
                      f"![{group['title']}]({name})", ""]
        lines += ["### Does the lead grow, and does the switch come later?", "",
                  study_tables.steps_markdown(boards, delta)]
    if rec.get("contrasts"):
        lines += ["## Against a reference family", "",
                  ("A family whose departures add to another's of the same game and board, "
                   "arm by arm against the reference's baseline and its arm with the same "
                   "warm start, paired by seed (a seed gives both the same initial network); "
                   "Elo from a round robin that rated both networks of a seed. p adjusted "
                   "by Benjamini–Hochberg over the rows of each measure; verdicts by the "
                   f"rule, δ = {100 * delta:g} points."), ""]
        for c in rec["contrasts"]:
            lines += [f"### {c['title']}", "", study_tables.contrast_markdown(c, delta)]
    speed = rec["time_to_strength"]
    if speed:
        lines += ["## Time to strength", "",
                  study_tables.speed_intro(speed, rec["calibration"])]
        for entry in speed:
            lines += [f"### {entry['family']}", ""]
            if "compute" in entry["axes"]:
                name = f"compute_{entry['tag']}.png"
                written[name] = plots.plot_against_compute(
                    entry["family"], families[entry["tag"]]["compute_curves"], out_dir / name)
                lines += [f"![{entry['family']} against compute]({name})", ""]
            lines += [study_tables.speed_markdown(entry)]
    (out_dir / "study.md").write_text("\n".join(lines) + "\n")
    written["study.md"] = out_dir / "study.md"
    return written


def _family_section(family: dict, arms: dict[str, dict], out_dir: Path,
                    written: dict[str, Path]) -> list[str]:
    """One family's part of study.md, its figures written into `out_dir` (and `written`)."""
    tag, title = family["tag"], family["title"]
    lines = [f"## {title}", "",
             (f"{family['runs']} runs, {family['final_iteration']} iterations of "
              f"{family['games_per_iteration']} self-play games; AUC over iterations "
              f"1-{family['auc_iterations']}."), "",
             "### Summary (results.md §1)", "", study_tables.compact_markdown(family)]
    power = study_tables.power_markdown(family)
    if power:
        lines += ["### Power", "", power]
    main = study_tables.main_arms(family)
    sweep = family["sweep"]
    swept = any(a["sweep"] for a in family["arms"])  # the family has an I′ sweep
    modes = [("adaptive", [a["arm"] for a in main if a["mode"] == "adaptive"]),
             ("fixed", [a["arm"] for a in main if a["mode"] == "fixed"]),
             ("iprime", sweep["arms"] if swept else [])]
    for mode, labels in modes:
        if not labels:
            continue
        name = f"curves_{tag}_{mode}.png"
        shown = ([family["baseline"]] if family["baseline"] else []) + [arms[a] for a in labels]
        written[name] = plots.plot_study_curves(title, family["games_per_iteration"], shown,
                                                out_dir / name)
        lines += [f"![{title}, {mode} arms]({name})", ""]
    for metric in family["measures"]:
        lines += [f"### {model.TITLES[metric]}", "", study_tables.metric_markdown(family, metric)]
    gaps = study_tables.gaps_markdown(family)
    if gaps:
        lines += ["### The policy head's gap to the baseline, per iteration", "",
                  "Mean over seeds of arm − baseline, paired by seed, with the paired "
                  "95% interval (* p < 0.05 unadjusted).", "", gaps]
    if swept:
        lines += [f"### I′ sweep ({enhancement_name(sweep['enhancement'])}, fixed)", "",
                  (f"Claim 4's data: seeds {', '.join(map(str, sweep['seeds']))}, the ones "
                   "that ran at every I′; the sweep's arms are also in the tables above, "
                   "their p (BH) adjusted among themselves."), "",
                  study_tables.iprime_markdown(family)]
    elo = study_tables.family_elo_markdown(family)
    if elo:
        lines += ["### Round-robin Bayesian Elo of the final networks", "",
                  "Each network's rating minus the mean of its seed's networks in this "
                  "family (the round robin meets within seeds); differences paired by "
                  "seed.", "", elo]
    if any(a["mode"] != "none" for a in family["arms"]):
        lines += ["### Warm start", "", study_tables.warm_markdown(family)]
        spearman = study_tables.spearman_markdown(family)
        if spearman:
            lines += [spearman]
    for name, entry in family.get("arm_measures", {}).items():
        m = arm_measures.measure(name)
        lines += [f"### {m.title}", "", m.markdown(entry)]
    series = family.get("balance")
    if series:
        name = f"r_balance_{tag}.png"
        written[name] = plots.plot_balance(series, family["game"], out_dir / name)
        lines += [f"![{game_name(family['game'])}: r before the switch]({name})", "",
                  tables.balance_markdown(series)]
    return lines


def write_study(studies: Sequence[str], out: str = "report", **options) -> dict[str, Path]:
    """A study's report: `render_study(study_record(studies, **options), out)`."""
    return render_study(study_record(studies, **options), out)
