"""A study's analysis from its run folders: does warm start make self-play learn faster,
and by how much?

A study is a set of run folders (`conf/study/*.yaml` trains them) and, optionally, round
robins of their networks. The flow runs one way: the runs and tournaments are read and
grouped into the model's families and arms (`families`, here), with the statistics of
`stats` (per arm over seeds, and against the family's baseline, paired by seed, adjusted by
Benjamini–Hochberg over a family's warm-start arms); the claims (`claims`) read the model;
`report.study_record` gathers them into the one record (`record.study_json` and the
other analyses' entries), and `report.render_study` renders the Markdown tables and figures
from it alone, and writes it as `study.json`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from warmjax.analysis.claims import iprime_rows, power_rows
from warmjax.analysis.model import (
    DELTA,
    METRICS,
    PRIMARY,
    SUMMARIES,
    Arm,
    Family,
    Gap,
    MetricSummary,
    _swept_ids,
    band,
    curve,
)
from warmjax.analysis.stats import (
    Estimate,
    adjusted,
    compare_by_seed,
    compare_paired,
    spearman,
)
from warmjax.analysis.tables import group_runs
from warmjax.analysis.tournaments import Tournament
from warmjax.train.run_folder import Run
from warmjax.train.run_id import RunId, game_name
from warmjax.train.run_settings import board_of, labelled_path, same_settings


def ratings_of(tournament: Tournament, runs: Sequence[Run]) -> dict[RunId, float]:
    """`{run id (with its seed): Elo}` of those of `runs` whose networks `tournament` rated: a
    network matches a run by its id (seed included), and the tournament's game (name and every
    setting, where it recorded them) must be the run's, so that two boards of one game are
    never confused. A tournament played before the runs' folders moved still matches."""
    wanted = {}
    for r in runs:
        if r.id.game != tournament.game:
            continue
        if tournament.params is not None and not same_settings(r, tournament.params):
            continue
        wanted[r.id] = r
    return {v: rating for name, rating in zip(tournament.names, tournament.ratings)
            if tournament.players[name].kind == "network"
            and (v := tournament.players[name].id) in wanted}


def _measured_arm(run_id: RunId, arm_runs: Sequence[Run], k: int, common: int,
                  centred: dict[RunId, float], measures: Sequence[str]) -> Arm:
    """An arm's own measures (no comparison yet): AUC and final rate per measure, its
    centred Elo where every run was rated, its switches."""
    metrics = {m: MetricSummary({name: Estimate.of([summary.of(r, m, k, common)
                                                    for r in arm_runs])
                                 for name, summary in SUMMARIES.items()},
                                dict.fromkeys(SUMMARIES)) for m in measures}
    elos = [centred.get(r.id) for r in arm_runs]
    elo = Estimate.of(elos) if centred and all(e is not None for e in elos) else None
    switches = tuple(r.switch_iteration for r in arm_runs) if run_id.mode == "adaptive" else ()
    arm = Arm(run_id, tuple(arm_runs), metrics, elo, None, switches)
    if run_id.mode == "adaptive" and len(arm_runs) >= 3:
        arm = dataclasses.replace(arm, spearman=spearman(arm.warm_iterations(),
                                                         arm.primary.final.values))
    return arm


def gaps(family: Family, metric: str = PRIMARY) -> tuple[Gap, ...]:
    """Per iteration that every baseline run probed: the baseline's mean rate and each main
    arm's mean gap to it, paired by seed (`compare_paired`; None below two seeds)."""
    if family.baseline is None or not family.main:
        return ()
    base = {r.id.seed: curve(r, metric) for r in family.baseline.runs}
    own = [{r.id.seed: curve(r, metric) for r in arm.runs} for arm in family.main]
    out = []
    for it in sorted(set.intersection(*(set(c) for c in base.values()))):
        cells = []
        for arm_curves in own:
            seeds = [s for s in arm_curves if s in base and it in arm_curves[s]]
            cells.append(None if len(seeds) < 2 else compare_paired(
                [arm_curves[s][it] for s in seeds], [base[s][it] for s in seeds]))
        out.append(Gap(it, float(np.mean([c[it] for c in base.values()])), tuple(cells)))
    return tuple(out)


def _against(arm: Arm, base: Arm) -> Arm:
    """`arm` with every measure compared with `base`'s, paired by seed."""
    metrics = {m: dataclasses.replace(summary, vs_baseline={
        name: compare_by_seed(arm.by_seed(m, name), base.by_seed(m, name))
        for name in summary.values}) for m, summary in arm.metrics.items()}
    elo_vs = compare_by_seed(arm.by_seed("elo"), base.by_seed("elo"))
    return dataclasses.replace(arm, metrics=metrics, elo_vs_baseline=elo_vs)


