"""A run's compute, iteration by iteration: the ledger, a calibration table, and what a run
folder from before the ledger still allows (method.md §12). No JAX here.

Three sources, and every figure says which it used (`ComputeCurve.source`):

- **ledger**: the run's metrics rows carry the ledger's counts; compute is their cost in
  estimated seconds on a calibrated device: (self-play and arena evaluations) × seconds
  per evaluation + playout steps × seconds per step + training samples × seconds per
  sample. The probe's evaluations are measurement, not training, and are left out.
- **reconstructed**: a run from before the ledger. Self-play evaluations are
  (1 + m) · E · mean plies, exact without random openings; training samples are steps ·
  bs; the arena's evaluations are estimated with self-play's mean game length; playout
  steps were not recorded and count as none, so warm start's playouts are missing and its
  compute is understated.
- **measured**: the wall seconds the run logged (`seconds_total`), on whatever machine and
  load it ran; no calibration needed.

The calibration table is what `python -m warmjax.calibrate` writes (`read_calibration`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from warmjax.train.metrics import MetricRow

if TYPE_CHECKING:  # the type only: reading run folders is the caller's
    from warmjax.train.run_folder import Run

CALIBRATION_FORMAT = "warmjax-calibration-v1"
SOURCES = ("ledger", "reconstructed", "measured")


@dataclasses.dataclass(frozen=True)
class UnitSeconds:
    """One row of a calibration table: seconds per ledger unit, one game, network, device."""

    device: str
    game: str
    params: dict
    model: str
    seconds_per_evaluation: float
    seconds_per_playout_step: float
    seconds_per_train_sample: float
    games: int = 0
    simulations: int = 0
    batch_size: int = 0

    def seconds(self, evaluations: float, playout_steps: float, samples: float) -> float:
        """The estimated seconds of that much work."""
        return (evaluations * self.seconds_per_evaluation
                + playout_steps * self.seconds_per_playout_step
                + samples * self.seconds_per_train_sample)


def read_calibration(path: Path | str) -> list[UnitSeconds]:
    """The rows of a calibration table.

    Raises:
      ValueError: not a calibration table, naming the file.
    """
    path = Path(path)
    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"{path} is not a readable calibration table ({err})") from None
    if not isinstance(raw, dict) or raw.get("format") != CALIBRATION_FORMAT:
        raise ValueError(f"{path} is not a {CALIBRATION_FORMAT} file")
    try:
        return [UnitSeconds(**row) for row in raw["rows"]]
    except (KeyError, TypeError) as err:
        raise ValueError(f"{path}: a row is malformed ({err})") from None


def write_calibration(path: Path | str, rows: Sequence[UnitSeconds], note: str = "") -> None:
    """Writes the table (JSON) that `read_calibration` reads."""
    payload = {"format": CALIBRATION_FORMAT, "note": note,
               "rows": [dataclasses.asdict(r) for r in rows]}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(payload, indent=2) + "\n")


def unit_seconds_for(rows: Sequence[UnitSeconds], game: str, params: dict, model: str,
                     device: str | None = None) -> UnitSeconds | None:
    """The row for a game (its settings), network preset and device (None: the first row
    for the game and network on any device)."""
    for row in rows:
        if (row.game == game and row.params == dict(params) and row.model == model
                and (device is None or row.device == device)):
            return row
    return None


@dataclasses.dataclass(frozen=True)
class ComputeCurve:
    """A run's cumulative compute after each of its iterations."""

    iterations: tuple[int, ...]
    seconds: tuple[float, ...]  # cumulative, after each iteration
    source: str  # one of SOURCES

    def at(self, iteration: int) -> float:
        """The compute after `iteration` (the last one's if the run is shorter)."""
        index = min(np.searchsorted(self.iterations, iteration), len(self.seconds) - 1)
        return self.seconds[index]

    @property
    def budget(self) -> float:
        """The compute after the run's last iteration."""
        return self.seconds[-1] if self.seconds else 0.0


def has_ledger(row: MetricRow) -> bool:
    return row.count_evals_selfplay is not None


def row_work(row: MetricRow, run: Run) -> tuple[float, float, float, bool]:
    """`(evaluations, playout steps, training samples, from_ledger)` of one iteration's
    training (self-play, update, arena), from its ledger or reconstructed."""
    if has_ledger(row):
        return (row.count_evals_selfplay + row.count_evals_arena, row.count_playout_steps,
                row.count_train_samples, True)
    c = run.config
    per_search = c.search.simulations + 1
    selfplay = per_search * c.train.games * row.selfplay_mean_plies
    arena = per_search * c.arena.games * row.selfplay_mean_plies  # self-play's game length
    return selfplay + arena, 0.0, row.train_steps * c.train.batch_size, False


def compute_curve(run: Run, units: UnitSeconds | None, source: str = "ledger"
                  ) -> ComputeCurve | None:
    """The run's compute curve: estimated seconds from the ledger (or reconstructed counts
    where the run has none) on `units`, or the measured seconds (`source="measured"`).

    Returns None where that source has nothing to give: no calibration row, or a run that
    logged no wall seconds.
    """
    rows = run.metrics
    iterations = tuple(r.iteration for r in rows)
    if source == "measured":
        seconds = [r.seconds_total for r in rows]
        if not rows or any(s is None for s in seconds):
            return None
        return ComputeCurve(iterations, tuple(np.cumsum(seconds).tolist()), "measured")
    if units is None:
        return None
    total, out, ledger = 0.0, [], True
    for row in rows:
        evaluations, steps, samples, from_ledger = row_work(row, run)
        ledger &= from_ledger
        total += units.seconds(evaluations, steps, samples)
        out.append(total)
    return ComputeCurve(iterations, tuple(out), "ledger" if ledger else "reconstructed")
