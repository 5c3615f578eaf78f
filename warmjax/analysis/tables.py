"""The papers' tables from run folders and tournaments: data, aggregates and Markdown.

Inputs are typed: runs as `run_folder.read_run` returns them (`Run`: the config, its
`RunId`, the `MetricRow`s), and a tournament's `elo.json` (ratings plus the name → run
mapping) as `tournaments.load_tournament` returns it. Arms are named by `RunId.label()`.

Conventions (where the papers are silent):

- Spread over seeds is the sample standard deviation (ddof = 1); with a single seed no
  spread is shown (Markdown) or drawn (plots). The one exception is the switch-iteration
  table, which reports the population standard deviation (ddof = 0), as the PRICAI 2021
  paper's figures imply; its cells also carry the sample std (`SwitchCell.sample_std`).
- An arm is a run's `RunId` without its seed (game, mode, enhancement, I′, departures);
  anchors are arms of their own. Runs of different experiments or profiles of one arm
  are pooled.
- Switch iteration: the `switch_iteration` of a run's last metrics line (the iteration
  whose baseline balance r > 0 caused the switch). The mean ± std is over the seeds that
  switched; seeds that never switched are counted separately and shown as "> I", I the
  fewest iterations any of them completed.
- Reward balance before the switch: `r_balance` of every iteration in which the adaptive
  warm start was active (up to and including the switch iteration); the mean at an
  iteration is over the seeds still in warm start then.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from warmjax.analysis.tournaments import PlayerArm, Tournament, arm_of
from warmjax.markdown import table
from warmjax.matches.tournament_folder import read_oracle, read_versus
from warmjax.names import WARMSTART_ENHANCEMENTS
from warmjax.train.run_folder import Run, run_order
from warmjax.train.run_id import enhancement_name, game_name

__all__ = ["enhancement_name", "game_name"]

DDOF = 1


# --- run folders -------------------------------------------------------------------------


def group_runs(runs: Sequence[Run], key: Callable[[Run], Any] | None = None,
               where: Callable[[Run], bool] | None = None) -> dict[Any, list[Run]]:
    """Runs grouped by `key` (default: the arm, the id without its seed), keys ordered by
    game and arm (`run_folder.run_order`), each group's runs by seed and folder; `where` keeps
    only some runs."""
    key = key or (lambda run: run.id.arm())
    out: dict[Any, list[Run]] = {}
    for run in sorted(runs, key=run_order):
        if where is None or where(run):
            out.setdefault(key(run), []).append(run)
    return out


def r_balance(run: Run) -> tuple[tuple[int, float], ...]:
    """`[(iteration, r)]` of an adaptive run's iterations with the warm start active."""
    if run.config.warmstart.mode != "adaptive":
        return ()
    return tuple((row.iteration, row.r_balance) for row in run.metrics if row.warmstart_active)


def oracle_points(run: Run) -> tuple[tuple[int, float, float], ...]:
    """`[(iteration, oracle_optimal, oracle_policy)]` of the iterations that ran the
    perfect-play probe."""
    return tuple((row.iteration, row.oracle_optimal, row.oracle_policy) for row in run.metrics
                 if row.oracle_optimal is not None)


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """`(mean, sample std)`; std is nan for fewer than two values."""
    x = np.asarray(values, np.float64)
    if x.size == 0:
        return math.nan, math.nan
    std = float(np.std(x, ddof=DDOF)) if x.size > DDOF else math.nan
    return float(np.mean(x)), std


def fmt_mean_std(mean: float, std: float, decimals: int = 1) -> str:
    if math.isnan(mean):
        return "—"
    if math.isnan(std):
        return f"{mean:.{decimals}f}"
    return f"{mean:.{decimals}f} ± {std:.{decimals}f}"


def _enhancement_order(name: str | None) -> int:
    known = WARMSTART_ENHANCEMENTS
    return known.index(name) if name in known else len(known)


@dataclasses.dataclass(frozen=True)
class SwitchCell:
    """Switch iterations of the adaptive runs of one game and enhancement."""

    game: str
    enhancement: str
    switches: tuple[int, ...]  # of the seeds that switched
    never: int  # seeds that never switched
    never_after: int | None  # fewest iterations completed by a never-switched seed
    mean: float  # over `switches`
    std: float  # population std (ddof = 0), as the papers report it
    sample_std: float = math.nan  # ddof = 1, for comparison with the other tables

    @property
    def runs(self) -> int:
        return len(self.switches) + self.never

    def text(self) -> str:
        if not self.switches:
            return f"> {self.never_after} (0/{self.runs})"
        cell = fmt_mean_std(self.mean, self.std)
        if self.never:
            cell += f" ({len(self.switches)}/{self.runs}; {self.never} > {self.never_after})"
        return cell


