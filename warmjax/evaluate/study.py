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

Per arm, over its seeds: the mean with a 95% t-interval (`scipy.stats.ttest_1samp`); against
the family's baseline: the difference of means with Welch's 95% interval and p-value
(`scipy.stats.ttest_ind(equal_var=False)`), a permutation p-value (`scipy.stats.
permutation_test`, exact where the seeds allow), and the smallest difference the study could
have detected (the interval's half-width). The decisions of the claims (`claims`) use the
policy head's `auc` (the primary measure: what self-play has taught the network, free of the
search's budget), p-values adjusted by Benjamini–Hochberg where a claim takes several
comparisons (`scipy.stats.false_discovery_control`), and `delta`, the smallest gain worth
finding, for calling a null result a contradiction.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

from warmjax.evaluate.tables import Tournament, group_runs
from warmjax.search.variants import ENHANCEMENTS
from warmjax.train.run_folder import Run
from warmjax.train.run_variant import RunVariant, enhancement_name, game_name

CONFIDENCE = 0.95
ALPHA = 0.05
METRICS = {"policy": "oracle_policy", "search": "oracle_optimal"}  # primary first
MAIN_IPRIME = 5  # the papers' fixed I′ (claim 3): the main comparison's fixed arms
PRIMARY = "policy"
DELTA = 0.02  # 2 percentage points of the policy head's optimal-move rate
PERMUTATIONS = 20_000  # resamples where the exact permutation distribution is larger

REPRODUCED, CONTRADICTED, UNRESOLVED, NOT_TESTED = (
    "reproduced", "contradicted", "not resolvable at this power", "not tested")


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
      diff: the difference of the means.
      ci: Welch's 95% interval of the difference.
      p: Welch's two-sided p-value.
      p_permutation: the two-sided permutation p-value of the difference of means.
      detectable: the interval's half-width, the smallest difference this comparison could
        have told from zero.
      p_adjusted: `p` adjusted by Benjamini–Hochberg over the family's warm-start arms (the
        same measure and comparison; `families` sets it); nan where not adjusted.
    """

    diff: float
    ci: tuple[float, float]
    p: float
    p_permutation: float
    detectable: float
    p_adjusted: float = math.nan

    @property
    def significant(self) -> bool:
        return self.p < ALPHA


def _mean_difference(x, y, axis):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def compare(values: Sequence[float], reference: Sequence[float]) -> Comparison:
    """Welch's t-test and a permutation test of `values` against `reference` (at least two
    of each)."""
    a, b = np.asarray(values, np.float64), np.asarray(reference, np.float64)
    if a.size < 2 or b.size < 2:
        raise ValueError(f"a comparison needs at least two runs per arm, got {a.size} and "
                         f"{b.size}")
    if np.all(a == a[0]) and np.all(b == b[0]):  # no spread: nothing to test against
        return _certain(float(a.mean() - b.mean()))
    return _tested(a, b, stats.ttest_ind(a, b, equal_var=False), _mean_difference,
                   "independent")


def _paired_mean_difference(x, y, axis):
    return np.mean(x - y, axis=axis)


def compare_paired(values: Sequence[float], reference: Sequence[float]) -> Comparison:
    """A paired t-test (`scipy.stats.ttest_rel`) and a sign-flip permutation test of
    `values` against `reference`, matched by position (at least two pairs)."""
    a, b = np.asarray(values, np.float64), np.asarray(reference, np.float64)
    if a.size != b.size or a.size < 2:
        raise ValueError(f"a paired comparison needs at least two matched pairs, got {a.size} "
                         f"and {b.size} values")
    d = a - b
    if np.all(d == d[0]):
        return _certain(float(d.mean()))
    return _tested(a, b, stats.ttest_rel(a, b), _paired_mean_difference, "samples")


def _certain(diff: float) -> Comparison:
    """Every value equal (or every pair's difference): no spread to test against."""
    p = 1.0 if diff == 0 else 0.0
    return Comparison(diff, (diff, diff), p, p, 0.0)


def _tested(a: np.ndarray, b: np.ndarray, test, statistic, permutation_type: str
            ) -> Comparison:
    """A Comparison from a scipy t-test result and the matching permutation test."""
    low, high = test.confidence_interval(CONFIDENCE)
    permutation = stats.permutation_test(
        (a, b), statistic, permutation_type=permutation_type, vectorized=True,
        n_resamples=PERMUTATIONS, alternative="two-sided", random_state=0)
    return Comparison(float(statistic(a, b, axis=0)), (float(low), float(high)),
                      float(test.pvalue), float(permutation.pvalue), float((high - low) / 2))


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
                         "train with oracle.every=1")
    return float(np.mean(points))


