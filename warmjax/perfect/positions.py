"""The labelled positions that the oracle scores players on, in every game (method.md §9).

A position is the sequence of the env's actions played from the start (Othello's pass is
action n·n). Its label is the perfect-play value (WIN / DRAW / LOSS for the player to move)
of every action, from the game's exact solver (`connect_four_solver`, `othello_solver`,
`gobang_solver`), ILLEGAL where the action is not legal. The shipped sets are made by
`python -m warmjax.labels` (each file records its command and settings):

- Connect Four (`data/connect_four_6x6.json`, `--count 1000 --seed 0`): a target ply drawn
  uniformly from 8…24;
- Othello (`data/othello_6x6.json`): a target number of empty cells drawn uniformly from
  12…20 (placements, with the passes forced on the way);
- Gobang (`data/gobang_6x6.json`): a target ply drawn uniformly from 8…20.

Uniformly random legal moves are played from the start up to the target (a game that ends
first is thrown away and drawn again); repeats of a position already kept are dropped, and a
position is kept only if its legal actions do not all have the same value.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from warmjax.games import registry

if TYPE_CHECKING:
    from warmjax.perfect.connect_four_solver import Solver

DATA_DIR = Path(__file__).parent / "data"
ILLEGAL = -2  # the value of a full column in `LabelledSet.values`


def path_for(env: Any) -> Path | None:
    """The shipped labelled set of the game `env` (`GameEnv.labelled_set_name`), or None
    where the game has none."""
    return path_named(env.labelled_set_name)


def path_named(name: str | None) -> Path | None:
    """The shipped labelled set of that file name (`GameSpec.labelled_set_name`), or None
    where there is no such file (or no name)."""
    if name is None or not (DATA_DIR / name).exists():
        return None
    return DATA_DIR / name


def random_move_rate(values: np.ndarray) -> float:
    """The optimal-move rate of a uniformly random legal move on positions labelled
    `values [P, A]` (`LabelledSet.values`): the mean over positions of the share of legal
    moves that keep the best value (the floor rule's reference, `analysis.strength`)."""
    values = np.asarray(values)
    legal = values != ILLEGAL
    best = np.max(np.where(legal, values, ILLEGAL), axis=1, keepdims=True)
    optimal = legal & (values == best)
    return float(np.mean(optimal.sum(axis=1) / np.maximum(legal.sum(axis=1), 1)))


@dataclasses.dataclass(frozen=True)
class LabelledSet:
    """P labelled positions (numpy arrays; L is the longest move sequence, A the actions).

    Attributes:
      moves: `[P, L]` int32 actions played from the start, −1 after the end.
      plies: `[P]` int32 length of each sequence.
      values: `[P, A]` int8 perfect-play value of each action for the player to move
        (WIN 1, DRAW 0, LOSS −1; ILLEGAL −2 where it is not legal).
      game: the game, `{"name", **constructor settings}` (older Connect Four files hold
        `{"rows", "cols", "win_length"}`; `load` adds the name).
      meta: how the set was made.
      calm: `[P]` bool, the quiet positions (`quiet`) as stored with the set; None where
        the file holds none (they are then computed, with the game's solver).
    """

    moves: np.ndarray
    plies: np.ndarray
    values: np.ndarray
    game: dict
    meta: dict
    calm: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.plies.shape[0])

    @property
    def best(self) -> np.ndarray:
        """`[P]` int8 the position's value (that of its best move)."""
        return self.values.max(axis=1)

    @property
    def optimal(self) -> np.ndarray:
        """`[P, A]` bool: moves that keep the position's value."""
        return self.values == self.best[:, None]

    @property
    def game_name(self) -> str:
        return self.game.get("name", "connect_four")

    @property
    def game_params(self) -> dict:
        """The game's constructor settings (`warmjax.games.make(game_name, **params)`)."""
        return {k: v for k, v in self.game.items() if k != "name"}

    def subset(self, count: int) -> "LabelledSet":
        """The first `count` positions (the set's order is random already)."""
        return dataclasses.replace(self, moves=self.moves[:count], plies=self.plies[:count],
                                   values=self.values[:count],
                                   calm=None if self.calm is None else self.calm[:count])

    def take(self, mask: np.ndarray) -> "LabelledSet":
        """The positions where `mask [P]` (bool) is set, in the set's order."""
        return dataclasses.replace(self, moves=self.moves[mask], plies=self.plies[mask],
                                   values=self.values[mask],
                                   calm=None if self.calm is None else self.calm[mask])


