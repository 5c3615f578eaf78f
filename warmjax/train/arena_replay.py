"""A run's own arena games, played again from its checkpoints.

Training keeps an arena's result (wins, draws, losses) but not its moves. The arena of
iteration i is a pure function of the state before i, so it can be played again: from that
state (the checkpoint after i − 1, or the initial state of the run's seed for i = 1) the
iteration runs once more with the arena keeping its games (`Trainer.recording_arena`), which
are the games the run played. A replay is checked against the run's record: every metric of
the replayed iteration (the arena's counts, the losses, the self-play figures) is compared
with row i of `metrics.jsonl`, and a replay that differs anywhere (another machine's
numerics, say) says where, instead of passing its games off as the run's.

Which iterations can be replayed: 1, and each i whose previous state the run still keeps
(the last `keep_checkpoints`). The iteration that replays is compiled once per program in a
process (`group.program_key`, the lone run's I′), as training's is: a second arena of the
same run, or of a run of the same settings, replays at once.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import NamedTuple

import jax
import numpy as np

from warmjax.search.game_loop import NO_MOVE
from warmjax.train import run_folder
from warmjax.train.checkpoint import CheckpointDir, checkpoint_iterations
from warmjax.train.group import program_key
from warmjax.train.iteration import Trainer
from warmjax.train.metrics import MetricRow

# The replaying programs this process has built, the newest last: `(trainer, compiled)`.
_REPLAYERS: dict[tuple, tuple] = {}
REPLAYERS_KEPT = 4


class ArenaGame(NamedTuple):
    """One arena game: its moves (action ids), whether the new network moved first, and
    its result for the new network (+1 win, 0 draw, −1 loss)."""

    moves: list[int]
    new_first: bool
    score: int


class ReplayedArena(NamedTuple):
    iteration: int
    games: list[ArenaGame]
    accepted: bool  # the replayed gate's verdict
    differs: list[str]  # the metrics whose replayed value is not the run's; [] when exact

    @property
    def exact(self) -> bool:
        return not self.differs


def replayable(run_dir: Path | str) -> list[int]:
    """The iterations of the run whose arena `replay_arena` can play again (none for a run
    without an arena)."""
    return _replayable(run_folder.read_run(run_dir))


def _replayable(run) -> list[int]:
    if not run.config.arena.gate:
        return []
    kept = set(checkpoint_iterations(run.path))  # read only: no `checkpoints/` is made
    return [i for i in range(1, run.iterations + 1) if i == 1 or i - 1 in kept]


def replay_arena(run_dir: Path | str, iteration: int) -> ReplayedArena:
    """The arena games of `iteration` of the run in `run_dir`, played again.

    Raises:
      ValueError: a run without an arena (`arena.gate=false`), or an iteration the run has
        not finished or whose previous state it no longer keeps (naming those it can replay).
    """
    run = run_folder.read_run(run_dir)
    config = run.config
    if not config.arena.gate:
        raise ValueError(f"{run_dir} plays no arena (arena.gate=false): there are no arena "
                         "games to replay")
    can = _replayable(run)
    if iteration not in can:
        listed = ", ".join(map(str, can)) or "none"
        raise ValueError(f"{run_dir}: the arena of iteration {iteration} cannot be replayed "
                         f"(the run keeps the states it needs for iterations {listed})")
    trainer, step = _replayer(dataclasses.replace(config, run_dir=str(run_dir)))
    state = trainer.init_state(config.seed)
    if iteration > 1:
        loaded = CheckpointDir(Path(run_dir) / "checkpoints").load(state, iteration - 1)
        if loaded is None:
            raise ValueError(f"{run_dir}: the checkpoint after iteration {iteration - 1} "
                             "is corrupt")
        state = loaded[0]
    metrics = jax.device_get(step(state)[1])
    played = metrics.pop("arena_games")
    replayed = MetricRow.from_device(metrics)
    recorded = run.metrics[iteration - 1]
    differs = [name for name in metrics if getattr(recorded, name) is not None
               and getattr(replayed, name) != getattr(recorded, name)]
    actions = np.asarray(played.actions)
    games = [ArenaGame([int(a) for a in actions[:, g] if a != NO_MOVE],
                       bool(played.a_first[g]), int(played.scores[g]))
             for g in range(actions.shape[1])]
    return ReplayedArena(iteration, games, bool(replayed.accepted), differs)


def _replayer(config) -> tuple:
    """`(trainer, step)` for runs of `config`'s program: `step(state)` is the iteration with
    the recording arena, jitted (compiled on first use, then kept)."""
    key = (program_key(config), config.warmstart.iprime)
    if key not in _REPLAYERS:
        trainer = Trainer(config)
        arena = trainer.recording_arena()
        _REPLAYERS[key] = (trainer, jax.jit(lambda s: trainer.iteration(s, arena=arena)))
    _REPLAYERS[key] = _REPLAYERS.pop(key)  # the newest last
    while len(_REPLAYERS) > REPLAYERS_KEPT:
        _REPLAYERS.pop(next(iter(_REPLAYERS)))
    return _REPLAYERS[key]


def forget_replayers() -> None:
    """Drops the replaying programs this process has kept (`loop.forget_programs`' twin)."""
    _REPLAYERS.clear()
