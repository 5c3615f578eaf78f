"""One iteration's metrics: the typed row of `metrics.jsonl`.

`MetricRow`'s fields are the JSON keys, so a row is written in one place (`to_json`, by the
training loop through `run_folder.append_metrics`) and read in one place (`from_json`, by
`run_folder.read_run`). Everything downstream — progress lines, TensorBoard, tables, plots,
study reports — reads the attributes.

The iteration's own metrics (`Trainer.iteration`) are always there; the wall times of the
stages are there when the run logged them (`stage_times`), and the perfect-play probe's
rates on the iterations that ran it (`probe.every`). A row that lacks one of those has
None there, and `to_json` leaves it out, so the file keeps the keys the run wrote.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from warmjax.settings import ConfigError, from_mapping


@dataclasses.dataclass(frozen=True)
class MetricRow:
    """The metrics of one finished iteration (method.md §5–§9)."""

    iteration: int  # 1-based
    # Self-play used the enhancement (fixed: i ≤ I′; adaptive: not yet switched).
    warmstart_active: bool
    weight: float  # w of WRo/WRoRa in this iteration (method.md §3)
    switched: bool  # adaptive: the switch has happened (at this iteration or before)
    switch_iteration: int  # adaptive: the iteration whose balance caused it; −1 if none
    r_balance: float  # adaptive: Σ results of the baseline side in self-play (0 otherwise)
    arena_wins: int  # candidate's wins against the best network
    arena_draws: int
    arena_losses: int
    accepted: bool  # the candidate became the best network
    loss_value: float  # mean over the iteration's training steps
    loss_policy: float
    train_steps: int
    examples: int  # in the replay buffer after self-play
    new_examples: int  # this iteration's, symmetries included
    selfplay_mean_plies: float
    selfplay_truncated: int | None = None  # self-play games ended by the step cap (draws,
    # or scored where the game's rules score them: Go); None in runs from before it existed
    # Self-play health (train/health.py, method.md §5); None in runs from before it existed.
    selfplay_first_wins: float | None = None  # shares of the games: won by the first mover,
    selfplay_second_wins: float | None = None  # by the second,
    selfplay_draws: float | None = None  # drawn
    selfplay_max_plies: int | None = None  # the longest game
    selfplay_openings: float | None = None  # distinct k-ply openings over the games
    selfplay_target_entropy: float | None = None  # mean entropy of the policy targets, nats
    arena_decisive: float | None = None  # share of arena games won or lost; None: no arena
    seconds_selfplay: float | None = None  # per-stage wall times (`stage_times`)
    seconds_train: float | None = None
    seconds_arena: float | None = None
    seconds_total: float | None = None  # the iteration's wall time
    oracle_optimal: float | None = None  # perfect-play probe: the search's optimal-move rate
    oracle_policy: float | None = None  # and the policy head's
    # The same two on the set's quiet positions (no win to take, no loss to block).
    oracle_optimal_quiet: float | None = None
    oracle_policy_quiet: float | None = None
    seconds_oracle: float | None = None
    # The compute ledger (method.md §12): deterministic counts of the iteration's work, the
    # same for a config and seed on any machine; None in runs from before it existed.
    count_games_selfplay: int | None = None  # E
    count_games_arena: int | None = None  # n
    # Network evaluations: 1 + m per searched position (root prior and one per
    # simulation), over the positions of games still on; the probe's are its search's
    # 1 + m and the policy head's 1 per labelled position, 0 where it did not run.
    count_evals_selfplay: int | None = None
    count_evals_arena: int | None = None
    count_evals_probe: int | None = None
    count_playout_steps: int | None = None  # environment steps in random playouts
    count_train_samples: int | None = None  # examples through the update: steps × bs

    # The device metrics `Trainer.iteration` returns (the fields without a default).
    DEVICE: ClassVar[tuple[str, ...]]

    @classmethod
    def from_device(cls, metrics: dict[str, Any], **host: float | None) -> "MetricRow":
        """A row from the iteration's fetched device scalars and host-side values (times,
        the probe's rates)."""
        values = {name: _plain(value) for name, value in metrics.items()}
        values.update({name: None if v is None else _plain(v) for name, v in host.items()})
        return cls(**values)

    def with_values(self, **values: Any) -> "MetricRow":
        """The row with more host-side values (e.g. the probe's rates, fetched scalars)."""
        return dataclasses.replace(self, **{k: None if v is None else _plain(v)
                                            for k, v in values.items()})

    def to_json(self) -> dict[str, Any]:
        """The JSON object of `metrics.jsonl` (the fields that are set)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name) is not None}

    @classmethod
    def from_json(cls, raw: Any, where: str = "a metrics row") -> "MetricRow":
        """A row from its JSON object.

        Raises:
          ValueError: not an object, an unknown or missing key, or a value of the wrong
            type, naming `where` (e.g. `metrics.jsonl:3`).
        """
        if not isinstance(raw, dict):
            raise ValueError(f"{where} is not a JSON object")
        missing = [name for name in cls.DEVICE if name not in raw]
        if missing:
            raise ValueError(f"{where} lacks {', '.join(missing)}")
        try:  # the project's one strict converter: types checked, ints widened to floats
            return from_mapping(cls, raw)
        except ConfigError as err:
            raise ValueError(f"{where}: {err}") from None

    @property
    def finite_scalars(self) -> dict[str, float]:
        """Every set, finite value but the iteration, as floats, by field name."""
        out = {}
        for name, value in self.to_json().items():
            if name != "iteration" and math.isfinite(float(value)):
                out[name] = float(value)
        return out

    @property
    def tensorboard_scalars(self) -> dict[str, float]:
        """`finite_scalars` under their TensorBoard tags (`tensorboard_tag`)."""
        return {tensorboard_tag(k): v for k, v in self.finite_scalars.items()}


# TensorBoard's groups: a field's tag is `group/name` (`tensorboard_tag`), so that its
# scalars page opens on a few sections, not one list of every field.
TAG_GROUPS = (("loss_", "loss"), ("oracle_", "probe"), ("seconds_", "time"),
              ("selfplay_", "selfplay"), ("arena_", "arena"), ("count_", "compute"))
TAG_NAMES = {"accepted": "arena/accepted", "oracle_optimal": "probe/search",
             "oracle_policy": "probe/policy_head", "oracle_optimal_quiet": "probe/search_quiet",
             "oracle_policy_quiet": "probe/policy_head_quiet", "seconds_oracle": "time/probe",
             "train_steps": "data/train_steps", "examples": "data/examples",
             "new_examples": "data/new_examples"}


def tensorboard_tag(name: str) -> str:
    """A metrics field's TensorBoard tag: `loss/…`, `probe/…`, `time/…`, `selfplay/…`,
    `arena/…`, `compute/…`, `data/…`, and `warmstart/…` for the warm-start state."""
    if name in TAG_NAMES:
        return TAG_NAMES[name]
    for prefix, group in TAG_GROUPS:
        if name.startswith(prefix):
            return f"{group}/{name[len(prefix):]}"
    return f"warmstart/{name}"


MetricRow.DEVICE = tuple(f.name for f in dataclasses.fields(MetricRow)
                         if f.default is dataclasses.MISSING)
# The ledger's counts, in the order of the fields.
LEDGER = tuple(f.name for f in dataclasses.fields(MetricRow) if f.name.startswith("count_"))


def _plain(value: Any) -> bool | int | float:
    """A fetched scalar (numpy or Python) as a plain Python value of its kind."""
    value = np.asarray(value)
    if value.dtype == bool:
        return bool(value)
    if np.issubdtype(value.dtype, np.integer):
        return int(value)
    return float(value)
