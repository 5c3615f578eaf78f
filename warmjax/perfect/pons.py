"""Pascal Pons' Connect Four benchmark (7 columns × 6 rows) as labelled sets, and the
published figures to read a score against (`data/pons/README.md` has the source and the
licence).

Each set is a `LabelledSet` of Connect Four 6×7 whose move values are the signs of the
mover's perfect-play value (win 1, draw 0, loss −1, a full column ILLEGAL), from the
annotated copies: a column's annotated score is the position after the move, for the
player then to move, so the mover's value is its negation. As AlphaZero.jl scores it, a
move is a mistake when its sign is below the best move's (a slower win is no mistake): one
minus the optimal-move rate of `probe.score.judge`.

    from warmjax.perfect import pons
    labelled = pons.load("beginning_hard")
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from warmjax.perfect.positions import ILLEGAL, LabelledSet

FOLDER = Path(__file__).parent / "data" / "pons"
ROWS, COLS = 6, 7
FULL = 43  # an annotated full column


@dataclasses.dataclass(frozen=True)
class PonsSet:
    """One of the six sets: its file, its name and what it holds."""

    name: str
    file: str
    stage: str
    difficulty: str
    alphazero_jl: tuple[float, float]  # AlphaZero.jl's mistake rate, iterations 10–15 (range)
    minimax5: float  # a depth-5 minimax's mistake rate


# In AlphaZero.jl's order, with its published figures (600 simulations; read off its plot)
# and the depth-5 minimax it plots beside them.
SETS = (
    PonsSet("end_easy", "Test_L3_R1", "end (> 28 moves played)", "easy (< 14 to go)",
            (0.0, 0.0), 0.014),
    PonsSet("middle_easy", "Test_L2_R1", "middle (15–28)", "easy", (0.0, 0.001), 0.007),
    PonsSet("middle_medium", "Test_L2_R2", "middle", "medium (14–28 to go)", (0.018, 0.027),
            0.092),
    PonsSet("beginning_easy", "Test_L1_R1", "beginning (≤ 14)", "easy", (0.0, 0.002), 0.017),
    PonsSet("beginning_medium", "Test_L1_R2", "beginning", "medium", (0.015, 0.02), 0.073),
    PonsSet("beginning_hard", "Test_L1_R3", "beginning", "hard (> 28 to go)", (0.065, 0.07),
            0.235),
)
BY_NAME = {s.name: s for s in SETS}


def parse(plain: str, annotated: str, name: str) -> LabelledSet:
    """A set from the text of its two files (each line: the moves as 1-based columns, then
    the position's score; or then the seven column scores).

    Raises:
      ValueError: files that do not line up, or a line whose best column disagrees with the
        position's published score, naming the line.
    """
    lines = [x.split() for x in plain.splitlines() if x.strip()]
    notes = [x.split() for x in annotated.splitlines() if x.strip()]
    if len(lines) != len(notes):
        raise ValueError(f"pons {name}: {len(lines)} positions but {len(notes)} annotated")
    moves, values = [], []
    for number, ((sequence, score), (again, columns)) in enumerate(zip(lines, notes), 1):
        scores = np.array([int(c) for c in columns.split(",")])
        if sequence != again or scores.shape != (COLS,):
            raise ValueError(f"pons {name}, line {number}: the annotated line does not match")
        legal = scores != FULL
        mover = np.where(legal, -scores, -FULL)
        if mover[legal].max() != int(score):
            raise ValueError(f"pons {name}, line {number}: the best column's score "
                             f"{mover[legal].max()} is not the position's {score}")
        values.append(np.where(legal, np.sign(mover), ILLEGAL).astype(np.int8))
        moves.append([int(c) - 1 for c in sequence])
    longest = max(len(m) for m in moves)
    padded = np.full((len(moves), longest), -1, np.int32)
    for i, m in enumerate(moves):
        padded[i, :len(m)] = m
    return LabelledSet(moves=padded, plies=np.array([len(m) for m in moves], np.int32),
                       values=np.stack(values),
                       game={"name": "connect_four", "rows": ROWS, "cols": COLS,
                             "win_length": 4},
                       meta={"benchmark": "pons", "set": name})


def load(name: str, folder: Path | str = FOLDER) -> LabelledSet:
    """The set `name` (a key of `BY_NAME`), from the shipped files.

    Raises:
      ValueError: an unknown set, or files that do not parse (`parse`).
    """
    if name not in BY_NAME:
        raise ValueError(f"unknown Pons set {name!r}; choose from {', '.join(BY_NAME)}")
    folder = Path(folder)
    spec = BY_NAME[name]
    return parse((folder / spec.file).read_text(),
                 (folder / f"{spec.file}.annotated").read_text(), name)