def switch_table(runs: Sequence[Run]) -> list[SwitchCell]:
    """One cell per (game, enhancement) of the adaptive runs, games and enhancements ordered."""
    cells = []
    grouped = group_runs(runs, key=lambda r: (r.id.game, r.id.enhancement),
                         where=lambda r: r.id.mode == "adaptive")
    for (game, enhancement), members in grouped.items():
        switches = tuple(r.switch_iteration for r in members if r.switch_iteration is not None)
        never = [r.iterations for r in members if r.switch_iteration is None]
        mean, sample_std = mean_std(switches)
        std = float(np.std(switches)) if len(switches) > 1 else math.nan
        cells.append(SwitchCell(game, enhancement, switches, len(never),
                                min(never) if never else None, mean, std, sample_std))
    return cells


def switch_markdown(cells: Sequence[SwitchCell], runs: Sequence[Run] = ()) -> str:
    """The switch-iteration table (enhancements × games), then one line per run if given."""
    games = list(dict.fromkeys(cell.game for cell in cells))
    enhancements = list(dict.fromkeys(
        c.enhancement for c in sorted(cells, key=lambda c: _enhancement_order(c.enhancement))))
    index = {(c.game, c.enhancement): c for c in cells}
    text = table(["Enhancement", *(game_name(g) for g in games)],
                 [[enhancement_name(enh), *(index[(g, enh)].text() if (g, enh) in index else "—"
                                            for g in games)] for enh in enhancements],
                 "l" + "r" * len(games))
    adaptive = [r for r in runs if r.id.mode == "adaptive"]
    if adaptive:
        rows = []
        for r in sorted(adaptive, key=lambda r: (r.id.game,
                                                 _enhancement_order(r.id.enhancement),
                                                 r.id.seed, str(r.path))):
            switch = r.switch_iteration
            rows.append([r.path, r.id.game, enhancement_name(r.id.enhancement),
                         r.id.seed, switch if switch else f"> {r.iterations}",
                         r.iterations])
        text += "\n" + table(["Run", "Game", "Enhancement", "Seed", "Switch iteration",
                              "Iterations"], rows, "lllrrr")
    return text


@dataclasses.dataclass(frozen=True)
class BalanceSeries:
    """The baseline side's reward balance r per warm-start iteration, one game and enhancement.

    Attributes:
      runs: `{run label: [(iteration, r)]}`, one series per run.
      iterations: `[T]` the iterations with at least one run in warm start.
      mean: `[T]` mean r over the runs still in warm start at each iteration.
      count: `[T]` how many runs that is.
    """

    game: str
    enhancement: str
    runs: dict
    iterations: tuple[int, ...]
    mean: tuple[float, ...]
    count: tuple[int, ...]


def balance_series(runs: Sequence[Run]) -> list[BalanceSeries]:
    """The r-balance series of the adaptive runs, per game and enhancement."""
    out = []
    grouped = group_runs(runs, key=lambda r: (r.id.game, r.id.enhancement),
                         where=lambda r: r.id.mode == "adaptive" and bool(r_balance(r)))
    for (game, enhancement), members in grouped.items():
        members = sorted(members, key=lambda r: (r.id.seed, str(r.path)))
        per_iteration: dict[int, list[float]] = {}
        for run in members:
            for it, r in r_balance(run):
                per_iteration.setdefault(it, []).append(r)
        its = tuple(sorted(per_iteration))
        labels = _unique_labels([f"s{r.id.seed}" for r in members],
                                [str(r.path) for r in members])
        out.append(BalanceSeries(
            game, enhancement, {label: list(r_balance(r)) for label, r in zip(labels, members)},
            its, tuple(float(np.mean(per_iteration[i])) for i in its),
            tuple(len(per_iteration[i]) for i in its)))
    return out


def balance_json(s: BalanceSeries) -> dict:
    """A balance series' entry of `study.json`: per iteration the mean r of the runs still
    in warm start and their number, and each run's series; what `balance_markdown` and
    `plots.plot_balance` draw."""
    return {"enhancement": s.enhancement, "iterations": list(s.iterations),
            "mean": [round(m, 6) for m in s.mean], "count": list(s.count),
            "runs": {label: [[it, round(r, 6)] for it, r in points]
                     for label, points in s.runs.items()}, "game": s.game}


