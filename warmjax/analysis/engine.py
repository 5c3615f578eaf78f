"""A registered study's one analysis, from its folder: `python -m warmjax.report --design
studies/<study>` (the library: `analyse_folder`).

The folder holds its design and a folder of runs per board. A `design.py` whose `DESIGN`
(`registered.Design`) has one board is a study of hypotheses adjusted together per measure
(`registered.analyse`, e.g. studies/c4_confirm): it writes `registered.json` and
`registered.md`, reading the board's `tournament/` for the final networks' Elo where there
is one. A `design.json` (`analysis.two_arms`: boards, arms, seeds, iterations, the ladders
and δ) compares two arms over boards: The analysis reads each board's runs (the
design's seeds only), costs their ledgers with the design's calibration table, records the
look in `looks.json`, and writes `analysis.json` (the record) and `analysis.md` (read from
the record alone), with one figure per board: its runs' policy head and search against the
ledger's compute (`compute_<board>.png`, decides nothing). A design with a `prediction`
section (a registered prediction across boards, `analysis.ranking`) adds its record and
table: each board's early gain from its runs and its predictor's value from its file. Its
`glimpses` (data seen outside the looks, `{"when", "what"}` as the registration records
them) are copied into the record and said in the report.

A `design.py` may list exploratory designs as `PAPERS` (`registered.Papers`): each judges
every family of its folders' runs on the papers' four claims and writes `study.json` and
`study.md` (`report.write_study`) into its `out` folder. `report --design` writes them where
the folder has no registered `DESIGN`, and with `--papers` where it has one as well.

A `design.py` of several boards or with horizons (e.g. studies/long_horizon) is a horizon
study (`horizon.analyse`): each board's runs with its final round robin (`tournament/`) and
those at its horizons (`tournament_atNNN/`), written as `<study>.json`, `<study>.md` and
`elo_leads.png` into the module's `OUT` (default `report/`); its registered cuts are the
module's `CUTS`, in order, and its looks are recorded in each board's folder under the
module's `LOOK_NOTE`.

Each registered record states the design's facts its report needs (`plan`), and every
report is read from its record alone (`render.markdown`).

The registration allows one analysis, when every run is committed: a design that lacks any
run or iteration is refused unless `incomplete`, which labels every verdict "incomplete: no
verdict". A look already recorded is not recorded twice.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from warmjax.analysis import ranking, render, study, two_arms
from warmjax.analysis.report import compute_curves, compute_json, random_rate
from warmjax.analysis.verdicts import role_gaps
from warmjax.train import run_folder

NOTE = "the registered analysis (python -m warmjax.report --design)"
DESIGN = "design.json"
DESIGN_PY = "design.py"


class DesignError(ValueError):
    """A design that cannot be analysed (yet), in one line."""


def _stderr(text: str) -> None:
    print(text, file=sys.stderr)


def design_file(where: Path | str) -> Path:
    """A study folder's design (`design.py` where it has one, else `design.json`), or the
    file itself."""
    where = Path(where)
    if not where.is_dir():
        return where
    return where / DESIGN_PY if (where / DESIGN_PY).is_file() else where / DESIGN


def _board_runs(root: Path, board, absent: list[str]) -> tuple[Path, list]:
    """A board's folder under `root` and its runs of the board's seeds; a board with none
    is added to `absent`."""
    folder = root / board.name
    runs = run_folder.seed_runs(folder, board.seeds)
    if not runs:
        absent.append(f"{board.name}: no run under {folder}")
    return folder, runs


def _cost(runs, plan, ledger: dict, measured: dict, log: Callable[[str], None]) -> None:
    """The runs' compute curves: the ledger's on the design's calibration, and measured."""
    ledger.update(compute_curves(runs, plan.calibration, plan.device, log))
    measured.update(compute_curves(runs, None, None, log))


