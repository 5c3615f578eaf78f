"""A study's statistics: does warm start make self-play learn faster, and by how much?

A study is a set of run folders (`conf/study/*.yaml` trains them) and, optionally, a
round-robin tournament of their final networks. Its runs fall into *families*, one per game
and set of departures from the papers; in each family the arm without warm start is the
baseline, and every other arm (fixed I′ or adaptive, per enhancement) is compared with it.

The yardstick is the perfect-play probe each run logs per iteration (`oracle_policy`: the
policy head's optimal-move rate; `oracle_optimal`: the search's). Per run:

- `auc`: the mean rate over iterations 1 … k (the area under the learning curve, divided
  by k), k the study's `auc_iterations` (default: half the iterations every run of the
  family completed, rounded up);
- `final`: the rate at the family's last common iteration.

A family's *main comparison* is its baseline, adaptive arms and fixed arms at I′ = 5 (the
papers' fixed I′, `MAIN_IPRIME`); fixed arms at other I′ of an enhancement that also ran at
I′ = 5 form its *I′ sweep* (`Family.sweep`), which answers claim 4 only and is adjusted for
multiplicity on its own, so that adding a sweep leaves the main comparison's numbers as
they were.

Per arm, over its seeds: the mean with a 95% t-interval (`scipy.stats.ttest_1samp`). Against
the family's baseline, paired by seed (a seed gives every arm the same initial network, so
seeds are blocks): the mean of the per-seed differences with the paired t-test's 95%
interval and p-value (`scipy.stats.ttest_rel`), a sign-flip permutation p and the Wilcoxon
signed-rank p, Welch's unpaired test as a secondary column, and the smallest difference the
paired test detects with 80% power (`effect80`, `statsmodels.stats.power`). The claims
(`claims`) are decided by one rule (`decide`) on the policy head's `auc` (the primary
measure: what self-play has taught the network, free of the search's budget): p-values
adjusted by Benjamini–Hochberg within a claim (`scipy.stats.false_discovery_control`), and
`delta`, the smallest gain worth finding, for calling a null result a contradiction. Each
claim only chooses its comparisons. docs/experiments.md, "The verdict rule", states it.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
from scipy import stats

from warmjax.analysis.tables import Tournament, group_runs
from warmjax.games import make, registry
from warmjax.search.variants import ENHANCEMENTS
from warmjax.train.run_folder import Run
from warmjax.train.run_id import RunId, enhancement_name, game_name

CONFIDENCE = 0.95
ALPHA = 0.05
POWER = 0.80  # the power at which a study states the effect it could have detected
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
PERMUTATIONS = 20_000  # resamples where the exact permutation distribution is larger

REPRODUCED, CONTRADICTED, UNRESOLVED, NOT_TESTED = (
    "reproduced", "contradicted", "not resolvable at this power", "not tested")
# The floor rule (`strength.floor`): a family whose baseline did not learn decides nothing.
NOT_INFORMATIVE = "not informative"


# --- the statistics ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A mean over seeds with its 95% t-interval (nan bounds for fewer than two values)."""

    mean: float
    ci: tuple[float, float]
    values: tuple[float, ...]

    @classmethod
    def of(cls, values: Sequence[float]) -> Estimate:
        x = np.asarray(values, np.float64)
        if x.size == 0:
            return cls(math.nan, (math.nan, math.nan), ())
        if x.size < 2 or np.all(x == x[0]):
            half = math.nan if x.size < 2 else 0.0
            return cls(float(x.mean()), (float(x.mean()) - half, float(x.mean()) + half),
                       tuple(map(float, x)))
        low, high = stats.ttest_1samp(x, 0.0).confidence_interval(CONFIDENCE)
        return cls(float(x.mean()), (float(low), float(high)), tuple(map(float, x)))