def final(run: Run, metric: str, iteration: int) -> float:
    """The rate at the last probed iteration up to `iteration`."""
    points = [v for it, v in sorted(curve(run, metric).items()) if it <= iteration]
    if not points:
        raise ValueError(f"{run.path} logged no perfect-play probe up to iteration {iteration}")
    return points[-1]


# --- arms and families ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MetricSummary:
    """One measure of one arm: `auc` and `final` over seeds, and against the baseline."""

    auc: Estimate
    final: Estimate
    auc_vs_baseline: Comparison | None
    final_vs_baseline: Comparison | None


@dataclasses.dataclass(frozen=True)
class Arm:
    """The runs of one variant (all seeds) and what the study measured of them.

    Attributes:
      variant: the arm (`RunVariant` without seed).
      runs: its runs, by seed.
      metrics: `{"policy" | "search": MetricSummary}`.
      elo: the final networks' Bayesian Elo relative to their seed block's mean
        (`_centred_ratings`), over seeds (None without a tournament).
      elo_vs_baseline: against the baseline's, paired by seed (`compare_paired`).
      switches: adaptive arms: each run's switch iteration (None: never switched).
    """

    variant: RunVariant
    runs: tuple[Run, ...]
    metrics: dict
    elo: Estimate | None = None
    elo_vs_baseline: Comparison | None = None
    switches: tuple[int | None, ...] = ()

    @property
    def label(self) -> str:
        return self.variant.label()

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(r.variant.seed for r in self.runs)

    @property
    def primary(self) -> MetricSummary:
        return self.metrics[PRIMARY]

    def warm_iterations(self) -> tuple[int, ...]:
        """How many iterations each run self-played with the enhancement."""
        return tuple(sum(row.warmstart_active for row in run.metrics) for run in self.runs)


@dataclasses.dataclass(frozen=True)
class Family:
    """One game and set of departures: a baseline arm and the warm-start arms."""

    game: str
    departures: tuple[str, ...]
    auc_iterations: int  # k
    final_iteration: int
    games_per_iteration: int
    baseline: Arm | None
    arms: tuple[Arm, ...]  # the warm-start arms, in variant order

    @property
    def title(self) -> str:
        text = game_name(self.game)
        if self.departures:
            text += " with " + ", ".join(self.departures)
        return text

    def all_arms(self) -> tuple[Arm, ...]:
        return ((self.baseline,) if self.baseline else ()) + self.arms

    @property
    def swept(self) -> set[RunVariant]:
        """The I′ sweep's variants: fixed arms at I′ ≠ 5 of an enhancement that also ran
        at 5."""
        return _sweep_variants(self.arms)

    @property
    def sweep(self) -> tuple[Arm, ...]:
        """The I′ sweep's arms."""
        swept = self.swept
        return tuple(a for a in self.arms if a.variant in swept)

    @property
    def main(self) -> tuple[Arm, ...]:
        """The main comparison's warm-start arms (adaptive, and fixed at I′ = 5 or of an
        enhancement without an I′ = 5 arm)."""
        swept = self.swept
        return tuple(a for a in self.arms if a.variant not in swept)


def _sweep_variants(arms: Sequence[Arm]) -> set[RunVariant]:
    centred = {a.variant.enhancement for a in arms
               if a.variant.mode == "fixed" and a.variant.iprime == MAIN_IPRIME}
    return {a.variant for a in arms if a.variant.mode == "fixed"
            and a.variant.iprime != MAIN_IPRIME and a.variant.enhancement in centred}


def _elo_by_variant(tournaments: Sequence[Tournament]) -> dict[RunVariant, float]:
    """The tournaments' network ratings by run variant with seed (unique within a study; a
    tournament played before the study's folders moved still matches). A family's runs are
    expected in one tournament: ratings of different tournaments are not on one scale."""
    return {RunVariant.from_info(t.players[name]): rating
            for t in tournaments for name, rating in zip(t.names, t.ratings)
            if t.players[name].get("kind") == "network"}


