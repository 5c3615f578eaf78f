"""Shared glue for warmjax's board games: the `GameEnv` base class and ASCII boards.

Every game is a `pgx.core.Env` subclass, so `init(key) -> State` and
`step(state, action) -> State` are pure functions that jit and vmap. On top of
pgx's API a `GameEnv` knows its board shape, its symmetries and how to draw and
parse a board, which the tests, the search and the play command use.

Conventions shared by all games:

- Player ids are 0 and 1; `State.current_player` is the id to move. As in pgx, `init`
  draws the id of the first mover from the key, so ids are labels, not colours.
- Colours are the first mover ("X") and the second mover ("O"). ASCII boards show
  colours; row 0 is the top row and cell `(r, c)` has index `r * cols + c`.
- `State.observation` is `[rows, cols, 2]` bool: plane 0 holds the stones of the player to
  move, plane 1 the opponent's.
- `State.rewards` is `[2]` float32, indexed by player id: +1/-1 on the move that wins,
  0/0 on a draw and on every non-terminal move.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, ClassVar

import jax
import numpy as np
import pgx.core

from warmjax.games.symmetry import augment, symmetry_tables

if TYPE_CHECKING:
    from warmjax.games.playout import PlayoutRules

EMPTY, FIRST, SECOND = 0, 1, 2
SVG_CELL = 40  # pixels per cell at scale 1
_CHARS = {EMPTY: ".", FIRST: "X", SECOND: "O"}
_CODES = {".": EMPTY, "-": EMPTY, "X": FIRST, "x": FIRST, "O": SECOND, "o": SECOND}


# How a board is drawn: "stones" (a green board, the first mover's stones black, the second's
# white: Othello, Gobang) or "discs" (Connect Four's own look: a blue frame with holes, the
# first mover's discs red, the second's yellow, the columns lettered above the board).
STYLES = {
    "stones": {"board": "#2e7d4f", "first": "black", "second": "white", "grid": True},
    "discs": {"board": "#1d4fb8", "first": "#d62828", "second": "#f5c518", "grid": False,
              "hole": "#f4f4f4", "letters": True},
}
LETTER_STRIP = 0.6  # the height of the column letters' strip, in cells


def board_geometry(rows: int, cols: int, *, style: str = "stones",
                   scale: float | None = None) -> dict:
    """Where the cells lie in `board_svg`'s drawing: the cell size and the top of row 0 (in
    the drawing's units), and its width and height (what a page needs to map a click)."""
    cell = SVG_CELL * (scale or 1.0)
    top = LETTER_STRIP * cell if STYLES[style].get("letters") else 0.0
    return {"cell": cell, "top": top, "width": cols * cell, "height": top + rows * cell}


def _draw_board(drawing, group, obs, first_to_move: bool, style: str, cell: float,
                last: tuple[int, int] | None) -> None:
    """One board into `group` (whose origin is the board's top left corner)."""
    look = STYLES[style]
    rows, cols = obs.shape[:2]
    top = board_geometry(rows, cols, style=style, scale=cell / SVG_CELL)["top"]
    if look.get("letters"):
        for c in range(cols):
            group.add(drawing.text(column_letter(c), insert=((c + 0.5) * cell, 0.45 * cell),
                                   text_anchor="middle", font_size=0.4 * cell,
                                   font_family="sans-serif", fill="#222",
                                   class_="column-letter"))
    group.add(drawing.rect((0, top), (cols * cell, rows * cell), fill=look["board"]))
    if look["grid"]:
        for r in range(rows + 1):
            group.add(drawing.line((0, top + r * cell), (cols * cell, top + r * cell),
                                   stroke="black"))
        for c in range(cols + 1):
            group.add(drawing.line((c * cell, top), (c * cell, top + rows * cell),
                                   stroke="black"))
    mover, other = ("first", "second") if first_to_move else ("second", "first")
    for r in range(rows):
        for c in range(cols):
            centre = ((c + 0.5) * cell, top + (r + 0.5) * cell)
            colour = mover if obs[r, c, 0] else other if obs[r, c, 1] else None
            if colour is None:
                if "hole" in look:
                    group.add(drawing.circle(centre, 0.4 * cell, fill=look["hole"]))
                continue
            group.add(drawing.circle(centre, 0.4 * cell, fill=look[colour], stroke="black",
                                     class_=f"piece {colour}"))
            if last == (r, c):
                mark = "white" if colour == "first" or style == "discs" else "black"
                group.add(drawing.circle(centre, 0.15 * cell, fill="none", stroke=mark,
                                         stroke_width=0.06 * cell, class_="last-move"))


