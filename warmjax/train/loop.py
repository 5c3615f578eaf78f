"""The host loop of a run: resume, iterate, checkpoint, log.

Outputs in the run folder:

- `config.yaml`: the resolved configuration (a later run in the same folder must match it);
- `metrics.jsonl`: one JSON line per iteration (see `Trainer.iteration` for the keys, plus
  per-stage wall seconds `seconds_selfplay`, `seconds_train`, `seconds_arena`,
  `seconds_total`, and for Connect Four every `oracle.every` iterations `oracle_optimal`
  and `oracle_policy`, the optimal-move rates of the current best network's search (argmax,
  the run's m) and of its policy head on the labelled positions of `warmjax.oracle`);
- `tb/`: TensorBoard scalars;
- `checkpoints/`: the last `keep_checkpoints` training states and the best network;
- `network.json` + `network.msgpack`: the current best network (see `network_io.py`).

Resuming: the same command in the same folder loads the newest sound checkpoint, rebuilds
`metrics.jsonl` from the metrics stored in it, and runs the remaining iterations. The
iteration is a pure function of the state (its PRNG key included), so a resumed run ends
with the same metrics (wall times aside) and the same parameters as an uninterrupted one.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any, Callable

import jax
import numpy as np
from jax.experimental.compilation_cache import compilation_cache

from warmjax.train import run_folder
from warmjax.train.checkpoint import CheckpointDir
from warmjax.train.config import ConfigError, RunConfig
from warmjax.train.iteration import Trainer, TrainState
from warmjax.train.network_io import save_network


def _plain(value: Any) -> Any:
    value = np.asarray(value)
    if value.dtype == bool:
        return bool(value)
    if np.issubdtype(value.dtype, np.integer):
        return int(value)
    return float(value)


def _check_config(run_dir: Path, config: RunConfig) -> None:
    current = config.to_dict()
    if run_folder.is_run_folder(run_dir):
        previous = run_folder.read_config(run_dir)
        # More iterations extend a run; the folder's path, bookkeeping and the training
        # convolution (same function either way) may change. A setting the saved config
        # predates counts as its default, which is the behaviour of the code that wrote it.
        skip = {"train.iterations", "run_dir", "keep_checkpoints", "tensorboard",
                "oracle.every", "oracle.positions", "model.train_conv", "compilation_cache",
                "stage_times"}
        defaults = _flat(RunConfig().to_dict())
        old, new = _flat(previous), _flat(current)
        diff = sorted(k for k in set(old) | set(new) if k not in skip
                      and old.get(k, defaults.get(k)) != new.get(k, defaults.get(k)))
        if diff:
            raise ConfigError(
                f"{run_dir} holds a run with a different configuration (differs in: "
                f"{', '.join(diff)}); choose another run_dir or restore the settings")
    run_folder.write_config(run_dir, current)


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and k != "params":
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = list(v) if isinstance(v, tuple) else v
    return out


def progress_line(row: dict, total: int, config: RunConfig) -> str:
    ws = config.warmstart
    if row["warmstart_active"]:
        warm = f"{ws.enhancement} w={row['weight']:.2f}"
        if ws.mode == "adaptive":
            warm += f" r={row['r_balance']:+.0f}"
    elif ws.mode == "adaptive" and row["switched"]:
        warm = f"switched@{row['switch_iteration']}"
    else:
        warm = "baseline"
    verdict = "accepted" if row["accepted"] else "rejected"
    oracle = ""
    if "oracle_optimal" in row:
        oracle = f"oracle {row['oracle_optimal']:.1%} / {row['oracle_policy']:.1%} | "
    return (
        f"iter {row['iteration']:>3}/{total} | {warm:<20} | arena "
        f"{row['arena_wins']}-{row['arena_draws']}-{row['arena_losses']} {verdict} | "
        f"loss v {row['loss_value']:.3f} p {row['loss_policy']:.3f} | {oracle}"
        f"{row['examples']} ex | {row['seconds_total']:.1f}s"
        + (f" (self-play {row['seconds_selfplay']:.1f}, train {row['seconds_train']:.1f}, "
           f"arena {row['seconds_arena']:.1f})" if "seconds_selfplay" in row else "")
    )


def use_compilation_cache(config: RunConfig, run_dir: Path) -> None:
    """Points JAX's persistent compilation cache at `config.compilation_cache`.

    "auto" is the folder in `JAX_COMPILATION_CACHE_DIR` where that is set, else `.jax_cache`
    beside the run folder; None leaves JAX's own setting. JAX opens its cache once per
    process, at the first compilation, so a new folder also reopens it: the folder takes
    effect even after other programs of this process were compiled.
    """
    if config.compilation_cache is None:
        return
    if config.compilation_cache == "auto":
        path = Path(os.environ.get("JAX_COMPILATION_CACHE_DIR")
                    or run_dir.resolve().parent / ".jax_cache")
    else:
        path = Path(config.compilation_cache)
    path.mkdir(parents=True, exist_ok=True)
    if jax.config.jax_compilation_cache_dir != str(path):
        jax.config.update("jax_compilation_cache_dir", str(path))
        compilation_cache.reset_cache()


class RunOutputs:
    """What one run leaves in its folder as it trains (the module docstring's outputs).

    `train` keeps one; a group of runs sharing a compiled program (`group.py`) keeps one per
    run.
    """

    def __init__(self, config: RunConfig, network):
        self.config = config
        self.dir = Path(config.run_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        _check_config(self.dir, config)
        self.network = network
        self.checkpoints = CheckpointDir(self.dir / "checkpoints", config.keep_checkpoints)
        self.history: list[dict] = []
        self.writer = None

    def resume(self, template: TrainState, log: Callable[[str], None],
               iteration: int | None = None) -> TrainState:
        """The newest sound checkpoint's state (or the one after `iteration`), with the
        metrics it stored written back to `metrics.jsonl`; `template` if there is none."""
        if iteration is None:
            loaded = self.checkpoints.latest(template, log=log)
        else:
            loaded = self.checkpoints.load(template, iteration) if iteration > 0 else None
        state, self.history = template, []
        if loaded is not None:
            state, header = loaded
            self.history = [row for row in header["metrics"]
                            if row["iteration"] <= header["iteration"]]
            log(f"resuming {self.dir} after iteration {header['iteration']}")
        run_folder.write_metrics(self.dir, self.history)
        return state

    def open(self) -> None:
        """Opens the TensorBoard writer (if the config asks for one)."""
        if self.config.tensorboard:
            from tensorboardX import SummaryWriter

            self.writer = SummaryWriter(str(self.dir / "tb"))

    def record(self, state: TrainState, row: dict, prune: bool = True) -> None:
        """Writes everything after the iteration `row` describes: checkpoint, best network,
        `network.json/.msgpack`, the metrics line and TensorBoard scalars."""
        self.history.append(row)
        it = row["iteration"]
        self.checkpoints.save(state, it, {"metrics": self.history}, prune=prune)
        if row["accepted"] or it == 1:
            self.checkpoints.save_best(state.params)
        save_network(self.dir, self.config, self.network, state.params, it)
        run_folder.append_metrics(self.dir, row)
        if self.writer is not None:
            for key, value in row.items():
                if key != "iteration" and math.isfinite(float(value)):
                    self.writer.add_scalar(key, float(value), it)
            self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def plain_row(metrics: dict) -> dict:
    """Device metrics of one run → a JSON-ready row."""
    return {k: _plain(v) for k, v in metrics.items()}


def train(config: RunConfig, log: Callable[[str], None] = print,
          stop_after: int | None = None) -> TrainState:
    """Runs (or resumes) a training run to `config.train.iterations`.

    Args:
      config: validated run configuration.
      log: where progress lines go.
      stop_after: run at most this many iterations in this call (for tests and schedulers).

    Returns:
      The final training state.
    """
    trainer = Trainer(config)  # builds functions; nothing is compiled or written yet
    outputs = RunOutputs(config, trainer.network)
    use_compilation_cache(config, outputs.dir)
    state = outputs.resume(trainer.init_state(), log)

    start = int(state.iteration)
    total = config.train.iterations
    if start >= total:
        log(f"{outputs.dir} is complete ({start} iterations)")
        return state
    tic = time.perf_counter()
    step = jax.jit(trainer.iteration, donate_argnums=0).lower(state).compile()
    log(f"compiled the iteration in {time.perf_counter() - tic:.1f}s "
        f"({config.game.name}, E={config.train.games}, m={config.search.simulations}, "
        f"warm start {config.warmstart.mode})")
    oracle = None
    if trainer.oracle is not None:
        oracle = jax.jit(trainer.oracle)
    outputs.open()
    done = 0
    try:
        while int(state.iteration) < total and (stop_after is None or done < stop_after):
            trainer.clock.start()
            tic = time.perf_counter()
            state, metrics = step(state)
            row = plain_row(jax.device_get(metrics))
            row.update(trainer.clock.durations())
            row["seconds_total"] = time.perf_counter() - tic
            if oracle is not None and row["iteration"] % config.oracle.every == 0:
                # The search is deterministic (argmax, network leaves), so the key is fixed.
                tic = time.perf_counter()
                probe = oracle(state.params, jax.random.PRNGKey(0), trainer.oracle_states)
                row.update(plain_row(jax.device_get(probe)))
                row["seconds_oracle"] = time.perf_counter() - tic
            outputs.record(state, row)
            log(progress_line(row, total, config))
            done += 1
    finally:
        outputs.close()
    return state