@dataclasses.dataclass(frozen=True)
class Comparison:
    """An arm against a reference arm: difference of means (arm − reference).

    Attributes:
      diff: the difference of the means (paired: the mean of the per-seed differences).
      ci: the test's 95% interval of the difference.
      p: the test's two-sided p-value.
      p_permutation: the two-sided permutation p-value (sign flips where paired).
      test: "paired t" (`scipy.stats.ttest_rel`, matched by seed) or "Welch"
        (`scipy.stats.ttest_ind(equal_var=False)`).
      n: pairs (paired) or the smaller arm's runs (Welch).
      sd: the SD of the per-seed differences (paired) or the pooled SD of the two arms.
      effect80: the smallest difference the test detects with 80% power at α, two-sided
        (`statsmodels.stats.power`, from `sd` and the sample sizes); nan below two values.
      p_wilcoxon: paired only: the Wilcoxon signed-rank p (`scipy.stats.wilcoxon`).
      welch: paired only: Welch's test of the same two arms on all their runs, a secondary
        column.
      p_adjusted: `p` adjusted by Benjamini–Hochberg (over a family's warm-start arms, or
        within a claim); nan where not adjusted.
    """

    diff: float
    ci: tuple[float, float]
    p: float
    p_permutation: float
    test: str = "Welch"
    n: int = 0
    sd: float = math.nan
    effect80: float = math.nan
    p_wilcoxon: float = math.nan
    welch: Comparison | None = None
    p_adjusted: float = math.nan

    @property
    def significant(self) -> bool:
        return self.p < ALPHA

    @property
    def paired(self) -> bool:
        return self.test == "paired t"

    def seeds_for(self, delta: float) -> float:
        """The seeds (pairs, or runs per arm for Welch) this comparison's test needs for 80%
        power at a true difference of `delta`, at its observed SD; nan where unknown."""
        return seeds_for(delta, self.sd, paired=self.paired)


def effect_at_power(sd: float, n: int | tuple[int, int], paired: bool = True) -> float:
    """The smallest difference a two-sided t-test at α detects with 80% power: for a paired
    test with `n` pairs whose differences have SD `sd`, or for two samples of sizes `n`
    with pooled SD `sd` (`statsmodels.stats.power.TTestPower` / `TTestIndPower`)."""
    from statsmodels.stats.power import TTestIndPower, TTestPower

    if math.isnan(sd):
        return math.nan
    if sd == 0:
        return 0.0
    if paired:
        if n < 2:
            return math.nan
        d = TTestPower().solve_power(nobs=n, alpha=ALPHA, power=POWER,
                                     alternative="two-sided")
    else:
        n1, n2 = n
        if min(n1, n2) < 2:
            return math.nan
        d = TTestIndPower().solve_power(nobs1=n1, ratio=n2 / n1, alpha=ALPHA, power=POWER,
                                        alternative="two-sided")
    return float(sd * np.ravel(d)[0])


def seeds_for(delta: float, sd: float, paired: bool = True) -> float:
    """The seeds a two-sided t-test at α needs for 80% power at a true difference `delta`
    with SD `sd` (paired: pairs; else runs per arm, equal arms), rounded up; nan where
    `sd` is unknown or zero."""
    from statsmodels.stats.power import TTestIndPower, TTestPower

    if math.isnan(sd) or sd <= 0 or delta <= 0:
        return math.nan
    solver = TTestPower() if paired else TTestIndPower()
    try:
        n = float(np.ravel(solver.solve_power(effect_size=delta / sd, alpha=ALPHA,
                                              power=POWER, alternative="two-sided"))[0])
    except (ValueError, RuntimeError):  # an effect so large that two seeds suffice
        return 2.0
    if math.isnan(n):  # the solver can give up without raising: for a large effect (d ≥ 1
        # needs at most 10 pairs; the failures seen are at d > 10) two seeds suffice, else
        # the figure is unknown
        return 2.0 if delta / sd >= 1 else math.nan
    return float(max(2, math.ceil(n - 1e-9)))


def _mean_difference(x, y, axis):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def compare(values: Sequence[float], reference: Sequence[float]) -> Comparison:
    """Welch's t-test and a permutation test of `values` against `reference` (at least two
    of each)."""
    a, b = np.asarray(values, np.float64), np.asarray(reference, np.float64)
    if a.size < 2 or b.size < 2:
        raise ValueError(f"a comparison needs at least two runs per arm, got {a.size} and "
                         f"{b.size}")
    pooled = math.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1))
                       / (a.size + b.size - 2))
    sizes = (int(a.size), int(b.size))
    effect = effect_at_power(pooled, sizes, paired=False)
    if np.all(a == a[0]) and np.all(b == b[0]):  # no spread: nothing to test against
        return dataclasses.replace(_certain(float(a.mean() - b.mean())), test="Welch",
                                   n=min(sizes), sd=pooled, effect80=effect)
    c = _tested(a, b, stats.ttest_ind(a, b, equal_var=False), _mean_difference,
                "independent")
    return dataclasses.replace(c, test="Welch", n=min(sizes), sd=pooled, effect80=effect)