def balance_markdown(series: Sequence[Mapping]) -> str:
    """Mean r (and the number of seeds still in warm start) per iteration (`balance_json`
    entries)."""
    lines = []
    for s in series:
        lines += [f"**{game_name(s['game'])}, {enhancement_name(s['enhancement'])}**", "",
                  table(["Iteration", "mean r", "seeds in warm start"],
                        [[i, f"{m:+.2f}", n]
                         for i, m, n in zip(s["iterations"], s["mean"], s["count"])], "rrr")]
    return "\n".join(lines)


def _unique_labels(labels: list[str], extras: list[str]) -> list[str]:
    return [f"{lab} ({extra})" if labels.count(lab) > 1 else lab
            for lab, extra in zip(labels, extras)]


# --- tournaments' Elo by arm --------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ArmElo:
    """The Elo of one arm's players (its seeds)."""

    arm: PlayerArm
    names: tuple[str, ...]
    ratings: tuple[float, ...]
    mean: float
    std: float


def elo_by_arm(tournament: Tournament) -> list[ArmElo]:
    """Players grouped by arm, with the mean and spread of their ratings, ordered."""
    groups: dict[PlayerArm, list[int]] = {}
    for i, name in enumerate(tournament.names):
        groups.setdefault(arm_of(tournament.players[name]), []).append(i)
    rows = []
    for arm in sorted(groups, key=PlayerArm.order):
        idx = groups[arm]
        ratings = tuple(tournament.ratings[i] for i in idx)
        mean, std = mean_std(ratings)
        rows.append(ArmElo(arm, tuple(tournament.names[i] for i in idx), ratings, mean,
                               std))
    return rows


def arm_elo_markdown(rows: Sequence[ArmElo]) -> str:
    return table(["Arm", "Seeds", "Elo (mean ± std)", "Min", "Max"],
                 [[row.arm.label, len(row.ratings), fmt_mean_std(row.mean, row.std, 0),
                   f"{min(row.ratings):.0f}", f"{max(row.ratings):.0f}"] for row in rows],
                 "lrrrr")


@dataclasses.dataclass(frozen=True)
class IprimeElo:
    """Elo against I′ per enhancement (fixed runs), with the other arms as references.

    Attributes:
      curves: `{enhancement: [(I′, mean, std, seeds)]}`, I′ ascending.
      references: the Baseline, adaptive and anchor rows of the same tournament.
    """

    curves: dict
    references: tuple[ArmElo, ...]

    @property
    def iprimes(self) -> list[int]:
        return sorted({p for c in self.curves.values() for p, *_ in c})


def elo_by_iprime(rows: Sequence[ArmElo]) -> IprimeElo:
    curves: dict[str, list] = {}
    for row in rows:
        if row.arm.mode == "fixed":
            curves.setdefault(row.arm.enhancement, []).append(
                (row.arm.iprime, row.mean, row.std, len(row.ratings)))
    curves = {k: sorted(v) for k, v in sorted(curves.items(),
                                               key=lambda kv: _enhancement_order(kv[0]))}
    return IprimeElo(curves, tuple(r for r in rows if r.arm.mode != "fixed"))


def iprime_elo_markdown(sweep: IprimeElo) -> str:
    iprimes = sweep.iprimes
    rows = []
    for enh, curve in sweep.curves.items():
        at = {p: fmt_mean_std(m, s, 0) for p, m, s, _ in curve}
        rows.append([enhancement_name(enh), *(at.get(p, "—") for p in iprimes)])
    text = table(["Enhancement", *(f"I′={p}" for p in iprimes)], rows, "l" + "r" * len(iprimes))
    if sweep.references:
        text += "\nReferences in the same tournament: " + "; ".join(
            f"{r.arm.label} {fmt_mean_std(r.mean, r.std, 0)}" for r in sweep.references) + "\n"
    return text


# --- the perfect-play learning curve -------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ProbeCurve:
    """Optimal-move rates against perfect play per iteration, one game and arm.

    Attributes:
      iterations: `[T]` iterations logged by at least one run.
      search, policy: `[T]` mean over the runs that logged the iteration.
      search_std, policy_std: `[T]` sample std over those runs (nan for one run).
      count: `[T]` how many runs that is.
      runs: the run folders.
    """

    game: str
    label: str
    iterations: np.ndarray
    search: np.ndarray
    policy: np.ndarray
    search_std: np.ndarray
    policy_std: np.ndarray
    count: np.ndarray
    runs: tuple[str, ...]