# Random games in a row that reach no position not seen before: the game has no more
# distinct positions at the depths asked for, and drawing stops (`check_found`).
STALL_DRAWS = 10_000


def check_found(kept: list, count: int, drawn: int, depths: str) -> None:
    """Raises where drawing stopped with no informative position; a set smaller than asked
    for is kept, and `exhausted_line` says why."""
    if not kept:
        raise ValueError(f"no informative position (one whose moves do not all share one "
                         f"value) at {depths} in {drawn} random games: the game has none "
                         "there; try other depths")


def exhausted_line(labelled: "LabelledSet", count: int) -> str | None:
    """Why a labelled set holds fewer positions than the `count` asked for, or None."""
    if len(labelled) >= count:
        return None
    return (f"only {len(labelled)} of {count} positions: the game has no more distinct "
            f"informative positions at these depths ({STALL_DRAWS:,} random games in a row "
            f"found none new, {labelled.meta.get('games_drawn')} drawn in all)")


def random_position(solver: Solver, rng: np.random.Generator, min_ply: int, max_ply: int):
    """Columns of uniformly random play up to a ply drawn from [min_ply, max_ply], or None
    if the game ended (a line or a full board) before it."""
    target = int(rng.integers(min_ply, max_ply + 1))
    heights = [0] * solver.cols
    moves: list[int] = []
    while len(moves) < target:
        col = int(rng.choice([c for c in range(solver.cols) if heights[c] < solver.rows]))
        heights[col] += 1
        moves.append(col)
        if solver.ended(moves):
            return None
    return moves


def generate(count: int, seed: int = 0, rows: int = 6, cols: int = 6, win_length: int = 4,
             min_ply: int = 8, max_ply: int = 24) -> LabelledSet:
    """Draws and labels `count` positions (see the module docstring)."""
    from warmjax.perfect.connect_four_solver import Solver

    solver = Solver(rows, cols, win_length)
    rng = np.random.default_rng(seed)
    seen, kept_moves, kept_values = set(), [], []
    drawn = since_new = 0
    while len(kept_moves) < count and since_new < STALL_DRAWS:
        moves = random_position(solver, rng, min_ply, max_ply)
        drawn += 1
        since_new += 1
        if moves is None:
            continue
        own, mask, _ = solver.position(moves)
        key = (int(own), int(mask))  # the same position reached by another move order too
        if key in seen:
            continue
        seen.add(key)
        since_new = 0
        values = solver.move_values(moves)
        legal = values[values != ILLEGAL]
        if np.all(legal == legal[0]):
            continue
        kept_moves.append(moves)
        kept_values.append(values)
    check_found(kept_moves, count, drawn, f"plies {min_ply}-{max_ply}")
    meta = dict(seed=seed, min_ply=min_ply, max_ply=max_ply, games_drawn=drawn,
                command=f"python -m warmjax.labels --count {count} --seed {seed} "
                        f"--rows {rows} --cols {cols} --win-length {win_length} "
                        f"--min-ply {min_ply} --max-ply {max_ply}")
    return _pack(kept_moves, kept_values, dict(rows=rows, cols=cols, win_length=win_length),
                 meta)


def _pack(moves, values, game, meta) -> LabelledSet:
    longest = max(len(m) for m in moves)
    padded = np.full((len(moves), longest), -1, np.int32)
    for i, m in enumerate(moves):
        padded[i, :len(m)] = m
    return LabelledSet(moves=padded, plies=np.array([len(m) for m in moves], np.int32),
                       values=np.asarray(values, np.int8), game=game, meta=meta)


