"""Tournaments as the analysis reads them: a finished tournament's `elo.json`
(`load_tournament`) or the games of its journal so far (`journal_tournament`), and the arm
each player belongs to (`arm_of`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from warmjax.matches.tournament_folder import AnchorEntry, Entry, TournamentFolder, journal_elo
from warmjax.train.run_id import RunId


@dataclasses.dataclass(frozen=True)
class PlayerArm:
    """What the Elo figures group players by: a run's arm, its id without its seed (`run`), or
    an anchor (`anchor`, its name with the playouts)."""

    run: RunId | None = None
    anchor: str | None = None

    @property
    def mode(self) -> str:
        """`none`, `fixed`, `adaptive`, or `anchor`."""
        return "anchor" if self.run is None else self.run.mode

    @property
    def enhancement(self) -> str | None:
        return None if self.run is None else self.run.enhancement

    @property
    def iprime(self) -> int | None:
        return None if self.run is None else self.run.iprime

    @property
    def label(self) -> str:
        return self.anchor if self.run is None else self.run.label()

    def order(self) -> tuple:
        return (1, (), self.anchor) if self.run is None else (0, self.run.order(), "")


def arm_of(entry: Entry) -> PlayerArm:
    """The arm of a tournament player."""
    if isinstance(entry, AnchorEntry):
        return PlayerArm(anchor=entry.name)
    return PlayerArm(run=entry.id.arm())


@dataclasses.dataclass(frozen=True)
class Tournament:
    """A tournament's `elo.json`: ratings and players."""

    path: str
    tag: str  # a short name for file names and titles (the tournament folder's name)
    game: str
    names: tuple[str, ...]
    ratings: tuple[float, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    players: Mapping[str, Entry]
    params: Mapping[str, Any] | None = None  # the game's every constructor setting (None: not
    # recorded, so the tournament matches any board of its game)


def load_tournament(path: Path | str) -> Tournament:
    """Reads a tournament folder's `elo.json` (or the file itself).

    Raises:
      ValueError: a missing or unfinished tournament.
    """
    path = Path(path)
    folder = TournamentFolder(path if path.is_dir() else path.parent)
    elo = folder.read_elo()
    return Tournament(str(folder.path), folder.path.name or "tournament",
                      elo.settings.game_name, elo.names, elo.ratings, elo.lower, elo.upper,
                      elo.players, elo.settings.game.get("params"))


def journal_tournament(path: Path | str, keep: Callable[[Entry], bool] | None = None
                       ) -> Tournament:
    """A tournament rated from every game in its folder's journal
    (`tournament_folder.journal_elo`), finished or not; with `keep`, from the games between
    players it accepts only."""
    elo = journal_elo(path, keep)
    return Tournament(str(path), Path(path).name or "tournament", elo.settings.game_name,
                      elo.names, elo.ratings, elo.lower, elo.upper, elo.players,
                      elo.settings.game.get("params"))