def board_svg(observation, first_to_move, *, scale: float | None = None,
              style: str = "stones", last: tuple[int, int] | None = None) -> str:
    """An SVG drawing of a board from its observation (plane 0: the stones of the player to
    move, plane 1: the opponent's) in a style of `STYLES`, with the last move's cell `last`
    (row, col) marked. A batch of observations (`[..., H, W, C]`, `first_to_move` one bool
    each) is drawn as a grid of boards, as pgx draws its batches. Needs svgwrite."""
    import svgwrite

    obs = np.asarray(observation)
    rows, cols = obs.shape[-3:-1]
    geometry = board_geometry(rows, cols, style=style, scale=scale)
    cell = geometry["cell"]
    if obs.ndim == 3:
        drawing = svgwrite.Drawing(size=(geometry["width"], geometry["height"]))
        _draw_board(drawing, drawing, obs, bool(first_to_move), style, cell, last)
        return drawing.tostring()
    boards = obs.reshape(-1, *obs.shape[-3:])
    movers = np.broadcast_to(np.asarray(first_to_move), obs.shape[:-3]).reshape(-1)
    across = int(np.ceil(np.sqrt(len(boards))))
    down = -(-len(boards) // across)
    gap = 0.25 * cell
    step_x, step_y = geometry["width"] + gap, geometry["height"] + gap
    drawing = svgwrite.Drawing(size=(across * step_x - gap, down * step_y - gap))
    for i, (board, mover) in enumerate(zip(boards, movers)):
        group = drawing.g(transform=f"translate({(i % across) * step_x},"
                                    f"{(i // across) * step_y})")
        _draw_board(drawing, group, board, bool(mover), style, cell, None)
        drawing.add(group)
    return drawing.tostring()


class BoardState:
    """What warmjax's own states add to pgx's `State`: an id of their own (pgx's
    visualiser knows pgx's games by id, and warmjax's have other internals) and
    `to_svg`/`save_svg` drawn by `board_svg` in the state's `svg_style`. Subclasses say
    whether the first mover is to move (`_first_to_move`)."""

    svg_style: ClassVar[str] = "stones"

    def _first_to_move(self) -> bool:
        raise NotImplementedError

    def to_svg(self, *, color_theme=None, scale: float | None = None,
               last: tuple[int, int] | None = None) -> str:
        """The board as SVG, the cell `last` (row, col) marked as the last move; a batch of
        states is drawn as a grid of boards, as pgx draws one (`color_theme` is pgx's
        argument, not used here)."""
        del color_theme
        batch = np.shape(self.current_player)
        if batch == ():
            return board_svg(self.observation, self._first_to_move(), scale=scale,
                             style=self.svg_style, last=last)
        flat = jax.tree.map(lambda x: np.asarray(x).reshape(-1, *np.shape(x)[len(batch):]),
                            self)
        movers = [jax.tree.map(lambda x, i=i: x[i], flat)._first_to_move()
                  for i in range(int(np.prod(batch)))]
        return board_svg(np.asarray(self.observation), np.reshape(movers, batch),
                         scale=scale, style=self.svg_style)

    def save_svg(self, filename, *, color_theme=None, scale: float | None = None) -> None:
        """Writes `to_svg()` to `filename` (which must end with .svg)."""
        if not str(filename).endswith(".svg"):
            raise ValueError(f"{filename}: the file name must end with .svg")
        with open(filename, "w") as f:
            f.write(self.to_svg(color_theme=color_theme, scale=scale))

    def _repr_html_(self) -> str:
        return self.to_svg()


class GameEnv(pgx.core.Env):
    """A two-player board game with an ASCII form and known symmetries.

    Subclasses implement pgx's `_init`, `_step`, `_observe`, `id`, `version`, and:

    - `board_shape`: `(rows, cols)`;
    - `symmetry`: `"dihedral"` (8 transforms of a square board; the pass action, if any,
      stays put), `"mirror"` (left-right reflection; actions are columns), `"rot180"`
      (the half turn; actions past the cells stay put: Hex and its swap) or `"none"` (the
      identity alone); `symmetry.symmetry_tables` builds each;
    - `board_array(state) -> np.ndarray[rows, cols]` of EMPTY/FIRST/SECOND;
    - `colour_to_move(state) -> FIRST | SECOND`;
    - `from_board(board, to_move, current_player=0) -> State` for scripted positions.
    """

    name: ClassVar[str]
    symmetry: ClassVar[str]

    def to_svg(self, state, *, scale: float | None = None,
               last: tuple[int, int] | None = None) -> str:
        """One unbatched state's board as SVG, the cell `last` (row, col) marked as the last
        move where the drawing is warmjax's own (the state's own `to_svg`; a game whose
        states pgx's visualiser cannot draw overrides this)."""
        if isinstance(state, BoardState):
            return state.to_svg(scale=scale, last=last)
        return state.to_svg(scale=scale)

    def save_svg(self, state, filename, *, scale: float | None = None) -> None:
        """Writes `to_svg(state)` to `filename`, which must end with .svg: every game, at
        every size (pgx's own `state.save_svg` knows Go only at 9×9 and 19×19)."""
        if not str(filename).endswith(".svg"):
            raise ValueError(f"{filename}: the file name must end with .svg")
        with open(filename, "w") as f:
            f.write(self.to_svg(state, scale=scale))
    # Whether the game's own step cap (`max_plies`) ends games that its rules have not
    # ended (pgx's Go and chess-like games); warmjax's games end before any cap.
    truncates: ClassVar[bool] = False

    @property
    def num_players(self) -> int:
        return 2

    @property
    def max_plies(self) -> int:
        """An upper bound on the plies of one game (sizes the search's buffers).

        Every move fills a cell, except a pass; two passes in a row end a game, so a game
        with a pass action has at most one pass per placement, plus two.
        """
        rows, cols = self.board_shape
        cells = rows * cols
        return 2 * cells + 2 if self.num_actions == cells + 1 else cells

    @property
    @abc.abstractmethod
    def board_shape(self) -> tuple[int, int]:
        """`(rows, cols)` of the board."""

    @abc.abstractmethod
    def board_array(self, state) -> np.ndarray:
        """The board of one (unbatched) state as `[rows, cols]` int of EMPTY/FIRST/SECOND."""

    @abc.abstractmethod
    def colour_to_move(self, state) -> int:
        """FIRST or SECOND: the colour of the player to move in one (unbatched) state."""

    @abc.abstractmethod
    def from_board(self, board: np.ndarray, to_move: int, current_player: int = 0):
        """Builds a State from `[rows, cols]` EMPTY/FIRST/SECOND and the colour to move.

        It keeps pgx's conventions, as `step` does: a board that is over gives a terminated
        state whose legal mask is all true and whose rewards are those of the move that
        ended it (zero-sum, in {−1, 0, 1}). A game that cannot script positions raises
        `NotImplementedError`. `warmjax.games.check_game` tests all of this."""

    # ----------------------------------------------------------------------------------
    # Random playouts (`warmjax.search.rollouts`).

    def playout_rules(self) -> PlayoutRules | None:
        """The game's rules for fast random playouts (`warmjax.games.playout`); None if it
        has none.

        A playout needs only who wins, so its rules may skip what `step` also builds (the
        observation, pgx's checks). A game that returns None is played out with `step`,
        which gives the same moves and results (the tests check that they agree).
        """
        return None

    # ----------------------------------------------------------------------------------
    # Perfect play (`warmjax.perfect`).

    @property
    def labelled_set_name(self) -> str | None:
        """The file name of this game's labelled positions (which
        `warmjax.perfect.positions.path_for` looks up in the package's data folder, where
        `python -m warmjax.labels` writes them): `<name>_<rows>x<cols>.json` for a game
        registered with labels (an exact solver, or search), else None."""
        from warmjax.games import registry

        spec = registry.find(self.name)
        if spec is None or spec.labels is None:
            return None
        rows, cols = self.board_shape
        return f"{self.name}_{rows}x{cols}.json"

    # ----------------------------------------------------------------------------------
    # Symmetries.

    def symmetry_tables(self):
        """`(cell_perm [S, rows*cols], action_perm [S, A])`; see `symmetry.symmetry_tables`."""
        rows, cols = self.board_shape
        return symmetry_tables(self.symmetry, rows, cols, self.num_actions)

    def augment(self, obs, policy):
        """All symmetric copies: `[B, H, W, C], [B, A] -> [B, S, H, W, C], [B, S, A]`."""
        return augment(obs, policy, *self.symmetry_tables())

    # ----------------------------------------------------------------------------------
    # ASCII form.

    def action_label(self, action: int) -> str:
        """A human name for an action, matching the coordinates of `render`."""
        rows, cols = self.board_shape
        if action == rows * cols:
            return "pass"
        r, c = divmod(int(action), cols)
        return f"{column_letter(c)}{r + 1}"

    def parse_action(self, text: str) -> int:
        """Inverse of `action_label`; raises ValueError naming the problem."""
        rows, cols = self.board_shape
        text = text.strip().lower()
        if text == "pass" and self.num_actions == rows * cols + 1:
            return rows * cols
        if len(text) < 2 or not text[0].isalpha() or not text[1:].isdigit():
            raise ValueError(f"cannot read move {text!r}: expected e.g. 'c4' or 'pass'")
        c, r = ord(text[0]) - ord("a"), int(text[1:]) - 1
        if not (0 <= r < rows and 0 <= c < cols):
            raise ValueError(f"move {text!r} is off the {rows}x{cols} board")
        return r * cols + c

    def illegal_reason(self, state, action: int) -> str:
        """Why `action` is not legal in one (unbatched) state, in words (for the play
        command's refusals): a taken cell, or a pass while a placement is legal."""
        rows, cols = self.board_shape
        if action == rows * cols:
            return "you cannot pass: you have a legal move"
        label = self.action_label(action)
        if self.board_array(state)[divmod(int(action), cols)] != EMPTY:
            return f"{label} is taken"
        return f"{label} is not a legal move"

    def winner(self, state) -> int | None:
        """FIRST or SECOND, the colour that won one finished (unbatched) state; None for a
        draw or a game still on."""
        rewards = np.asarray(state.rewards)
        if not bool(np.asarray(state.terminated)) or rewards[0] == rewards[1]:
            return None
        # current_player still names the id whose turn it would be after the last move.
        mover = self.colour_to_move(state)
        won_by_mover = int(np.argmax(rewards)) == int(state.current_player)
        return mover if won_by_mover else FIRST + SECOND - mover

    def render(self, state, previous=None) -> str:
        """ASCII picture of one (unbatched) state, with coordinates and the side to move (or
        the result). With `previous`, the state before the last move, the stone that move
        placed is in lower case."""
        board = self.board_array(state)
        rows, cols = board.shape
        placed = np.zeros(board.shape, bool)
        if previous is not None:
            placed = (self.board_array(previous) == EMPTY) & (board != EMPTY)
        header = "   " + " ".join(column_letter(c) for c in range(cols))
        lines = [header]
        for r in range(rows):
            cells = " ".join(_CHARS[int(v)].lower() if placed[r, c] else _CHARS[int(v)]
                             for c, v in enumerate(board[r]))
            lines.append(f"{r + 1:>2} {cells}")
        if bool(np.asarray(state.terminated)):
            winner = self.winner(state)
            lines.append("game over: draw" if winner is None
                         else f"game over: {_CHARS[winner]} wins")
        else:
            lines.append(f"{_CHARS[self.colour_to_move(state)]} to move")
        return "\n".join(lines)

    def from_ascii(self, text: str, to_move: str = "X", current_player: int = 0):
        """State from an ASCII board: one row per line, cells `.`, `X`, `O`.

        Coordinate labels (as printed by `render`) and spaces are ignored, as are lines
        without cells. `to_move` is "X" (the first mover) or "O".
        """
        board = board_from_ascii(text, self.board_shape)
        if to_move not in ("X", "O"):
            raise ValueError(f"to_move must be 'X' or 'O', got {to_move!r}")
        return self.from_board(board, FIRST if to_move == "X" else SECOND, current_player)


def board_from_ascii(text: str, shape: tuple[int, int]) -> np.ndarray:
    """Parses rows of `.XO` cells into `[rows, cols]` int8 EMPTY/FIRST/SECOND."""
    rows, cols = shape
    grid = []
    for line in text.strip("\n").splitlines():
        body = line.strip()
        if "move" in body or "game over" in body:
            continue
        # Drop a leading row number, then keep only cell characters.
        body = body.lstrip("0123456789").strip()
        cells = [_CODES[ch] for ch in body if ch in _CODES]
        if not cells:
            continue
        grid.append(cells)
    if len(grid) != rows or any(len(row) != cols for row in grid):
        got = f"{len(grid)} rows of lengths {[len(r) for r in grid]}"
        raise ValueError(f"ASCII board must be {rows}x{cols}, got {got}")
    return np.asarray(grid, dtype=np.int8)


def column_letter(c: int) -> str:
    return chr(ord("a") + c)
