"""A registered analysis: named hypotheses, each an arm against a reference arm paired by
seed, decided exactly as a registration fixes them (`Design`), and written as one record
(its report: `render.markdown`, from the record alone).

Per measure the hypotheses' p-values are adjusted together by Benjamini–Hochberg, and each
hypothesis is decided by the verdict rule (`stats.decide`, δ in the measure's unit) on its
adjusted p; a claim is some hypotheses decided together. Wilcoxon's and Welch's p are
sensitivity columns; the final networks' Elo, paired by seed, is reported beside and decides
nothing (its comparisons carry no δ: Elo is not in the rates' unit). A design whose arms do
not all have the registered seeds with every iteration gets no verdict: "incomplete".

Importing this module leaves JAX unloaded; it reads the model (`model.Family`) that
`study.families` builds.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from warmjax.analysis.measures import FinalElo, Growth, Measure
from warmjax.analysis.model import Arm, Family
from warmjax.analysis.record import comparison_json, num
from warmjax.analysis.stats import (
    Tested,
    compare_by_seed,
    decide,
)
from warmjax.analysis.verdicts import decide_groups, role_gaps, verdict_words


@dataclasses.dataclass(frozen=True)
class Board:
    """One study folder of a design: the runs of the arms `roles` on `seeds`, each
    `iterations` long.

    Attributes:
      decline_window: the decline rule's reference window (first, last iteration), fixed
        before the data (or, where the registration records it, as a departure).
      cut: whether the registered cut applies to it (`Design.cut`).
      ladder: its ladder of optimal-move rates (`strength.Ladder`), where the design
        measures compute to strength on a ladder of its own; None: the family's.
    """

    name: str
    title: str
    seeds: tuple[int, ...]
    iterations: int
    roles: tuple[str, ...] = ()
    decline_window: tuple[int, int] = (21, 30)
    cut: bool = False
    ladder: Any = None


@dataclasses.dataclass(frozen=True)
class Hypothesis:
    """`name` ("H1"): on board `board`, the arm of role `arm` minus the arm of role
    `reference`, paired by seed; `comparison` says so in words. `board` "": the design's
    only board."""

    name: str
    comparison: str
    arm: str
    reference: str = "baseline"
    board: str = ""


@dataclasses.dataclass(frozen=True)
class Design:
    """What a registration fixes: one type for every registered study, built in the study's
    own `design.py` (`studies/<name>/design.py`, a module-level `DESIGN`).

    Attributes:
      title: the analysis's heading.
      registration: the registration's path, as the output cites it.
      boards: the study folders, each with its seeds and iterations.
      hypotheses: the comparisons, adjusted together per measure.
      measures: `{name: measures.Measure}`, primary first, each with its values per seed
        and its Benjamini–Hochberg group: e.g. "auc" (`measures.Auc`), "final"
        (`measures.FinalRate`), "elo" (`measures.FinalElo`) or "compute"
        (`measures.ComputeToStep`, to each step of the ladder).
      roles: `Family -> {role: Arm}`, the arms the hypotheses name (`Roles`).
      claims: `{claim: hypothesis names decided together}`.
      calibration, device: the registered calibration table and its row (compute).
      horizons: the earlier iterations whose networks were rated (Elo).
      full_iterations: the papers' I, which a board at that length is named by.
      decline_after_data: the decline rule came as a departure the registration records
        (the report says so).
      source: the file the design was read from (a `design.json`), as the output cites it.
      question: the study's question, in words.
      arms: `{role: what it is}`, where the report describes the arms.
      cut_order: the registered cuts in words, in order ("<board> to seeds A-B",
        "<board> dropped"); cuts: how many of them apply (`under_cuts`).
    """

    title: str
    registration: str
    boards: tuple[Board, ...]
    hypotheses: tuple[Hypothesis, ...]
    measures: Mapping[str, Measure]
    roles: Callable[[Family], dict[str, Arm]]
    claims: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    calibration: str = ""
    device: str = ""
    horizons: tuple[int, ...] = ()
    full_iterations: int | None = None
    decline_after_data: bool = False
    source: str = ""
    question: str = ""
    arms: Mapping[str, str] = dataclasses.field(default_factory=dict)
    cut_order: tuple[str, ...] = ()
    cuts: int = 0

    @property
    def board(self) -> Board:
        """The design's one board.

        Raises:
          ValueError: it has several.
        """
        if len(self.boards) != 1:
            raise ValueError(f"{self.title} has {len(self.boards)} boards, not one")
        return self.boards[0]

    @property
    def iterations(self) -> int:
        """Every board's iterations.

        Raises:
          ValueError: the boards' differ.
        """
        lengths = {b.iterations for b in self.boards}
        if len(lengths) != 1:
            raise ValueError(f"{self.title}: the boards' iterations differ ({sorted(lengths)})")
        return lengths.pop()

    @property
    def growth(self) -> Growth | None:
        """The design's growth with the board (`measures.Growth`), or None."""
        found = [m for m in self.measures.values() if isinstance(m, Growth)]
        return found[0] if found else None

    def delta(self, measure: str) -> float | None:
        """The measure's δ, in its unit."""
        return self.measures[measure].delta

    def runs(self, seeds: tuple[int, ...] | None = None, iterations: int | None = None
             ) -> Design:
        """The design on other seeds or iterations, every board (a dry run on fabricated
        folders); None keeps the registered ones."""
        return dataclasses.replace(self, boards=tuple(
            dataclasses.replace(b, seeds=b.seeds if seeds is None else tuple(seeds),
                                iterations=iterations or b.iterations) for b in self.boards))

    def cut(self, iterations: int | None = None, seeds: int | None = None) -> Design:
        """The design under the registered cut: the boards it applies to at `iterations`
        and on their first `seeds` seeds; None leaves that part uncut."""
        boards = tuple(dataclasses.replace(b, iterations=iterations or b.iterations,
                                           seeds=b.seeds[:seeds] if seeds else b.seeds)
                       if b.cut else b for b in self.boards)
        return dataclasses.replace(self, boards=boards)

    def under_cuts(self, steps: int) -> Design:
        """The design under the first `steps` cuts of `cut_order`: "<board> to seeds A-B"
        keeps those seeds of the board, "<board> dropped" removes it.

        Raises:
          ValueError: more steps than the cut order has, or a cut it cannot read.
        """
        if not 0 <= steps <= len(self.cut_order):
            raise ValueError(f"the design {self.source or self.title} registers "
                             f"{len(self.cut_order)} cuts, not {steps}")
        boards = list(self.boards)
        for text in self.cut_order[:steps]:
            if m := re.fullmatch(r"(\S+) to seeds (\d+)-(\d+)", text):
                low, high = int(m[2]), int(m[3])
                boards = [dataclasses.replace(b, seeds=tuple(s for s in b.seeds
                                                             if low <= s <= high))
                          if b.name == m[1] else b for b in boards]
            elif m := re.fullmatch(r"(\S+) dropped", text):
                boards = [b for b in boards if b.name != m[1]]
            else:
                raise ValueError(f"the cut {text!r} reads neither '<board> to seeds A-B' nor "
                                 "'<board> dropped'")
        return dataclasses.replace(self, boards=tuple(boards), cuts=steps)


