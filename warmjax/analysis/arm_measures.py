"""Measures of a study's arms that are not learning curves, added to its report on request
(`python -m warmjax.report --study ... --measure selfplay_speed`).

Each is one entry of `MEASURES`: how the record (`report.study_record`) states it for one
family, from the model (`model.Family`), and how the report draws its table from that entry
alone. A new one is a function for each and its entry here; the record and the report find
it by name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from warmjax.analysis import record, stats
from warmjax.analysis.model import Family
from warmjax.analysis.stats import Estimate
from warmjax.analysis.study_tables import estimate_text, interval_text
from warmjax.markdown import table


@dataclasses.dataclass(frozen=True)
class ArmMeasure:
    """A number per run, stated per arm and against the baseline (paired by seed).

    Attributes:
      title: the report's heading for it.
      of: `(family) -> entry`: its record entry, plain JSON.
      markdown: `(entry) -> str`: its table, from that entry alone.
    """

    title: str
    of: Callable[[Family], dict]
    markdown: Callable[[Mapping], str]


# --- self-play speed ---------------------------------------------------------------------------


def selfplay_speed(run, games_per_iteration: int) -> float | None:
    """A run's self-play moves per wall second over its whole run: the moves its self-play
    games made (games × mean plies, per iteration) over the seconds self-play took (None
    where the run logged no self-play time)."""
    rows = [r for r in run.metrics if r.seconds_selfplay]
    if not rows:
        return None
    moves = sum(games_per_iteration * r.selfplay_mean_plies for r in rows)
    return moves / sum(r.seconds_selfplay for r in rows)


def selfplay_speed_json(family: Family) -> dict:
    """Per arm: each run's self-play moves per second, their mean with its 95% interval,
    and the arm minus the baseline, paired by seed."""
    def by_seed(arm) -> dict[int, float]:
        speeds = {r.id.seed: selfplay_speed(r, family.games_per_iteration) for r in arm.runs}
        return {s: v for s, v in speeds.items() if v is not None}

    base = by_seed(family.baseline) if family.baseline is not None else {}
    arms = []
    for arm in family.all_arms():
        mine = by_seed(arm)
        e = Estimate.of(list(mine.values()))
        vs = None if arm is family.baseline else stats.compare_by_seed(mine, base)
        arms.append({"arm": arm.label, "runs": {str(s): record.exact(v) for s, v in mine.items()},
                     "mean": record.exact(e.mean), "ci": [record.exact(x) for x in e.ci],
                     "vs_baseline": record.comparison_json(vs, None, whole=True)})
    return {"unit": "self-play moves per second", "arms": arms}


def selfplay_speed_markdown(entry: Mapping) -> str:
    """Per arm: self-play moves per second [95% CI], and against the baseline."""
    rows = [[a["arm"], len(a["runs"]), estimate_text(a["mean"], a["ci"], 1, 0),
             "" if a["vs_baseline"] is None else interval_text(a["vs_baseline"], 1, 0),
             "" if a["vs_baseline"] is None or a["vs_baseline"]["p"] is None
             else f"{a['vs_baseline']['p']:.3g}"] for a in entry["arms"]]
    return table(["arm", "runs", "moves per second [95% CI]", "Δ vs baseline, paired [95% CI]",
                  "p (paired t)"], rows, "lrrrr")


MEASURES: dict[str, ArmMeasure] = {
    "selfplay_speed": ArmMeasure("Self-play speed (moves per wall second)",
                                 selfplay_speed_json, selfplay_speed_markdown),
}


def measure(name: str) -> ArmMeasure:
    """The measure named `name`.

    Raises:
      ValueError: no measure of that name, naming the ones there are.
    """
    if name not in MEASURES:
        raise ValueError(f"no arm measure named {name!r}; choose from {', '.join(MEASURES)}")
    return MEASURES[name]