def save(labelled: LabelledSet, path: Path) -> None:
    def text(moves):  # Connect Four's columns as a string of digits, as first shipped
        if labelled.game_name == "connect_four":
            return "".join(str(c) for c in moves)
        return [int(a) for a in moves]

    rows = [{"moves": text(m[:n]), "values": v.tolist()}
            for m, n, v in zip(labelled.moves, labelled.plies, labelled.values)]
    doc = {"game": labelled.game, "meta": labelled.meta,
           "quiet": flags_text(quiet(labelled)), "positions": rows}
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=None, separators=(",", ":"))
    path.write_text(text.replace('},{"moves"', '},\n{"moves"') + "\n")


def load(path: str | Path | None = None, num_actions: int | None = None) -> LabelledSet:
    """Reads a labelled set (default: the shipped 6×6 Connect Four one), without building
    its game: each position's values are one row per move of one length, which must be
    `num_actions` where given (the game's, by whoever plays the set).

    Raises:
      ValueError: for a missing or malformed file, naming it.
    """
    if path is None:
        path = DATA_DIR / registry.get("connect_four").labelled_set_name({})
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
        game = dict(doc["game"])
        game.setdefault("name", "connect_four")
        moves = [[int(a) for a in row["moves"]] for row in doc["positions"]]
        values = [[int(v) for v in row["values"]] for row in doc["positions"]]
        lengths = {len(v) for v in values} | ({num_actions} if num_actions else set())
        if not moves or len(lengths) != 1:
            raise ValueError("rows of the wrong length")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such labelled position file") from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{path}: not a labelled position file ({err})") from None
    labelled = _pack(moves, values, game, doc.get("meta", {}))
    if "quiet" in doc:
        calm = np.array([c == "1" for c in doc["quiet"]], bool)
        if calm.shape != (len(labelled),) or set(doc["quiet"]) - {"0", "1"}:
            raise ValueError(f"{path}: its quiet flags are not one 0 or 1 per position")
        labelled = dataclasses.replace(labelled, calm=calm)
    return labelled


def flags_text(flags: np.ndarray) -> str:
    """`[P]` bool as a string of 0s and 1s (how a labelled set stores its quiet flags)."""
    return "".join("1" if f else "0" for f in np.asarray(flags, bool))


def immediate_wins(labelled: LabelledSet) -> np.ndarray:
    """`[P, A]` bool: actions that win the game at once (computed, not stored): those that
    complete a line, or in Othello those that end the game with more discs."""
    return _wins_in_one(labelled, opponent=False)


def threats(labelled: LabelledSet) -> np.ndarray:
    """`[P]` bool: positions where the opponent of the player to move has a move that would
    win at once, were it its turn (a loss the player to move must block): a line completed,
    or in Othello a move that ends the game with more discs."""
    return _wins_in_one(labelled, opponent=True).any(axis=1)


def gives_immediate_win(labelled: LabelledSet, actions: np.ndarray) -> np.ndarray:
    """`[P]` bool: whether playing `actions [P]` (legal, and not ending the game) leaves the
    opponent a move that wins at once: a threat left unblocked, or in Connect Four a stone
    under the opponent's threat. Such a move loses within two plies: a search that makes
    one misses what a two-ply lookahead sees; one that does not, something deeper."""
    actions = np.asarray(actions)
    count, longest = labelled.moves.shape
    moves = np.full((count, longest + 1), -1, labelled.moves.dtype)
    moves[:, :longest] = labelled.moves
    moves[np.arange(count), labelled.plies] = actions
    after = dataclasses.replace(labelled, moves=moves, plies=labelled.plies + 1, calm=None)
    return _wins_in_one(after, opponent=False).any(axis=1)