def families(runs: Sequence[Run], tournaments: Sequence[Tournament] = (),
             auc_iterations: int | None = None) -> list[Family]:
    """The study's families, each with its arms' statistics.

    Args:
      runs: the study's run folders (read).
      tournaments: round robins of their final networks, for the Elo columns.
      auc_iterations: k of the area under the curve; None: half the family's common
        iterations, rounded up.

    Raises:
      ValueError: a run without the probe, or k beyond the runs' iterations.
    """
    ratings = _elo_by_variant(tournaments)
    by_family = group_runs(runs, key=lambda r: (r.variant.game, r.variant.departures))
    out = []
    for (game, departures), members in by_family.items():
        common = min(r.iterations for r in members)
        k = auc_iterations or math.ceil(common / 2)
        if k > common or k < 1:
            raise ValueError(f"auc_iterations {k} is outside 1-{common}, the iterations every "
                             f"{game_name(game)} run completed")
        arms_runs = group_runs(members)
        centred = _centred_ratings(members, ratings)
        measured = {}
        for variant, arm_runs in arms_runs.items():
            values = {m: ([area(r, m, k) for r in arm_runs], [final(r, m, common)
                                                              for r in arm_runs])
                      for m in METRICS}
            elos = [centred.get(r.variant) for r in arm_runs]
            measured[variant] = (arm_runs, values, {r.variant.seed: e for r, e in
                                                    zip(arm_runs, elos)}
                                 if centred and all(e is not None for e in elos) else None)
        base_key = next((v for v in measured if v.is_baseline), None)
        base = measured.get(base_key)
        arms = []
        for variant, (arm_runs, values, elos) in measured.items():
            metrics = {}
            for m, (aucs, finals) in values.items():
                against = variant != base_key and base is not None
                metrics[m] = MetricSummary(
                    Estimate.of(aucs), Estimate.of(finals),
                    _maybe_compare(aucs, base[1][m][0]) if against else None,
                    _maybe_compare(finals, base[1][m][1]) if against else None)
            elo = Estimate.of(list(elos.values())) if elos else None
            elo_vs = None
            if elos and base is not None and base[2] and variant != base_key:
                seeds = [s for s in elos if s in base[2]]
                if len(seeds) >= 2:
                    elo_vs = compare_paired([elos[s] for s in seeds], [base[2][s] for s in seeds])
            switches = tuple(_switch(r) for r in arm_runs) if variant.mode == "adaptive" else ()
            arms.append(Arm(variant, tuple(arm_runs), metrics, elo, elo_vs, switches))
        baseline = next((a for a in arms if a.variant.is_baseline), None)
        warm = [a for a in arms if not a.variant.is_baseline]
        swept = _sweep_variants(warm)  # adjusted on its own: its own question (claim 4)
        by_variant = {}
        for part in ([a for a in warm if a.variant in swept],
                     [a for a in warm if a.variant not in swept]):
            by_variant.update((a.variant, a) for a in _with_adjusted(part))
        out.append(Family(game, departures, k, common, members[0].config.train.games,
                          baseline, tuple(by_variant[a.variant] for a in warm)))
    return out


def _with_adjusted(arms: Sequence[Arm]) -> tuple[Arm, ...]:
    """The arms with each comparison against the baseline given its Benjamini–Hochberg p
    over the arms (one adjustment per measure and comparison: AUC, final, Elo)."""
    if not arms:
        return ()
    metrics = [dict(a.metrics) for a in arms]
    for m in METRICS:
        for field in ("auc_vs_baseline", "final_vs_baseline"):
            tested = [i for i, a in enumerate(arms) if getattr(a.metrics[m], field) is not None]
            p_adj = adjusted([getattr(arms[i].metrics[m], field).p for i in tested])
            for i, p in zip(tested, p_adj):
                summary = metrics[i][m]
                metrics[i][m] = dataclasses.replace(summary, **{field: dataclasses.replace(
                    getattr(summary, field), p_adjusted=p)})
    elo_tested = [i for i, a in enumerate(arms) if a.elo_vs_baseline is not None]
    elo_p = dict(zip(elo_tested, adjusted([arms[i].elo_vs_baseline.p for i in elo_tested])))
    return tuple(dataclasses.replace(
        a, metrics=metrics[i],
        elo_vs_baseline=(dataclasses.replace(a.elo_vs_baseline, p_adjusted=elo_p[i])
                         if i in elo_p else a.elo_vs_baseline))
        for i, a in enumerate(arms))


