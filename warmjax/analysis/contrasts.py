"""Families set against each other: one game on two boards, and one board with and without
a departure (a registration may fix both analyses).

A study's statistics (`warmjax.analysis.study`) compare the arms of one family with its own
baseline. Two questions need two families at once:

- **Across boards** (`board_steps`): does warm start matter more on a larger board? For
  one game and set of departures on several boards, per board: the baseline's own rates,
  each warm-start arm's lead over its baseline (the policy head's AUC, paired by seed) and
  its switch iterations. The lead on each larger board is set against the lead on the
  smallest by Welch's test on the per-seed leads (networks of two boards share nothing, so
  nothing pairs them), the switch iteration likewise (a run that never switched counts as
  one iteration past the last, the Mann–Whitney U p beside it). p-values are adjusted by
  Benjamini–Hochberg over every game's steps, and each step is decided by the verdict rule
  (`stats.decide`) with δ for the lead and `SWITCH_DELTA` for the switch.
- **Against a reference family** (`departure_contrasts`): a family whose departures add to
  another family's of the same game and board (a Gumbel baseline's family against the
  papers' PUCT one; the drop-warm-games arm against the departures' family). Every arm of
  the family is compared with the reference's baseline and with the reference's arm of the
  same arm, paired by seed (the same seed, the same initial network), in the policy
  head's AUC and final rate, and in Elo where one round robin rated both networks of a seed
  (`study.paired_ratings`). p-values are adjusted by Benjamini–Hochberg over the rows of
  each measure, and each row gets the rule's verdict in the AUC and in the final rate.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import scipy.stats

from warmjax.analysis import model, record, stats, study
from warmjax.analysis.model import Arm, Family
from warmjax.analysis.stats import Comparison, Decision, Estimate, Tested
from warmjax.analysis.tournaments import Tournament
from warmjax.train import run_settings
from warmjax.train.run_id import game_name

SWITCH_DELTA = 1.0  # iterations: the smallest delay of the switch worth finding


# --- across boards -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class BoardArm:
    """One warm-start arm on one board: its lead over its own baseline and its switches.

    Attributes:
      lead: arm − baseline in the policy head's AUC, paired by seed (None below two
        seeds).
      leads: the per-seed leads, `{seed: lead}`.
      switches: each run's switch iteration (adaptive arms), never-switched runs counted as
        the family's last iteration + 1; empty for fixed arms.
      never: how many runs never switched.
    """

    arm: Arm
    lead: Comparison | None
    leads: dict[int, float]
    switches: tuple[int, ...]
    never: int

    @property
    def switch(self) -> Estimate:
        return Estimate.of(self.switches)


@dataclasses.dataclass(frozen=True)
class Board:
    """One board of a game: its family, its cells and its arms' leads."""

    family: Family
    shape: tuple[int, int]
    arms: dict[str, BoardArm]  # by the arm's label

    @property
    def name(self) -> str:
        return f"{self.shape[0]}×{self.shape[1]}{model.study_suffix(self.family.study)}"

    @property
    def cells(self) -> int:
        return self.shape[0] * self.shape[1]


@dataclasses.dataclass(frozen=True)
class Step:
    """A larger board against the smallest, for one warm-start arm.

    Attributes:
      growth: lead(larger) − lead(smallest), Welch on the per-seed leads, with its p
        adjusted over every step of the report; `lead_decision` is the rule's verdict on it.
      delay: switch(larger) − switch(smallest), Welch, with the Mann–Whitney U p
        (`p_mannwhitney`); None for fixed arms; `delay_decision` is the rule's verdict with
        `SWITCH_DELTA`.
    """

    arm: str
    small: Board
    large: Board
    growth: Comparison | None
    lead_decision: Decision | None = None
    delay: Comparison | None = None
    p_mannwhitney: float = math.nan
    delay_decision: Decision | None = None


@dataclasses.dataclass(frozen=True)
class BoardSteps:
    """One game and set of departures on several boards (smallest first)."""

    game: str
    departures: tuple[str, ...]
    boards: tuple[Board, ...]
    steps: tuple[Step, ...]

    @property
    def title(self) -> str:
        text = game_name(self.game)
        if self.departures:
            text += " with " + ", ".join(self.departures)
        return f"{text}: {', '.join(b.name for b in self.boards)}"


def board_curve_arms(group: BoardSteps) -> list[list[Arm]]:
    """Per board of `group`, the arms its figure draws: the baseline and each warm-start arm
    that the steps compare across boards (every warm-start arm where no step does), so a
    smaller board's extra arms don't crowd it."""
    compared = {s.arm for s in group.steps}
    return [([board.family.baseline] if board.family.baseline else []) + [
        a.arm for label, a in board.arms.items() if not compared or label in compared]
        for board in group.boards]


def board_shape(family: Family) -> tuple[int, int]:
    """The board of a family's runs."""
    return run_settings.board_shape(family.all_arms()[0].runs[0])


