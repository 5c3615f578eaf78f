"""Plain minimax references for the exact solvers' tests, written from the rules
(method.md §1) with no pruning, and random play through a solver."""

from __future__ import annotations

import functools

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def othello_reference(n):
    """`value(board, me)` of n×n Othello by exhaustive minimax; `board` a tuple of rows of
    0 (empty), 1, 2."""

    def moves(board, me):
        out = []
        for r in range(n):
            for c in range(n):
                if board[r][c]:
                    continue
                for dr, dc in DIRECTIONS:
                    rr, cc, seen = r + dr, c + dc, 0
                    while 0 <= rr < n and 0 <= cc < n and board[rr][cc] == 3 - me:
                        rr, cc, seen = rr + dr, cc + dc, seen + 1
                    if seen and 0 <= rr < n and 0 <= cc < n and board[rr][cc] == me:
                        out.append((r, c))
                        break
        return out

    def play(board, me, r, c):
        b = [list(row) for row in board]
        b[r][c] = me
        for dr, dc in DIRECTIONS:
            rr, cc, run = r + dr, c + dc, []
            while 0 <= rr < n and 0 <= cc < n and b[rr][cc] == 3 - me:
                run.append((rr, cc))
                rr, cc = rr + dr, cc + dc
            if run and 0 <= rr < n and 0 <= cc < n and b[rr][cc] == me:
                for x, y in run:
                    b[x][y] = me
        return tuple(tuple(row) for row in b)

    @functools.lru_cache(maxsize=None)
    def value(board, me):
        options = moves(board, me)
        if not options:
            if not moves(board, 3 - me):  # neither can move: count the discs
                diff = sum(v == me for row in board for v in row) - \
                    sum(v == 3 - me for row in board for v in row)
                return (diff > 0) - (diff < 0)
            return -value(board, 3 - me)  # a pass
        return max(-value(play(board, me, r, c), 3 - me) for r, c in options)

    return moves, play, value


def random_play(solver, rng, position, done):
    """Uniformly random legal actions from `position` until `done(own, other, plies)` or the
    game ends; returns `(own, other)`."""
    (own, other), plies = position, 0
    while not done(own, other, plies):
        legal = solver.legal_moves(own, other)
        if not legal:
            break
        own, other = solver.play(own, other, rng.choice(legal))
        plies += 1
    return own, other


def to_board(n, own, other):
    return tuple(tuple(1 if own >> (r * n + c) & 1 else 2 if other >> (r * n + c) & 1 else 0
                       for c in range(n)) for r in range(n))


def gobang_reference(n, k):
    """`value(board)` of n×n k-in-a-row by exhaustive minimax; the mover's stones are 1."""
    lines = []
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= x < n and 0 <= y < n for x, y in cells):
                    lines.append([x * n + y for x, y in cells])

    @functools.lru_cache(maxsize=None)
    def value(board):
        empty = [i for i, v in enumerate(board) if v == 0]
        best = 0 if not empty else -1
        for i in empty:
            b = list(board)
            b[i] = 1
            if any(all(b[j] == 1 for j in line) for line in lines):
                return 1
            best = max(best, -value(tuple({0: 0, 1: 2, 2: 1}[v] for v in b)))
        return best

    return value


def hex_reference(n):
    """`joined(board, player)` and `value(board, me)` of n×n Hex by exhaustive minimax,
    from the rules: `board` a tuple of n·n cells (r·n + c) holding 0 (empty), 1 (the first
    mover, who joins row 0 to row n−1) or 2 (the second mover: column 0 to column n−1); cell
    (r, c) touches (r, c±1), (r±1, c), (r+1, c−1) and (r−1, c+1)."""

    def touching(r, c):
        for dr, dc in ((0, -1), (0, 1), (-1, 0), (1, 0), (1, -1), (-1, 1)):
            if 0 <= r + dr < n and 0 <= c + dc < n:
                yield r + dr, c + dc

    def joined(board, player):
        if player == 1:
            todo = [(0, c) for c in range(n) if board[c] == 1]
        else:
            todo = [(r, 0) for r in range(n) if board[r * n] == 2]
        seen = set(todo)
        while todo:
            r, c = todo.pop()
            if (r if player == 1 else c) == n - 1:
                return True
            for cell in touching(r, c):
                if cell not in seen and board[cell[0] * n + cell[1]] == player:
                    seen.add(cell)
                    todo.append(cell)
        return False

    @functools.lru_cache(maxsize=None)
    def value(board, me):
        best = -1
        for i, v in enumerate(board):
            if v == 0:
                after = board[:i] + (me,) + board[i + 1:]
                best = max(best, 1 if joined(after, me) else -value(after, 3 - me))
                if best == 1:
                    break
        return best

    return joined, value