def _paired_mean_difference(x, y, axis):
    return np.mean(x - y, axis=axis)


def compare_paired(values: Sequence[float], reference: Sequence[float],
                   welch: Comparison | None = None) -> Comparison:
    """A paired t-test (`scipy.stats.ttest_rel`), a sign-flip permutation test and the
    Wilcoxon signed-rank test of `values` against `reference`, matched by position (at least
    two pairs); `welch`: the unpaired test to carry as the secondary column."""
    a, b = np.asarray(values, np.float64), np.asarray(reference, np.float64)
    if a.size != b.size or a.size < 2:
        raise ValueError(f"a paired comparison needs at least two matched pairs, got {a.size} "
                         f"and {b.size} values")
    d = a - b
    sd = float(d.std(ddof=1))
    common = dict(test="paired t", n=int(a.size), sd=sd, welch=welch,
                  effect80=effect_at_power(sd, int(a.size)))
    if np.all(d == d[0]):
        return dataclasses.replace(_certain(float(d.mean())), **common)
    c = _tested(a, b, stats.ttest_rel(a, b), _paired_mean_difference, "samples")
    nonzero = d[d != 0]
    p_w = float(stats.wilcoxon(d).pvalue) if nonzero.size else 1.0
    return dataclasses.replace(c, p_wilcoxon=p_w, **common)


def compare_by_seed(values: dict[int, float], reference: dict[int, float]
                    ) -> Comparison | None:
    """`values` against `reference` (each `{seed: value}`), paired on their common seeds,
    with Welch's test on all values as the secondary column; None below two of each (or
    two common seeds)."""
    if len(values) < 2 or len(reference) < 2:
        return None
    welch = compare(list(values.values()), list(reference.values()))
    seeds = sorted(set(values) & set(reference))
    if len(seeds) < 2:
        return None
    return compare_paired([values[s] for s in seeds], [reference[s] for s in seeds], welch)


def _certain(diff: float) -> Comparison:
    """Every value equal (or every pair's difference): no spread to test against."""
    p = 1.0 if diff == 0 else 0.0
    return Comparison(diff, (diff, diff), p, p, p_wilcoxon=p)


def _tested(a: np.ndarray, b: np.ndarray, test, statistic, permutation_type: str
            ) -> Comparison:
    """A Comparison from a scipy t-test result and the matching permutation test."""
    low, high = test.confidence_interval(CONFIDENCE)
    permutation = stats.permutation_test(
        (a, b), statistic, permutation_type=permutation_type, vectorized=True,
        n_resamples=PERMUTATIONS, alternative="two-sided", random_state=0)
    return Comparison(float(statistic(a, b, axis=0)), (float(low), float(high)),
                      float(test.pvalue), float(permutation.pvalue))