def _centred_ratings(runs: Sequence[Run], ratings: dict[RunVariant, float]
                     ) -> dict[RunVariant, float]:
    """Each rated run's Elo minus the mean Elo of the family's rated runs with its seed.

    A study's round robin meets within each seed (`--pairing seed`); the seed blocks are
    tied to each other only through the anchors, so their offsets are poorly determined.
    Within a block every arm has one network, so ratings relative to the block's mean
    compare arms free of that offset (and a full round robin loses nothing by it)."""
    rated = [r for r in runs if r.variant in ratings]
    blocks: dict[int | None, list[float]] = {}
    for r in rated:
        blocks.setdefault(r.variant.seed, []).append(ratings[r.variant])
    return {r.variant: ratings[r.variant] - float(np.mean(blocks[r.variant.seed]))
            for r in rated}


def _maybe_compare(values, reference) -> Comparison | None:
    return compare(values, reference) if len(values) >= 2 and len(reference) >= 2 else None


def _switch(run: Run) -> int | None:
    last = run.last
    return last.switch_iteration if last is not None and last.switch_iteration >= 1 else None


# --- the claims ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Claim:
    """One of the papers' claims, decided on one family."""

    claim: str
    family: str
    verdict: str
    evidence: str


def _pct(x: float) -> str:
    return f"{100 * x:+.1f}"


def _span(c: Comparison) -> str:
    return (f"{_pct(c.diff)} points [{_pct(c.ci[0])}, {_pct(c.ci[1])}], p = {c.p:.3g}")


def claim_beats_baseline(family: Family, delta: float) -> Claim:
    """Claim 1: warm start beats the baseline (some warm-start arm of the main comparison
    learns faster)."""
    name = "1. Warm start beats the baseline"
    tested = [a for a in family.main if a.primary.auc_vs_baseline is not None]
    if family.baseline is None or not tested:
        return Claim(name, family.title, NOT_TESTED, "no baseline or no warm-start arm with "
                     "two seeds")
    p_adj = adjusted([a.primary.auc_vs_baseline.p for a in tested])
    better = [(a, p) for a, p in zip(tested, p_adj)
              if p < ALPHA and a.primary.auc_vs_baseline.diff > 0]
    worse = [(a, p) for a, p in zip(tested, p_adj)
             if p < ALPHA and a.primary.auc_vs_baseline.diff < 0]
    best = max(tested, key=lambda a: a.primary.auc_vs_baseline.diff)
    c = best.primary.auc_vs_baseline
    summary = (f"policy-head AUC (iterations 1-{family.auc_iterations}) vs baseline, "
               f"{len(tested)} arms, BH-adjusted p; best arm {best.label}: {_span(c)}")
    if better:
        arms = ", ".join(f"{a.label} (adj. p = {p:.3g})" for a, p in better)
        return Claim(name, family.title, REPRODUCED, f"{summary}; better: {arms}")
    if worse or all(a.primary.auc_vs_baseline.ci[1] < delta for a in tested):
        why = ("; worse: " + ", ".join(f"{a.label} (adj. p = {p:.3g})" for a, p in worse)
               if worse else f"; every arm's interval lies below +{100 * delta:.0f} points")
        return Claim(name, family.title, CONTRADICTED, summary + why)
    return Claim(name, family.title, UNRESOLVED,
                 f"{summary}; detectable difference ±{100 * c.detectable:.1f} points")


def _pick_mode(family: Family) -> tuple[str, list[Arm]]:
    for mode in ("adaptive", "fixed"):
        arms = [a for a in family.arms if a.variant.mode == mode
                and (mode == "adaptive" or a.variant.iprime == MAIN_IPRIME)]
        if len({a.variant.enhancement for a in arms}) >= 2:
            return mode, arms
    return "", []


def claim_wrora_best(family: Family, delta: float) -> Claim:
    """Claim 2: WRoRa is the best enhancement (adaptive arms; else fixed I′ = 5)."""
    name = "2. WRoRa is the best enhancement"
    mode, arms = _pick_mode(family)
    wrora = next((a for a in arms if a.variant.enhancement == "wrora"), None)
    if wrora is None:
        return Claim(name, family.title, NOT_TESTED,
                     "no two enhancements with WRoRa among them in one mode")
    others = [a for a in arms if a is not wrora and len(a.runs) >= 2]
    if len(wrora.runs) < 2 or not others:
        return Claim(name, family.title, NOT_TESTED, "fewer than two seeds per arm")
    comps = [compare(wrora.primary.auc.values, a.primary.auc.values) for a in others]
    p_adj = adjusted([c.p for c in comps])
    rows = "; ".join(f"vs {enhancement_name(a.variant.enhancement)} {_span(c)}"
                     for a, c in zip(others, comps))
    summary = f"{mode} arms, policy-head AUC, WRoRa minus each other: {rows}"
    if all(p < ALPHA and c.diff > 0 for c, p in zip(comps, p_adj)):
        return Claim(name, family.title, REPRODUCED, summary)
    beaten_by = [a for a, c, p in zip(others, comps, p_adj) if p < ALPHA and c.diff < 0]
    if beaten_by:
        return Claim(name, family.title, CONTRADICTED, summary + "; better than WRoRa: "
                     + ", ".join(enhancement_name(a.variant.enhancement) for a in beaten_by))
    return Claim(name, family.title, UNRESOLVED, summary)


