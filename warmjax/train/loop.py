"""The host loop of a run: resume, iterate, checkpoint, log.

Outputs in the run folder:

- `config.yaml`: the resolved configuration (a later run in the same folder must match it);
- `metrics.jsonl`: one JSON line per iteration, a `metrics.MetricRow`: the iteration's
  metrics, its wall seconds (per stage too with `stage_times`), and every `probe.every`
  iterations `oracle_optimal` and `oracle_policy`, the optimal-move rates of the current
  best network's search (argmax, the run's m) and of its policy head on the game's labelled
  positions (`warmjax.perfect`), where the game has them;
- `tb/`: TensorBoard scalars;
- `checkpoints/`: the last `keep_checkpoints` training states and the best network;
- `network.json` + `network.msgpack`: the current best network (see `network_io.py`).

Resuming: the same command in the same folder loads the newest sound checkpoint, rebuilds
`metrics.jsonl` from the metrics stored in it, and runs the remaining iterations. The
iteration is a pure function of the state (its PRNG key included), so a resumed run ends
with the same metrics (wall times aside) and the same parameters as an uninterrupted one.

One driver, `train_runs`, trains a lone run (`train`) and a group of runs that share one
compiled program (`train_group`, the iteration vmapped over the runs, `group.py`). A process
builds each program once: runs trained one after another in it (a basic-launcher sweep, a
notebook, the tests) that differ only in per-run settings reuse its Trainer and compiled
iteration (`_program`, the last `PROGRAMS_KEPT` programs).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import jax
import jax.numpy as jnp
from jax.experimental.compilation_cache import compilation_cache

from warmjax import cli
from warmjax.train import run_folder
from warmjax.train.checkpoint import CheckpointDir
from warmjax.train.group import program_key, runs_sharding, stack, unstack, vmapped_iteration
from warmjax.train.iteration import Trainer, TrainState
from warmjax.train.metrics import MetricRow
from warmjax.train.network_io import save_network
from warmjax.train.run_config import ConfigError, RunConfig
from warmjax.train.run_id import enhancement_name


def progress_line(row: MetricRow, total: int, config: RunConfig) -> str:
    """One iteration's line: warm-start state, arena, losses, probe, examples, seconds
    (docs/experiments.md, "Reading the progress line", explains every field)."""
    ws = config.warmstart
    if row.warmstart_active:
        warm = f"{enhancement_name(ws.enhancement)} w={row.weight:.2f}"
        if ws.mode == "adaptive":
            warm += f" r={row.r_balance:+.0f}"
    elif ws.mode == "adaptive" and row.switched:
        warm = f"switched@{row.switch_iteration}"
    else:
        warm = "baseline"
    if config.arena.gate:
        arena = (f"arena {row.arena_wins}-{row.arena_draws}-{row.arena_losses} "
                 + ("accepted" if row.accepted else "rejected"))
        if row.arena_decisive is not None:
            arena += f" ({row.arena_decisive:.0%} decisive)"
    else:
        arena = "arena off"
    oracle = ""
    if row.oracle_optimal is not None:
        oracle = f"probe search {row.oracle_optimal:.1%} policy {row.oracle_policy:.1%} | "
    cut = f"{row.selfplay_truncated} truncated | " if row.selfplay_truncated else ""
    return (
        f"iter {row.iteration:>3}/{total} | {warm:<20} | {health_text(row)}{arena} | "
        f"loss v {row.loss_value:.3f} p {row.loss_policy:.3f} | {oracle}{cut}"
        f"{row.examples} ex | {row.seconds_total:.1f}s"
        + (f" (self-play {row.seconds_selfplay:.1f}, train {row.seconds_train:.1f}, "
           f"arena {row.seconds_arena:.1f})" if row.seconds_selfplay is not None else "")
        + (f" + probe {row.seconds_oracle:.1f}s" if row.seconds_oracle is not None else "")
    )


def health_text(row: MetricRow) -> str:
    """Self-play's health in the progress line (train/health.py): first-mover wins, second
    wins and draws, mean/longest plies, distinct openings, target entropy; empty for a row
    from before those figures."""
    if row.selfplay_draws is None:
        return ""
    return (f"self-play {row.selfplay_first_wins:.0%}/{row.selfplay_second_wins:.0%}/"
            f"{row.selfplay_draws:.0%} "
            f"plies {row.selfplay_mean_plies:.1f}/{row.selfplay_max_plies} "
            f"open {row.selfplay_openings:.0%} H {row.selfplay_target_entropy:.2f} | ")


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
    """What one run leaves in its folder as it trains (the module docstring's outputs)."""

    def __init__(self, config: RunConfig, network):
        self.config = config
        self.dir = Path(config.run_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.lock = run_folder.lock(self.dir)  # released by `release` (or at exit)
        previous = run_folder.claim(self.dir, config)
        # The length the folder's run had before this call: a longer train.iterations
        # extends it, which the resume line says.
        self.planned = None if previous is None else previous.train.iterations
        self.fresh = previous is None  # a new run: this call made the folder's files
        self.network = network
        self.checkpoints = CheckpointDir(self.dir / "checkpoints", config.keep_checkpoints)
        self.history: list[MetricRow] = []
        self.saved = 0  # the last iteration whose checkpoint is on disk (what a resume finds)
        self.writer = None

    def resume(self, template: TrainState, log: Callable[[str], None],
               iteration: int | None = None) -> TrainState | None:
        """The newest sound checkpoint's state (or the one after `iteration`), with the
        metrics it stored written back to `metrics.jsonl`; `template` if there is none.

        A folder whose `metrics.jsonl` has rows but no checkpoint behind them (a run copied
        without its `checkpoints/`, or whose every checkpoint is corrupt) is never trained
        over: a complete one is left as it is (None), an unfinished one is refused.

        Raises:
          ConfigError: rows of an unfinished run that no checkpoint can resume.
        """
        if iteration is None:
            loaded = self.checkpoints.latest(template, log=log)
            if loaded is None and not self.fresh:
                rows = len(run_folder.read_metrics(self.dir))
                total = self.config.train.iterations
                if rows >= total:
                    log(f"{self.dir} is complete ({rows} iterations) and keeps no checkpoint; "
                        "left as it is")
                    return None
                if rows:
                    raise ConfigError(
                        f"{self.dir} holds {rows} iterations of metrics but no checkpoint to "
                        "resume them from (checkpoints/ is missing, empty or corrupt); "
                        "training again would overwrite them: restore its checkpoints or "
                        "choose another run_dir")
        else:
            loaded = self.checkpoints.load(template, iteration) if iteration > 0 else None
        state, self.history = template, []
        if loaded is not None:
            state, header = loaded
            where = f"{self.dir}: a checkpoint's metrics"
            self.history = [row for row in (MetricRow.from_json(raw, where)
                                            for raw in header["metrics"])
                            if row.iteration <= header["iteration"]]
            done, total = int(header["iteration"]), self.config.train.iterations
            extended = (f"; it was a run of {self.planned} iterations, extended to {total} "
                        f"by train.iterations={total}"
                        if self.planned is not None and self.planned < total else "")
            if done < total:
                log(f"resuming {self.dir} after iteration {done} of {total}{extended}")
            else:  # nothing left to do: the next line says the run is complete
                log(f"found {self.dir} saved after iteration {done}"
                    + (f" (train.iterations={total} asks for no more)" if done > total
                       else ""))
            self.saved = int(header["iteration"])
        self._say_what_the_rewrite_changes(log)
        run_folder.write_metrics(self.dir, self.history)
        return state

    def _say_what_the_rewrite_changes(self, log: Callable[[str], None]) -> None:
        """Before `metrics.jsonl` is rewritten from the checkpoint: one line where its
        lines differ from the checkpoint's rows other than by rows after it (a kill between
        the two writes), such as a corrupt or edited line, so that nothing is repaired
        without a word."""
        path = self.dir / run_folder.METRICS
        if not path.exists():
            return
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        wanted = [json.dumps(row.to_json()) for row in self.history]
        for number, (line, row) in enumerate(zip(lines, wanted), start=1):
            try:
                same = json.loads(line) == json.loads(row)
            except ValueError:
                same = False
            if not same:
                log(f"[warning] {path}: line {number} differs from the checkpoint's metrics "
                    f"(corrupt or edited); rewritten from the checkpoint after iteration "
                    f"{self.saved}")
                return

    def unsaved(self) -> bool:
        """A new run with no checkpoint on disk yet: its folder holds nothing but the files
        this call made (lock, configuration, empty metrics, TensorBoard's first file)."""
        folder = self.checkpoints.path
        return self.fresh and not (folder.is_dir() and any(folder.iterdir()))

    def discard(self) -> None:
        """Removes a new run's files while `unsaved` (a Ctrl-C before its first iteration was
        saved), so that the command leaves no folder that looks like a run; the folder
        itself is the command's to remove (`run._remove_if_empty`)."""
        if not self.unsaved():
            return
        for name in (run_folder.CONFIG, run_folder.METRICS):
            (self.dir / name).unlink(missing_ok=True)
        for name in ("checkpoints", "tb"):
            shutil.rmtree(self.dir / name, ignore_errors=True)
        self.lock.close()
        (self.dir / run_folder.LOCK).unlink(missing_ok=True)

    def open(self) -> None:
        """Opens the TensorBoard writer (if the config asks for one)."""
        if self.config.tensorboard:
            from tensorboardX import SummaryWriter

            self.writer = SummaryWriter(str(self.dir / "tb"))

    def record(self, state: TrainState, row: MetricRow, prune: bool = True) -> None:
        """Writes everything after the iteration `row` describes: checkpoint, best network,
        `network.json/.msgpack`, the metrics line and TensorBoard scalars."""
        self.history.append(row)
        it = row.iteration
        with cli.uninterrupted():  # a Ctrl-C's `discard` sees this checkpoint or none
            self.checkpoints.save(state, it, {"metrics": [r.to_json() for r in self.history]},
                                  prune=prune)
        self.saved = it  # written atomically: from here on a resume starts after `it`
        if row.accepted or it == 1:
            self.checkpoints.save_best(state.params)
        save_network(self.dir, self.config, self.network, state.params, it)
        if it in self.config.keep_networks:
            save_network(run_folder.kept_network_folder(self.dir, it), self.config,
                         self.network, state.params, it)
        run_folder.append_metrics(self.dir, row)
        if self.writer is not None:
            for tag, value in row.tensorboard_scalars.items():
                self.writer.add_scalar(tag, value, it)
            self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def train_group(configs: Sequence[RunConfig], log: Callable[[str], None] = print,
                stop_after: int | None = None) -> list[TrainState | None]:
    """Trains (or resumes) R runs that share one program (`group.program_key`), as one
    vmapped program (`group.py` describes how).

    Raises:
      ConfigError: runs that cannot share a program, or two runs in one folder.
    """
    return train_runs(configs, log, stop_after, vmapped=True)


# The programs this process has built, the newest last: the runs of a sweep (Hydra's basic
# launcher trains them one after another in one process), a notebook or a test module trace
# and compile each program once. Keyed by what a program depends on: `program_key`, the
# number of runs it is vmapped over, and a lone run's I′, which its iteration reads as a
# constant. Each entry is `{"trainer": Trainer}`, then its compiled step and probe.
_PROGRAMS: dict[tuple, dict] = {}
PROGRAMS_KEPT = 4


def _program(trainer_config: RunConfig, runs: int, vmapped: bool) -> dict:
    """The process's entry for this program, built (its Trainer) on first use."""
    key = (program_key(trainer_config), runs, vmapped,
           None if vmapped else trainer_config.warmstart.iprime)
    entry = _PROGRAMS.pop(key, None)
    if entry is None:
        entry = {"trainer": Trainer(trainer_config)}
    _PROGRAMS[key] = entry  # the newest last
    while len(_PROGRAMS) > PROGRAMS_KEPT:
        _PROGRAMS.pop(next(iter(_PROGRAMS)))
    return entry


def forget_programs() -> None:
    """Drops the programs this process has kept, so that their memory can be freed.

    A compiled program on the CPU holds a few thousand memory mappings (Linux allows a
    process 65,530 by default), so a long process that trains many different programs, such
    as the test suite, calls this between unrelated groups of runs.
    """
    _PROGRAMS.clear()


def train(config: RunConfig, log: Callable[[str], None] = print,
          stop_after: int | None = None) -> TrainState | None:
    """Runs (or resumes) a training run to `config.train.iterations`.

    Args:
      config: validated run configuration.
      log: where progress lines go.
      stop_after: run at most this many iterations in this call (for tests and schedulers).

    Returns:
      The final training state; None for a complete run that keeps no checkpoint
      (`RunOutputs.resume`), which is left as it is.
    """
    return train_runs([config], log, stop_after, vmapped=False)[0]


def train_runs(configs: Sequence[RunConfig], log: Callable[[str], None] = print,
               stop_after: int | None = None,
               vmapped: bool = True) -> list[TrainState | None]:
    """Trains (or resumes) runs that share one compiled program: the one driver.

    Args:
      configs: validated run configurations with equal `group.program_key`s and distinct
        run folders (one, for a lone run).
      log: where progress lines go (one per run per iteration).
      stop_after: run at most this many iterations in this call.
      vmapped: the iteration `jax.vmap`ped over the runs (a group; no per-stage times,
        their host callbacks would fire once per run), or, for a single run, the plain
        iteration with the run's own stage clock.

    Returns:
      Each run's final training state (None for a complete run that keeps no checkpoint).

    Raises:
      ConfigError: runs that cannot share a program, or two runs in one folder.
    """
    configs = list(configs)
    if not configs:
        raise ConfigError("a group needs at least one run")
    if len({program_key(c) for c in configs}) > 1:
        raise ConfigError("these runs differ in more than seed and warmstart.iprime and cannot "
                          "share one compiled program")
    folders = [str(c.run_dir) for c in configs]
    if len(set(folders)) != len(folders):
        raise ConfigError(f"two runs of a group share a run folder: {folders}")
    if not vmapped and len(configs) > 1:
        raise ConfigError("runs without vmap train one at a time")
    first = configs[0]
    # One trainer builds the program; under vmap the clock's host callbacks stay off.
    program = _program(dataclasses.replace(first, stage_times=False) if vmapped else first,
                       len(configs), vmapped)
    outputs: list[RunOutputs] = []
    try:
        # A Ctrl-C before the first checkpoint removes the new runs' files again.
        with cli.uninterrupted():
            for config in configs:  # each takes its folder's lock first
                outputs.append(RunOutputs(config, program["trainer"].network))
        with cli.interrupt_cleanup(lambda: [out.discard() for out in outputs]), \
                stop_on_interrupt(lambda: interrupted_line(outputs)):
            return _advance(program, configs, outputs, log, stop_after, vmapped)
    finally:
        for out in outputs:
            out.lock.close()


def spent_seconds(run_dir, iterations: int) -> float:
    """The training time a run has spent in its first `iterations` iterations: their
    `seconds_total` summed (compiling and the probe left out; `train.minutes`)."""
    return float(sum(row.seconds_total or 0.0 for row in run_folder.read_metrics(run_dir)
                     if row.iteration <= iterations))


def interrupted_line(outputs: Sequence[RunOutputs]) -> str | None:
    """What Ctrl-C says: where each run stands and how to go on; None while every run is
    new and unsaved (the command's own line then, after its cleanups)."""
    if all(out.unsaved() for out in outputs):
        return None
    done = [out.saved for out in outputs]
    where = (str(outputs[0].dir) if len(outputs) == 1
             else f"{len(outputs)} runs ({outputs[0].dir.parent})")
    return (f"interrupted: {where} is saved after iteration {min(done)} (the iteration in "
            "progress is lost); run the same command again to resume")


@contextlib.contextmanager
def stop_on_interrupt(line: Callable[[], str | None]):
    """Ctrl-C stops the process at once with one line (`line()`) and exit status 2; where
    `line()` is None, with the command's cleanups and line instead (`cli.interrupted`,
    which reads `line()` while no run folder is half written).

    Python runs a signal handler only between bytecodes, so a Ctrl-C during a compiled
    iteration would wait for it (tens of seconds) and then unwind a traceback. Instead the
    signal's wake-up byte reaches a watcher thread at once, which prints the line and
    ends the process. Nothing is lost that a resume needs: every checkpoint and network
    file is written atomically, and the iteration in progress is redone on resuming, as
    after `kill -9`. Outside the main thread (where signals cannot be set), a no-op.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    undo = cli.watch_interrupts(lambda: cli.interrupted(line=line))
    try:
        yield
    finally:
        undo()


def _advance(program: dict, configs: list[RunConfig], outputs: list[RunOutputs],
             log: Callable[[str], None], stop_after: int | None,
             vmapped: bool) -> list[TrainState | None]:
    """`train_runs` once the runs' folders are taken: resume, compile (once per program in
    a process: `_program`), iterate."""
    trainer, runs, first = program["trainer"], len(configs), configs[0]
    use_compilation_cache(first, outputs[0].dir)
    templates = [trainer.init_state(c.seed) for c in configs]
    states = [out.resume(t, log) for out, t in zip(outputs, templates)]
    if any(s is None for s in states):
        if all(s is None for s in states):
            return states
        raise ConfigError(
            "a group mixes complete runs that keep no checkpoint ("
            + ", ".join(str(out.dir) for out, s in zip(outputs, states) if s is None)
            + ") with runs to train: train the others without them")
    done_by_run = [int(s.iteration) for s in states]
    common = min(done_by_run)
    if max(done_by_run) > common:
        # A kill between two runs' checkpoints: every run goes back to the common iteration.
        states = [out.resume(t, log, iteration=common) if done > common else s
                  for out, t, s, done in zip(outputs, templates, states, done_by_run)]
    total = first.train.iterations
    allowed = None if first.train.minutes is None else 60.0 * first.train.minutes
    spent = spent_seconds(outputs[0].dir, common) if allowed is not None else 0.0
    if common >= total or (allowed is not None and spent >= allowed):
        why = (f"{common} iterations" if common >= total else
               f"{common} iterations, {spent / 60:.2f} min: train.minutes="
               f"{first.train.minutes:g} spent")
        log(f"{outputs[0].dir} is complete ({why})" if not vmapped else
            f"the group of {runs} runs is complete ({why})")
        return states

    tic = time.perf_counter()
    stages = first.train.progressive_simulations
    budget = (f"self-play m={','.join(map(str, stages))} then {first.search.simulations} "
              f"({first.train.progressive_iterations} iterations each)" if stages
              else f"m={first.search.simulations}")
    game = f"{first.game.name}, E={first.train.games}, {budget}, warm start {first.warmstart.mode}"

    if vmapped:
        iprimes = jnp.asarray([c.warmstart.iprime for c in configs], jnp.int32)
        state = stack(states)
        sharding = runs_sharding(runs)
        if sharding is not None:
            state, iprimes = jax.device_put((state, iprimes), sharding)
        args, split = (state, iprimes), unstack
        where = f", sharded over {len(jax.devices())} devices" if sharding is not None else ""
    else:
        state = states[0]
        args, split, where = (state,), (lambda tree, r: tree), ""  # noqa: E731
    built = "step" not in program
    if built:
        iteration, probe = trainer.iteration, trainer.probe
        if vmapped:
            iteration = vmapped_iteration(iteration)
            probe = probe and jax.vmap(probe, in_axes=(0, None, None))
        with cli.status(f"compiling the iteration ({game})"):
            program["step"] = jax.jit(iteration, donate_argnums=0).lower(*args).compile()
        program["probe"] = jax.jit(probe) if probe is not None else None
    compiled, probe_fn = program["step"], program["probe"]
    step = lambda s: compiled(s, *args[1:])  # noqa: E731
    what = f"the iteration of {runs} runs" if vmapped else "the iteration"
    log((f"compiled {what} in {time.perf_counter() - tic:.1f}s" if built else
         f"reused {what} compiled earlier in this process") + f" ({game}{where})")

    for out in outputs:
        out.open()
    done = 0
    try:
        it = common  # iterations completed, on the host (every run is at the same one)
        while it < total and (stop_after is None or done < stop_after):
            trainer.clock.start()
            tic = time.perf_counter()
            state, metrics = step(state)
            metrics = jax.device_get(metrics)
            stages = trainer.clock.durations()
            seconds = time.perf_counter() - tic
            probe, probe_seconds = None, None
            it = int(split(metrics["iteration"], 0))
            if probe_fn is not None and it % first.probe.every == 0:
                # The search is deterministic (argmax, network leaves), so the key is fixed.
                tic = time.perf_counter()
                with cli.status(f"iteration {it}: the probe against perfect play"):
                    probe = jax.device_get(probe_fn(state.params, jax.random.PRNGKey(0),
                                                  trainer.probe_states))
                probe_seconds = time.perf_counter() - tic
            host = jax.device_get(state) if vmapped else state
            for r, out in enumerate(outputs):
                row = MetricRow.from_device({k: split(v, r) for k, v in metrics.items()},
                                            **stages, seconds_total=seconds,
                                            count_evals_probe=(0 if probe is None else
                                                               trainer.probe_evaluations))
                if probe is not None:
                    row = row.with_values(**{k: split(v, r) for k, v in probe.items()},
                                          seconds_oracle=probe_seconds)
                out.record(split(host, r), row, prune=not vmapped)
                prefix = f"[{out.dir.name}] " if vmapped else ""
                log(prefix + progress_line(row, total, configs[r]))
            if vmapped:
                for out in outputs:  # only now: every run holds this iteration's checkpoint
                    out.checkpoints.prune()
            done += 1
            spent += seconds
            if allowed is not None and spent >= allowed and it < total:
                log(f"train.minutes={first.train.minutes:g} spent ({spent / 60:.2f} min of "
                    f"training) after iteration {it}: stopping; a larger train.minutes "
                    "resumes it")
                break
    finally:
        for out in outputs:
            out.close()
    if vmapped:
        host = jax.device_get(state)
        return [unstack(host, r) for r in range(runs)]
    return [state]