def adjusted(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (`scipy.stats.false_discovery_control`)."""
    if not p_values:
        return []
    return [float(p) for p in stats.false_discovery_control(np.asarray(p_values, np.float64))]


# --- per run -------------------------------------------------------------------------------


def curve(run: Run, metric: str) -> dict[int, float]:
    """`{iteration: rate}` of the iterations in which `run` logged the probe."""
    field = METRICS[metric]
    return {row.iteration: getattr(row, field) for row in run.metrics
            if getattr(row, field) is not None}


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
    """

    id: RunId
    runs: tuple[Run, ...]
    metrics: dict
    elo: Estimate | None = None
    elo_vs_baseline: Comparison | None = None
    switches: tuple[int | None, ...] = ()

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


def study_suffix(name: str) -> str:
    """" (c4_confirm)" after a family's or board's name where the report holds two studies
    of one game, board and departures; "" where `name` is empty."""
    return f" ({name})" if name else ""


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

    @property
    def title(self) -> str:
        text = game_name(self.game) + (f" {self.board}" if self.board else "")
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


def game_of(run: Run):
    """The run's game (`warmjax.games.make` with its settings), built once per game and
    settings however many runs share them."""
    return _game(run.id.game, tuple(sorted(dict(run.config.game.params).items())))


@functools.lru_cache(maxsize=None)
def _game(name: str, params: tuple):
    return make(name, **dict(params))


def game_settings(run: Run) -> dict:
    """The run's game with every constructor setting spelled out, as a tournament records
    it (`entrants.canonical_game`)."""
    from warmjax.matches.entrants import canonical_game

    return canonical_game(game_of(run), run.id.game, dict(run.config.game.params))


def ratings_of(tournament: Tournament, runs: Sequence[Run]) -> dict[RunId, float]:
    """`{run id (with its seed): Elo}` of those of `runs` whose networks `tournament` rated: a
    network matches a run by its id (seed included), and the tournament's game (name and every
    setting, where it recorded them) must be the run's, so that two boards of one game are
    never confused. A tournament played before the runs' folders moved still matches."""
    wanted = {}
    for r in runs:
        if r.id.game != tournament.game:
            continue
        if tournament.params is not None and game_settings(r)["params"] != dict(
                tournament.params):
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
    return Arm(run_id, tuple(arm_runs), metrics, elo, None, switches)


def _against(arm: Arm, base: Arm) -> Arm:
    """`arm` with every measure compared with `base`'s, paired by seed."""
    metrics = {m: dataclasses.replace(summary, vs_baseline={
        name: compare_by_seed(arm.by_seed(m, name), base.by_seed(m, name))
        for name in summary.values}) for m, summary in arm.metrics.items()}
    elo_vs = compare_by_seed(arm.by_seed("elo"), base.by_seed("elo"))
    return dataclasses.replace(arm, metrics=metrics, elo_vs_baseline=elo_vs)


def families(runs: Sequence[Run], tournaments: Sequence[Tournament] = (),
             auc_iterations: int | None = None,
             study_of: Callable[[Run], str] | None = None) -> list[Family]:
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
        out.append(Family(game, departures, k, common, members[0].config.train.games,
                          baseline, tuple(by_id[a.id] for a in warm), board,
                          name if shared[game, board, departures] > 1 else ""))
    return out


def _no_probe(members: Sequence[Run]) -> str:
    """Why a family cannot be studied: its game has no labelled set, or a run did not probe."""
    from warmjax.perfect.positions import path_for

    run = members[0]
    board = board_of(run)
    title = game_name(run.id.game) + (f" {board}" if board else "")
    if path_for(game_of(run)) is None:
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


# --- the verdict rule ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Tested:
    """One comparison a claim makes: `name` (e.g. "WRoRa adaptive − Baseline"), the test on
    the deciding measure (`p_adjusted`: within the claim), and the papers' measure, final
    Elo paired by seed, where a round robin rated both arms."""

    name: str
    comparison: Comparison
    elo: Comparison | None = None


@dataclasses.dataclass(frozen=True)
class Decision:
    """What the verdict rule (`decide`) made of a claim's comparisons.

    Attributes:
      verdict: REPRODUCED, CONTRADICTED, UNRESOLVED or NOT_TESTED.
      reason: "all better", "no gain", "opposite", "open" or "" (not tested).
      tested: the comparisons, each with its p adjusted within the claim.
      effect80: not resolvable: the largest 80%-power effect among the comparisons the rule
        left open (what the study would have needed to see).
    """

    verdict: str
    reason: str
    tested: tuple[Tested, ...]
    effect80: float = math.nan


def decide(tested: Sequence[Tested], delta: float, omnibus_p: float | None = None,
           p_adjusted: Sequence[float] | None = None) -> Decision:
    """The one verdict rule every claim uses (docs/experiments.md, "The verdict rule").

    The comparisons' p-values are adjusted by Benjamini–Hochberg within the claim, unless
    `p_adjusted` gives them adjusted over a larger set (a registered family of hypotheses,
    or every step of a report). Then:

    - *reproduced*: every comparison is significant (adjusted p < α) in the claimed
      direction (difference > 0); for a claim of variation (`omnibus_p` given), its omnibus
      test is significant;
    - *contradicted, opposite*: some comparison is significant in the opposite direction
      (not for a claim of variation);
    - *contradicted, no gain*: every comparison's 95% interval lies below +δ (for a claim of
      variation: inside (−δ, +δ)), so no gain of δ or more in any arm the claim covers;
    - *not resolvable*: anything else; `effect80` is the largest 80%-power effect of the
      comparisons left open.
    """
    if not tested:
        return Decision(NOT_TESTED, "", ())
    p_adj = (adjusted([t.comparison.p for t in tested]) if p_adjusted is None
             else [float(p) for p in p_adjusted])
    if len(p_adj) != len(tested):
        raise ValueError(f"{len(p_adj)} adjusted p-values for {len(tested)} comparisons")
    tested = tuple(dataclasses.replace(t, comparison=dataclasses.replace(
        t.comparison, p_adjusted=p)) for t, p in zip(tested, p_adj))
    comps = [t.comparison for t in tested]
    variation = omnibus_p is not None
    if variation:
        if omnibus_p < ALPHA:
            return Decision(REPRODUCED, "all better", tested)
    else:
        if all(p < ALPHA and c.diff > 0 for c, p in zip(comps, p_adj)):
            return Decision(REPRODUCED, "all better", tested)
        if any(p < ALPHA and c.diff < 0 for c, p in zip(comps, p_adj)):
            return Decision(CONTRADICTED, "opposite", tested)
    if all(c.ci[1] < delta and (not variation or c.ci[0] > -delta) for c in comps):
        return Decision(CONTRADICTED, "no gain", tested)
    open_ = [c.effect80 for c, p in zip(comps, p_adj)
             if not (p < ALPHA and (variation or c.diff > 0))]
    return Decision(UNRESOLVED, "open", tested,
                    float(max(open_)) if open_ and not any(map(math.isnan, open_))
                    else math.nan)


@dataclasses.dataclass(frozen=True)
class Claim:
    """One of the papers' claims, decided on one family by `decide`.

    Attributes:
      claim: its number and statement.
      family: the family's title.
      verdict: REPRODUCED, CONTRADICTED, UNRESOLVED or NOT_TESTED.
      label: the verdict in words that name the deciding measure and the reason.
      evidence: the numbers that decide it.
      papers: the papers' measure (final Elo, paired by seed) in words; "" without one.
      decision: the rule's record (comparisons, adjusted p, 80%-power effect).
    """

    claim: str
    family: str
    verdict: str
    label: str
    evidence: str
    papers: str = ""
    decision: Decision | None = None


def _pts(x: float) -> str:
    """A rate difference in percentage points, signed (0.023 -> "+2.3")."""
    return f"{100 * x:+.1f}"


def _span(c: Comparison) -> str:
    return f"{_pts(c.diff)} points [{_pts(c.ci[0])}, {_pts(c.ci[1])}], p = {c.p:.3g}"


def _elo_span(c: Comparison) -> str:
    return f"{c.diff:+.0f} [{c.ci[0]:+.0f}, {c.ci[1]:+.0f}], p = {c.p:.2g}"


def _label(d: Decision, measure: str, delta: float) -> str:
    """The verdict in words that say which measure decided it and why."""
    if d.verdict == REPRODUCED:
        if d.reason == "all better" and len(d.tested) > 1:
            return f"reproduced: every comparison significantly better in the {measure}"
        return f"reproduced: significantly better in the {measure}"
    if d.verdict == CONTRADICTED and d.reason == "opposite":
        worse = ", ".join(t.name for t in d.tested
                          if t.comparison.p_adjusted < ALPHA and t.comparison.diff < 0)
        return f"contradicted: significantly below zero in the {measure} ({worse})"
    if d.verdict == CONTRADICTED:
        return f"contradicted: no gain ≥ {100 * delta:.0f} points in the {measure}"
    if d.verdict == UNRESOLVED:
        need = ("" if math.isnan(d.effect80) else
                f"; 80% power needed a true difference of {100 * d.effect80:.1f} points")
        return f"not resolvable in the {measure}{need}"
    return NOT_TESTED


def _claim(name: str, family: Family, tested: Sequence[Tested], delta: float,
           measure: str, intro: str, omnibus: tuple[float, str] | None = None) -> Claim:
    """Decide `tested` by the rule and put the claim into words."""
    d = decide(tested, delta, None if omnibus is None else omnibus[0])
    rows = "; ".join(f"{t.name} {_span(t.comparison)} (adj. {t.comparison.p_adjusted:.3g})"
                     for t in d.tested)
    evidence = f"{intro}: " + (f"{omnibus[1]}; pairs: " if omnibus else "") + rows
    papers = "; ".join(f"{t.name} {_elo_span(t.elo)}" for t in d.tested if t.elo is not None)
    return Claim(name, family.title, d.verdict, _label(d, measure, delta), evidence, papers, d)


def _not_tested(name: str, family: Family, why: str) -> Claim:
    return Claim(name, family.title, NOT_TESTED, NOT_TESTED, why)


def _measure(family: Family) -> str:
    return f"policy head's AUC 1-{family.auc_iterations}"


def _pair(a: Arm, b: Arm, name: str | None = None) -> Tested | None:
    """`a` against `b` on the primary AUC, paired by seed (None below two common seeds)."""
    c = compare_by_seed(a.by_seed(), b.by_seed())
    if c is None:
        return None
    return Tested(name or f"{a.label} − {b.label}", c,
                  compare_by_seed(a.by_seed("elo"), b.by_seed("elo")))


def claim_beats_baseline(family: Family, delta: float) -> Claim:
    """Claim 1: warm start beats the baseline: every warm-start arm of the main comparison
    against the baseline."""
    name = "1. Warm start beats the baseline"
    if family.baseline is None:
        return _not_tested(name, family, "no baseline")
    tested = [t for a in family.main if (t := _pair(a, family.baseline)) is not None]
    if not tested:
        return _not_tested(name, family, "no warm-start arm with two seeds")
    return _claim(name, family, tested, delta, _measure(family),
                  f"{_measure(family)}, each warm-start arm − baseline, paired by seed "
                  f"({len(tested)} arm{'' if len(tested) == 1 else 's'})")


def claim_wrora_best(family: Family, delta: float) -> Claim:
    """Claim 2: WRoRa is the best enhancement: WRoRa against every other enhancement, among
    the adaptive arms and among the fixed arms at I′ = 5 alike."""
    name = "2. WRoRa is the best enhancement"
    tested = []
    for mode in ("adaptive", "fixed"):
        arms = [a for a in family.main if a.id.mode == mode
                and (mode == "adaptive" or a.id.iprime == MAIN_IPRIME)]
        wrora = next((a for a in arms if a.id.enhancement == "wrora"), None)
        if wrora is None:
            continue
        tested += [t for a in arms if a is not wrora
                   if (t := _pair(wrora, a, f"{mode} WRoRa − "
                                  f"{enhancement_name(a.id.enhancement)}")) is not None]
    if not tested:
        return _not_tested(name, family,
                           "no two enhancements with WRoRa among them in one mode")
    return _claim(name, family, tested, delta, _measure(family),
                  f"{_measure(family)}, WRoRa − each other enhancement in the same mode, "
                  "paired by seed")


def claim_adaptive_beats_fixed(family: Family, delta: float) -> Claim:
    """Claim 3: the adaptive switch beats a fixed I′ = 5: adaptive − fixed per enhancement
    that ran in both modes."""
    name = "3. Adaptive beats fixed I′ = 5"
    adaptive = {a.id.enhancement: a for a in family.arms if a.id.mode == "adaptive"}
    fixed = {a.id.enhancement: a for a in family.arms
             if a.id.mode == "fixed" and a.id.iprime == MAIN_IPRIME}
    tested = [t for e in ENHANCEMENTS if e in adaptive and e in fixed
              if (t := _pair(adaptive[e], fixed[e])) is not None]
    if not tested:
        return _not_tested(name, family, "no enhancement in both modes with two seeds each")
    return _claim(name, family, tested, delta, _measure(family),
                  f"{_measure(family)}, adaptive − fixed I′ = 5 per enhancement, paired by "
                  "seed")


def iprime_series(family: Family) -> tuple[str | None, list[Arm], list[int]]:
    """The enhancement with the most fixed I′ values, its fixed arms by I′ and the seeds that
    ran at every one of them (claim 4's data)."""
    by_enh: dict[str, list[Arm]] = {}
    for a in family.arms:
        if a.id.mode == "fixed":
            by_enh.setdefault(a.id.enhancement, []).append(a)
    enh, arms = max(by_enh.items(), key=lambda kv: len(kv[1]), default=(None, []))
    arms = sorted(arms, key=lambda a: a.id.iprime)
    seeds = sorted(set.intersection(*(set(a.seeds) for a in arms))) if arms else []
    return enh, arms, seeds


def on_seeds(arm: Arm, values: Sequence[float], seeds: Sequence[int]) -> list[float]:
    """An arm's per-run values (in `arm.runs` order) restricted to `seeds`."""
    return [v for s, v in zip(arm.seeds, values) if s in seeds]


def friedman(groups: Sequence[Sequence[float]]) -> tuple[float, float]:
    """Friedman's test over repeated measures (`groups[i][j]`: treatment i on block j), as
    `(statistic, p)` (`scipy.stats.friedmanchisquare`); nan without spread."""
    x = np.asarray(groups, np.float64)
    if np.all(x == x[0, 0]):
        return math.nan, 1.0
    test = stats.friedmanchisquare(*x)
    return float(test.statistic), float(test.pvalue)


def claim_iprime(family: Family, delta: float) -> Claim:
    """Claim 4: how long warm start lasts matters (fixed warm start; the enhancement with
    the most I′ values): Friedman's test over the I′ values on the seeds that ran at every
    I′, decided on the primary measure; every pair of I′ values compared, paired by seed,
    for "no variation of δ or more". The papers' measure, Elo, gets its own Friedman test.

    Only the seeds that ran at every I′ count: blocks must be complete, and a seed's Elo is
    centred on its own round robin (`_centred_ratings`)."""
    name = "4. The result varies with I′"
    enh, arms, seeds = iprime_series(family)
    if len(arms) < 3:
        return _not_tested(name, family, "fewer than three I′ values")
    if len(seeds) < 2:
        return _not_tested(name, family, "fewer than two seeds ran at every I′")
    values = [[a.by_seed()[s] for s in seeds] for a in arms]
    stat, p = friedman(values)
    tested = []
    for i, a in enumerate(arms):
        for b in arms[i + 1:]:
            c = compare_paired([b.by_seed()[s] for s in seeds], [a.by_seed()[s] for s in seeds])
            tested.append(Tested(f"I′={b.id.iprime} − I′={a.id.iprime}", c))
    means = ", ".join(f"I′={a.id.iprime}: {100 * np.mean(v):.1f}%"
                      for a, v in zip(arms, values))
    omnibus = f"Friedman χ² = {stat:.2f}, p = {p:.3g} (means {means})"
    out = _claim(name, family, tested, delta, _measure(family),
                 f"{enhancement_name(enh)} fixed, {_measure(family)} per I′ on seeds "
                 f"{', '.join(map(str, seeds))}", (p, omnibus))
    if all(a.elo is not None for a in arms):
        elos = [[a.by_seed("elo")[s] for s in seeds] for a in arms]
        e_stat, e_p = friedman(elos)
        elo_means = ", ".join(f"I′={a.id.iprime}: {np.mean(v):+.0f}"
                              for a, v in zip(arms, elos))
        out = dataclasses.replace(out, papers=f"Elo per I′ ({elo_means}); Friedman χ² = "
                                  f"{e_stat:.2f}, p = {e_p:.3g}")
    if out.verdict == REPRODUCED:  # the omnibus test decided: say so
        out = dataclasses.replace(out, label=f"reproduced: the {_measure(family)} differs "
                                  "between I′ values (Friedman)")
    elif out.verdict == CONTRADICTED:
        out = dataclasses.replace(out, label=f"contradicted: no two I′ values differ by "
                                  f"≥ {100 * delta:.0f} points in the {_measure(family)}")
    return out


CLAIMS = (claim_beats_baseline, claim_wrora_best, claim_adaptive_beats_fixed, claim_iprime)


def claims(study: Sequence[Family], delta: float = DELTA) -> list[Claim]:
    """Every claim on every family (claim 3 only where both modes ran, claim 4 only where
    fixed runs with three or more I′ values did)."""
    return [decide_claim(family, delta) for family in study for decide_claim in CLAIMS]


# --- study.json ----------------------------------------------------------------------------


def num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, 6)