@dataclasses.dataclass(frozen=True)
class Papers:
    """An exploratory study's design: every family of its folders' runs judged on the
    papers' four claims (`claims.claims`, the floor rule applied), with its statistics,
    curves and figures (`report.write_study`: `study.json`, `study.md`). A study folder's
    `design.py` lists them as `PAPERS`; `python -m warmjax.report --design` writes each.
    It records no look: it is not registered.

    Attributes:
      folders: the study folders it reads, relative to the design's folder (each one's
        round robin from its `tournament/`).
      out: its report's folder, relative to the design's folder (or to `--out`).
      options: `report.study_record`'s settings where not its defaults (`auc_iterations`,
        `delta`, `calibration`, `device`, `measures`).
    """

    folders: tuple[str, ...]
    out: str = "report"
    options: Mapping[str, object] = dataclasses.field(default_factory=dict)

    def arguments(self, folders: Sequence[str]) -> list[str]:
        """The `python -m warmjax.report` arguments that write the same report from
        `folders` (its folders as the working folder names them), `--out` aside."""
        out = ["--study", *folders]
        for key, value in self.options.items():
            if key == "measures":
                out += [x for m in value for x in ("--measure", m)]
            else:
                out += [f"--{key.replace('_', '-')}", str(value)]
        return out


@dataclasses.dataclass(frozen=True)
class Roles:
    """A design's arms by role, those the family has: each role names the fields of its
    arm's identity (`RunId`), e.g. `{"baseline": {"mode": "none"}, "fixed": {"mode":
    "fixed", "enhancement": "wrora", "iprime": 5}}`; called on a family, `{role: Arm}`."""

    spec: Mapping[str, Mapping[str, object]]

    def __call__(self, family: Family) -> dict[str, Arm]:
        out = {}
        for role, fields in self.spec.items():
            found = [a for a in family.all_arms()
                     if all(getattr(a.id, k) == v for k, v in fields.items())]
            if found:
                out[role] = found[0]
        return out