def probe_curves(runs: Sequence[Run]) -> list[ProbeCurve]:
    """The runs' probe curves grouped by game and arm (seeds pooled)."""
    curves = []
    grouped = group_runs(runs, where=lambda r: bool(oracle_points(r)))
    for arm, members in grouped.items():
        points_of = [oracle_points(r) for r in members]
        iterations = sorted({it for points in points_of for it, _, _ in points})
        stats = {k: [] for k in ("search", "policy", "search_std", "policy_std", "count")}
        for it in iterations:
            points = [(o, p) for pts in points_of for i, o, p in pts if i == it]
            for name, column in (("search", 0), ("policy", 1)):
                mean, std = mean_std([pt[column] for pt in points])
                stats[name].append(mean)
                stats[f"{name}_std"].append(std)
            stats["count"].append(len(points))
        curves.append(ProbeCurve(arm.game, arm.label(), np.asarray(iterations),
                                  *(np.asarray(stats[k]) for k in stats),
                                  runs=tuple(str(r.path) for r in members)))
    return curves


def probe_markdown(curves: Sequence[ProbeCurve]) -> str:
    """The last logged iteration of each curve: optimal-move rates, mean ± sample std."""
    return table(["game", "arm", "runs", "iteration", "search optimal %",
                  "policy head optimal %"],
                 [[game_name(c.game), c.label, c.count[-1], c.iterations[-1],
                   fmt_mean_std(100 * c.search[-1], 100 * c.search_std[-1]),
                   fmt_mean_std(100 * c.policy[-1], 100 * c.policy_std[-1])] for c in curves])


# --- runs judged by `warmjax.oracle` and `warmjax.versus` ---------------------------------

JUDGED_PLAYERS = {"search": "trained search", "policy_head": "policy head",
                  "untrained_search": "untrained search", "pure_mcts": "pure MCTS",
                  "random": "random"}


def oracle_staleness(run: Run, judgement) -> str | None:
    """Why a run's `oracle.json` no longer judges the run as it stands (the run trained on
    after it was written), or None. Files that record neither the judged iteration nor the
    network's hash (written before warmjax recorded them) cannot be checked: None."""
    settings = judgement.extra.get("settings") or {}
    iteration, sha = settings.get("iteration"), settings.get("network_sha256")
    if iteration is None and sha is None:
        return None
    if (run.path / "network.json").exists():
        from warmjax.train import network_io  # JAX and flax: only where a network is read

        info = network_io.network_info(run.path)
        now = info.get("iteration")
        if (info["sha256"] == sha) if sha is not None else (now == iteration):
            return None
    else:  # a folder without its network (committed results): its metrics say how far
        now = run.metrics[-1].iteration if run.metrics else None
        if iteration is None or now is None or now == iteration:
            return None
    return (f"its oracle.json judged the network after iteration {iteration}, the run is now "
            f"at iteration {now}: run `python -m warmjax.oracle {run.path}` again")


def judged_markdown(runs: Sequence[Run]) -> str:
    """The five players of `python -m warmjax.oracle` per run (`oracle.json`) and their means
    per arm, the blunder kinds of the trained search and the policy head, and the
    `python -m warmjax.versus` results (`<run>/versus.json`); empty if no run was judged."""
    judged = [(run, read_oracle(run.path)) for run in runs]
    judged = [(run, j) for run, j in judged if j is not None]
    if not judged:
        return ""
    names = list(JUDGED_PLAYERS)
    rows, blunders, notes = [], [], []
    for arm, members in group_runs([r for r, _ in judged]).items():
        found = [j for r, j in judged if r in members]
        for run, j in ((r, j) for r, j in judged if r in members):
            players = j.players
            stale = oracle_staleness(run, j)
            if stale:
                notes.append(f"Stale: {run.id.label(seed=True)}: {stale}.")
            rows.append([game_name(arm.game), arm.label(),
                         f"{run.id.seed} (stale)" if stale else run.id.seed,
                         *(f"{100 * players[n].optimal:.1f}" if n in players else "—"
                           for n in names)])
        means = [np.mean([j.players[n].optimal for j in found]) if all(
            n in j.players for j in found) else math.nan for n in names]
        rows.append([f"**{game_name(arm.game)}**", f"**{arm.label()}, mean**",
                     f"n = {len(found)}",
                     *(f"**{100 * m:.1f}**" if not math.isnan(m) else "—" for m in means)])
        for n in ("search", "policy_head"):
            if all(n in j.players for j in found):
                kinds = [np.mean([getattr(j.players[n], k) for j in found])
                         for k in ("optimal", "win_to_draw", "win_to_loss", "draw_to_loss",
                                   "immediate_win_taken")]
                blunders.append([game_name(arm.game), arm.label(), JUDGED_PLAYERS[n],
                                 *(f"{100 * k:.1f}%" if not math.isnan(k) else "—"
                                   for k in kinds)])
    text = table(["game", "arm", "seed", *(f"{JUDGED_PLAYERS[n]} %" for n in names)],
                 rows, "lll" + "r" * len(names))
    if notes:
        text += "\n" + "\n".join(notes) + "\n"
    text += "\n" + table(["game", "arm", "player", "optimal", "win→draw", "win→loss",
                          "draw→loss", "immediate win taken"], blunders, "lll" + "r" * 5)
    quiet_rows = []  # oracle files that judged the quiet positions apart
    for run, j in judged:
        counts = [s.extra["quiet_positions"] for s in j.players.values()
                  if "quiet_positions" in s.extra]
        if counts:
            quiet_rows.append([game_name(run.id.game), run.id.label(seed=True),
                               counts[0], *(f"{100 * j.players[n].extra['quiet_optimal']:.1f}"
                                            if n in j.players and "quiet_optimal"
                                            in j.players[n].extra else "—" for n in names)])
    if quiet_rows:
        text += "\n" + table(["game", "run", "quiet positions",
                              *(f"{JUDGED_PLAYERS[n]} %, quiet" for n in names)],
                             quiet_rows, "llr" + "r" * len(names))
    versus_rows = []
    for run, _ in judged:
        v = read_versus(run.path)
        if v is not None:
            versus_rows.append([game_name(run.id.game), run.id.label(seed=True),
                                *(f"{v[o].wins}-{v[o].draws}-{v[o].losses}"
                                  if o in v else "—" for o in ("random", "untrained",
                                                                "pure_mcts"))])
    if versus_rows:
        text += "\n" + table(["game", "run", "vs random (W-D-L)", "vs untrained",
                              "vs pure MCTS"], versus_rows, "llrrr")
    return text