def comparison_json(c: Comparison | None, delta: float | None = DELTA) -> dict | None:
    """A comparison's entry of `study.json`; `delta` None (an Elo comparison, whose unit
    is not the rates' δ): no `seeds_for_delta`."""
    if c is None:
        return None
    out = {"test": c.test, "n": c.n, "diff": num(c.diff), "ci": [num(c.ci[0]),
                                                                   num(c.ci[1])],
           "p": num(c.p), "p_adjusted": num(c.p_adjusted),
           "p_permutation": num(c.p_permutation), "sd": num(c.sd),
           "effect80": num(c.effect80),
           "seeds_for_delta": None if delta is None else num(c.seeds_for(delta))}
    if c.paired:
        out["p_wilcoxon"] = num(c.p_wilcoxon)
        out["welch"] = None if c.welch is None else {
            "diff": num(c.welch.diff), "ci": [num(x) for x in c.welch.ci],
            "p": num(c.welch.p), "effect80": num(c.welch.effect80)}
    return out


def _metric_json(m: MetricSummary) -> dict:
    """Per summary: its mean, interval and per-run values, and its comparison with the
    baseline (`vs_baseline` for the AUC, the primary summary; `<name>_vs_baseline` else)."""
    out = {}
    for name, estimate in m.values.items():
        out.update({name: num(estimate.mean), f"{name}_ci": [num(x) for x in estimate.ci],
                    f"{name}_runs": [num(x) for x in estimate.values]})
    for name, comparison in m.vs_baseline.items():
        out["vs_baseline" if name == "auc" else f"{name}_vs_baseline"] = \
            comparison_json(comparison)
    return out