# The papers' three arms (SPEC): warm start off, fixed WRoRa with I′ = 5, adaptive WRoRa.
PAPERS_ROLES = Roles({"baseline": {"mode": "none"},
                      "fixed": {"mode": "fixed", "enhancement": "wrora", "iprime": 5},
                      "adaptive": {"mode": "adaptive", "enhancement": "wrora"}})


# Beside the hypotheses' measures: the final networks' Elo, paired by seed (no δ: Elo is not
# in the rates' unit), deciding nothing.
BESIDE_ELO = FinalElo("the papers' measure: final Elo, paired by seed", decides=False)


def plan_json(design: Design, kind: str) -> dict:
    """The design's facts its report reads (`render.markdown` reads the record alone): the
    analysis's `kind` ("hypotheses", "horizons" or "two_arms"), its title and registration,
    its hypotheses, its measures (each with its class as `kind`), its boards' names, titles,
    seeds, iterations and decline windows, its horizons, the papers' I, the calibration table
    and its row, and whether the decline rule came after the data."""
    return {"kind": kind, "title": design.title, "registration": design.registration,
            "hypotheses": [dataclasses.asdict(h) for h in design.hypotheses],
            "measures": {name: {"kind": type(m).__name__, **dataclasses.asdict(m)}
                         for name, m in design.measures.items()},
            "boards": [{"name": b.name, "title": b.title, "seeds": list(b.seeds),
                        "iterations": b.iterations, "decline_window": list(b.decline_window)}
                       for b in design.boards],
            "horizons": list(design.horizons), "full_iterations": design.full_iterations,
            "calibration": design.calibration, "device": design.device,
            "decline_after_data": design.decline_after_data}


def analyse(family: Family, design: Design, gaps: list[str] | None = None,
            folder: str = "") -> dict:
    """The registered analysis of `family`, as a record (`registered.json`). `gaps`: what
    the design lacks (`verdicts.role_gaps`); None: worked out here."""
    arms, board = design.roles(family), design.board
    by_name = {h.name: h for h in design.hypotheses}
    gaps = role_gaps("", arms, board.seeds, board.iterations) if gaps is None else gaps
    rates = rate_measures(design)
    delta = design.delta(rates[0])
    out = {"folder": folder, "seeds": list(board.seeds), "complete": not gaps, "gaps": gaps,
           "delta": delta, "measures": {}, "claims": {}, "elo": {},
           "plan": plan_json(design, "hypotheses")}
    decided = decide_groups(design.measures, {
        (measure, h.name): (measure, h.comparison, compare_by_seed(
            *(design.measures[measure].values(arms[role], board.iterations)
              for role in (h.arm, h.reference))))
        for measure in rates for h in design.hypotheses})
    for measure in rates:
        delta = design.delta(measure)
        out["measures"][measure] = {h.name: {
            "comparison": h.comparison, **comparison_json(x.comparison, delta),
            "p_adjusted": num(x.p_adjusted), "power_at_delta": num(x.power_at_delta),
            "verdict": verdict_words(x.decision, bool(gaps))}
            for h in design.hypotheses for x in [decided[measure, h.name]]}
        # A claim joins its hypotheses, each with its p adjusted over all of them.
        out["claims"][measure] = {
            claim: verdict_words(decide(
                [Tested(by_name[n].comparison, decided[measure, n].comparison) for n in names],
                delta, p_adjusted=[decided[measure, n].p_adjusted for n in names]),
                bool(gaps))
            for claim, names in design.claims.items()}
    for h in design.hypotheses:
        c = compare_by_seed(*(BESIDE_ELO.values(arms[role], board.iterations)
                              for role in (h.arm, h.reference)))
        out["elo"][h.name] = None if c is None else {
            "comparison": h.comparison, **comparison_json(c, delta=None)}
    return out


def rate_measures(design: Design) -> list[str]:
    """The design's measures of optimal-move rates (unit "points") that decide, primary
    first.

    Raises:
      ValueError: it has none, or they do not share one δ (the record states one).
    """
    rates = [m for m, x in design.measures.items() if x.unit == "points" and x.decides]
    if not rates or len({design.delta(m) for m in rates}) != 1:
        raise ValueError(f"{design.title}: the rate measures need one δ between them")
    return rates