def _board_arm(arm: Arm, baseline: Arm | None, last: int) -> BoardArm:
    if baseline is None:
        lead, leads = None, {}
    else:
        mine, theirs = arm.by_seed(), baseline.by_seed()
        leads = {s: mine[s] - theirs[s] for s in sorted(set(mine) & set(theirs))}
        lead = stats.compare_by_seed(mine, theirs)
    switches = tuple(last + 1 if s is None else s for s in arm.switches)
    return BoardArm(arm, lead, leads, switches, sum(s is None for s in arm.switches))


def _decided(name: str, c: Comparison | None, delta: float) -> Decision | None:
    """The rule on one comparison whose p was adjusted outside it (over the report's
    steps, or a contrast's rows)."""
    if c is None:
        return None
    return stats.decide([Tested(name, c)], delta, p_adjusted=[c.p_adjusted])


def board_steps(families: Sequence[Family], delta: float = model.DELTA) -> list[BoardSteps]:
    """Every game and set of departures that the study has on more than one board, each
    larger board set against the smallest for every warm-start arm that ran on both. Where
    two studies hold the smallest board, a larger board is set against the one that shares
    the most seeds with it."""
    groups: dict[tuple, list[Family]] = {}
    for f in families:
        groups.setdefault((f.game, f.departures), []).append(f)
    found: list[tuple[tuple, tuple[Board, ...], list[Step]]] = []
    for (game, departures), members in groups.items():
        boards = sorted((Board(f, board_shape(f), {
            a.label: _board_arm(a, f.baseline, f.final_iteration) for a in f.arms})
            for f in members), key=lambda b: (b.cells, b.shape))
        smallest = [b for b in boards if b.shape == boards[0].shape]
        larger = [b for b in boards if b.shape != boards[0].shape]
        if not larger:
            continue
        pairs = [(max(smallest, key=lambda b: _shared_seeds(b.family, large.family)), large)
                 for large in larger]
        used = [b for b in smallest if any(b is small for small, _ in pairs)]
        boards = used + larger
        steps = []
        for small, large in pairs:
            for label in [x for x in small.arms if x in large.arms]:
                a, b = large.arms[label], small.arms[label]
                growth = (stats.compare(list(a.leads.values()), list(b.leads.values()))
                          if len(a.leads) >= 2 and len(b.leads) >= 2 else None)
                delay, p_mw = None, math.nan
                if len(a.switches) >= 2 and len(b.switches) >= 2:
                    delay = stats.compare(a.switches, b.switches)
                    p_mw = float(scipy.stats.mannwhitneyu(a.switches, b.switches,
                                                    alternative="two-sided").pvalue)
                steps.append(Step(label, small, large, growth, None, delay, p_mw))
        found.append(((game, departures), tuple(boards), steps))
    # Benjamini–Hochberg over every game's steps (growth and delay apart), then the rule.
    flat = _with_bh([s for _, _, steps in found for s in steps], ("growth", "delay"))
    flat = [dataclasses.replace(
        s, lead_decision=_decided(f"growth {s.arm}", s.growth, delta),
        delay_decision=_decided(f"delay {s.arm}", s.delay, SWITCH_DELTA)) for s in flat]
    out, start = [], 0
    for (game, departures), boards, steps in found:
        out.append(BoardSteps(game, departures, boards, tuple(flat[start:start + len(steps)])))
        start += len(steps)
    return out


def _with_bh(items: list, fields: Sequence[str]) -> list:
    """`items` (dataclasses holding comparisons) with each field's comparisons given their
    Benjamini–Hochberg p over the items, field by field (None: not tested)."""
    items = list(items)
    for field in fields:
        tested = [i for i, x in enumerate(items) if getattr(x, field) is not None]
        p_adj = stats.adjusted([getattr(items[i], field).p for i in tested])
        for i, p in zip(tested, p_adj):
            items[i] = dataclasses.replace(items[i], **{
                field: dataclasses.replace(getattr(items[i], field), p_adjusted=p)})
    return items


# --- against a reference family ------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Row:
    """One arm of a family against one arm of its reference family, paired by seed.

    `auc` and `final`: the policy head's, with their p adjusted over the contrast's rows;
    `elo`: final Elo, both networks of a seed rated in one round robin; the decisions: the
    rule's verdict in the AUC and in the final rate."""

    name: str
    auc: Comparison | None
    final: Comparison | None
    elo: Comparison | None
    auc_decision: Decision | None = None
    final_decision: Decision | None = None

    @property
    def seeds(self) -> int:
        return max((c.n for c in (self.auc, self.final) if c is not None), default=0)


@dataclasses.dataclass(frozen=True)
class Contrast:
    """A family against the family of the same game and board without the departures it
    adds (`added`)."""

    family: Family
    reference: Family
    added: tuple[str, ...]
    rows: tuple[Row, ...]

    @property
    def title(self) -> str:
        return f"{self.family.title} against {self.reference.title}"


def _same_arm(a: Arm, b: Arm) -> bool:
    va, vb = a.id, b.id
    return (va.mode, va.enhancement, va.iprime) == (vb.mode, vb.enhancement, vb.iprime)