def arm_json(arm: Arm, sweep: bool = False) -> dict:
    """An arm's entry of `study.json`: the primary measure's keys at the top, each measure
    in full under its name; `sweep`: the arm belongs to the family's I′ sweep."""
    out = {"arm": arm.label, "mode": arm.id.mode, "enhancement": arm.id.enhancement,
           "iprime": arm.id.iprime, "sweep": sweep, "runs": len(arm.runs),
           "seeds": list(arm.seeds),
           "folders": [str(r.path) for r in arm.runs]}
    out.update({k: v for k, v in _metric_json(arm.primary).items()
                if k in ("auc", "auc_ci", "final", "final_ci", "vs_baseline")})
    out.update({name: _metric_json(m) for name, m in arm.metrics.items()})
    out["elo"] = None if arm.elo is None else {
        "mean": num(arm.elo.mean), "ci": [num(x) for x in arm.elo.ci],
        "runs": [num(x) for x in arm.elo.values],
        "vs_baseline": comparison_json(arm.elo_vs_baseline, delta=None)}
    if arm.id.mode == "adaptive":
        out["switch_iterations"] = list(arm.switches)
    out["warm_iterations"] = list(arm.warm_iterations())
    return out


def claim_json(c: Claim) -> dict:
    out = {"claim": c.claim, "family": c.family, "verdict": c.verdict, "label": c.label,
           "evidence": c.evidence, "papers_measure": c.papers}
    if c.decision is not None:
        out["reason"] = c.decision.reason
        out["effect80"] = num(c.decision.effect80)
        out["comparisons"] = [{"name": t.name, **comparison_json(t.comparison),
                               "elo": comparison_json(t.elo, delta=None)}
                              for t in c.decision.tested]
    return out


