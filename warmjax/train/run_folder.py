"""The run folder: the one place that reads and writes its files.

A training run leaves in its folder

- `config.yaml`: the resolved configuration (`RunConfig.to_dict()`);
- `metrics.jsonl`: one JSON object per finished iteration;
- `network.json` + `network.msgpack`: the final best network (`network_io.py`);
- `checkpoints/` and `tb/` (`checkpoint.py`, TensorBoard).

The training loop writes through `write_config`, `write_metrics` and `append_metrics`; every
command and report reads through `read_config`, `read_metrics`, `read_run` and
`is_run_folder`, and so do the tests; `search_config` gives the search a player of the
run's network plays. A missing or corrupt file is a `ValueError` that names it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple


import yaml

from warmjax.search.config import SearchConfig
from warmjax.settings import from_mapping
from warmjax.train.checkpoint import atomic_write
from warmjax.train.config import RunConfig
from warmjax.train.network_io import load_network

CONFIG = "config.yaml"
METRICS = "metrics.jsonl"


class RunRecord(NamedTuple):
    """What `read_run` returns: the folder, its configuration and metrics; `run_config()`
    and `network()` give the typed configuration and the final network."""

    path: Path
    config: dict  # the saved configuration, as plain nested dicts
    metrics: list[dict]  # one row per finished iteration

    def run_config(self) -> RunConfig:
        """The saved configuration as a validated `RunConfig` (settings an older run did not
        save at their defaults)."""
        return RunConfig.from_dict(self.config)

    def network(self):
        """`(env, network, variables)` of the run's final network (`network_io`)."""
        return load_network(self.path)


def is_run_folder(path: Path | str) -> bool:
    """Whether `path` holds a run's `config.yaml`."""
    return (Path(path) / CONFIG).exists()


def read_config(run_dir: Path | str) -> dict:
    """The saved configuration of a run folder.

    Raises:
      ValueError: no `config.yaml` there, or one that is not valid YAML.
    """
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


def read_metrics(run_dir: Path | str) -> list[dict]:
    """The rows of `metrics.jsonl` (empty if the run has not finished an iteration).

    Raises:
      ValueError: a line that is not JSON, naming the file and the line.
    """
    path = Path(run_dir) / METRICS
    rows = []
    if path.exists():
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as err:
                    raise ValueError(f"{path}:{number} is not JSON ({err})") from None
    return rows


def read_run(run_dir: Path | str) -> RunRecord:
    """A run folder's configuration and metrics (the network: `network_io.load_network`)."""
    return RunRecord(Path(run_dir), read_config(run_dir), read_metrics(run_dir))


def search_config(run_config: dict) -> SearchConfig:
    """The search a player of the run's network plays: the run's `search` settings (its
    departures from the papers and tree reuse included; settings an older run did not save
    at their defaults) without self-play's root noise.

    Raises:
      ValueError: a saved search setting that is unknown or impossible, named.
    """
    search = from_mapping(SearchConfig, run_config.get("search") or {}, "search",
                          base=RunConfig().search)
    return search.without_noise()


def write_config(run_dir: Path | str, config: dict[str, Any]) -> None:
    """Writes `config.yaml` atomically."""
    atomic_write(Path(run_dir) / CONFIG, yaml.safe_dump(config, sort_keys=False).encode())


def write_metrics(run_dir: Path | str, rows: list[dict]) -> None:
    """Rewrites `metrics.jsonl` atomically with `rows`."""
    text = "".join(json.dumps(row) + "\n" for row in rows)
    atomic_write(Path(run_dir) / METRICS, text.encode())


def append_metrics(run_dir: Path | str, row: dict) -> None:
    """Adds one iteration's row to `metrics.jsonl`."""
    with open(Path(run_dir) / METRICS, "a") as f:
        f.write(json.dumps(row) + "\n")
