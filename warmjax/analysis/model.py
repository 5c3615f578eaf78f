"""A study's data model: per-run summaries of the learning curves, arms and families.

A study's runs fall into *families*, one per game, board and set of departures from the
papers (and per study folder where two studies share those); in each family the arm without
warm start is the baseline, every other arm (fixed I′ or adaptive, per enhancement) is
compared with it. The model holds what the statistics (`stats`) made of them; the claims
(`claims`) read it, and `study` builds it from run folders and writes it out (`study.json`).
Importing this module leaves JAX unloaded: a run is read through its `metrics`, `path` and
`id` alone.

The measure is the perfect-play probe each run logs per iteration (`oracle_policy`: the
policy head's optimal-move rate; `oracle_optimal`: the search's). Per run:

- `auc`: the mean rate over iterations 1 … k (the area under the learning curve, divided
  by k), k the family's `auc_iterations`;
- `final`: the rate at the family's last common iteration.

A family's *main comparison* is its baseline, adaptive arms and fixed arms at I′ = 5 (the
papers' fixed I′, `MAIN_IPRIME`); fixed arms at other I′ of an enhancement that also ran at
I′ = 5 form its *I′ sweep* (`Family.sweep`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from warmjax.analysis.stats import Comparison, Estimate, seeds_for

if TYPE_CHECKING:
    from warmjax.train.run_folder import Run
    from warmjax.train.run_id import RunId

# The measures: a name, the metrics row's field it reads, and its title (primary first).
# Runs that did not log a measure (the quiet rates came later) leave it out of their family.
METRICS = {"policy": "oracle_policy", "search": "oracle_optimal",
           "policy_quiet": "oracle_policy_quiet", "search_quiet": "oracle_optimal_quiet"}
TITLES = {"policy": "Policy head", "search": "Search",
          "policy_quiet": "Policy head, quiet positions",
          "search_quiet": "Search, quiet positions"}
MAIN_IPRIME = 5  # the papers' fixed I′ (claim 3): the main comparison's fixed arms
PRIMARY = "policy"
DELTA = 0.02  # 2 percentage points of the policy head's optimal-move rate


# --- per run ---------------------------------------------------------------------------------


def curve(run: Run, metric: str) -> dict[int, float]:
    """`{iteration: rate}` of the iterations in which `run` logged the probe."""
    field = METRICS[metric]
    return {row.iteration: getattr(row, field) for row in run.metrics
            if getattr(row, field) is not None}


class Band(NamedTuple):
    """An arm's learning curve over its seeds: the iterations every run probed, the mean
    rate and its 95% t-interval at each (nan where it has no spread to estimate)."""

    iterations: tuple[int, ...]
    mean: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]


def band(runs: Sequence[Run], metric: str) -> Band:
    """The mean curve of `runs` over seeds, with its 95% band (`Estimate.of` per
    iteration), on the iterations every run probed."""
    per_run = [curve(run, metric) for run in runs]
    iterations = sorted(set.intersection(*(set(c) for c in per_run)))
    estimates = [Estimate.of([c[it] for c in per_run]) for it in iterations]
    return Band(tuple(iterations), tuple(e.mean for e in estimates),
                tuple(e.ci[0] for e in estimates), tuple(e.ci[1] for e in estimates))


def area(run: Run, metric: str, k: int) -> float:
    """The mean rate over the probed iterations 1 … k."""
    points = [v for it, v in curve(run, metric).items() if it <= k]
    if not points:
        raise ValueError(f"{run.path} logged no perfect-play probe in iterations 1-{k}; "
                         "train with probe.every=1")
    return float(np.mean(points))


def final(run: Run, metric: str, iteration: int) -> float:
    """The rate at the last probed iteration up to `iteration`."""
    points = [v for it, v in sorted(curve(run, metric).items()) if it <= iteration]
    if not points:
        raise ValueError(f"{run.path} logged no perfect-play probe up to iteration {iteration}")
    return points[-1]


# --- arms and families ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Summary:
    """One number per run from its learning curve of a measure (`METRICS`), which the study
    states over seeds and compares with the baseline, paired by seed.

    `of(run, metric, k, common)`: `k` is the family's `auc_iterations`, `common` the last
    iteration every run of the family completed. Adding a summary to `SUMMARIES` is all the
    study needs: every arm gets its estimate, its comparison with the baseline (adjusted
    over the arms like the others) and its keys in `study.json`; a table shows it where one
    names it."""

    of: Callable[[Run, str, int, int], float]
    what: str  # what it is, in words


SUMMARIES: dict[str, Summary] = {
    "auc": Summary(lambda run, metric, k, common: area(run, metric, k),
                   "the mean rate over iterations 1 … k"),
    "final": Summary(lambda run, metric, k, common: final(run, metric, common),
                     "the rate at the family's last common iteration"),
}


@dataclasses.dataclass(frozen=True)
class MetricSummary:
    """One measure of one arm: each summary (`SUMMARIES`) over seeds, and against the
    baseline (paired by seed, Welch's test inside each comparison as its secondary column;
    None for the baseline itself)."""

    values: Mapping[str, Estimate]
    vs_baseline: Mapping[str, Comparison | None]

    @property
    def auc(self) -> Estimate:
        return self.values["auc"]

    @property
    def final(self) -> Estimate:
        return self.values["final"]

    @property
    def auc_vs_baseline(self) -> Comparison | None:
        return self.vs_baseline.get("auc")

    @property
    def final_vs_baseline(self) -> Comparison | None:
        return self.vs_baseline.get("final")


@dataclasses.dataclass(frozen=True)
class Arm:
    """The runs of one arm (all seeds) and what the study measured of them.

    Attributes:
      id: the arm (`RunId` without seed).
      runs: its runs, by seed.
      metrics: `{"policy" | "search": MetricSummary}`.
      elo: the final networks' Bayesian Elo relative to their seed block's mean
        (`_centred_ratings`), over seeds (None without a tournament).
      elo_vs_baseline: against the baseline's, paired by seed (`compare_paired`).
      switches: adaptive arms: each run's switch iteration (None: never switched).
      spearman: adaptive arms of three or more runs: Spearman's ρ and p of the runs'
        warm-start iterations against their final primary rate (`stats.spearman`; nan
        without spread); None otherwise.
      bands: per measure, its learning curve over seeds with the 95% band (`band`), which
        the figures draw; empty where the report's tables were not asked for.
    """

    id: RunId
    runs: tuple[Run, ...]
    metrics: dict
    elo: Estimate | None = None
    elo_vs_baseline: Comparison | None = None
    switches: tuple[int | None, ...] = ()
    spearman: tuple[float, float] | None = None
    bands: Mapping[str, Band] = dataclasses.field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.id.label()

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(r.id.seed for r in self.runs)

    @property
    def primary(self) -> MetricSummary:
        return self.metrics[PRIMARY]

    def by_seed(self, metric: str = PRIMARY, which: str = "auc") -> dict[int, float]:
        """`{seed: value}` of one summary (`which`, a key of `SUMMARIES`) of `metric`, or of
        the Elo (`metric="elo"`; empty without a tournament)."""
        if metric == "elo":
            return dict(zip(self.seeds, self.elo.values)) if self.elo is not None else {}
        return dict(zip(self.seeds, self.metrics[metric].values[which].values))

    def warm_iterations(self) -> tuple[int, ...]:
        """How many iterations each run self-played with the enhancement."""
        return tuple(sum(row.warmstart_active for row in run.metrics) for run in self.runs)

    @property
    def warm_mean(self) -> float:
        """The mean of `warm_iterations` over the arm's runs."""
        return float(np.mean(self.warm_iterations())) if self.runs else math.nan

    @property
    def switch_summary(self) -> tuple[float, float, int] | None:
        """Adaptive arms: the mean and population SD of the switch iteration over the runs
        that switched (as the papers give it), and how many did; None where none did."""
        switched = [s for s in self.switches if s is not None]
        if not switched:
            return None
        return float(np.mean(switched)), float(np.std(switched)), len(switched)


