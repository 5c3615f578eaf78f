"""The run folder: the one place that reads and writes its files.

A training run leaves in its folder

- `config.yaml`: the resolved configuration (`RunConfig.to_dict()`);
- `metrics.jsonl`: one JSON object per finished iteration (`metrics.MetricRow`);
- `network.json` + `network.msgpack`: the final best network (`network_io.py`);
- `checkpoints/` and `tb/` (`checkpoint.py`, TensorBoard).

`read_run(folder)` returns it typed: a `Run` with the validated `RunConfig`, its
`RunId` and its `MetricRow`s (and the network on request, `Run.network()`). Training
writes through `claim` (the config, checked against a run already there), `write_metrics`
and `append_metrics`. Nothing else in warmjax parses `config.yaml` or `metrics.jsonl`. A
missing or corrupt file is a `ValueError` that names it; settings an older run did not save
read as their defaults, which is the behaviour of the code that wrote them.
"""

from __future__ import annotations

import fcntl
import glob
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, NamedTuple

import yaml

from warmjax.fileio import atomic_write
from warmjax.search.config import SearchConfig
from warmjax.settings import ConfigError, flatten
from warmjax.train.metrics import MetricRow
from warmjax.train.run_config import RunConfig, resumable_paths
from warmjax.train.run_id import RunId

CONFIG = "config.yaml"
METRICS = "metrics.jsonl"


class Run(NamedTuple):
    """A run folder, read: its path, configuration and metrics."""

    path: Path
    config: RunConfig
    metrics: tuple[MetricRow, ...]  # one row per finished iteration, in order

    @property
    def id(self) -> RunId:
        return RunId.of(self.config)

    @property
    def iterations(self) -> int:
        """Iterations finished."""
        return self.metrics[-1].iteration if self.metrics else 0

    @property
    def last(self) -> MetricRow | None:
        return self.metrics[-1] if self.metrics else None

    @property
    def switch_iteration(self) -> int | None:
        """An adaptive run's switch iteration (that of its last metrics row); None if it has
        not switched, or is not adaptive."""
        last = self.last
        if self.config.warmstart.mode != "adaptive" or last is None \
                or last.switch_iteration < 1:
            return None
        return last.switch_iteration

    def search(self) -> SearchConfig:
        """The search a player of the run's network plays: the run's `search` settings (its
        departures from the papers and tree reuse included) without self-play's root noise."""
        return self.config.search.without_noise()

    def network(self, iteration: int | None = None):
        """`(env, network, variables)` of the run's final network (`network_io`), or of the
        best network after `iteration`, which the run kept (`keep_networks`).

        Raises:
          ValueError: no such network kept, naming the iterations that were.
        """
        from warmjax.train import network_io  # JAX and flax: only where a network is loaded

        if iteration is None:
            return network_io.load_network(self.path)
        folder = kept_network_folder(self.path, iteration)
        if not folder.is_dir():
            kept = sorted(p.name for p in (self.path / NETWORKS).glob("iteration_*"))
            raise ValueError(f"{self.path} kept no network after iteration {iteration} "
                             f"(kept: {', '.join(kept) or 'none'}; see keep_networks)")
        return network_io.load_network(folder)


NETWORKS = "networks"  # the kept networks' folder (`RunConfig.keep_networks`)


def kept_network_folder(run_dir: Path | str, iteration: int) -> Path:
    """Where a run keeps its best network after `iteration` (`keep_networks`)."""
    return Path(run_dir) / NETWORKS / f"iteration_{iteration:03d}"


def is_run_folder(path: Path | str) -> bool:
    """Whether `path` holds a run's `config.yaml`."""
    return (Path(path) / CONFIG).exists()


def _read_config_mapping(run_dir: Path | str) -> dict:
    path = Path(run_dir) / CONFIG
    if not path.exists():
        raise ValueError(f"{run_dir} is not a run folder (no {CONFIG})")
    try:
        config = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        raise ValueError(f"{path} is not valid YAML ({err})") from None
    if not isinstance(config, dict):
        raise ValueError(f"{path} does not hold a configuration")
    return config


def read_config(run_dir: Path | str) -> RunConfig:
    """The saved configuration of a run folder, validated.

    Raises:
      ValueError: no `config.yaml` there, one that is not valid YAML, or a setting that is
        unknown or impossible (named).
    """
    raw = _read_config_mapping(run_dir)
    try:
        return RunConfig.from_dict(raw, stored=True)
    except ConfigError as err:
        raise ValueError(f"{Path(run_dir) / CONFIG}: {err}") from None


def read_metrics(run_dir: Path | str) -> tuple[MetricRow, ...]:
    """The rows of `metrics.jsonl` (none if the run has not finished an iteration).

    Raises:
      ValueError: a line that is not a metrics row, naming the file and the line.
    """
    path = Path(run_dir) / METRICS
    rows = []
    if path.exists():
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if line.strip():
                try:
                    raw = json.loads(line)
                except ValueError as err:
                    raise ValueError(f"{path}:{number} is not JSON ({err})") from None
                rows.append(MetricRow.from_json(raw, f"{path}:{number}"))
    return tuple(rows)


