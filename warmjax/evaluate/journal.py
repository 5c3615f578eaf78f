"""A tournament's output folder as its resume journal: `tournament.json` (settings and
players, checked on a rerun) and `batches/batch-NNNN.json` (every finished call's pairs).
A batch may also be kept gzip-compressed as `batch-NNNN.json.gz` (`compress_journal`: an
exported study's games take a tenth of the space); both kinds read and resume alike."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from warmjax.fileio import atomic_write

FORMAT = "warmjax-tournament-v1"
# Settings a resumed tournament must share with the one it continues.
SHARED_SETTINGS = ("game", "games", "simulations", "c_puct", "temperature_moves", "playouts",
                   "seed", "pairing")
# What a tournament written before a setting existed played with.
SETTING_DEFAULTS = {"pairing": "all"}


def write_json(path: Path, payload, *, per_line: bool = False) -> None:
    """Writes JSON atomically: indented, or a list with one compact item per line."""
    if per_line:
        text = "[\n" + ",\n".join(json.dumps(item) for item in payload) + "\n]\n"
    else:
        text = json.dumps(payload, indent=1) + "\n"
    atomic_write(path, text.encode())


def batch_number(path: Path) -> int | None:
    """NNNN of `batch-NNNN.json` or `batch-NNNN.json.gz`; None for any other name."""
    for suffix in (".json", ".json.gz"):
        if path.name.startswith("batch-") and path.name.endswith(suffix):
            number = path.name[len("batch-"):-len(suffix)]
            return int(number) if number.isdigit() else None
    return None


def batch_paths(out: Path) -> list[Path]:
    """The journal's batch files in `out/batches/`, plain or compressed, by number."""
    found = [p for p in (out / "batches").glob("batch-*") if batch_number(p) is not None]
    return sorted(found, key=lambda p: (batch_number(p), p.name))


def read_journal(out: Path) -> list[dict]:
    """Every pair record in `out/batches/` (in batch order)."""
    pairs = []
    for path in batch_paths(out):
        try:
            data = path.read_bytes()
            if path.name.endswith(".gz"):
                data = gzip.decompress(data)
            pairs += json.loads(data)["pairs"]
        except (ValueError, KeyError, OSError, EOFError) as err:
            raise ValueError(f"{path} is corrupt ({err}); delete it to replay its pairs") \
                from None
    return pairs


def compress_journal(out: Path) -> None:
    """Replaces each `batch-NNNN.json` in `out/batches/` by `batch-NNNN.json.gz` (the same
    bytes, gzip-compressed with no timestamp, so that the file is reproducible)."""
    for path in batch_paths(out):
        if path.name.endswith(".json"):
            atomic_write(path.with_name(path.name + ".gz"),
                         gzip.compress(path.read_bytes(), mtime=0))
            path.unlink()


def check_resume(out: Path, settings: dict, players: dict) -> dict:
    """Checks `out/tournament.json` against this invocation; returns the merged players.

    Raises:
      ValueError: different settings, or a player whose network has changed.
    """
    path = out / "tournament.json"
    if not path.exists():
        return dict(players)
    saved = json.loads(path.read_text())
    if saved.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} file")
    before = {k: saved["settings"].get(k, SETTING_DEFAULTS.get(k)) for k in SHARED_SETTINGS}
    diff = [f"{k}: {before[k]!r} there, {settings.get(k)!r} now"
            for k in SHARED_SETTINGS if before[k] != settings.get(k)]
    if diff:
        raise ValueError(f"{out} holds a tournament with other settings ({'; '.join(diff)}); "
                         "choose another --out or the same settings")
    merged = dict(saved["players"])
    for name, info in players.items():
        old = merged.get(name)
        if old is not None and old.get("network_sha256") != info.get("network_sha256"):
            raise ValueError(f"the network of {name} ({info.get('run_dir')}) differs from the "
                             f"one this tournament began with ({old.get('run_dir')}); was the "
                             "run trained further? Use another --out")
        if old is not None and old.get("kind") != info.get("kind"):
            raise ValueError(f"{name} was a {old.get('kind')} in this tournament, now a "
                             f"{info.get('kind')}")
        merged[name] = info
    return merged