def study_suffix(name: str) -> str:
    """" (c4_confirm)" after a family's or board's name where the report holds two studies
    of one game, board and departures; "" where `name` is empty."""
    return f" ({name})" if name else ""


@dataclasses.dataclass(frozen=True)
class Gap:
    """One iteration of a family's primary learning curves: the baseline's mean rate and
    each main arm's gap to it, paired by seed (`Family.main` order; None below two seeds)."""

    iteration: int
    baseline: float
    arms: tuple[Comparison | None, ...]


@dataclasses.dataclass(frozen=True)
class PowerRow:
    """The main comparison's power for one arm (or, `pairs` 0, the family: the RMS of the
    arms' SDs): the SD of the paired differences from the baseline (primary AUC), the
    effect 80% power detects at its seeds, and the seeds 80% power at δ needs."""

    label: str
    pairs: int
    sd: float
    effect80: float
    seeds: float


@dataclasses.dataclass(frozen=True)
class IprimeRow:
    """Claim 4's data for one arm, on the seeds that ran at every I′: the means of the
    policy head's and the search's AUC and final rate, and of the Elo relative to the seed's
    round robin (None without one)."""

    label: str
    runs: int
    policy_auc: float
    policy_final: float
    search_auc: float
    search_final: float
    elo: float | None