def _row(a: Arm, b: Arm, tournaments: Sequence[Tournament]) -> Row | None:
    auc = stats.compare_by_seed(a.by_seed("policy", "auc"), b.by_seed("policy", "auc"))
    final = stats.compare_by_seed(a.by_seed("policy", "final"),
                                  b.by_seed("policy", "final"))
    if auc is None and final is None:
        return None
    elo_a, elo_b = study.paired_ratings(a.runs, b.runs, tournaments)
    return Row(f"{a.label} − {b.label}", auc, final, stats.compare_by_seed(elo_a, elo_b))


def _reference_of(f: Family, families: Sequence[Family]) -> Family | None:
    """The family of `f`'s game and board whose departures are the largest proper subset
    of `f`'s (the papers' family where `f` adds one departure to none); of two such
    studies, the one that shares the most seeds with `f` (its runs pair by seed)."""
    below = [g for g in families if g is not f and g.game == f.game and g.board == f.board
             and set(g.departures) < set(f.departures) and g.baseline is not None]
    return max(below, key=lambda g: (len(g.departures), _shared_seeds(g, f)), default=None)


def _shared_seeds(a: Family, b: Family) -> int:
    """How many seeds two families share: of two candidate references, the one sharing
    more is chosen, since its runs pair with the other's by seed."""
    return len(a.seeds & b.seeds)


def departure_contrasts(families: Sequence[Family], tournaments: Sequence[Tournament] = (),
                        delta: float = model.DELTA) -> list[Contrast]:
    """Every family that adds departures to another family of the study, against it."""
    found = []
    for f in families:
        ref = _reference_of(f, families)
        if ref is None:
            continue
        rows = []
        for a in f.all_arms():
            pairs = [ref.baseline] + [b for b in ref.arms
                                      if _same_arm(a, b) and not a.id.is_baseline]
            rows += [r for b in pairs if (r := _row(a, b, tournaments)) is not None]
        added = tuple(d for d in f.departures if d not in ref.departures)
        found.append(Contrast(f, ref, added, _adjust_rows(rows, delta)))
    return found


def _adjust_rows(rows: list[Row], delta: float) -> tuple[Row, ...]:
    """Benjamini–Hochberg over the rows, per measure; then the rule's verdicts."""
    return tuple(dataclasses.replace(
        r, auc_decision=_decided(r.name, r.auc, delta),
        final_decision=_decided(r.name, r.final, delta))
        for r in _with_bh(rows, ("auc", "final", "elo")))


# --- as JSON -------------------------------------------------------------------------------


def _decision_json(d: Decision | None) -> dict | None:
    if d is None:
        return None
    return {"verdict": d.verdict, "reason": d.reason, "effect80": record.exact(d.effect80)}


def _estimate_json(e: Estimate) -> dict:
    return {"mean": record.exact(e.mean), "ci": [record.exact(x) for x in e.ci]}


def steps_json(groups: Sequence[BoardSteps], delta: float) -> list[dict]:
    """`board_steps` for study.json: per game its boards (arms' leads and switches) and
    steps."""
    out = []
    for g in groups:
        boards = [{"board": b.name, "cells": b.cells,
                   "arms": {label: {"lead": record.comparison_json(a.lead, delta, whole=True),
                                    "leads": {str(s): record.exact(v) for s, v in a.leads.items()},
                                    "switches": list(a.switches), "never": a.never,
                                    "runs": len(a.arm.runs),
                                    "switch": _estimate_json(a.switch) if a.switches else None}
                            for label, a in b.arms.items()},
                   "family": b.family.tag} for b in g.boards]
        steps = [{"arm": s.arm, "small": s.small.name, "large": s.large.name,
                  "growth": record.comparison_json(s.growth, delta, whole=True),
                  "growth_verdict": _decision_json(s.lead_decision),
                  "delay": record.comparison_json(s.delay, SWITCH_DELTA, whole=True),
                  "p_mannwhitney": record.exact(s.p_mannwhitney),
                  "delay_verdict": _decision_json(s.delay_decision)} for s in g.steps]
        out.append({"game": g.game, "departures": list(g.departures), "boards": boards,
                    "steps": steps, "title": g.title})
    return out


def contrasts_json(found: Sequence[Contrast], delta: float) -> list[dict]:
    """`departure_contrasts` for study.json."""
    return [{"family": c.family.title, "reference": c.reference.title, "added": list(c.added),
             "rows": [{"comparison": r.name,
                       "auc": record.comparison_json(r.auc, delta, whole=True),
                       "final": record.comparison_json(r.final, delta, whole=True),
                       "elo": record.comparison_json(r.elo, None, whole=True),
                       "auc_verdict": _decision_json(r.auc_decision),
                       "final_verdict": _decision_json(r.final_decision),
                       "seeds": r.seeds} for r in c.rows],
             "title": c.title, "auc_iterations": c.family.auc_iterations}
            for c in found]