def claim_adaptive_beats_fixed(family: Family, delta: float) -> Claim:
    """Claim 3: the adaptive switch beats a fixed I′ = 5 (the enhancements in both modes,
    their runs pooled)."""
    name = "3. Adaptive beats fixed I′ = 5"
    adaptive = {a.variant.enhancement: a for a in family.arms if a.variant.mode == "adaptive"}
    fixed = {a.variant.enhancement: a for a in family.arms
             if a.variant.mode == "fixed" and a.variant.iprime == MAIN_IPRIME}
    both = [e for e in ENHANCEMENTS if e in adaptive and e in fixed
            and len(adaptive[e].runs) >= 2 and len(fixed[e].runs) >= 2]
    if not both:
        return Claim(name, family.title, NOT_TESTED,
                     "no enhancement in both modes with two seeds each")
    pooled = compare([v for e in both for v in adaptive[e].primary.auc.values],
                     [v for e in both for v in fixed[e].primary.auc.values])
    per = "; ".join(f"{enhancement_name(e)} {_span(compare(adaptive[e].primary.auc.values, fixed[e].primary.auc.values))}"
                    for e in both)
    summary = f"policy-head AUC, adaptive minus fixed, pooled over {len(both)} enhancements: " \
              f"{_span(pooled)} (per enhancement: {per})"
    if pooled.significant and pooled.diff > 0:
        return Claim(name, family.title, REPRODUCED, summary)
    if (pooled.significant and pooled.diff < 0) or pooled.ci[1] < delta:
        return Claim(name, family.title, CONTRADICTED, summary)
    return Claim(name, family.title, UNRESOLVED,
                 f"{summary}; detectable ±{100 * pooled.detectable:.1f} points")


def iprime_sweep(family: Family) -> tuple[str | None, list[Arm], list[int]]:
    """The enhancement with the most fixed I′ values, its fixed arms by I′ and the seeds that
    ran at every one of them (claim 4's data)."""
    by_enh: dict[str, list[Arm]] = {}
    for a in family.arms:
        if a.variant.mode == "fixed":
            by_enh.setdefault(a.variant.enhancement, []).append(a)
    enh, arms = max(by_enh.items(), key=lambda kv: len(kv[1]), default=(None, []))
    arms = sorted(arms, key=lambda a: a.variant.iprime)
    seeds = sorted(set.intersection(*(set(a.seeds) for a in arms))) if arms else []
    return enh, arms, seeds


def on_seeds(arm: Arm, values: Sequence[float], seeds: Sequence[int]) -> list[float]:
    """An arm's per-run values (in `arm.runs` order) restricted to `seeds`."""
    return [v for s, v in zip(arm.seeds, values) if s in seeds]


def claim_iprime(family: Family, delta: float) -> Claim:
    """Claim 4: the final networks' Elo varies with I′ (fixed warm start), by a
    Kruskal–Wallis test over the I′ groups of the enhancement with the most I′ values.

    Only the seeds that ran at every I′ count: a seed's Elo is centred on its own round
    robin (`_centred_ratings`), whose players differ between seeds with and without the
    sweep (e.g. I′ = 5 in the main comparison has more seeds than the sweep)."""
    name = "4. Elo varies with I′"
    enh, arms, seeds = iprime_sweep(family)
    if len(arms) < 3:
        return Claim(name, family.title, NOT_TESTED, "fewer than three I′ values")
    if len(seeds) < 2:
        return Claim(name, family.title, NOT_TESTED, "fewer than two seeds ran at every I′")
    use_elo = all(a.elo is not None for a in arms)  # set only where every run was rated
    values = [on_seeds(a, a.elo.values if use_elo else a.primary.final.values, seeds)
              for a in arms]
    test = stats.kruskal(*values)
    means = ", ".join(f"I′={a.variant.iprime}: "
                      + (f"{np.mean(v):.0f}" if use_elo else f"{100 * np.mean(v):.1f}%")
                      for a, v in zip(arms, values))
    what = "Elo" if use_elo else "final policy-head rate (no tournament)"
    summary = (f"{enhancement_name(enh)}, {what} per I′ ({means}; seeds "
               f"{', '.join(map(str, seeds))}); Kruskal–Wallis H = {test.statistic:.2f}, "
               f"p = {test.pvalue:.3g}")
    return Claim(name, family.title, REPRODUCED if test.pvalue < ALPHA else UNRESOLVED, summary)