def read(plan: two_arms.Design, root: Path, log: Callable[[str], None] = _stderr
         ) -> tuple[dict, dict, dict, dict, list[str]]:
    """Per board: its family, a random move's rate; the ledger's and the measured compute
    curves of every run; and the boards with no run at all."""
    families, rates, ledger, measured, absent = {}, {}, {}, {}, []
    for board in plan.boards:
        folder, runs = _board_runs(root, board, absent)
        if not runs:
            continue
        found = study.families(runs, [], tables=False)
        if len(found) != 1:
            raise DesignError(f"{folder}: its runs make {len(found)} families "
                              f"({', '.join(f.title for f in found)}); a board is one")
        families[board.name] = found[0]
        rates[board.name] = random_rate(found[0])
        _cost(runs, plan, ledger, measured, log)
    return families, rates, ledger, measured, absent


def figures(plan: two_arms.Design, families: Mapping, ledger: Mapping, out: Path
            ) -> dict[str, str]:
    """Per board read: its runs' policy head and search rates against the ledger's compute,
    one line per run, the arms in colour (`plots.plot_against_compute`), written to
    `out/compute_<board>.png`; `{board name: file name}`."""
    from warmjax.analysis import plots

    drawn = {}
    for board in plan.boards:
        arms = compute_json(families[board.name], ledger) if board.name in families else []
        if any(arm["runs"] for arm in arms):  # none where no run has a ledger's curve
            name = f"compute_{board.name}.png"
            plots.plot_against_compute(board.title, arms, out / name)
            drawn[board.name] = name
    return drawn


def default_root(design: Path, plan: two_arms.Design) -> Path:
    """The design's folder where a board's folder lies beside it, else the folder above."""
    beside = design.parent
    if any((beside / board.name).is_dir() for board in plan.boards):
        return beside
    return beside.parent


def prediction(section: Mapping, folder: Path, families: Mapping) -> tuple[dict, list[str]]:
    """The registered prediction (`ranking.prediction`) from a design's `prediction`
    section: each board's early gain on its outcome measure and window, from its own runs
    (`families` where the design's boards are, else the board's `runs` folder, relative to
    the working folder) on its seeds, and its predictor's value from its file (relative to
    the design's folder). Returns the record and what is missing (no record then)."""
    found, gaps = {}, []
    for b in section["boards"]:  # every board's runs first: no gain is computed before
        family = families.get(b["name"])
        if family is None:
            runs = run_folder.seed_runs(Path(b["runs"]), b["seeds"])
            read_ = study.families(runs, [], tables=False) if runs else []
            family = read_[0] if len(read_) == 1 else None
        if family is None:
            gaps.append(f"prediction: no runs of {b['name']} under {b['runs']}")
        found[b["name"]] = family
    if gaps:
        return {}, gaps
    boards = []
    for b in section["boards"]:
        try:
            gain, second = (ranking.board_gain(found[b["name"]], outcome["measure"],
                                               outcome["window"], b["seeds"])
                            for outcome in (section["outcome"], section["secondary_outcome"]))
        except ValueError as err:
            gaps.append(f"prediction: {b['name']}: {err}")
            continue
        value = json.loads((folder / b["predictor"]).read_text())["points"]
        boards.append({"name": b["name"], "title": b["title"], "sample": b["sample"],
                       "predictor": value, "gain": gain, "secondary_gain": second})
    if gaps:
        return {}, gaps
    return ranking.prediction(boards, out_of_sample_holds_at=section["out_of_sample"][
        "holds_at"]), []


