"""warmjax's own games in the registry: the papers' three 6×6 games (hand-written pgx
environments) and pgx's two-player games (through `pgx_games.PgxGame`).

They are registered here as data, naming their constructors by import path, so that the
registry, the run identity and the analysis of run folders know every built-in game
(its title, settings, board and labelled set) without importing its module, pgx or JAX. A
game's module is imported the first time the game is made. The order is the papers' tables'
(the order of reports), then pgx's.
"""

from __future__ import annotations

from warmjax.games.pgx_kinds import KINDS, square_board
from warmjax.games.registry import GameSpec, Imported, Labels, register

OTHELLO = register(GameSpec(
    "othello", "Othello", "warmjax.games.othello:Othello", {"size": 6},
    readings={"rave_all_players": True, "rhea_legal_first": False},
    labels=Labels("empties", 12, 20, "warmjax.perfect.othello_solver:Solver"),
    board=square_board))

CONNECT_FOUR = register(GameSpec(
    "connect_four", "Connect Four", "warmjax.games.connect_four:ConnectFour",
    {"rows": 6, "cols": 6, "win_length": 4},
    short="c4", readings={"rave_all_players": False, "rhea_legal_first": True},
    labels=Labels("ply", 8, 24, "warmjax.perfect.connect_four_solver:Solver",
                  "warmjax.perfect.positions:generate_connect_four"),
    board=lambda p: (int(p["rows"]), int(p["cols"]))))

GOBANG = register(GameSpec(
    "gobang", "Gobang", "warmjax.games.gobang:Gobang", {"size": 6, "win_length": 4},
    readings={"rave_all_players": False, "rhea_legal_first": True},
    labels=Labels("ply", 8, 20, "warmjax.perfect.gobang_solver:Solver"),
    board=square_board))

# Tic-tac-toe is the (3, 3, 3) line game: the Gobang solver on a 3×3 board, three in a row
# (cells r·3 + c, pgx's action ids); its set is every reachable position. Hex's sets are
# random-play endgames with 10–16 empty cells (the swap never played), labelled by the Hex
# solver on boards up to 7×7.
PGX_LABELS = {"tic_tac_toe": Labels("ply", 0, 8, "warmjax.perfect.gobang_solver:Solver",
                                    "warmjax.perfect.positions:enumerate_small_line_game",
                                    solver_settings={"size": 3, "win_length": 3}),
              "hex": Labels("empties", 10, 16, "warmjax.perfect.hex_solver:Solver")}

for _name, _kind in KINDS.items():
    register(GameSpec(_name, _kind.title, Imported("warmjax.games.pgx_games:PgxGame", (_name,)),
                      dict(_kind.params), labels=PGX_LABELS.get(_name), board=_kind.board))