def study_json(study: Sequence[Family], found: Sequence[Claim], delta: float,
               looks: dict | None = None) -> dict:
    """`study.json`: the families, the claims, and `looks`: `{study folder: [look, ...]}`,
    every analysis each study folder has had (`looks.json`)."""
    return {
        "primary": f"{PRIMARY} ({METRICS[PRIMARY]}): auc and final are optimal-move rates in "
                   "[0, 1]; vs_baseline is the arm minus the baseline",
        "confidence": CONFIDENCE, "alpha": ALPHA, "power": POWER, "delta": delta,
        "tests": "95% t-interval of each mean; differences paired by seed (paired t-test, "
                 "its interval, sign-flip permutation p, Wilcoxon signed-rank p), with Welch's "
                 "unpaired test as a secondary column; effect80: the smallest difference the "
                 "test detects with 80% power at alpha; seeds_for_delta: the seeds (pairs) "
                 "80% power at delta needs; p_adjusted: Benjamini-Hochberg over a family's "
                 "warm-start arms per measure and comparison (the main comparison's and the "
                 "I' sweep's apart), and within a claim; claims decided by one rule "
                 "(docs/experiments.md, 'The verdict rule')",
        "families": [family_json(f, delta) for f in study],
        "claims": [claim_json(c) for c in found],
        "looks": looks or {},
    }


def board_of(run: Run) -> str:
    """`"6×7"`: the run's board where its game settings differ from the game's registered
    ones (a size study's families), "" where they do not or the game is not registered."""
    spec = registry.find(run.id.game)
    params = dict(run.config.game.params)
    if spec is None or {**spec.params, **params} == dict(spec.params):
        return ""
    rows, cols = game_of(run).board_shape
    return f"{rows}×{cols}"


def family_json(f: Family, delta: float = DELTA) -> dict:
    swept = f.swept
    return {"game": f.game, **({"board": f.board} if f.board else {}),
            **({"study": f.study} if f.study else {}),
            "departures": list(f.departures),
            "auc_iterations": f.auc_iterations, "final_iteration": f.final_iteration,
            "games_per_iteration": f.games_per_iteration,
            "spread": num(f.spread()), "seeds_for_delta": num(f.seeds_for(delta)),
            "baseline": None if f.baseline is None else arm_json(f.baseline),
            "arms": [arm_json(a, a.id in swept) for a in f.arms]}


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