def analyse_folder(where: Path | str, *, root: Path | None = None, cut: int = 0,
                   incomplete: bool = False, out: Path | None = None,
                   log: Callable[[str], None] = _stderr, papers: bool = False
                   ) -> tuple[dict, str]:
    """The study's registered analysis (see the module docstring): writes `analysis.json`,
    `analysis.md` and the figures into `out` (default: the design's folder) and returns the
    record and the Markdown. A `design.py` without a `DESIGN`, or with `papers`, writes its
    exploratory reports instead (its `PAPERS`, `registered.Papers`; the last one returned).

    Raises:
      DesignError: an unreadable design, a board whose runs are not one family, or (unless
        `incomplete`) a run, iteration or prediction board missing.
    """
    path = design_file(where)
    if path.suffix == ".py":
        module = study.load_design(path)
        if papers or not hasattr(module, "DESIGN"):
            if not getattr(module, "PAPERS", ()):
                raise DesignError(f"{path} defines no PAPERS" if papers
                                  else f"{path} defines neither DESIGN nor PAPERS")
            return _papers(where, path, module.PAPERS, out, log)[-1]
        if len(module.DESIGN.boards) == 1 and not module.DESIGN.horizons:
            return _hypotheses(where, path, module.DESIGN, incomplete=incomplete, out=out)
        return _horizons(where, path, module, cut=cut, incomplete=incomplete, out=out,
                         log=log)
    try:
        plan = two_arms.read(path).under_cuts(cut)
    except (OSError, ValueError) as err:
        raise DesignError(str(err)) from None
    root = root or default_root(path, plan)
    families, rates, ledger, measured, absent = read(plan, root, log)
    gaps = absent + two_arms.gaps(plan, families)
    raw = json.loads(path.read_text())
    predicted, missing = ({}, []) if "prediction" not in raw else prediction(
        raw["prediction"], path.parent, families)
    if (gaps or missing) and not incomplete:
        raise DesignError("the registered analysis needs every run and iteration (no "
                          "interim look); missing: " + "; ".join(gaps + missing))
    out = Path(out or path.parent)  # the looks go with the report they made
    out.mkdir(parents=True, exist_ok=True)
    study.record_look(out, {
        "date": datetime.date.today().isoformat(), "commit": study.head_commit(),
        "seeds": {b.name: list(b.seeds) for b in plan.boards},
        "iterations": plan.iterations,
        "note": NOTE + (f", {cut} cut(s)" if cut else "")
        + (" — incomplete, no verdict" if gaps or missing else "")})
    record = two_arms.analyse(plan, families, rates, ledger, measured, gaps + missing)
    record["looks"] = {str(out): study.read_looks(out)}
    record["figures"] = figures(plan, families, ledger, out)
    if raw.get("glimpses"):
        record["glimpses"] = list(raw["glimpses"])
    if predicted:
        record["prediction"] = predicted
    (out / "analysis.json").write_text(json.dumps(record, indent=1) + "\n")
    command = f"python -m warmjax.report --design {Path(where)}" + (
        f" --cut {cut}" if cut else "")
    text = render.markdown(record, command)
    (out / "analysis.md").write_text(text)
    return record, text


def _papers(where: Path | str, path: Path, designs, out: Path | None,
            log: Callable[[str], None]) -> list[tuple[dict, str]]:
    """Each exploratory design (`registered.Papers`) of a `design.py`: its report written
    into its `out` under `out` (default: the design's folder), the study folders named
    relative to the working folder as `where` names the design's. `[(record, Markdown)]`."""
    from warmjax.analysis.report import render_study, study_record

    base = Path(where) if Path(where).is_dir() else path.parent
    done = []
    for p in designs:
        folders = [os.path.normpath(base / f) for f in p.folders]
        record = study_record(folders, **p.options)
        folder = Path(out or base) / p.out
        written = render_study(record, str(folder))
        log(f"wrote {len(written)} files to {folder} (the papers' claims)")
        done.append((record, (folder / "study.md").read_text()))
    return done


def _hypotheses(where: Path | str, path: Path, plan, *, incomplete: bool,
                out: Path | None) -> tuple[dict, str]:
    """A one-board `registered.Design` (`design.py`): its hypotheses adjusted together per
    measure (`registered.analyse`), written as `registered.json` and `registered.md`."""
    from warmjax.analysis import registered
    from warmjax.analysis.tournaments import journal_tournament
    from warmjax.matches.tournament_folder import TournamentFolder

    board = plan.board
    data = Path(where) / board.name if Path(where).is_dir() else path.parent / board.name
    runs = [r for r in run_folder.find_runs([data]) if r.id.seed in board.seeds]
    rated = [journal_tournament(data / "tournament")] if TournamentFolder(
        data / "tournament").has_header() else []
    auc = plan.measures.get("auc")
    found = study.families(runs, rated, auc.iterations if auc else None)
    if len(found) != 1:
        raise DesignError(f"{data}: its runs make {len(found)} families; a board is one")
    lacking = set(board.roles) - set(plan.roles(found[0]))
    if lacking:
        raise DesignError(f"the study has no {', '.join(sorted(lacking))} arm")
    gaps = role_gaps("", plan.roles(found[0]), board.seeds, board.iterations)
    if gaps and not incomplete:
        raise DesignError("the registered analysis needs every run of every seed (no interim "
                          "look); missing: " + "; ".join(gaps))
    record = registered.analyse(found[0], plan, gaps, folder=str(data))
    text = render.markdown(record, f"python -m warmjax.report --design {where}")
    out = Path(out or path.parent)
    out.mkdir(parents=True, exist_ok=True)
    (out / "registered.json").write_text(json.dumps(record, indent=1) + "\n")
    (out / "registered.md").write_text(text)
    return record, text