def training_markdown(runs: Sequence[Run]) -> str:
    """Per run, any game: iterations, the policy and value losses at the first and last
    iteration, candidates accepted, the switch (adaptive runs), self-play plies and games
    ended by the step cap over the run; empty without runs."""
    rows = []
    for run in runs:
        if not run.metrics:
            continue
        first, last = run.metrics[0], run.metrics[-1]
        switch = "—"
        if run.id.mode == "adaptive":
            switch = (f"after {last.switch_iteration}" if last.switch_iteration > 0
                      else "never")
        truncated = [m.selfplay_truncated for m in run.metrics]
        params = ", ".join(f"{k}={v}" for k, v in run.config.game.params.items()
                           if v is not None)
        rows.append([game_name(run.id.game) + (f" ({params})" if params else ""),
                     run.id.label(), run.id.seed,
                     run.iterations, f"{first.loss_policy:.2f} → {last.loss_policy:.2f}",
                     f"{first.loss_value:.2f} → {last.loss_value:.2f}",
                     f"{sum(m.accepted for m in run.metrics)} of {run.iterations}", switch,
                     f"{np.mean([m.selfplay_mean_plies for m in run.metrics]):.1f}",
                     "—" if None in truncated else sum(truncated)])
    if not rows:
        return ""
    return table(["game", "arm", "seed", "iterations", "policy loss, first → last",
                  "value loss, first → last", "accepted", "switch", "mean plies",
                  "truncated games"], rows)


def final_figures(run) -> dict[str, float | None]:
    """The run's final network on the labelled set (`oracle.json`): minutes of training,
    search and policy head, all positions and quiet ones, and the search's lead over pure
    MCTS on the quiet ones (`quiet_over_pure`); None where not judged.

    Raises:
      ValueError: an `oracle.json` that judged an earlier network (`oracle_staleness`).
    """
    judged = read_oracle(run.path)
    stale = None if judged is None else oracle_staleness(run, judged)
    if stale:
        raise ValueError(f"{run.path}: {stale}")
    out = {"minutes": sum(m.seconds_total or 0.0 for m in run.metrics) / 60}
    for key, player, field in (("search", "search", "optimal"),
                               ("policy", "policy_head", "optimal"),
                               ("search_quiet", "search", "quiet_optimal"),
                               ("policy_quiet", "policy_head", "quiet_optimal")):
        score = None if judged is None else judged.players.get(player)
        value = None if score is None else getattr(score, field, None)
        if value is None and score is not None:
            value = score.extra.get(field)
        out[key] = value
    pure = None if judged is None else judged.players.get("pure_mcts")
    pure_quiet = None if pure is None else pure.extra.get("quiet_optimal")
    out["quiet_over_pure"] = (None if pure_quiet is None or out["search_quiet"] is None
                              else out["search_quiet"] - pure_quiet)
    return out
