"""A registered design's measures, as plug-ins: each is a small object that states its
values per seed for an arm, its unit and δ, the Benjamini–Hochberg group it is adjusted in,
and whether it decides; compute to strength adds its time-to-event form. A design names
its measures (`registered.Design.measures`, `{name: Measure}`); the analyses read every
value through them, so a new measure of a number per run is one class here and an entry in
a design. Pure Python over the model (`model.Family`); no JAX, no paths.

The families the registered studies use:

- `FinalRate`: an optimal-move rate at the run's last iteration (or an earlier one);
- `Auc`: the mean rate over iterations 1 … k;
- `FinalElo`: the final networks' Bayesian Elo; `EloAt`: the Elo of the networks of an
  earlier iteration (the family the analysis hands in is that horizon's round robin);
- `ComputeToStep`: compute (estimated or measured seconds) and iterations to each step of
  a ladder of rates, as times to an event (`strength.time_to_strength`);
- `Growth`: an effect's growth from a smaller board to a larger one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from warmjax.analysis import strength, survival
from warmjax.analysis.model import Arm, Family, area, final


@dataclasses.dataclass(frozen=True)
class Measure:
    """A registered measure.

    Attributes:
      title: what it is, in words (the report's heading).
      delta: the smallest difference that matters, in `unit`: "points" for rates, "Elo",
        or "speed-up" for compute to strength; None where the analysis's own rule holds.
      unit: as above.
      group: the Benjamini–Hochberg group its comparisons are adjusted in, with every
        other measure of the design in the same group; "" (the default): its own.
      decides: its comparisons get a verdict; False: reported beside, unadjusted, deciding
        nothing (a registration's primary measures decide; a secondary one may or may not,
        as its registration says).
      iterations: the window of an area under the curve (`Auc`).
      resamples: a bootstrap interval's resamples (`ComputeToStep`).
    """

    title: str
    delta: float | None = None
    unit: str = "points"
    group: str = ""
    decides: bool = True
    iterations: int | None = None
    resamples: int | None = None

    def values(self, arm: Arm, iterations: int) -> dict[int, float]:
        """`{seed: value}` of the arm's runs, each run `iterations` long as registered.

        Raises:
          TypeError: the measure is not one number per run.
        """
        raise TypeError(f"{self.title}: not one number per run")


@dataclasses.dataclass(frozen=True)
class FinalRate(Measure):
    """The rate of `metric` (a key of `model.METRICS`) at the registered last iteration (or
    at `at`, where given): the last probed iteration up to it."""

    metric: str = "policy"
    at: int | None = None

    def values(self, arm: Arm, iterations: int) -> dict[int, float]:
        it = self.at or iterations
        return {r.id.seed: float(final(r, self.metric, it)) for r in arm.runs}


@dataclasses.dataclass(frozen=True)
class Auc(Measure):
    """The mean rate of `metric` over the probed iterations 1 … `iterations`."""

    metric: str = "policy"

    def values(self, arm: Arm, iterations: int) -> dict[int, float]:
        return {r.id.seed: area(r, self.metric, self.window) for r in arm.runs}

    @property
    def window(self) -> int:
        """k, the last iteration of the window.

        Raises:
          ValueError: the measure names none.
        """
        if self.iterations is None:
            raise ValueError(f"{self.title}: an AUC needs its iterations")
        return self.iterations

    def at(self, k: int) -> Auc:
        """The same area over iterations 1 … k (a robustness check's window)."""
        return dataclasses.replace(self, iterations=k)


@dataclasses.dataclass(frozen=True)
class FinalElo(Measure):
    """The final networks' Bayesian Elo, each relative to its seed block (empty where the
    family was read without a round robin)."""

    unit: str = "Elo"

    def values(self, arm: Arm, iterations: int) -> dict[int, float]:
        return arm.by_seed("elo")


@dataclasses.dataclass(frozen=True)
class EloAt(FinalElo):
    """The Elo of the networks of iteration `horizon`, from that iteration's round robin:
    read from the family the analysis built with it."""

    horizon: int = 0


@dataclasses.dataclass(frozen=True)
class ComputeToStep(Measure):
    """Compute to each step of a ladder of rates, as times to an event: per step, the
    log-rank test and the speed-up RMST(baseline) / RMST(arm) with a seed-bootstrap interval
    (`strength.time_to_strength`), δ the smallest speed-up worth finding.

    Attributes:
      axes: the time axes the record keeps ("iterations", "compute").
    """

    delta: float | None = None
    unit: str = "speed-up"
    axes: tuple[str, ...] = ("iterations", "compute")

    @property
    def bootstrap(self) -> int:
        """The bootstrap's resamples: the measure's, else `survival.RESAMPLES`."""
        return self.resamples or survival.RESAMPLES

    def record(self, family: Family, curves: Mapping, ladder: strength.Ladder | None = None,
               axes: Sequence[str] | None = None) -> dict | None:
        """The family's time-to-strength record on `curves` (`{run path: ComputeCurve}`),
        on the board's ladder (None: the family's), keeping `axes` (None: the measure's)
        where the record has them; None where it has none."""
        r = strength.time_to_strength(family, curves, ladder, self.bootstrap)
        if r is None:
            return None
        keep = self.axes if axes is None else axes
        r["axes"] = {a: block for a, block in r["axes"].items() if a in keep}
        return r if r["axes"] else None

    def passages(self, arm: Arm, metric: str, step: float, curves: Mapping,
                 hold: int = 1) -> dict:
        """The time-to-event form: `{seed: strength.Passage}` of the arm's runs at the step
        on the compute axis (`strength.passages`)."""
        return strength.passages(arm, metric, step, "compute", curves, hold=hold)


@dataclasses.dataclass(frozen=True)
class Growth(Measure):
    """An effect's growth with the board: the `larger` board's against the `smaller`'s,
    the effect being the arm of role `arm` against the arm of role `reference`, per seed.
    δ is in `unit` (the leads' Elo); a registered design names at most one."""

    larger: str = ""
    smaller: str = ""
    arm: str = "adaptive"
    reference: str = "baseline"

    @property
    def boards(self) -> tuple[str, str]:
        return self.larger, self.smaller

    def leads(self, families: Mapping[str, Family],
              roles: Callable[[Family], Mapping[str, Arm]]) -> dict[str, list[float]] | None:
        """Per board (larger, then smaller): the arm's Elo lead over the reference's on each
        seed both rated, the arms found by the design's `roles` in `{board: Family}`. None
        where a board lacks either arm or either board has fewer than two leads."""
        out = {}
        for name in self.boards:
            arms = roles(families[name])
            arm, base = arms.get(self.arm), arms.get(self.reference)
            if arm is None or base is None:
                return None
            a, b = arm.by_seed("elo"), base.by_seed("elo")
            out[name] = [a[s] - b[s] for s in sorted(set(a) & set(b))]
        return out if min(len(v) for v in out.values()) >= 2 else None

    def speedup(self, families: Mapping[str, Family],
                roles: Callable[[Family], Mapping[str, Arm]], compute: ComputeToStep,
                curves: Mapping) -> tuple[dict[str, float], survival.Growth] | None:
        """The larger board's speed-up over the smaller's at each board's first policy-head
        step on the compute axis (`survival.speedup_growth`, the compute measure's
        bootstrap), each board's runs stopped at its shortest budget: the steps by board and
        the growth. None where a board has no ladder, lacks either arm, or has a run with
        no time on `curves`."""
        boards, steps = [], {}
        for name in self.boards:
            family, arms = families[name], roles(families[name])
            ladder = strength.ladder_for(family)
            if ladder is None or self.arm not in arms or self.reference not in arms:
                return None
            step = ladder.policy[0]
            ref = compute.passages(arms[self.reference], "policy", step, curves)
            warm = compute.passages(arms[self.arm], "policy", step, curves)
            if ref is None or warm is None:
                return None
            tau = min(curves[r.path].budget for a in family.all_arms() for r in a.runs)
            boards.append((ref, warm, tau))
            steps[name] = step
        return steps, survival.speedup_growth(boards[0], boards[1], compute.bootstrap)


def groups(measures: Mapping[str, Measure]) -> dict[str, list[str]]:
    """The design's Benjamini–Hochberg groups: `{group: its measures' names}`, in the
    design's order; a measure without a group is a group of its own."""
    out: dict[str, list[str]] = {}
    for name, m in measures.items():
        out.setdefault(m.group or name, []).append(name)
    return out