def in_plan(entry, seeds) -> bool:
    """An anchor, or a network of one of the plan's seeds."""
    from warmjax.matches.tournament_folder import AnchorEntry

    return isinstance(entry, AnchorEntry) or entry.seed in seeds


def round_robin(path: Path, seeds, keep=in_plan):
    """The round robin in `path` rated from the games among the plan's seeds and the anchors
    only (`keep`): a cut leaves committed seeds' games in the journal, and through the
    shared anchor they would move the kept seeds' ratings. None where there is none."""
    from warmjax.analysis.tournaments import journal_tournament
    from warmjax.matches.tournament_folder import TournamentFolder

    if not TournamentFolder(path).has_header():
        return None
    return journal_tournament(path, lambda entry: keep(entry, seeds))


def read_horizons(root: Path, plan, log: Callable[[str], None] = _stderr, keep=in_plan
                  ) -> tuple[list, dict, dict, list[str]]:
    """A horizon study's boards under `root` as `horizon.StudyData` (their runs, final and
    horizon round robins: `round_robin` with `keep`), their compute curves (the ledger's
    on the design's calibration, and measured) and the boards with no run at all."""
    from warmjax.analysis import horizon

    k = plan.measures["auc"].iterations
    data, ledger, measured, absent = [], {}, {}, []
    for board in plan.boards:
        folder, runs = _board_runs(root, board, absent)
        if not runs:
            continue
        final = round_robin(folder / "tournament", board.seeds, keep)
        (family,) = study.families(runs, [final] if final else [], k, tables=False)
        horizons = {}
        for h in plan.horizons:
            found = round_robin(folder / f"tournament_at{h:03d}", board.seeds, keep)
            if found is not None and h < board.iterations:
                (horizons[h],) = study.families(runs, [found], k, tables=False)
        data.append(horizon.StudyData(board, family, horizons, random_rate(family)))
        _cost(runs, plan, ledger, measured, log)
    return data, ledger, measured, absent


def _horizons(where: Path | str, path: Path, module, *, cut: int, incomplete: bool,
              out: Path | None, log: Callable[[str], None]) -> tuple[dict, str]:
    """A horizon study's registered analysis (see the module docstring)."""
    from warmjax.analysis import horizon, plots

    cuts = getattr(module, "CUTS", ())
    if not 0 <= cut <= len(cuts):
        raise DesignError(f"{path} registers {len(cuts)} cuts, not {cut}")
    plan = module.DESIGN.cut(**cuts[cut - 1]) if cut else module.DESIGN
    root = path.parent
    data, ledger, measured, absent = read_horizons(root, plan, log)
    gaps = absent + horizon.gaps(data, plan)
    if gaps and not incomplete:
        raise DesignError("the registered analysis needs every run, iteration and round robin "
                          "of the studies (no interim look); missing: " + "; ".join(gaps))
    note = module.LOOK_NOTE + (" — incomplete, no verdict" if gaps else "")
    for d in data:
        study.record_look(root / d.board.name, {
            "date": datetime.date.today().isoformat(), "commit": study.head_commit(),
            "seeds": list(d.board.seeds), "iterations": d.board.iterations, "note": note})
    record = horizon.analyse(data, plan, ledger, measured, gaps)
    record["looks"] = {str(root / d.board.name): study.read_looks(root / d.board.name)
                       for d in data}
    out = Path(out or root / getattr(module, "OUT", "report"))
    out.mkdir(parents=True, exist_ok=True)
    name = root.resolve().name
    (out / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
    command = f"python -m warmjax.report --design {where}" + (f" --cut {cut}" if cut else "")
    text = render.markdown(record, command)
    (out / f"{name}.md").write_text(text)
    plots.plot_elo_leads(render.elo_leads(record), out / render.FIGURE)
    return record, text