def quiet(labelled: LabelledSet, immediate: np.ndarray | None = None) -> np.ndarray:
    """`[P]` bool: the quiet positions, where the player to move has no move that wins at
    once and no immediate loss to block (`immediate_wins`, which may be passed in if already
    computed, and `threats`). A search with a win check scores the others with little
    understanding of the game. The flags stored with the set, where it has them (no solver
    runs); else computed with the game's solver."""
    if labelled.calm is not None:
        return labelled.calm
    immediate = immediate_wins(labelled) if immediate is None else immediate
    return ~immediate.any(axis=1) & ~threats(labelled)


def _wins_in_one(labelled: LabelledSet, opponent: bool) -> np.ndarray:
    """`[P, A]` bool: the moves that win at once for the player to move, or (`opponent`) for
    its opponent were it to move on the same board."""
    spec = registry.find(labelled.game_name)
    if spec is not None and spec.labels is not None and spec.labels.solver is None:
        return _wins_in_one_by_rules(labelled, opponent)  # a set labelled by search
    solver = _solver(labelled.game)
    out = np.zeros(labelled.values.shape, bool)
    for i, (m, n) in enumerate(zip(labelled.moves, labelled.plies)):
        if labelled.game_name == "connect_four":
            out[i] = solver.threats(m[:n]) if opponent else solver.winning_moves(m[:n])
            continue
        own, other = solver.position(m[:n])
        if opponent:
            own, other = other, own
        for action in solver.legal_moves(own, other):
            following, moved = solver.play(own, other, action)  # the next mover first
            if labelled.game_name != "othello":  # a line game: a move that completes a line
                out[i, action] = solver.has_line(moved)
            else:
                out[i, action] = (solver.game_over(following, moved)
                                  and solver.final(following, moved) < 0)
    return out


def _wins_in_one_by_rules(labelled: LabelledSet, opponent: bool) -> np.ndarray:
    """`_wins_in_one` from the game's own rules, for a game without a solver: each legal
    move played (`env.step`), a win where it ends the game with the mover's reward 1. The
    opponent's moves need its `from_board` (the board with the other colour to move);
    where the game has none they are all False (no threat is marked)."""
    import jax
    import jax.numpy as jnp

    from warmjax.games import make
    from warmjax.games.env import FIRST, SECOND
    from warmjax.games.playout import winning_moves
    from warmjax.perfect.replay import replay_moves

    env = make(labelled.game_name, **labelled.game_params)
    states = replay_moves(env, labelled.moves, labelled.plies)
    if opponent:
        try:
            flipped = [env.from_board(env.board_array(s), FIRST + SECOND - env.colour_to_move(s))
                       for s in (jax.tree_util.tree_map(lambda x, i=i: x[i], states)
                                 for i in range(len(labelled)))]
        except NotImplementedError:
            return np.zeros(labelled.values.shape, bool)
        states = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *flipped)
    return np.asarray(jax.jit(lambda s: winning_moves(env, s))(states))


def _solver(game: dict):
    """The exact solver of a labelled set's game (`GameSpec.labels.solver`)."""
    params = {k: v for k, v in game.items() if k != "name"}
    name = game.get("name", "connect_four")
    spec = registry.find(name)
    if spec is None or spec.labels is None:
        raise ValueError(f"no solver for the game {name!r}")
    return spec.labels.make_solver(**params)


def generate_connect_four(game: str, count: int, seed: int, params: dict, low: int,
                          high: int, log=None) -> LabelledSet:
    """Connect Four's positions (`generate`) in the registry's form (`Labels.generate`)."""
    del game, log
    return generate(count, seed, params["rows"], params["cols"], params["win_length"], low,
                    high)


def enumerate_small_line_game(game: str, count: int, seed: int, params: dict, low: int,
                              high: int, log=None) -> LabelledSet:
    """Every reachable position of a small line game (`enumerate_line_game`) in the
    registry's form (`Labels.generate`): the seed and the depth range do not apply (the set
    is exhaustive); `count` caps it."""
    del seed, low, high, log
    solver = registry.find(game).labels.make_solver(**params)
    return enumerate_line_game(game, solver, params, count)


