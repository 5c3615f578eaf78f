"""The labelled Connect Four positions that the oracle scores players on (method.md §9).

A position is the sequence of columns played from the empty board. Its label is the
perfect-play value (WIN / DRAW / LOSS for the player to move) of every legal move, from
`solver.Solver`. The shipped set, `data/connect_four_6x6.json`, was made by

    python -m warmjax.labels --count 1000 --seed 0

which draws a target ply uniformly from 8…24, plays uniformly random legal moves from the
empty board up to it (a game that ends first is thrown away and drawn again), drops repeats
of a position already kept, and keeps the position only if its legal moves do not all have
the same value. The file records the command's settings with the positions.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from warmjax.perfect.connect_four_solver import Solver

DATA_DIR = Path(__file__).parent / "data"
ILLEGAL = -2  # the value of a full column in `LabelledSet.values`


def default_path(rows: int = 6, cols: int = 6, win_length: int = 4) -> Path:
    """Where the labelled set of Connect Four of this size is (or would be) shipped."""
    suffix = "" if win_length == 4 else f"_k{win_length}"
    return DATA_DIR / f"connect_four_{rows}x{cols}{suffix}.json"


def path_for(env: Any) -> Path | None:
    """The shipped labelled set of the game `env` (`GameEnv.labelled_set_name`), or None
    where the game has none."""
    name = env.labelled_set_name
    if name is None or not (DATA_DIR / name).exists():
        return None
    return DATA_DIR / name


@dataclasses.dataclass(frozen=True)
class LabelledSet:
    """P labelled positions (numpy arrays; L is the longest move sequence, A the columns).

    Attributes:
      moves: `[P, L]` int32 columns played from the empty board, −1 after the end.
      plies: `[P]` int32 length of each sequence.
      values: `[P, A]` int8 perfect-play value of each move for the player to move
        (WIN 1, DRAW 0, LOSS −1; ILLEGAL −2 for a full column).
      game: the board, `{"rows", "cols", "win_length"}`.
      meta: how the set was made.
    """

    moves: np.ndarray
    plies: np.ndarray
    values: np.ndarray
    game: dict
    meta: dict

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

    def subset(self, count: int) -> "LabelledSet":
        """The first `count` positions (the set's order is random already)."""
        return dataclasses.replace(self, moves=self.moves[:count], plies=self.plies[:count],
                                   values=self.values[:count])


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
    solver = Solver(rows, cols, win_length)
    rng = np.random.default_rng(seed)
    seen, kept_moves, kept_values = set(), [], []
    drawn = 0
    while len(kept_moves) < count:
        moves = random_position(solver, rng, min_ply, max_ply)
        drawn += 1
        if moves is None:
            continue
        own, mask, _ = solver.position(moves)
        key = (int(own), int(mask))  # the same position reached by another move order too
        if key in seen:
            continue
        seen.add(key)
        values = solver.move_values(moves)
        legal = values[values != ILLEGAL]
        if np.all(legal == legal[0]):
            continue
        kept_moves.append(moves)
        kept_values.append(values)
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
    rows = [{"moves": "".join(str(c) for c in m[:n]), "values": v.tolist()}
            for m, n, v in zip(labelled.moves, labelled.plies, labelled.values)]
    doc = {"game": labelled.game, "meta": labelled.meta, "positions": rows}
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=None, separators=(",", ":"))
    path.write_text(text.replace('},{"moves"', '},\n{"moves"') + "\n")


def load(path: str | Path | None = None) -> LabelledSet:
    """Reads a labelled set (default: the shipped 6×6 one).

    Raises:
      ValueError: for a missing or malformed file, naming it.
    """
    path = Path(path) if path is not None else default_path()
    try:
        doc = json.loads(path.read_text())
        game = {k: int(doc["game"][k]) for k in ("rows", "cols", "win_length")}
        moves = [[int(ch) for ch in row["moves"]] for row in doc["positions"]]
        values = [[int(v) for v in row["values"]] for row in doc["positions"]]
        if not moves or any(len(v) != game["cols"] for v in values):
            raise ValueError("rows of the wrong length")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such labelled position file") from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{path}: not a labelled position file ({err})") from None
    return _pack(moves, values, game, doc.get("meta", {}))


def immediate_wins(labelled: LabelledSet) -> np.ndarray:
    """`[P, A]` bool: moves that complete a line at once (computed, not stored)."""
    solver = Solver(**labelled.game)
    return np.stack([solver.winning_moves(m[:n]) for m, n in zip(labelled.moves, labelled.plies)])
