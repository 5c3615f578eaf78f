"""The papers' tables from run folders and tournaments: data, aggregates and Markdown.

Inputs are what training and `warmjax.tournament` write: a run folder's `config.yaml` and
`metrics.jsonl`, and a tournament's `elo.json` (ratings plus the name → run mapping).

Conventions (where the papers are silent):

- Spread over seeds is the sample standard deviation (ddof = 1); with a single seed no
  spread is shown (Markdown) or drawn (plots). The one exception is the switch-iteration
  table, which reports the population standard deviation (ddof = 0), as the PRICAI 2021
  paper's figures imply; its cells also carry the sample std (`SwitchCell.sample_std`).
- A variant is `(mode, enhancement, I′)`: `Baseline`, `<Enhancement> I′=k` (fixed) or
  `<Enhancement> adaptive`; anchors are variants of their own. Runs of different
  experiments or profiles with the same variant are pooled.
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
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from warmjax.search.variants import ENHANCEMENTS
from warmjax.train import run_folder

DDOF = 1
ENHANCEMENT_NAMES = {"rollout": "Rollout", "rave": "Rave", "rora": "RoRa", "wro": "WRo",
                     "wrora": "WRoRa"}
GAME_NAMES = {"othello": "Othello", "connect_four": "Connect Four", "gobang": "Gobang"}


# --- run folders -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RunSummary:
    """What the tables need from one run folder.

    Attributes:
      run_dir: the folder.
      game, experiment, profile, mode, enhancement, iprime, seed: from `config.yaml`
        (`enhancement` None for the Baseline, `iprime` None unless fixed).
      iterations: iterations completed (the last metrics line's `iteration`).
      planned: `train.iterations` of the config.
      switch_iteration: adaptive runs: the switch iteration, None if not (yet) switched.
      r_balance: `[(iteration, r)]` for the iterations with the adaptive warm start active.
      oracle: `[(iteration, oracle_optimal, oracle_policy)]` for the iterations that logged
        the perfect-play probe (Connect Four).
    """

    run_dir: str
    game: str
    experiment: str
    profile: str | None
    mode: str
    enhancement: str | None
    iprime: int | None
    seed: int
    iterations: int
    planned: int
    switch_iteration: int | None
    r_balance: tuple[tuple[int, float], ...]
    oracle: tuple[tuple[int, float, float], ...] = ()


def load_run(run_dir: Path | str) -> RunSummary:
    """Reads a run folder's `config.yaml` and `metrics.jsonl`.

    Raises:
      ValueError: a missing or unreadable file, naming it.
    """
    run_dir, config, rows = run_folder.read_run(run_dir)
    ws = config.get("warmstart") or {}
    mode = ws.get("mode", "none")
    last = rows[-1] if rows else {}
    switch = last.get("switch_iteration", -1)
    return RunSummary(
        run_dir=str(run_dir),
        game=config["game"]["name"],
        experiment=config.get("experiment_name", "custom"),
        profile=config.get("profile_name"),
        mode=mode,
        enhancement=None if mode == "none" else ws.get("enhancement"),
        iprime=ws.get("iprime") if mode == "fixed" else None,
        seed=int(config.get("seed", 0)),
        iterations=int(last.get("iteration", 0)),
        planned=int((config.get("train") or {}).get("iterations", 0)),
        switch_iteration=int(switch) if mode == "adaptive" and switch is not None
        and switch >= 1 else None,
        r_balance=tuple((int(r["iteration"]), float(r["r_balance"])) for r in rows
                        if mode == "adaptive" and r.get("warmstart_active")),
        oracle=tuple((int(r["iteration"]), float(r["oracle_optimal"]),
                      float(r["oracle_policy"])) for r in rows if "oracle_optimal" in r),
    )


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


def enhancement_name(enhancement: str | None) -> str:
    return "Baseline" if enhancement is None else ENHANCEMENT_NAMES.get(enhancement,
                                                                         enhancement)


def _enhancement_order(name: str | None) -> int:
    return ENHANCEMENTS.index(name) if name in ENHANCEMENTS else len(ENHANCEMENTS)


def _games_in(runs: Sequence[RunSummary]) -> list[str]:
    order = list(GAME_NAMES)
    return sorted({r.game for r in runs},
                  key=lambda g: (order.index(g) if g in order else len(order), g))


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


def switch_table(runs: Sequence[RunSummary]) -> list[SwitchCell]:
    """One cell per (game, enhancement) of the adaptive runs, games and enhancements ordered."""
    groups: dict[tuple[str, str], list[RunSummary]] = {}
    for run in runs:
        if run.mode == "adaptive":
            groups.setdefault((run.game, run.enhancement), []).append(run)
    games = _games_in([r for g in groups.values() for r in g])
    cells = []
    for key in sorted(groups, key=lambda k: (games.index(k[0]), _enhancement_order(k[1]))):
        members = groups[key]
        switches = tuple(r.switch_iteration for r in members if r.switch_iteration is not None)
        never = [r.iterations for r in members if r.switch_iteration is None]
        mean, sample_std = mean_std(switches)
        std = float(np.std(switches)) if len(switches) > 1 else math.nan
        cells.append(SwitchCell(key[0], key[1], switches, len(never),
                                min(never) if never else None, mean, std, sample_std))
    return cells


def switch_markdown(cells: Sequence[SwitchCell], runs: Sequence[RunSummary] = ()) -> str:
    """The switch-iteration table (enhancements × games), then one line per run if given."""
    games = []
    for cell in cells:
        if cell.game not in games:
            games.append(cell.game)
    enhancements = []
    for cell in sorted(cells, key=lambda c: _enhancement_order(c.enhancement)):
        if cell.enhancement not in enhancements:
            enhancements.append(cell.enhancement)
    index = {(c.game, c.enhancement): c for c in cells}
    lines = ["| Enhancement | " + " | ".join(GAME_NAMES.get(g, g) for g in games) + " |",
             "|:---|" + "---:|" * len(games)]
    for enh in enhancements:
        row = [index[(g, enh)].text() if (g, enh) in index else "—" for g in games]
        lines.append(f"| {enhancement_name(enh)} | " + " | ".join(row) + " |")
    adaptive = [r for r in runs if r.mode == "adaptive"]
    if adaptive:
        lines += ["", "| Run | Game | Enhancement | Seed | Switch iteration | Iterations |",
                  "|:---|:---|:---|---:|---:|---:|"]
        for r in sorted(adaptive, key=lambda r: (r.game, _enhancement_order(r.enhancement),
                                                 r.seed, r.run_dir)):
            switch = str(r.switch_iteration) if r.switch_iteration else f"> {r.iterations}"
            lines.append(f"| {r.run_dir} | {r.game} | {enhancement_name(r.enhancement)} | "
                         f"{r.seed} | {switch} | {r.iterations} |")
    return "\n".join(lines) + "\n"


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


def balance_series(runs: Sequence[RunSummary]) -> list[BalanceSeries]:
    """The r-balance series of the adaptive runs, per game and enhancement."""
    groups: dict[tuple[str, str], list[RunSummary]] = {}
    for run in runs:
        if run.mode == "adaptive" and run.r_balance:
            groups.setdefault((run.game, run.enhancement), []).append(run)
    games = _games_in([r for g in groups.values() for r in g])
    out = []
    for key in sorted(groups, key=lambda k: (games.index(k[0]), _enhancement_order(k[1]))):
        members = sorted(groups[key], key=lambda r: (r.seed, r.run_dir))
        per_iteration: dict[int, list[float]] = {}
        for run in members:
            for it, r in run.r_balance:
                per_iteration.setdefault(it, []).append(r)
        its = tuple(sorted(per_iteration))
        labels = _unique_labels([f"s{r.seed}" for r in members], [r.run_dir for r in members])
        out.append(BalanceSeries(
            key[0], key[1], {label: list(r.r_balance) for label, r in zip(labels, members)},
            its, tuple(float(np.mean(per_iteration[i])) for i in its),
            tuple(len(per_iteration[i]) for i in its)))
    return out


def balance_markdown(series: Sequence[BalanceSeries]) -> str:
    """Mean r (and the number of seeds still in warm start) per iteration."""
    lines = []
    for s in series:
        lines += [f"**{GAME_NAMES.get(s.game, s.game)}, {enhancement_name(s.enhancement)}**", "",
                  "| Iteration | mean r | seeds in warm start |", "|---:|---:|---:|"]
        lines += [f"| {i} | {m:+.2f} | {n} |" for i, m, n in zip(s.iterations, s.mean, s.count)]
        lines.append("")
    return "\n".join(lines)


def _unique_labels(labels: list[str], extras: list[str]) -> list[str]:
    return [f"{lab} ({extra})" if labels.count(lab) > 1 else lab
            for lab, extra in zip(labels, extras)]


# --- tournaments -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Variant:
    """What the Elo figures group players by."""

    mode: str  # none | fixed | adaptive | anchor
    enhancement: str | None  # or the anchor's player name
    iprime: int | None

    @property
    def label(self) -> str:
        if self.mode == "anchor":
            return self.enhancement
        if self.mode == "none":
            return "Baseline"
        name = enhancement_name(self.enhancement)
        return f"{name} I′={self.iprime}" if self.mode == "fixed" else f"{name} {self.mode}"

    def order(self) -> tuple:
        rank = {"none": 0, "fixed": 1, "adaptive": 1, "anchor": 2}[self.mode]
        return (rank, _enhancement_order(self.enhancement) if rank == 1 else 0,
                self.mode == "adaptive", self.iprime or 0, str(self.enhancement))


def variant_of(info: dict) -> Variant:
    """The variant of a player from its `players.json` entry."""
    if info.get("kind") == "anchor":
        name = info["player"]
        if info.get("playouts") is not None:
            name = f"{name}({info['playouts']})"
        return Variant("anchor", name, None)
    return Variant(info["mode"], info.get("enhancement"), info.get("iprime"))


@dataclasses.dataclass(frozen=True)
class Tournament:
    """A tournament's `elo.json`: ratings and players."""

    path: str
    tag: str  # a short name for file names and titles (the tournament folder's name)
    game: str
    names: tuple[str, ...]
    ratings: tuple[float, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    players: dict


def load_tournament(path: Path | str) -> Tournament:
    """Reads a tournament folder's `elo.json` (or the file itself).

    Raises:
      ValueError: a missing or unfinished tournament.
    """
    path = Path(path)
    file = path / "elo.json" if path.is_dir() else path
    if not file.exists():
        raise ValueError(f"{path} holds no elo.json (has the tournament finished? rerun "
                         "python -m warmjax.tournament with the same --out)")
    data = json.loads(file.read_text())
    tag = file.parent.name or "tournament"
    return Tournament(str(file.parent), tag, data["settings"]["game"]["name"],
                      tuple(data["names"]), tuple(data["ratings"]), tuple(data["lower"]),
                      tuple(data["upper"]), data["players"])


@dataclasses.dataclass(frozen=True)
class VariantElo:
    """The Elo of one variant's players (its seeds)."""

    variant: Variant
    names: tuple[str, ...]
    ratings: tuple[float, ...]
    mean: float
    std: float


def elo_by_variant(tournament: Tournament) -> list[VariantElo]:
    """Players grouped by variant, with the mean and spread of their ratings, ordered."""
    groups: dict[Variant, list[int]] = {}
    for i, name in enumerate(tournament.names):
        groups.setdefault(variant_of(tournament.players[name]), []).append(i)
    rows = []
    for variant in sorted(groups, key=Variant.order):
        idx = groups[variant]
        ratings = tuple(tournament.ratings[i] for i in idx)
        mean, std = mean_std(ratings)
        rows.append(VariantElo(variant, tuple(tournament.names[i] for i in idx), ratings, mean,
                               std))
    return rows


def elo_markdown(rows: Sequence[VariantElo]) -> str:
    lines = ["| Variant | Seeds | Elo (mean ± std) | Min | Max |", "|:---|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row.variant.label} | {len(row.ratings)} | "
                     f"{fmt_mean_std(row.mean, row.std, 0)} | {min(row.ratings):.0f} | "
                     f"{max(row.ratings):.0f} |")
    return "\n".join(lines) + "\n"


@dataclasses.dataclass(frozen=True)
class Sweep:
    """Elo against I′ per enhancement (fixed runs), with the other variants as references.

    Attributes:
      curves: `{enhancement: [(I′, mean, std, seeds)]}`, I′ ascending.
      references: the Baseline, adaptive and anchor rows of the same tournament.
    """

    curves: dict
    references: tuple[VariantElo, ...]

    @property
    def iprimes(self) -> list[int]:
        return sorted({p for c in self.curves.values() for p, *_ in c})


def iprime_sweep(rows: Sequence[VariantElo]) -> Sweep:
    curves: dict[str, list] = {}
    for row in rows:
        if row.variant.mode == "fixed":
            curves.setdefault(row.variant.enhancement, []).append(
                (row.variant.iprime, row.mean, row.std, len(row.ratings)))
    curves = {k: sorted(v) for k, v in sorted(curves.items(),
                                               key=lambda kv: _enhancement_order(kv[0]))}
    return Sweep(curves, tuple(r for r in rows if r.variant.mode != "fixed"))


def sweep_markdown(sweep: Sweep) -> str:
    iprimes = sweep.iprimes
    lines = ["| Enhancement | " + " | ".join(f"I′={p}" for p in iprimes) + " |",
             "|:---|" + "---:|" * len(iprimes)]
    for enh, curve in sweep.curves.items():
        at = {p: fmt_mean_std(m, s, 0) for p, m, s, _ in curve}
        lines.append(f"| {enhancement_name(enh)} | "
                     + " | ".join(at.get(p, "—") for p in iprimes) + " |")
    if sweep.references:
        lines += ["", "References in the same tournament: " + "; ".join(
            f"{r.variant.label} {fmt_mean_std(r.mean, r.std, 0)}" for r in sweep.references)]
    return "\n".join(lines) + "\n"


# --- the perfect-play learning curve -------------------------------------------------------


def run_variant(run: RunSummary) -> str:
    """A training variant's name: Baseline, or the warm-start mode and enhancement (and I′)."""
    if run.mode == "none":
        return "Baseline"
    name = f"{run.mode} {enhancement_name(run.enhancement)}"
    return f"{name} I′={run.iprime}" if run.iprime is not None else name


@dataclasses.dataclass(frozen=True)
class OracleCurve:
    """Optimal-move rates against perfect play per iteration, one game and variant.

    Attributes:
      iterations: `[T]` iterations logged by at least one run.
      search, policy: `[T]` mean over the runs that logged the iteration.
      search_std, policy_std: `[T]` sample std over those runs (nan for one run).
      count: `[T]` how many runs that is.
      runs: the run folders.
    """

    game: str
    variant: str
    iterations: np.ndarray
    search: np.ndarray
    policy: np.ndarray
    search_std: np.ndarray
    policy_std: np.ndarray
    count: np.ndarray
    runs: tuple[str, ...]


def oracle_curves(runs: Sequence[RunSummary]) -> list[OracleCurve]:
    """The runs' oracle curves grouped by game and variant (seeds pooled)."""
    groups: dict[tuple[str, str], list[RunSummary]] = {}
    for run in runs:
        if run.oracle:
            groups.setdefault((run.game, run_variant(run)), []).append(run)
    curves = []
    for (game, variant), members in groups.items():
        iterations = sorted({it for r in members for it, _, _ in r.oracle})
        stats = {k: [] for k in ("search", "policy", "search_std", "policy_std", "count")}
        for it in iterations:
            points = [(o, p) for r in members for i, o, p in r.oracle if i == it]
            for name, column in (("search", 0), ("policy", 1)):
                mean, std = mean_std([pt[column] for pt in points])
                stats[name].append(mean)
                stats[f"{name}_std"].append(std)
            stats["count"].append(len(points))
        curves.append(OracleCurve(game, variant, np.asarray(iterations),
                                  *(np.asarray(stats[k]) for k in stats),
                                  runs=tuple(r.run_dir for r in members)))
    return sorted(curves, key=lambda c: (c.game, c.variant != "Baseline", c.variant))


def oracle_markdown(curves: Sequence[OracleCurve]) -> str:
    """The last logged iteration of each curve: optimal-move rates, mean ± sample std."""
    lines = ["| game | variant | runs | iteration | search optimal % | policy head optimal % |",
             "|---|---|---|---|---|---|"]
    for c in curves:
        last = -1
        lines.append(
            f"| {GAME_NAMES.get(c.game, c.game)} | {c.variant} | {c.count[last]} | "
            f"{c.iterations[last]} | {fmt_mean_std(100 * c.search[last], 100 * c.search_std[last])}"
            f" | {fmt_mean_std(100 * c.policy[last], 100 * c.policy_std[last])} |")
    return "\n".join(lines) + "\n"