CLAIMS = (claim_beats_baseline, claim_wrora_best, claim_adaptive_beats_fixed, claim_iprime)


def claims(study: Sequence[Family], delta: float = DELTA) -> list[Claim]:
    """Every claim on every family (claim 3 only where both modes ran, claim 4 only where
    fixed runs with three or more I′ values did)."""
    return [decide(family, delta) for family in study for decide in CLAIMS]


# --- study.json ----------------------------------------------------------------------------


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, 6)


def _comparison_json(c: Comparison | None) -> dict | None:
    if c is None:
        return None
    return {"diff": _num(c.diff), "ci": [_num(c.ci[0]), _num(c.ci[1])], "p": _num(c.p),
            "p_adjusted": _num(c.p_adjusted), "p_permutation": _num(c.p_permutation),
            "detectable": _num(c.detectable)}


def _metric_json(m: MetricSummary) -> dict:
    return {"auc": _num(m.auc.mean), "auc_ci": [_num(x) for x in m.auc.ci],
            "auc_runs": [_num(x) for x in m.auc.values],
            "final": _num(m.final.mean), "final_ci": [_num(x) for x in m.final.ci],
            "final_runs": [_num(x) for x in m.final.values],
            "vs_baseline": _comparison_json(m.auc_vs_baseline),
            "final_vs_baseline": _comparison_json(m.final_vs_baseline)}


def arm_json(arm: Arm, sweep: bool = False) -> dict:
    """An arm's entry of `study.json`: the primary measure's keys at the top, each measure
    in full under its name; `sweep`: the arm belongs to the family's I′ sweep."""
    out = {"arm": arm.label, "mode": arm.variant.mode, "enhancement": arm.variant.enhancement,
           "iprime": arm.variant.iprime, "sweep": sweep, "runs": len(arm.runs),
           "seeds": list(arm.seeds),
           "folders": [str(r.path) for r in arm.runs]}
    out.update({k: v for k, v in _metric_json(arm.primary).items()
                if k in ("auc", "auc_ci", "final", "final_ci", "vs_baseline")})
    out.update({name: _metric_json(m) for name, m in arm.metrics.items()})
    out["elo"] = None if arm.elo is None else {
        "mean": _num(arm.elo.mean), "ci": [_num(x) for x in arm.elo.ci],
        "runs": [_num(x) for x in arm.elo.values],
        "vs_baseline": _comparison_json(arm.elo_vs_baseline)}
    if arm.variant.mode == "adaptive":
        out["switch_iterations"] = list(arm.switches)
    out["warm_iterations"] = list(arm.warm_iterations())
    return out


def study_json(study: Sequence[Family], found: Sequence[Claim], delta: float) -> dict:
    return {
        "primary": f"{PRIMARY} ({METRICS[PRIMARY]}): auc and final are optimal-move rates in "
                   "[0, 1]; vs_baseline is the arm minus the baseline",
        "confidence": CONFIDENCE, "alpha": ALPHA, "delta": delta,
        "tests": "95% t-interval of each mean; Welch's t-test and interval for differences; "
                 "permutation p of the difference of means; p_adjusted: Benjamini-Hochberg over a "
                 "family's warm-start arms per measure and comparison (the main comparison's "
                 "and the I' sweep's apart), and within a claim",
        "families": [family_json(f) for f in study],
        "claims": [dataclasses.asdict(c) for c in found],
    }


def family_json(f: Family) -> dict:
    swept = f.swept
    return {"game": f.game, "departures": list(f.departures),
            "auc_iterations": f.auc_iterations, "final_iteration": f.final_iteration,
            "games_per_iteration": f.games_per_iteration,
            "baseline": None if f.baseline is None else arm_json(f.baseline),
            "arms": [arm_json(a, a.variant in swept) for a in f.arms]}
