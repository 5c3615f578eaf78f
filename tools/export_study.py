"""Copies a study's small data (what its report needs) into another folder, for committing:
each run's `config.yaml` and `metrics.jsonl` (and `oracle.json`, `versus.json` where
judged), and the round robin's journal (`tournament/tournament.json`, `tournament/batches/`,
its batches gzip-compressed: `batch-NNNN.json.gz`, which the report reads as they are),
and the round robins of earlier horizons (`tournament_atNNN/`) alike.
No networks or checkpoints; runs still training (fewer metrics rows than iterations) are
left out unless `--partial` (a device session's runs, cut off by its time limit, come back
with the iterations they finished). Existing files are overwritten; nothing else is touched,
and a journal is not exported over one that holds pairs it lacks (an error line instead).

    python tools/export_study.py runs/study_c4_cpu studies/cpu/c4_cpu
    python tools/export_study.py --partial /tmp/c4paper "$OUT/runs"    # on a GPU machine
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from warmjax.matches.tournament_folder import TournamentFolder
from warmjax.train.run_folder import read_run

RUN_FILES = ("config.yaml", "metrics.jsonl", "oracle.json", "versus.json")


def refuse_to_drop_pairs(journal: Path, exported: Path) -> None:
    """Exits with one line where `exported` (a journal exported before) holds pairs that
    `journal` lacks: overwriting it would lose them. That is a round robin played into a
    runs folder that did not hold the earlier seeds' journal (a fresh machine)."""
    if not TournamentFolder(exported).has_header():
        return
    have = {(p.a, p.b) for p in TournamentFolder(journal).read_journal()}
    lost = [p for p in TournamentFolder(exported).read_journal() if (p.a, p.b) not in have]
    if lost:
        raise SystemExit(
            f"error: {exported} holds {len(lost)} pairs that {journal} lacks (e.g. "
            f"{lost[0].a} vs {lost[0].b}); exporting would drop them. Copy {exported} into "
            f"{journal} before its next round robin, or export elsewhere")


def export(source: Path, target: Path, partial: bool = False) -> int:
    """Copies the files; returns their total size in bytes. `partial`: unfinished runs
    too (those with at least one iteration)."""
    size = 0
    for config in sorted(source.rglob("config.yaml")):
        folder = config.parent
        parts = folder.relative_to(source).parts
        if ".hydra" in parts or any(part.startswith("tournament") for part in parts):
            continue
        run = read_run(folder)
        if partial and run.iterations == 0:
            continue
        if run.iterations < run.config.train.iterations and not partial:
            print(f"left out (still training): {folder}")
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
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--partial", action="store_true",
                        help="copy unfinished runs too (a time-limited device session's)")
    args = parser.parse_args()
    size = export(Path(args.source), Path(args.target), args.partial)
    print(f"{size / 1e6:.2f} MB in {args.target}")


if __name__ == "__main__":
    main()
