"""pgx's two-player games through the adapter (`warmjax.games.pgx_games`): move for move the
same as pgx itself, Hex on any board size, the refusals, and a smoke run."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pgx
import pytest

from warmjax.games import make, registry
from warmjax.games.pgx_games import KINDS, PgxGame, make_pgx
from warmjax.train import run_folder
from warmjax.train.loop import train

from .helpers import compose_config


def _raw(name: str, params: dict):
    """Raw pgx, built as a user would (pgx.make, or the Hex/Go classes with a size)."""
    if name == "hex":
        from pgx.hex import Hex

        return Hex(size=params.get("size", 11))
    if name == "go":
        from pgx.go import Go

        return Go(size=params.get("size", 9))
    return pgx.make(KINDS[name].pgx_id)


def _random_games(env, state, key, plies: int):
    """Plays `plies` uniformly random legal moves in a batch of games (finished games keep
    stepping with a legal dummy action, as pgx allows), recording every state."""
    step = jax.jit(jax.vmap(env.step))
    states = [state]
    for t in range(plies):
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(jax.random.fold_in(key, t), logits)
        state = step(state, action)
        states.append(state)
    return states


FAST = [("tic_tac_toe", {}, 10), ("pgx_connect_four", {}, 43), ("pgx_othello", {}, 70),
        ("hex", {}, 40), ("go", {"size": 5}, 60), ("go", {"size": 7}, 40),
        ("go", {"size": 9}, 30)]
SLOW = [("animal_shogi", {}, 12), ("gardner_chess", {}, 8), ("chess", {}, 6),
        ("shogi", {}, 6)]


@pytest.mark.parametrize("name,params,plies", FAST + [
    pytest.param(*case, marks=pytest.mark.heavy) for case in SLOW])
def test_adapter_moves_exactly_as_pgx(name, params, plies):
    adapter, raw = make(name, **params), _raw(name, params)
    keys = jax.random.split(jax.random.key(7), 4)
    mine = _random_games(adapter, jax.vmap(adapter.init)(keys), jax.random.key(1), plies)
    theirs = _random_games(raw, jax.vmap(raw.init)(keys), jax.random.key(1), plies)
    for a, b in zip(mine, theirs):
        for field in ("current_player", "legal_action_mask", "rewards", "terminated",
                      "observation"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
    assert mine[-1].observation.dtype == theirs[-1].observation.dtype


def _connects(stones: np.ndarray, size: int, top_bottom: bool) -> bool:
    """Whether `stones` (`[size*size]` bool) join the top and bottom rows (or the left and
    right columns), by a flood fill over the six hex neighbours of cell (r, c): (r, c±1),
    (r−1, c), (r−1, c+1), (r+1, c−1), (r+1, c)."""
    grid = stones.reshape(size, size)
    start = [(0, c) for c in range(size) if grid[0, c]] if top_bottom else \
        [(r, 0) for r in range(size) if grid[r, 0]]
    seen, todo = set(start), list(start)
    while todo:
        r, c = todo.pop()
        if (r if top_bottom else c) == size - 1:
            return True
        for dr, dc in ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, -1), (1, 0)):
            x, y = r + dr, c + dc
            if 0 <= x < size and 0 <= y < size and grid[x, y] and (x, y) not in seen:
                seen.add((x, y))
                todo.append((x, y))
    return False


@pytest.mark.parametrize("size", [5, 7, 9])
def test_hex_on_small_boards_plays_to_a_connected_winner(size):
    # pgx 2.6's own Hex(size=n).init fails for n != 11; the adapter's init gives a state
    # that pgx's step plays, and every game ends with exactly one winner whose stones join
    # its two edges (an independent check by flood fill).
    env = make("hex", size=size)
    assert env.board_shape == (size, size) and env.num_actions == size * size + 1
    raw = _raw("hex", {"size": size})
    keys = jax.random.split(jax.random.key(3), 16)
    plies = size * size + 1
    mine = _random_games(env, jax.vmap(env.init)(keys), jax.random.key(5), plies)
    theirs = _random_games(raw, jax.vmap(env.init)(keys), jax.random.key(5), plies)
    np.testing.assert_array_equal(mine[-1].rewards, theirs[-1].rewards)
    last = mine[-1]
    assert bool(last.terminated.all())
    total = sum(np.asarray(state.rewards) for state in mine)  # paid on the final move
    for g in range(16):
        rewards = total[g]
        assert sorted(rewards.tolist()) == [-1.0, 1.0]
        # pgx keeps the board from the side of the player to move: the winner, who moved
        # last, owns the negative cells. The first colour joins top and bottom, the second
        # left and right; the winner is the colour that moved last.
        board = np.asarray(last._x.board[g])
        winner_colour = (int(last._x.step_count[g]) - 1) % 2
        assert _connects(board < 0, size, top_bottom=winner_colour == 0)
        assert not _connects(board > 0, size, top_bottom=winner_colour == 1)
        assert rewards[int(last._player_order[g][winner_colour])] == 1.0  # paid to its id


def test_refused_games_and_settings_say_why_in_one_line():
    for game, why in (("backgammon", "chance"), ("2048", "one player"),
                      ("minatar-breakout", "one player"), ("kuhn_poker", "hidden information"),
                      ("sparrow_mahjong", "three players")):
        with pytest.raises(ValueError, match=why):
            make_pgx(game)
    with pytest.raises(ValueError, match="unknown pgx game 'checkers'"):
        make_pgx("checkers")
    with pytest.raises(ValueError, match="size: Hex needs a board of at least 2"):
        make("hex", size=1)
    with pytest.raises(ValueError, match="size: pgx plays Go on boards of 2×2 to 19×19"):
        make("go", size=21)
    with pytest.raises(ValueError, match="tic_tac_toe takes no setting size"):
        make("tic_tac_toe", size=4)
    assert make_pgx("go_9x9").board_shape == (9, 9)


def test_every_supported_game_is_registered_with_its_step_cap():
    caps = {"tic_tac_toe": 9, "pgx_connect_four": 42, "hex": 122, "go": 162, "chess": 512,
            "gardner_chess": 256, "animal_shogi": 256, "shogi": 512}
    for name, cap in caps.items():
        assert registry.get(name).make().max_plies == cap, name
    assert isinstance(make("go", size=7), PgxGame) and make("go", size=7).max_plies == 98


@pytest.mark.parametrize("kind,planes", [("rot180", 2), ("dihedral", 8)])
def test_symmetries_map_positions_onto_positions(kind, planes):
    # Each declared symmetry maps the observation and legal mask of a reachable position
    # to those of the transformed position: playing the transformed moves from the start
    # gives the transformed observation (Hex under the half turn, tic-tac-toe under the
    # dihedral group; the identity alone is tests/test_registry.py's).
    name, params = {"rot180": ("hex", {"size": 5}), "dihedral": ("tic_tac_toe", {})}[kind]
    env = make(name, **params)
    cells, actions = env.symmetry_tables()
    assert cells.shape[0] == planes
    rows, cols = env.board_shape
    key = jax.random.key(0)
    state, moved = env.init(key), []
    for t in range(4):
        legal = np.flatnonzero(np.asarray(state.legal_action_mask))
        action = int(legal[(7 * t + 3) % len(legal)])
        moved.append(action)
        state = env.step(state, action)
    obs = np.asarray(state.observation)
    for s in range(planes):
        other = env.init(key)
        for action in moved:
            other = env.step(other, int(actions[s, action]))
        flat = obs.reshape(rows * cols, -1)
        image = np.empty_like(flat)
        image[cells[s]] = flat
        np.testing.assert_array_equal(image.reshape(obs.shape), np.asarray(other.observation))
        mask = np.asarray(state.legal_action_mask)
        moved_mask = np.empty_like(mask)
        moved_mask[actions[s]] = mask
        np.testing.assert_array_equal(moved_mask, np.asarray(other.legal_action_mask))


def test_tic_tac_toe_trains_a_smoke_run_on_a_3x3_board(tmp_path):
    config = compose_config(["+experiment=adaptive", "game=registered",
                             "game.name=tic_tac_toe", "profile=smoke", "oracle.every=0"],
                            tmp_path / "run")
    train(config, log=lambda _: None)
    run = run_folder.read_run(tmp_path / "run")
    assert run.iterations == 2 and run.variant.game == "tic_tac_toe"
    assert 5 <= run.metrics[0].selfplay_mean_plies <= 9


# --- tic-tac-toe against perfect play -------------------------------------------------------

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
         (2, 4, 6)]


def _won(board, player):
    return any(all(board[c] == player for c in line) for line in LINES)


_CACHE: dict = {}


def _solve(board, me):
    """Plain minimax of tic-tac-toe: the value (+1/0/−1) for `me` to move on `board`
    (cells 0 empty, 1 and 2 the players), no pruning; memoised."""
    key = (board, me)
    if key not in _CACHE:
        other = 3 - me
        moves = [c for c in range(9) if board[c] == 0]
        if not moves:
            _CACHE[key] = 0
        else:
            best = -1
            for c in moves:
                after = board[:c] + (me,) + board[c + 1:]
                best = max(best, 1 if _won(after, me) else -_solve(after, other))
            _CACHE[key] = best
    return _CACHE[key]


def test_tic_tac_toe_labels_are_plain_minimax_on_every_reachable_position():
    from warmjax.perfect import positions

    labelled = positions.load(positions.path_for(make("tic_tac_toe")))
    reachable = set()

    def walk(board, me):  # every reachable non-terminal position
        if _won(board, 3 - me) or 0 not in board or (board, me) in reachable:
            return
        reachable.add((board, me))
        for c in range(9):
            if board[c] == 0:
                walk(board[:c] + (me,) + board[c + 1:], 3 - me)

    walk((0,) * 9, 1)
    informative = set()
    for board, me in reachable:
        values = [(1 if _won(board[:c] + (me,) + board[c + 1:], me) else
                   -_solve(board[:c] + (me,) + board[c + 1:], 3 - me))
                  for c in range(9) if board[c] == 0]
        if len(set(values)) > 1:
            informative.add((board, me))
    assert len(reachable) == 4520  # the known count of non-terminal tic-tac-toe positions
    seen = set()
    for moves, plies, values in zip(labelled.moves, labelled.plies, labelled.values):
        board, me = [0] * 9, 1
        for c in moves[:plies]:
            board[c], me = me, 3 - me
        board = tuple(board)
        seen.add((board, me))
        for c in range(9):
            if board[c] != 0:
                assert values[c] == positions.ILLEGAL
                continue
            after = board[:c] + (me,) + board[c + 1:]
            assert values[c] == (1 if _won(after, me) else -_solve(after, 3 - me))
    assert seen == informative  # every position where the choice matters, each once
    assert len(labelled) == len(informative) == 3191


def test_tic_tac_toe_oracle_command_on_a_trained_run(tmp_path, capsys):
    from warmjax import oracle as oracle_cmd

    config = compose_config(["+experiment=baseline", "game=tic_tac_toe", "profile=smoke",
                             "oracle.every=1", "oracle.positions=200"], tmp_path / "run")
    train(config, log=lambda _: None)
    rows = run_folder.read_run(tmp_path / "run").metrics
    assert all(r.oracle_policy is not None and 0 <= r.oracle_policy <= 1 for r in rows)
    out = tmp_path / "o.json"
    oracle_cmd.main([str(tmp_path / "run"), "--positions", "300", "--simulations", "8",
                     "--playouts", "100", "--out", str(out)])
    import json

    players = json.loads(out.read_text())["players"]
    # Network-free MCTS with 100 playouts plays tic-tac-toe far better than random moves.
    assert players["pure_mcts"]["optimal"] > players["random"]["optimal"] + 0.1
    assert "| player | optimal |" in capsys.readouterr().out
