"""pgx's two-player games as warmjax sees them, without importing pgx or JAX: each game's pgx
id, title, settings, symmetry kind, step cap and action labels (`KINDS`), and the pgx games
warmjax refuses, with the reason (`REFUSED`). The adapter (`pgx_games.PgxGame`) builds the
environments; the registry (`games.builtin`) reads this table."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class PgxKind:
    """One pgx game as warmjax sees it: its pgx id, constructor settings, symmetry kind,
    step cap (`cap(settings)`: the most plies a game can last) and board (`board(settings)`:
    the observation's first two axes, `(rows, cols)`)."""

    pgx_id: str
    title: str
    params: dict
    symmetry: str
    cap: Any  # settings -> int
    board: Any  # settings -> (rows, cols)
    truncates: bool = False  # the cap ends games the rules have not (else a natural bound)
    actions: str = "cells"  # how actions read: cells, cells+pass, cells+swap, columns, ids
    pieces: tuple = ()  # (plane, token) pairs that draw a piece game's board; () for stones


def _go_cap(p):
    """Go's step cap: pgx's default 2·size², or `max_terminal_steps`."""
    cap = p.get("max_terminal_steps")
    return 2 * p["size"] ** 2 if cap is None else int(cap)


def square_board(p) -> tuple[int, int]:
    """A board of `size`×`size` (Hex, Go, and the papers' Othello and Gobang)."""
    return (int(p["size"]), int(p["size"]))


def _fixed(rows: int, cols: int):
    """A board of one shape whatever the settings."""
    return lambda p: (rows, cols)


def _pieces(mover: tuple[int, str], opponent: int) -> tuple:
    """(plane, token) pairs: the mover's pieces (upper case) from plane `mover[0]` on, one
    per letter of `mover[1]` (space-separated tokens), and the opponent's (lower case) from
    plane `opponent`."""
    first, tokens = mover
    names = tokens.split()
    return tuple((first + i, t) for i, t in enumerate(names)) + tuple(
        (opponent + i, t.lower()) for i, t in enumerate(names))


CHESS_PIECES = _pieces((0, "P N B R Q K"), 6)  # pgx's planes 0-5 and 6-11
ANIMAL_PIECES = _pieces((0, "C E G L H"), 5)  # chick, elephant, giraffe, lion, hen
SHOGI_PIECES = _pieces((0, "P L N S B R G K +P +L +N +S +B +R"), 31)  # 0-13 and 31-44

KINDS: dict[str, PgxKind] = {
    "tic_tac_toe": PgxKind("tic_tac_toe", "Tic-tac-toe", {}, "dihedral", lambda p: 9,
                           _fixed(3, 3)),
    "pgx_connect_four": PgxKind("connect_four", "Connect Four 6×7 (pgx)", {}, "mirror",
                                lambda p: 42, _fixed(6, 7), actions="columns"),
    "pgx_othello": PgxKind("othello", "Othello 8×8 (pgx)", {}, "dihedral", lambda p: 130,
                           _fixed(8, 8), actions="cells+pass"),
    "hex": PgxKind("hex", "Hex", {"size": 11}, "rot180", lambda p: p["size"] ** 2 + 1,
                   square_board, actions="cells+swap"),
    "go": PgxKind("go", "Go", {"size": 9, "komi": 7.5, "history_length": 8,
                               "max_terminal_steps": None}, "dihedral", _go_cap, square_board,
                  truncates=True, actions="cells+pass"),
    "animal_shogi": PgxKind("animal_shogi", "Animal shogi", {}, "none", lambda p: 256,
                            _fixed(4, 3), truncates=True, actions="ids", pieces=ANIMAL_PIECES),
    "gardner_chess": PgxKind("gardner_chess", "Gardner chess", {}, "none", lambda p: 256,
                             _fixed(5, 5), truncates=True, actions="ids", pieces=CHESS_PIECES),
    "chess": PgxKind("chess", "Chess", {}, "none", lambda p: 512, _fixed(8, 8), truncates=True,
                     actions="ids", pieces=CHESS_PIECES),
    "shogi": PgxKind("shogi", "Shogi", {}, "none", lambda p: 512, _fixed(9, 9), truncates=True,
                     actions="ids", pieces=SHOGI_PIECES),
}

REFUSED = {
    "backgammon": "it has chance (its step needs a key)",
    "2048": "it has one player",
    "sparrow_mahjong": "it has three players",
    "kuhn_poker": "it has hidden information",
    "leduc_holdem": "it has hidden information",
    "bridge_bidding": "it has hidden information (and four players)",
}


def refusal(pgx_id: str) -> str | None:
    """Why warmjax cannot play the pgx game `pgx_id` (chance, not two players, hidden
    information), or None for any other name."""
    if pgx_id in REFUSED:
        return REFUSED[pgx_id]
    if pgx_id.startswith("minatar"):
        return "it has one player"
    return None


def refused_message(pgx_id: str) -> str | None:
    """The one line that refuses a pgx game warmjax cannot play, or None."""
    why = refusal(pgx_id)
    if why is None:
        return None
    return (f"pgx's {pgx_id} cannot be played here: {why} (warmjax plays two-player games "
            "of perfect information without chance)")
