"""A study's runs folder while it trains (`python -m warmjax.study`): its progress without its
results, and the export of its small data for committing.

**Progress** (`progress`, `report`): per run folder, the iterations done and the seconds they
took, read from `metrics.jsonl`'s `iteration` and `seconds_total` alone. A registered study
is checked this way while it trains (its registration's "Looks"), so nothing here prints a
rate, a loss or an arena result.

**Export** (`export`): each run's `config.yaml` and `metrics.jsonl` (and `oracle.json`,
`versus.json` where judged), and the round robin's journal (`tournament/tournament.json`,
`tournament/batches/`, its batches gzip-compressed: `batch-NNNN.json.gz`, which the report
reads as they are), and the round robins of earlier horizons (`tournament_atNNN/`) alike.
No networks or checkpoints; runs still training (fewer metrics rows than iterations) are
left out unless `partial` (a device session's runs, cut off by its time limit, come back
with the iterations they finished). Existing files are overwritten; nothing else is touched,
and a journal is not exported over one that holds pairs it lacks (`ExportError`).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from warmjax.matches.tournament_folder import TournamentFolder
from warmjax.train.run_folder import read_run


class ExportError(ValueError):
    """An export that would lose committed data."""


def seed_range(text: str) -> range:
    """`8-13` (inclusive) or `8`: the seeds to count.

    Raises:
      ValueError: any other text.
    """
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", text)
    if match is None:
        raise ValueError(f"seeds must read like 8-13 or 8, not {text!r}")
    first = int(match[1])
    last = int(match[2]) if match[2] else first
    return range(first, last + 1)


def progress(run: Path) -> tuple[int, float]:
    """The iterations done and their seconds in all, from the two timing fields only."""
    path = run / "metrics.jsonl"
    if not path.exists():
        return 0, 0.0
    done, seconds = 0, 0.0
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            done = max(done, int(row["iteration"]))
            seconds += float(row["seconds_total"])
    return done, seconds


def report(study: Path, iterations: int | None = None, seeds: range | None = None) -> list[str]:
    """The progress lines of a study's runs folder: one per started run of `seeds` (all:
    None), and the total, with the iterations left where `iterations` (the runs' length) is
    given."""
    total_done, total_seconds, left, lines = 0, 0.0, 0, []
    for run in sorted(p for p in study.iterdir() if p.is_dir() and "seed=" in p.name):
        seed = int(re.search(r"seed=(\d+)", run.name)[1])
        if seeds is not None and seed not in seeds:
            continue
        done, seconds = progress(run)
        total_done += done
        total_seconds += seconds
        if iterations is not None:
            left += max(iterations - done, 0)
        if done:
            lines.append(f"{run.name:40s} {done:4d} iterations  {seconds / 60:6.1f} min")
    line = f"in all: {total_done} iterations, {total_seconds / 3600:.2f} h"
    if iterations is not None and total_done:
        per = total_seconds / total_done
        line += f"; {left} left, about {left * per / 3600:.1f} h at {per:.0f} s each"
    return [*lines, line]


RUN_FILES = ("config.yaml", "metrics.jsonl", "oracle.json", "versus.json")


def refuse_to_drop_pairs(journal: Path, exported: Path) -> None:
    """Exits with one line where `exported` (a journal exported before) holds pairs that
    `journal` lacks: overwriting it would lose them. That is a round robin played into a
    runs folder that did not hold the earlier seeds' journal (a fresh machine).

    Raises:
      ExportError: it would lose pairs.
    """
    if not TournamentFolder(exported).has_header():
        return
    have = {(p.a, p.b) for p in TournamentFolder(journal).read_journal()}
    lost = [p for p in TournamentFolder(exported).read_journal() if (p.a, p.b) not in have]
    if lost:
        raise ExportError(
            f"{exported} holds {len(lost)} pairs that {journal} lacks (e.g. "
            f"{lost[0].a} vs {lost[0].b}); exporting would drop them. Copy {exported} into "
            f"{journal} before its next round robin, or export elsewhere")


def export(source: Path, target: Path, partial: bool = False) -> tuple[int, list[Path]]:
    """Copies the files (the module docstring); returns their total size in bytes and the
    runs left out as still training. `partial`: unfinished runs too (those with at least
    one iteration).

    Raises:
      ExportError: a journal that would lose pairs (`refuse_to_drop_pairs`).
    """
    size, left_out = 0, []
    for config in sorted(source.rglob("config.yaml")):
        folder = config.parent
        parts = folder.relative_to(source).parts
        if ".hydra" in parts or any(part.startswith("tournament") for part in parts):
            continue
        run = read_run(folder)
        if partial and run.iterations == 0:
            continue
        if run.iterations < run.config.train.iterations and not partial:
            left_out.append(folder)
            continue
        for name in RUN_FILES:
            if (folder / name).exists():
                dest = target / folder.relative_to(source) / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(folder / name, dest)
                size += dest.stat().st_size
    # The round robin of the final networks (`tournament`), and those of the networks kept
    # at earlier iterations (`tournament_at015`, ...: a study's horizons).
    for journal in sorted(source.glob("tournament*")):
        if not TournamentFolder(journal).has_header():
            continue
        refuse_to_drop_pairs(journal, target / journal.name)
        for path in [journal / "tournament.json", *TournamentFolder(journal).batch_paths()]:
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
        TournamentFolder(target / journal.name).compress_journal()
        size += sum(p.stat().st_size for p in (target / journal.name).rglob("*") if p.is_file())
    return size, left_out