def families(runs: Sequence[Run], tournaments: Sequence[Tournament] = (),
             auc_iterations: int | None = None,
             study_of: Callable[[Run], str] | None = None,
             delta: float = DELTA, tables: bool = True) -> list[Family]:
    """The study's families, each with its arms' statistics: one per game, board and set
    of departures, and per study (`study_of`) where two studies share those.

    Args:
      runs: the study's run folders (read).
      tournaments: round robins of their final networks, for the Elo columns.
      auc_iterations: k of the area under the curve; None: half the family's common
        iterations, rounded up.
      study_of: a run's study (its study folder's name); None: all runs are one study.
        Two studies of the same game, board and departures stay apart, each a family
        named by its study, so that a confirmatory study is never pooled with the
        exploratory one it tests.

    Raises:
      ValueError: a run without the probe, or k beyond the runs' iterations.
    """
    name_of = study_of or (lambda r: "")
    by_family = group_runs(runs, key=lambda r: (r.id.game, board_of(r),
                                                r.id.departures, name_of(r)))
    shared = Counter(key[:3] for key in by_family)
    out = []
    for (game, board, departures, name), members in by_family.items():
        common = min(r.iterations for r in members)
        k = auc_iterations or math.ceil(common / 2)
        if k > common or k < 1:
            raise ValueError(f"auc_iterations {k} is outside 1-{common}, the iterations every "
                             f"{game_name(game)} run completed")
        centred = _centred_ratings(members, tournaments)
        measures = [m for m in METRICS if all(curve(r, m) for r in members)]
        if PRIMARY not in measures:
            raise ValueError(_no_probe(members))
        measured = [_measured_arm(run_id, arm_runs, k, common, centred, measures)
                    for run_id, arm_runs in group_runs(members).items()]
        baseline = next((a for a in measured if a.id.is_baseline), None)
        warm = [a for a in measured if not a.id.is_baseline]
        if baseline is not None:
            warm = [_against(a, baseline) for a in warm]
        swept = _swept_ids(warm)  # adjusted on its own: its own question (claim 4)
        by_id = {}
        for part in ([a for a in warm if a.id in swept],
                     [a for a in warm if a.id not in swept]):
            by_id.update((a.id, a) for a in _with_adjusted(part))
        family = Family(game, departures, k, common, members[0].config.train.games,
                        baseline, tuple(by_id[a.id] for a in warm), board,
                        name if shared[game, board, departures] > 1 else "", game_name(game))
        if tables:  # the report's per-family tables (the robustness windows need none)
            family = _with_bands(family)
            family = dataclasses.replace(family, gaps=gaps(family),
                                         power=power_rows(family, delta), power_delta=delta,
                                         iprime=iprime_rows(family))
        out.append(family)
    return out


def _with_bands(family: Family) -> Family:
    """The family with each arm's learning curves over seeds (`model.band`), per measure."""
    def banded(arm: Arm | None) -> Arm | None:
        return None if arm is None else dataclasses.replace(
            arm, bands={m: band(arm.runs, m) for m in arm.metrics})
    return dataclasses.replace(family, baseline=banded(family.baseline),
                               arms=tuple(banded(a) for a in family.arms))


def _no_probe(members: Sequence[Run]) -> str:
    """Why a family cannot be studied: its game has no labelled set, or a run did not probe."""
    run = members[0]
    board = board_of(run)
    title = game_name(run.id.game) + (f" {board}" if board else "")
    if labelled_path(run.config) is None:
        return (f"{title} has no labelled perfect-play set, on which the study decides its "
                "claims; report its round robin's Elo with --tournaments instead")
    return f"a {title} run logged no perfect-play probe; train with probe.every=1"


