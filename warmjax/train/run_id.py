"""What a run is, in the terms of the papers: its game, warm start, departures and seed.

`RunId.of(config)` derives it from a `RunConfig`, once; `label()` is the one name of a
run (or an arm) that progress lines, tables, plots, tournaments and Elo files print ("Baseline",
"Rollout I′=3", "WRoRa adaptive", with "+ fpu, noise" for departures from the papers and
" s2" for a seed where asked). `arm()` drops the seed: the runs of one arm are its seeds.

The departures are the config fields marked as such where they are declared
(`settings.setting(..., departure=tag)`) whose value differs from the papers' (the field's
default): a new departure needs only that mark.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from warmjax.games import registry
from warmjax.names import WARMSTART_ENHANCEMENTS, enhancement_name
from warmjax.settings import departures_of

MODE_ORDER = {"none": 0, "fixed": 1, "adaptive": 2}


def game_name(game: str) -> str:
    """The registered game's title (`games.registry`), or `game` itself where unknown."""
    spec = registry.find(game)
    return spec.title if spec is not None else game


@dataclasses.dataclass(frozen=True)
class RunId:
    """A run's identity for comparisons.

    Attributes:
      game: the game's name (`connect_four`, …).
      mode: `none` (the Baseline), `fixed` or `adaptive` warm start.
      enhancement: the warm-start enhancement; None for the Baseline.
      iprime: I′ of the fixed mode; None otherwise.
      departures: tags of the departures from the papers that the run switches on.
      seed: the run's seed; None for an arm (all its seeds).
    """

    game: str
    mode: str = "none"
    enhancement: str | None = None
    iprime: int | None = None
    departures: tuple[str, ...] = ()
    seed: int | None = None

    @classmethod
    def of(cls, config: Any) -> "RunId":
        """The identity of a `RunConfig`."""
        ws = config.warmstart
        return cls(game=config.game.name, mode=ws.mode,
                   enhancement=None if ws.mode == "none" else ws.enhancement,
                   iprime=ws.iprime if ws.mode == "fixed" else None,
                   departures=departures_of(config), seed=config.seed)

    def arm(self) -> "RunId":
        """The arm: the identity without its seed."""
        return dataclasses.replace(self, seed=None)

    @property
    def is_baseline(self) -> bool:
        return self.mode == "none"

    def label(self, seed: bool = False) -> str:
        """The one name of the run (or arm): `Baseline`, `Rollout I′=3`, `WRoRa adaptive`;
        departures after a `+`, the seed (if asked and known) last: `Baseline + fpu, noise s0`."""
        if self.mode == "none":
            text = "Baseline"
        elif self.mode == "fixed":
            text = f"{enhancement_name(self.enhancement)} I′={self.iprime}"
        else:
            text = f"{enhancement_name(self.enhancement)} {self.mode}"
        if self.departures:
            text += " + " + ", ".join(self.departures)
        if seed and self.seed is not None:
            text += f" s{self.seed}"
        return text

    def order(self) -> tuple:
        """A sort key: game, then the Baseline, then by enhancement (fixed by I′, then
        adaptive), departures after the papers' algorithm, then the seed."""
        known = WARMSTART_ENHANCEMENTS
        enhancement = (known.index(self.enhancement) if self.enhancement in known
                       else len(known))
        games = list(registry.names())
        return (games.index(self.game) if self.game in games else len(games), self.game,
                self.mode != "none", enhancement, MODE_ORDER.get(self.mode, 3),
                self.iprime or 0, self.departures, -1 if self.seed is None else self.seed)
