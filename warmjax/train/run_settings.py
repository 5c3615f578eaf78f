"""The games of run folders, for the study analysis, read from each run's identity and
saved settings without building the game (nor importing JAX): its full settings, its board
where it is not the game's registered one, and its labelled perfect-play set. The analysis
reads these facts here and imports no game, search or solver itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warmjax.games import registry
from warmjax.perfect import positions
from warmjax.train.run_folder import Run


def _spec(config: Any) -> registry.GameSpec:
    return registry.get(config.game.name)


def settings(run: Run) -> dict:
    """The run's game settings over the game's registered defaults: two runs play the same
    game exactly when their names and these are equal."""
    return _spec(run.config).settings(dict(run.config.game.params))


def same_settings(run: Run, params: Any) -> bool:
    """Whether `params` (a tournament's record of its game's settings) are the run's game
    settings, each side over the game's registered defaults."""
    return settings(run) == _spec(run.config).settings(dict(params))


def board_shape(run: Run) -> tuple[int, int]:
    """`(rows, cols)` of the run's board (`GameSpec.board_shape`)."""
    return _spec(run.config).board_shape(dict(run.config.game.params))


def board_of(run: Run) -> str:
    """`"6×7"`: the run's board where its game settings differ from the game's registered
    ones (a size study's families), "" where they do not or the game is not registered."""
    spec = registry.find(run.id.game)
    params = dict(run.config.game.params)
    if spec is None or spec.settings(params) == dict(spec.params):
        return ""
    rows, cols = spec.board_shape(params)
    return f"{rows}×{cols}"


def labelled_path(config: Any) -> Path | None:
    """The shipped labelled set of a run's game and board (`positions.path_named`), or None."""
    return positions.path_named(_spec(config).labelled_set_name(dict(config.game.params)))


def random_rate(config: Any) -> float | None:
    """The optimal-move rate of a random legal move on the positions a run's probe used (the
    first `probe.positions` of its board's labelled set); None without one."""
    path = labelled_path(config)
    if path is None:
        return None
    labelled = positions.load(path)
    if config.probe.positions is not None:
        labelled = labelled.subset(config.probe.positions)
    return positions.random_move_rate(labelled.values)