def enumerate_line_game(name: str, solver, params: dict, limit: int | None = None
                        ) -> LabelledSet:
    """Every reachable non-terminal position of a small line game (tic-tac-toe), labelled,
    in the order a breadth-first walk from the empty board meets them; positions where all
    legal moves have the same value are left out, as in the sampled sets. `limit` keeps the
    first `limit` of them."""
    seen, frontier, kept_moves, kept_values = {(0, 0)}, [((0, 0), [])], [], []
    while frontier:
        following = []
        for (own, other), moves in frontier:
            if solver.has_line(other) or not solver.legal_moves(own, other):
                continue  # the game is over
            values = solver.move_values(own, other)
            legal = values[values != ILLEGAL]
            if not np.all(legal == legal[0]):
                kept_moves.append(moves)
                kept_values.append(values)
            for action in solver.legal_moves(own, other):
                after = solver.play(own, other, action)
                if after not in seen:
                    seen.add(after)
                    following.append((after, [*moves, action]))
        frontier = following
    if limit is not None:
        kept_moves, kept_values = kept_moves[:limit], kept_values[:limit]
    meta = {"seed": None, "games_drawn": 0, "enumerated": True,
            "command": f"python -m warmjax.labels --game {name}"
                       + (f" --count {limit}" if limit is not None else "")}
    return _pack(kept_moves, kept_values, {"name": name, **params}, meta)


def generate_placement_game(name: str, count: int, seed: int = 0, params: dict | None = None,
                            low: int = 8, high: int = 20, log=None) -> LabelledSet:
    """Draws and labels `count` positions of a placement game: one whose solver has
    `start`, `empty_cells`, `legal_moves`, `play` and `move_values` (Othello, Gobang, Hex;
    see the module docstring).

    Args:
      name: the registered game; its `Labels.depth` says whether `low`…`high` count empty
        cells ("empties") or plies.
      params: the game's constructor settings (its registered ones by default).
      log: called with a progress line every 100 positions kept.
    """
    spec = registry.get(name)
    if spec.labels is None:
        raise ValueError(f"{name} has no exact solver to label positions with")
    params = {**spec.params, **(params or {})}
    game = {"name": name, **params}
    solver = _solver(game)
    by_empties = spec.labels.depth == "empties"
    rng = np.random.default_rng(seed)
    seen, kept_moves, kept_values = set(), [], []
    drawn = since_new = 0
    while len(kept_moves) < count and since_new < STALL_DRAWS:
        target = int(rng.integers(low, high + 1))
        drawn += 1
        since_new += 1
        own, other = solver.start()
        moves: list[int] = []
        ended = False
        while (solver.empty_cells(own, other) > target if by_empties
               else len(moves) < target):
            legal = solver.legal_moves(own, other)
            if not legal:
                ended = True
                break
            action = int(rng.choice(legal))
            moves.append(action)
            own, other = solver.play(own, other, action)
        if ended or not solver.legal_moves(own, other):
            continue
        if (own, other) in seen:
            continue
        seen.add((own, other))
        since_new = 0
        values = solver.move_values(own, other)
        legal = values[values != ILLEGAL]
        if np.all(legal == legal[0]):
            continue
        kept_moves.append(moves)
        kept_values.append(values)
        if log is not None and len(kept_moves) % 100 == 0:
            log(f"{len(kept_moves)} of {count} positions labelled")
    depth = "empties" if by_empties else "ply"
    check_found(kept_moves, count, drawn,
                f"{'empty cells' if by_empties else 'plies'} {low}-{high}")
    flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in params.items())
    meta = {"seed": seed, f"min_{depth}": low, f"max_{depth}": high, "games_drawn": drawn,
            "command": f"python -m warmjax.labels --game {name} --count {count} --seed {seed} "
                       f"{flags} --min-{depth} {low} --max-{depth} {high}"}
    return _pack(kept_moves, kept_values, game, meta)