def read_run(run_dir: Path | str) -> Run:
    """A run folder's configuration and metrics (see the module docstring)."""
    return Run(Path(run_dir), read_config(run_dir), read_metrics(run_dir))


def run_order(run: Run) -> tuple:
    """How runs sort: by variant (`RunId.order`), then by the name of the folder holding
    them (a study's data folder), then by path, so the order does not depend on where
    the study folders lie."""
    return (run.id.order(), run.path.parent.name, str(run.path))


def seed_runs(folder: Path | str, seeds: Iterable[int]) -> list[Run]:
    """The runs under `folder` (`find_runs`) of the given seeds; none where the folder is
    missing."""
    seeds = set(seeds)
    if not Path(folder).is_dir():
        return []
    return [r for r in find_runs([folder]) if r.id.seed in seeds]


def find_runs(folders: Iterable[Path | str]) -> list[Run]:
    """The runs among `folders` and their sub-folders (any depth), sorted by `run_order`."""
    found: dict[Path, Run] = {}
    for folder in folders:
        folder = Path(folder)
        candidates = [folder] if is_run_folder(folder) else sorted(
            p.parent for p in folder.rglob(CONFIG))
        for candidate in candidates:
            key = candidate.resolve()
            if key not in found and is_run_folder(candidate):
                found[key] = read_run(candidate)
    return sorted(found.values(), key=run_order)


LOCK = ".lock"


def lock(run_dir: Path | str) -> IO:
    """Takes the run folder for this process: an exclusive lock on `run_dir/.lock`, held
    until the returned file is closed (or the process ends).

    Raises:
      ConfigError: another process holds it (two commands training one run).
    """
    handle = open(Path(run_dir) / LOCK, "w")  # noqa: SIM115 - held while the run trains
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise ConfigError(f"another process is training in {run_dir}; wait for it or stop "
                          "it first") from None
    return handle


def claim(run_dir: Path | str, config: RunConfig) -> RunConfig | None:
    """Writes `config.yaml` for a run that trains in `run_dir`; returns the configuration
    it held before (None for a new run), whose `train.iterations` may be fewer.

    A run already there must have the same configuration but for the settings that may
    change between calls (`run_config.resumable_paths`: more iterations, bookkeeping).

    Raises:
      ConfigError: the folder holds a run with other settings, naming them.
    """
    run_dir = Path(run_dir)
    current = config.to_dict()
    previous = None
    if is_run_folder(run_dir):
        previous = read_config(run_dir)
        skip = resumable_paths()
        old, new = flatten(previous.to_dict()), flatten(current)
        diff = sorted(k for k in set(old) | set(new) if k not in skip and old.get(k) != new.get(k))
        if diff:
            raise ConfigError(
                f"{run_dir} holds a run with a different configuration (differs in: "
                f"{', '.join(diff)}); choose another run_dir or restore the settings")
    write_config(run_dir, config)
    return previous


def write_metrics(run_dir: Path | str, rows: Sequence[MetricRow]) -> None:
    """Rewrites `metrics.jsonl` atomically with `rows`."""
    text = "".join(json.dumps(row.to_json()) + "\n" for row in rows)
    atomic_write(Path(run_dir) / METRICS, text.encode())


def append_metrics(run_dir: Path | str, row: MetricRow) -> None:
    """Adds one iteration's row to `metrics.jsonl`."""
    with open(Path(run_dir) / METRICS, "a") as f:
        f.write(json.dumps(row.to_json()) + "\n")


def write_config(run_dir: Path | str, config: RunConfig) -> None:
    """Writes `config.yaml` atomically."""
    atomic_write(Path(run_dir) / CONFIG,
                 yaml.safe_dump(config.to_dict(), sort_keys=False).encode())


def expand_runs(patterns: Sequence[str]) -> list[Path]:
    """Run folders from paths and glob patterns (sorted, duplicates removed).

    A glob keeps the folders it matches and ignores files (e.g. Hydra's `multirun.yaml`).

    Raises:
      ValueError: a pattern that matches no folder, or a path that is not a folder.
    """
    folders: list[Path] = []
    for pattern in patterns:
        if any(ch in pattern for ch in "*?["):
            found = [Path(p) for p in sorted(glob.glob(pattern)) if Path(p).is_dir()]
            if not found:
                raise ValueError(f"{pattern!r} matches no run folder")
            folders += found
        else:
            path = Path(pattern)
            if not path.is_dir():
                raise ValueError(f"{pattern} is not a run folder")
            folders.append(path)
    unique, seen = [], set()
    for folder in folders:
        key = folder.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(folder)
    return unique
