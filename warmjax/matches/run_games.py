"""The games of run folders, for the study analysis: each run's game built once per game and
settings, its settings as a tournament records them, its board where it is not the game's
registered one, and its labelled perfect-play set. The analysis reads these facts here and
imports no game, search or solver itself.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from warmjax.games import make, registry
from warmjax.matches.entrants import canonical_game
from warmjax.perfect import positions
from warmjax.train.run_folder import Run


def game_of(run: Run):
    """The run's game (`warmjax.games.make` with its settings), built once per game and
    settings however many runs share them."""
    return _config_game(run.config)


def _config_game(config: Any):
    return _game(config.game.name, tuple(sorted(dict(config.game.params).items())))


@functools.lru_cache(maxsize=None)
def _game(name: str, params: tuple):
    return make(name, **dict(params))


def game_settings(run: Run) -> dict:
    """The run's game with every constructor setting spelled out, as a tournament records
    it (`entrants.canonical_game`)."""
    return canonical_game(game_of(run), run.id.game, dict(run.config.game.params))


def board_of(run: Run) -> str:
    """`"6×7"`: the run's board where its game settings differ from the game's registered
    ones (a size study's families), "" where they do not or the game is not registered."""
    spec = registry.find(run.id.game)
    params = dict(run.config.game.params)
    if spec is None or {**spec.params, **params} == dict(spec.params):
        return ""
    rows, cols = game_of(run).board_shape
    return f"{rows}×{cols}"


def labelled_path(config: Any) -> Path | None:
    """The shipped labelled set of a run's game and board (`positions.path_for`), or None."""
    return positions.path_for(_config_game(config))


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