def _with_adjusted(arms: Sequence[Arm]) -> tuple[Arm, ...]:
    """The arms with each comparison against the baseline given its Benjamini–Hochberg p
    over the arms (one adjustment per measure and comparison: AUC, final, Elo)."""
    if not arms:
        return ()
    metrics = [dict(a.metrics) for a in arms]
    for m in arms[0].metrics:
        for name in SUMMARIES:
            tested = [i for i, a in enumerate(arms)
                      if a.metrics[m].vs_baseline.get(name) is not None]
            p_adj = adjusted([arms[i].metrics[m].vs_baseline[name].p for i in tested])
            for i, p in zip(tested, p_adj):
                summary = metrics[i][m]
                metrics[i][m] = dataclasses.replace(summary, vs_baseline={
                    **summary.vs_baseline,
                    name: dataclasses.replace(summary.vs_baseline[name], p_adjusted=p)})
    elo_tested = [i for i, a in enumerate(arms) if a.elo_vs_baseline is not None]
    elo_p = dict(zip(elo_tested, adjusted([arms[i].elo_vs_baseline.p for i in elo_tested])))
    return tuple(dataclasses.replace(
        a, metrics=metrics[i],
        elo_vs_baseline=(dataclasses.replace(a.elo_vs_baseline, p_adjusted=elo_p[i])
                         if i in elo_p else a.elo_vs_baseline))
        for i, a in enumerate(arms))


def _centred_ratings(runs: Sequence[Run], tournaments: Sequence[Tournament]
                     ) -> dict[RunId, float]:
    """Each rated run's Elo minus the mean Elo of the family's rated runs with its seed.

    A study's round robin meets within each seed (`--pairing seed`); the seed blocks are
    tied to each other only through the anchors, so their offsets are poorly determined.
    Within a block every arm has one network, so ratings relative to the block's mean
    compare arms free of that offset (and a full round robin loses nothing by it). Ratings
    of different tournaments are not on one scale, so each block is rated by the one
    tournament that rated most of its runs (the first of equals)."""
    blocks: dict[int | None, list[Run]] = {}
    for r in runs:
        blocks.setdefault(r.id.seed, []).append(r)
    out: dict[RunId, float] = {}
    for block in blocks.values():
        found = [ratings_of(t, block) for t in tournaments]
        best = max(found, key=len, default={})
        if best:
            mean = float(np.mean(list(best.values())))
            out.update((v, rating - mean) for v, rating in best.items())
    return out


def paired_ratings(a: Sequence[Run], b: Sequence[Run], tournaments: Sequence[Tournament]
                   ) -> tuple[dict[int, float], dict[int, float]]:
    """For each seed at which one tournament rated a run of `a` and a run of `b`: their
    ratings in that tournament, each minus the pair's mean (`({seed: a's}, {seed: b's})`),
    so that the paired difference is the difference within one round robin. Runs of two
    families (a Gumbel arm and the PUCT baseline that its seed's round robin included)
    compare this way; where several tournaments rated a pair, the first one is used."""
    by_seed_b = {r.id.seed: r for r in b}
    out_a: dict[int, float] = {}
    out_b: dict[int, float] = {}
    for ra in a:
        rb = by_seed_b.get(ra.id.seed)
        if rb is None:
            continue
        for t in tournaments:
            found = ratings_of(t, [ra, rb])
            if ra.id in found and rb.id in found and ra.id != rb.id:
                mean = (found[ra.id] + found[rb.id]) / 2
                out_a[ra.id.seed] = found[ra.id] - mean
                out_b[ra.id.seed] = found[rb.id] - mean
                break
    return out_a, out_b


# --- study.json ---------------------------------------------------------------------------


# --- looks ---------------------------------------------------------------------------------

LOOKS = "looks.json"  # in a study folder: every analysis the study has had


def read_looks(folder: Path | str) -> list[dict]:
    """The analyses a study folder has had (`<folder>/looks.json`, oldest first): each a
    mapping with `date`, `commit` (where the report was committed), `seeds` (per arm, or
    one list for all) and `note`. Empty where the folder has none.

    Raises:
      ValueError: a looks.json that is not a list of such mappings.
    """
    path = Path(folder) / LOOKS
    if not path.exists():
        return []
    data = json.loads(path.read_text())
    if not isinstance(data, list) or not all(
            isinstance(x, dict) and {"date", "seeds", "note"} <= set(x) for x in data):
        raise ValueError(f"{path} must be a list of looks, each with date, seeds and note")
    return data


def head_commit() -> str:
    """The working tree's commit (short), "" outside a git checkout."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def record_look(folder: Path | str, look: dict) -> None:
    """Append `look` to the folder's looks.json unless the same look (seeds, iterations,
    note) is there already, so that a rerun records nothing new."""
    looks = read_looks(folder)
    same = [x for x in looks if x.get("seeds") == look["seeds"] and x["note"] == look["note"]
            and x.get("iterations") == look.get("iterations")]
    if not same:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / LOOKS).write_text(json.dumps([*looks, look], indent=1) + "\n")


def load_design(path: Path | str):
    """A study folder's design module (`studies/<name>/design.py`), loaded from its file:
    a study folder is not a package."""
    import importlib.util

    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"{path.parent.name}_design", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

