"""What the explorer's page shows, computed by the public API (`warmjax.api`): one object
per served set of runs, no web in it (the app, `app.py`, only turns its answers into JSON).

Positions are move lists (action ids from the start), so every position is a link
(`?run=0&moves=2,3,2`). For a position the explorer gives its board (the game's own SVG),
the legal moves and their names, and an analysis by any player: each legal move's prior,
visit count and Q, the move the search chooses, the value head's value of the position and,
where the game has an exact solver and the position is within its reach, each move's
perfect-play value with the choice marked optimal or a mistake.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from pathlib import Path
from typing import Any

import jax
import numpy as np

import warmjax
from warmjax.games.env import EMPTY, FIRST
from warmjax.perfect.values import move_values
from warmjax.search.players import PLAYERS, uses_network
from warmjax.train import arena_replay, checkpoint
from warmjax.train.run_folder import NETWORKS, kept_network_folder

# The searches a comparison offers beside the run's own: the warm-start enhancements and
# pure MCTS (each at the same m), the papers' mechanism on one position.
COMPARE = ("rollout", "rave", "rora", "wro", "wrora", "pure_mcts")
WORDS = {1: "win", 0: "draw", -1: "loss"}


class ExplorerError(ValueError):
    """A request the explorer cannot answer, in one line (the app answers 400 with it)."""


@dataclasses.dataclass
class Served:
    """One run the explorer serves: its folder, its final agent and the iterations after
    which it holds a best network (`keep_networks`' and those of its training states)."""

    path: Path
    agent: Any
    kept: tuple[int, ...]

    @property
    def game(self):
        return self.agent.env


def kept_iterations(path: Path) -> tuple[int, ...]:
    """The iterations after which the run holds its best network: those it kept
    (`keep_networks`) and those of the training states it keeps (`keep_checkpoints`)."""
    kept = {int(p.name.split("_")[1]) for p in (path / NETWORKS).glob("iteration_*")
            if p.name.split("_")[1].isdigit()}
    return tuple(sorted(kept | set(checkpoint.checkpoint_iterations(path))))


def network_after(run: Served, iteration: int):
    """The run's agent with its best network after `iteration`: a kept network, else the
    training state's.

    Raises:
      ExplorerError: a corrupt file, named.
    """
    if kept_network_folder(run.path, iteration).is_dir():
        try:
            return warmjax.load_agent(run.path, iteration=iteration, temperature_moves=0,
                                      reuse_tree=False)
        except (ValueError, OSError) as err:
            raise ExplorerError(str(err)) from None
    path = run.path / "checkpoints" / checkpoint.state_name(iteration)
    try:
        variables = checkpoint.best_variables(path, run.agent.variables)
    except checkpoint.CorruptCheckpoint as err:
        raise ExplorerError(f"{path}: {err}") from None
    return dataclasses.replace(run.agent, variables=variables)


def load_runs(paths) -> list[Served]:
    """The runs to serve, each loaded and checked (its network read, its game made).

    Raises:
      ExplorerError: a missing, foreign or corrupt run folder, or a game that cannot be
        made, naming it.
    """
    served = []
    for path in paths:
        path = Path(path)
        if not path.is_dir():
            raise ExplorerError(f"no run folder {path}")
        try:
            agent = warmjax.load_agent(path, temperature_moves=0, reuse_tree=False)
        except (ValueError, OSError) as err:
            raise ExplorerError(str(err)) from None
        served.append(Served(path, agent, kept_iterations(path)))
    return served


def solver_values(game, moves: list[int]) -> np.ndarray | None:
    """`[A]` each move's perfect-play value (1, 0, −1; −2 illegal) by the game's exact
    solver (`perfect.values.move_values`), or None: a game without one, or a position
    before the solver's reach (the depth its labelled sets start at)."""
    try:
        return move_values(game, list(moves))
    except Exception:  # noqa: BLE001 - a position the solver does not take: no values
        return None


class Explorer:
    """The explorer's answers for a set of served runs (thread-safe: one search at a time)."""

    def __init__(self, runs: list[Served], games: list[dict] | None = None):
        self.runs = runs
        self.replays = games or []
        self._lock = threading.Lock()
        # (run, player, m, iteration) -> (value head, Analyser), the most recent last
        self._analysers: collections.OrderedDict = collections.OrderedDict()
        # (run, arena iteration or None) -> the moves of its games
        self._arena_games: dict[tuple, list[list[int]]] = {}

    # --- runs and positions -----------------------------------------------------------

    def run(self, index: int) -> Served:
        if not 0 <= index < len(self.runs):
            raise ExplorerError(f"no run {index}: {len(self.runs)} served")
        return self.runs[index]

    def describe(self) -> list[dict]:
        out = []
        for i, r in enumerate(self.runs):
            rows, cols = r.game.board_shape
            out.append({"index": i, "folder": str(r.path), "game": r.game.name,
                        "board": [rows, cols], "num_actions": r.game.num_actions,
                        "player": r.agent.player.name,
                        "simulations": r.agent.search.simulations, "kept": list(r.kept),
                        "players": [p for p in PLAYERS if p != "random"],
                        "compare": list(COMPARE),
                        "clickable": _grid_clicks(r.game),
                        "columns": r.game.num_actions == cols,
                        "geometry": _geometry(r.game)})
        return out

    def state(self, run: Served, moves: list[int]):
        try:
            return warmjax.position(run.game, [int(m) for m in moves])
        except ValueError as err:
            raise ExplorerError(str(err)) from None

    def position(self, index: int, moves: list[int]) -> dict:
        run = self.run(index)
        state = self.state(run, moves)
        game = run.game
        legal = [int(a) for a in np.flatnonzero(np.asarray(state.legal_action_mask))]
        over = bool(state.terminated)
        winner = game.winner(state) if over else None
        last = last_cell(game, self.state(run, moves[:-1]), state) if moves else None
        return {"moves": list(moves), "svg": game.to_svg(state, last=last),
                "played": [game.action_label(int(a)) for a in moves],
                "labels": [game.action_label(a) for a in range(game.num_actions)],
                "legal": [] if over else legal, "over": over,
                "result": None if not over else ("draw" if winner is None else
                                                 f"{'X' if winner == FIRST else 'O'} wins"),
                "to_move": "X" if game.colour_to_move(state) == FIRST else "O",
                "ascii": game.render(state)}

    def move(self, index: int, moves: list[int], action: int) -> list[int]:
        """The moves with `action` played, or ExplorerError naming why it is refused."""
        run = self.run(index)
        state = self.state(run, moves)
        if bool(state.terminated):
            raise ExplorerError("the game is over")
        if not 0 <= action < run.game.num_actions or not bool(
                np.asarray(state.legal_action_mask)[action]):
            reason = (run.game.illegal_reason(state, action)
                      if 0 <= action < run.game.num_actions else f"no action {action}")
            raise ExplorerError(f"refused: {reason}")
        return [*moves, int(action)]

    def click(self, index: int, moves: list[int], row: int, col: int) -> int:
        """The action a click on cell (row, col) of the drawn grid names."""
        run = self.run(index)
        rows, cols = run.game.board_shape
        if not (0 <= row < rows and 0 <= col < cols):
            raise ExplorerError(f"refused: ({row}, {col}) is off the board")
        return col if run.game.num_actions == cols else row * cols + col

    # --- analysis -----------------------------------------------------------------------

    ANALYSERS = 32  # the analysers (compiled searches) an explorer keeps

    def _analyser(self, index: int, player: str, simulations: int, iteration: int | None):
        """`(value head, Analyser)` for a run, player, m and network, compiled once and
        kept (the least recently used dropped past ANALYSERS)."""
        key = (index, player, simulations, iteration)
        if key not in self._analysers:
            self._analysers[key] = self._build_analyser(*key)
            while len(self._analysers) > self.ANALYSERS:
                self._analysers.popitem(last=False)
        self._analysers.move_to_end(key)
        return self._analysers[key]

    def _build_analyser(self, index: int, player: str, simulations: int,
                        iteration: int | None):
        run = self.run(index)
        if player not in PLAYERS or player == "random":
            raise ExplorerError(f"unknown player {player!r}; choose from "
                                f"{', '.join(p for p in PLAYERS if p != 'random')}")
        if iteration is not None and iteration not in run.kept:
            raise ExplorerError(f"{run.path} kept no network after iteration {iteration} "
                                f"(kept: {', '.join(map(str, run.kept)) or 'none'})")
        agent = run.agent if iteration is None else network_after(run, iteration)
        apply = jax.jit(agent.network.apply)
        variables = agent.variables

        def value_head(observation):
            return apply(variables, observation[None])[1]

        if uses_network(player):
            config = dataclasses.replace(agent.search, simulations=simulations)
            built = warmjax.make_player(player, run.game, agent.network.apply, config)
            return value_head, warmjax.Analyser(built, agent.variables)
        built = warmjax.make_player(player, run.game, simulations=simulations,
                                    temperature_moves=0)
        return value_head, warmjax.Analyser(built)

    def analyse(self, index: int, moves: list[int], player: str | None = None,
                simulations: int | None = None, iteration: int | None = None,
                seed: int = 0) -> dict:
        """The panel of one position (see the module docstring)."""
        run = self.run(index)
        player = player or run.agent.player.name
        simulations = int(simulations or run.agent.search.simulations)
        if simulations < 1:
            raise ExplorerError("simulations must be at least 1")
        state = self.state(run, moves)
        if bool(state.terminated):
            raise ExplorerError("the game is over: nothing to analyse")
        with self._lock:
            value_head, analyser = self._analyser(index, player, simulations, iteration)
            look = analyser(state, seed=seed)
            value = value_head(state.observation)
        perfect = solver_values(run.game, list(moves))
        legal = np.flatnonzero(np.asarray(state.legal_action_mask))
        choice = int(look.action)
        rows = [{"action": int(a), "label": run.game.action_label(int(a)),
                 "prior": float(look.prior[a]), "visits": int(look.visits[a]),
                 "q": float(look.q[a]) if look.visits[a] > 0 else None,
                 "share": float(look.policy[a]),
                 "perfect": None if perfect is None else WORDS[int(perfect[a])],
                 "chosen": int(a) == choice} for a in legal]
        verdict = None
        if perfect is not None:
            verdict = ("optimal" if perfect[choice] == perfect[legal].max() else "mistake")
        return {"player": player, "simulations": simulations, "iteration": iteration,
                "network": "final" if iteration is None else f"after iteration {iteration}",
                "rows": rows, "choice": choice, "choice_label": run.game.action_label(choice),
                "search_value": float(look.value), "value_head": float(np.asarray(value)[0]),
                "perfect_value": None if perfect is None else WORDS[int(perfect[legal].max())],
                "verdict": verdict}

    def reply(self, index: int, moves: list[int], player=None, simulations=None,
              seed: int = 0) -> list[int]:
        """The moves with the agent's reply played (its search's choice)."""
        look = self.analyse(index, moves, player, simulations, seed=seed)
        return self.move(index, moves, look["choice"])

    # --- replays ------------------------------------------------------------------------

    def games(self, index: int) -> list[dict]:
        """The games the page can replay for run `index`: those of the tournament journals
        the explorer was given that its game can replay, then the run's own arena games
        (`arena_replay`: each iteration whose arena it can play again) or, for a run that
        plays no arena, two arena-style games (`arena_style_games`)."""
        listed = [{"id": i, "title": g["title"]} for i, g in enumerate(self.replays)
                  if g["run"] in (None, index)]
        return listed + [{"id": len(self.replays) + k, "title": title}
                         for k, (title, _) in enumerate(self._arena(index))]

    def replay(self, index: int, game: int) -> list[int]:
        """The moves of game `game` of `games(index)`.

        Raises:
          ExplorerError: no such game, or an arena replay that does not repeat the run's
            record on this machine (its games would not be the run's).
        """
        if game not in {g["id"] for g in self.games(index)}:
            raise ExplorerError(f"no game {game} to replay for run {index}")
        if game < len(self.replays):
            return list(self.replays[game]["moves"])
        _, where = self._arena(index)[game - len(self.replays)]
        return list(self._arena_moves(index, *where))

    def _arena(self, index: int) -> list[tuple[str, tuple[int | None, int]]]:
        """`(title, (iteration, game))` of the run's arena games; iteration None: the
        arena-style games of a run without an arena."""
        run = self.run(index)
        config = run.agent.run.config
        if not config.arena.gate:
            return [(f"arena-style game {k + 1}: the final network against itself (the run "
                     "plays no arena)", (None, k)) for k in range(2)]
        n, out = config.arena.games, []
        for i in arena_replay.replayable(run.path):
            out += [(f"arena of iteration {i}, game {g + 1} of {n}: the new network moves "
                     f"{'first' if g < n // 2 else 'second'}", (i, g)) for g in range(n)]
        return out

    def _arena_moves(self, index: int, iteration: int | None, game: int) -> list[int]:
        """One arena game's moves; each iteration's arena is played once and kept."""
        key = (index, iteration)
        if key not in self._arena_games:
            with self._lock:
                if iteration is None:
                    self._arena_games[key] = arena_style_games(self.run(index))
                else:
                    replayed = arena_replay.replay_arena(self.run(index).path, iteration)
                    if not replayed.exact:
                        raise ExplorerError(
                            f"the arena of iteration {iteration} played again here differs "
                            f"from the run's record ({', '.join(replayed.differs)}): its "
                            "games would not be the run's")
                    self._arena_games[key] = [g.moves for g in replayed.games]
        return self._arena_games[key][game]


def arena_style_games(run: Served, games: int = 2) -> list[list[int]]:
    """Games of the run's final network against itself as an arena plays them (the run's
    search, the arena's T′ sampled plies), with their moves: what the page replays for a
    run that plays no arena (`arena.gate=false`, the fast profile)."""
    from warmjax.search.game_loop import NO_MOVE, make_match

    agent = run.agent
    config = run.agent.run.config
    player = warmjax.make_player(agent.player.name, run.game, agent.network.apply,
                                 dataclasses.replace(agent.search,
                                                     temperature_moves=config.arena.temperature_moves))
    match = jax.jit(make_match(run.game, player, player, games, record=True))
    result = jax.device_get(match(agent.variables, agent.variables,
                                  jax.random.PRNGKey(config.seed)))
    actions = np.asarray(result.actions)
    return [[int(a) for a in actions[:int(result.plies[g]), g] if a != NO_MOVE]
            for g in range(games)]


def journal_games(folder: Path | str, runs: list[Served]) -> list[dict]:
    """The games of a tournament folder's journal, each with the run whose game replays it
    (None: any), titled by its players and result."""
    from warmjax.matches.tournament_folder import TournamentFolder

    out = []
    if not (Path(folder) / "tournament.json").is_file():
        raise ExplorerError(f"{folder} holds no tournament (no tournament.json)")
    try:
        pairs = TournamentFolder(folder).read_journal()
    except (ValueError, OSError) as err:
        raise ExplorerError(f"{folder}: {err}") from None
    for pair in pairs:
        for k, record in enumerate(pair.records):
            result = {1: "first wins", 0: "draw", -1: "second wins"}[int(record.result)]
            run = next((i for i, r in enumerate(runs) if _replays(r, record.moves)), None)
            if run is None:
                continue
            out.append({"run": run, "moves": list(record.moves),
                        "title": f"{record.first} – {record.second}, game {k + 1}: {result}"})
    return out


def _replays(run: Served, moves) -> bool:
    try:
        warmjax.position(run.game, [int(m) for m in moves])
        return True
    except ValueError:
        return False


def last_cell(game, before, after) -> tuple[int, int] | None:
    """The cell the last move filled: the one cell empty before it and filled after it
    (None for a pass, or where the board shows no such single cell)."""
    filled = np.argwhere((game.board_array(before) == EMPTY) & (game.board_array(after) != EMPTY))
    return (int(filled[0][0]), int(filled[0][1])) if len(filled) == 1 else None


def _geometry(game) -> dict | None:
    """Where the cells lie in the game's own drawing (`env.board_geometry`), for a page
    that maps a click to a cell; None for pgx's drawings."""
    from warmjax.games.env import BoardState, board_geometry

    state = game.init(jax.random.PRNGKey(0))
    if not isinstance(state, BoardState):
        return None
    rows, cols = game.board_shape
    return board_geometry(rows, cols, style=type(state).svg_style)


def _grid_clicks(game) -> bool:
    """Whether a click on the drawn board maps to a cell of a plain grid (warmjax's own
    drawing, `env.board_svg`); pgx's own drawings are played from the move list."""
    from warmjax.games.env import BoardState

    state = game.init(jax.random.PRNGKey(0))
    return isinstance(state, BoardState)