@dataclasses.dataclass(frozen=True)
class Family:
    """One game and set of departures: a baseline arm and the warm-start arms."""

    game: str
    departures: tuple[str, ...]
    auc_iterations: int  # k
    final_iteration: int
    games_per_iteration: int
    baseline: Arm | None
    arms: tuple[Arm, ...]  # the warm-start arms, in arm order (`RunId.order`)
    board: str = ""  # "6×7" where the board is not the game's registered one (`board_of`)
    # The study folder's name where the report holds two studies of this game, board and
    # departures (a confirmatory study beside an exploratory one); "" otherwise.
    study: str = ""
    # How reports name the game ("Connect Four"); None: the game registry's title.
    game_title: str | None = None
    # Per iteration that every baseline run probed: the main arms' gaps (primary measure).
    gaps: tuple[Gap, ...] = ()
    # The main comparison's power at δ = `power_delta` (the arms', then the family's row).
    power: tuple[PowerRow, ...] = ()
    power_delta: float = DELTA
    # Claim 4's data: the baseline and the swept enhancement's fixed arms by I′.
    iprime: tuple[IprimeRow, ...] = ()

    @property
    def title(self) -> str:
        game = self.game_title
        if game is None:  # the registry's (which imports the games)
            from warmjax.train.run_id import game_name

            game = game_name(self.game)
        text = game + (f" {self.board}" if self.board else "")
        if self.departures:
            text += " with " + ", ".join(self.departures)
        return text + study_suffix(self.study)

    @property
    def tag(self) -> str:
        """The family in file names: `connect_four_6x7_fpu`."""
        return "_".join([self.game, *([self.board.replace("×", "x")] if self.board else []),
                         *self.departures, *([self.study] if self.study else [])])

    @property
    def seeds(self) -> frozenset[int]:
        return frozenset(r.config.seed for a in self.all_arms() for r in a.runs)

    def all_arms(self) -> tuple[Arm, ...]:
        return ((self.baseline,) if self.baseline else ()) + self.arms

    @property
    def measures(self) -> tuple[str, ...]:
        """The measures (`METRICS`) every run of the family logged, primary first."""
        return tuple(self.all_arms()[0].metrics)

    @property
    def swept(self) -> set[RunId]:
        """The I′ sweep's arms: fixed arms at I′ ≠ 5 of an enhancement that also ran
        at 5."""
        return _swept_ids(self.arms)

    @property
    def sweep(self) -> tuple[Arm, ...]:
        """The I′ sweep's arms."""
        swept = self.swept
        return tuple(a for a in self.arms if a.id in swept)

    @property
    def main(self) -> tuple[Arm, ...]:
        """The main comparison's warm-start arms (adaptive, and fixed at I′ = 5 or of an
        enhancement without an I′ = 5 arm)."""
        swept = self.swept
        return tuple(a for a in self.arms if a.id not in swept)

    def spread(self) -> float:
        """The root mean square of the SDs of the main arms' paired differences from the
        baseline (primary measure, AUC): the SD a power calculation for this family uses."""
        sds = [a.primary.auc_vs_baseline.sd for a in self.main
               if a.primary.auc_vs_baseline is not None
               and a.primary.auc_vs_baseline.paired]
        return float(np.sqrt(np.mean(np.square(sds)))) if sds else math.nan

    def seeds_for(self, delta: float) -> float:
        """The paired seeds per arm that 80% power at `delta` needs, at `spread()`."""
        return seeds_for(delta, self.spread())


def _swept_ids(arms: Sequence[Arm]) -> set[RunId]:
    centred = {a.id.enhancement for a in arms
               if a.id.mode == "fixed" and a.id.iprime == MAIN_IPRIME}
    return {a.id for a in arms if a.id.mode == "fixed"
            and a.id.iprime != MAIN_IPRIME and a.id.enhancement in centred}
