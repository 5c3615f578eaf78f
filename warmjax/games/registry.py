"""The game registry: every game warmjax can train on, registered once by name.

A game is one module that builds a `GameEnv` (a `pgx.core.Env` with a board shape, a
symmetry kind and, optionally, fast playout rules) and registers a `GameSpec` for it, plus
one Hydra config (`conf/game/<name>.yaml`: `name` and `params`). Everything that needs to
know about games reads the registry: `games.make`, the run identity and its labels
(`train.run_id.game_name`), the orientation experiment's per-game readings, the
perfect-play labels and the oracle, and `tools/fingerprint.py`.

    from warmjax.games.registry import GameSpec, register

    register(GameSpec("toy", "Toy", build=Toy))       # in the game's module, my_toy.py
    python -m warmjax.run +experiment=adaptive game=registered game.name=toy \
        game.module=my_toy profile=smoke

(`game=registered` takes the game's registered settings; a game with a config of its own,
`conf/game/<name>.yaml`, is named as `game=<name>`.) A game kept outside warmjax is found in
one of two ways, with no edit to warmjax:

- `game.module=<module>`: the run imports that module (on `PYTHONPATH`, or installed)
  before it looks the game up, and records it in its config, so that every later command
  on the run folder imports it too (`examples/toy_three.py` is such a module);
- an entry point in the group `warmjax.games` of an installed package, e.g. in its
  pyproject.toml `[project.entry-points."warmjax.games"] toy = "my_toy"`: the registry
  imports every such module the first time it is asked for a game it does not know.

warmjax's own games (the papers' three and pgx's) are registered by `games.builtin`, which
names their modules without importing them (nor JAX): a game's module is imported when the
game is first made. Before training a new game, check it: `warmjax.games.check_game(env)`.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
from collections.abc import Callable, Mapping
from typing import Any

# The readings of the papers' unstated details that the orientation experiment uses where a
# game names none (the standard ones: AMAF counts the moves of the player to move, as
# Gelly and Silver's RAVE; RHEA's plans start with a legal move).
STANDARD_READINGS = {"rave_all_players": False, "rhea_legal_first": True}


@dataclasses.dataclass(frozen=True)
class Labels:
    """How a game's perfect-play positions are drawn (`warmjax.labels`).

    Attributes:
      depth: what the depth range counts: "ply" (moves from the start) or "empties"
        (empty cells left, for games that fill the board).
      low, high: the default depth range.
      solver: the game's exact solver (see `warmjax.perfect`): `params -> solver`, or its
        import path "module:Class" (imported only when a solver is needed); None for a
        game labelled by search instead (`generate=search_labels.GENERATE`).
      generate: `(game, count, seed, params, low, high, log) -> LabelledSet`, or its
        import path "module:function" (imported when positions are drawn); by default
        random games of a placement game to a target depth
        (`positions.generate_placement_game`).
      solver_settings: settings the solver takes on top of the game's (tic-tac-toe: the
        Gobang solver with a 3×3 board and three in a row).
    """

    depth: str
    low: int
    high: int
    solver: Callable[..., Any] | str | None
    generate: Callable[..., Any] | str = "warmjax.perfect.positions:generate_placement_game"
    solver_settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def by_search(self) -> bool:
        """Whether the positions are labelled by a deep search, not an exact solver."""
        return self.solver is None

    def make_solver(self, **params):
        """The solver for a board of `params`.

        Raises:
          ValueError: a game labelled by search, which has none.
        """
        if self.solver is None:
            raise ValueError("this game has no exact solver (its positions are labelled by "
                             "search)")
        return _resolve(self.solver)(**{**params, **self.solver_settings})

    def draw(self, game: str, count: int, seed: int, params: dict, low: int, high: int,
             log=None, **settings):
        """`count` labelled positions of `game` with `params` (its full settings);
        `settings` go to the generator (a search-labelled game's `simulations`)."""
        return _resolve(self.generate)(game, count, seed, params, low, high, log=log,
                                       **settings)


def _resolve(target: Callable[..., Any] | str) -> Callable[..., Any]:
    """A callable, or the one an import path "module:name" names (imported now: a game
    names its constructor, solver and position generator without importing them, and
    `warmjax.perfect` imports the games)."""
    if isinstance(target, str):
        module, name = target.split(":")
        return getattr(importlib.import_module(module), name)
    return target


@dataclasses.dataclass(frozen=True)
class Imported:
    """A callable named by its import path "module:name" and imported when first called,
    with leading arguments (`Imported("warmjax.games.pgx_games:PgxGame", ("hex",))`)."""

    target: str
    args: tuple = ()

    def __call__(self, *args, **kwargs):
        return _resolve(self.target)(*self.args, *args, **kwargs)


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """One registered game.

    Attributes:
      name: the registry id, also `game.name` in the configs and the run identity.
      title: how reports name it ("Connect Four").
      build: `**params -> GameEnv`, the game's constructor, or its import path
        "module:name" (imported when the game is first made: warmjax's own games are
        registered without importing JAX, so that reading a run folder does not).
      params: its default constructor settings (the papers' board, for their games).
      short: the name's short form in the papers' experiment names (`adaptive_c4`); None:
        the name itself.
      readings: the orientation experiment's readings of the papers' unstated details
        (`rave_all_players`, `rhea_legal_first`), each defaulting to `STANDARD_READINGS`.
      labels: how its perfect-play positions are drawn and labelled (by an exact solver,
        or by search); None: the game has no labelled set.
      board: `settings -> (rows, cols)`, the board of the game's full settings, read
        without building the game (the analysis of run folders uses it); None: the game is
        built to find it.
    """

    name: str
    title: str
    build: Callable[..., Any] | str
    params: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    short: str | None = None
    readings: Mapping[str, bool] = dataclasses.field(default_factory=dict)
    labels: Labels | None = None
    board: Callable[[Mapping[str, Any]], tuple[int, int]] | None = None

    def reading(self, setting: str) -> bool:
        """The game's reading of `setting` (a key of `STANDARD_READINGS`)."""
        if setting not in STANDARD_READINGS:
            raise ValueError(f"no reading named {setting!r}; choose from "
                             f"{', '.join(STANDARD_READINGS)}")
        return bool(self.readings.get(setting, STANDARD_READINGS[setting]))

    def make(self, **params):
        """The game with `params` over its defaults.

        Raises:
          ValueError: a setting the game does not take, naming it.
        """
        build = _resolve(self.build)
        try:
            return build(**self.settings(params))
        except TypeError as err:
            unknown = [k for k in params if k not in self.params and k in str(err)]
            if unknown and self.params:  # name the setting meant, where one is close
                import difflib

                close = difflib.get_close_matches(unknown[0], list(self.params), n=1,
                                                  cutoff=0.6)
                raise ValueError(f"bad settings for {self.name}: no setting {unknown[0]!r}"
                                 + (f"; did you mean {close[0]!r}?" if close else
                                    f"; its settings: {', '.join(self.params)}")) from None
            raise ValueError(f"bad settings for {self.name}: {params} ({err})") from None

    def settings(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """`params` over the game's defaults: its full settings, as the run plays them."""
        return {**self.params, **params}

    def board_shape(self, params: Mapping[str, Any]) -> tuple[int, int]:
        """`(rows, cols)` of the board with `params` (over the defaults): from `board`,
        without building the game, where the spec declares it."""
        if self.board is None:
            return tuple(self.make(**params).board_shape)
        rows, cols = self.board(self.settings(params))
        return int(rows), int(cols)

    def labelled_set_name(self, params: Mapping[str, Any]) -> str | None:
        """The file name of the game's labelled perfect-play positions with `params`
        (`<name>_<rows>x<cols>.json`, `_k<n>` before `.json` for a line game whose
        `win_length` is not 4), or None where no exact solver covers the game."""
        if self.labels is None:
            return None
        rows, cols = self.board_shape(params)
        k = self.settings(params).get("win_length", 4)
        return f"{self.name}_{rows}x{cols}" + ("" if k == 4 else f"_k{k}") + ".json"


_REGISTRY: dict[str, GameSpec] = {}
ENTRY_POINTS = "warmjax.games"  # the entry-point group of games kept outside warmjax
_entry_points_loaded = False


def import_game_module(module: str) -> None:
    """Imports a module that registers games (`game.module`).

    Raises:
      ValueError: the module cannot be imported, naming it and why.
    """
    try:
        importlib.import_module(module)
    except Exception as err:  # any failure of a user's module is one line
        raise ValueError(f"cannot import the game module {module!r} ({type(err).__name__}: "
                         f"{err}); is its folder on PYTHONPATH?") from None


def _load_entry_points() -> None:
    """Imports, once, every module of the `warmjax.games` entry points."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for point in importlib.metadata.entry_points(group=ENTRY_POINTS):
        try:
            point.load()
        except Exception as err:
            raise ValueError(f"the game entry point {point.name!r} ({point.value}) does not "
                             f"load: {type(err).__name__}: {err}") from None


def register(spec: GameSpec, replace: bool = False) -> GameSpec:
    """Adds `spec` to the registry and returns it.

    Raises:
      ValueError: a name already registered to another game (unless `replace`).
    """
    if not spec.name or not spec.name.replace("_", "").isalnum():
        raise ValueError(f"a game's name is letters, digits and underscores, got {spec.name!r}")
    if spec.name in _REGISTRY and not replace and _REGISTRY[spec.name] is not spec:
        raise ValueError(f"a game named {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Removes a game (tests that register one of their own)."""
    _REGISTRY.pop(name, None)


def get(name: str) -> GameSpec:
    """The registered game `name`.

    Raises:
      ValueError: an unknown name, listing the registered ones.
    """
    spec = find(name)
    if spec is None:
        raise ValueError(unknown_message(name))
    return spec


def unknown_message(name: str) -> str:
    """One line for a game nobody registered: the registered ones, and how a game of one's
    own is found."""
    return (f"unknown game {name!r}; choose one of {', '.join(names())} (a game of your own "
            f"registers when its module is imported: game.module=<module>, or an entry point "
            f"in the group {ENTRY_POINTS})")


def find(name: str) -> GameSpec | None:
    """The registered game `name`, or None (after loading the entry points, if it is not
    registered yet)."""
    if name not in _REGISTRY:
        _load_entry_points()
    return _REGISTRY.get(name)


def names() -> tuple[str, ...]:
    """The registered games' names, in registration order (the entry points' included)."""
    _load_entry_points()
    return tuple(_REGISTRY)


def specs() -> tuple[GameSpec, ...]:
    return tuple(_REGISTRY.values())
