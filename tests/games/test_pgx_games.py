"""pgx's two-player games through the adapter (`warmjax.games.pgx_games`): move for move the
same as pgx itself, Hex on any board size, the refusals, and a smoke run."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pgx
import pytest

from warmjax.games import FIRST, SECOND, make, registry
from warmjax.games.pgx_games import KINDS, PgxGame, make_pgx
from warmjax.search import game_loop
from warmjax.search.players import Move
from warmjax.train import run_folder
from warmjax.train.loop import train

from ..helpers import compose_config


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


@pytest.mark.slow
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


# pgx's chess-like games take most of a minute to build: they run with -m heavy.
CHESS_LIKE = pytest.mark.heavy


@pytest.mark.parametrize("name,cap", [
    ("tic_tac_toe", 9), ("pgx_connect_four", 42), ("hex", 122), ("go", 162),
    pytest.param("chess", 512, marks=CHESS_LIKE),
    pytest.param("gardner_chess", 256, marks=CHESS_LIKE),
    pytest.param("animal_shogi", 256, marks=CHESS_LIKE),
    pytest.param("shogi", 512, marks=CHESS_LIKE)])
def test_every_supported_game_is_registered_with_its_step_cap(name, cap):
    assert registry.get(name).make().max_plies == cap, name
    if name == "go":
        assert isinstance(make("go", size=7), PgxGame) and make("go", size=7).max_plies == 98


@pytest.mark.slow
@pytest.mark.parametrize("kind,planes", [("rot180", 2), ("dihedral", 8)])
def test_symmetries_map_positions_onto_positions(kind, planes):
    # Each declared symmetry maps the observation and legal mask of a reachable position
    # to those of the transformed position: playing the transformed moves from the start
    # gives the transformed observation (Hex under the half turn, tic-tac-toe under the
    # dihedral group; the identity alone is tests/games/test_registry.py's).
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


@pytest.fixture(scope="module")
def ttt_run(tmp_path_factory):
    """One adaptive smoke run of tic-tac-toe with the perfect-play probe every iteration,
    shared by the tests below (a 3×3 board: every convolution padded)."""
    run = tmp_path_factory.mktemp("ttt") / "run"
    config = compose_config(["+experiment=adaptive", "game=registered",
                             "game.name=tic_tac_toe", "profile=smoke", "probe.every=1",
                             "probe.positions=200"], run)
    train(config, log=lambda _: None)
    return run


@pytest.mark.slow
def test_tic_tac_toe_trains_a_smoke_run_on_a_3x3_board(ttt_run):
    run = run_folder.read_run(ttt_run)
    assert run.iterations == 2 and run.id.game == "tic_tac_toe"
    assert 5 <= run.metrics[0].selfplay_mean_plies <= 9
    assert run.metrics[0].selfplay_truncated == 0  # a full board is the rules' end
    assert all(r.oracle_policy is not None and 0 <= r.oracle_policy <= 1
               for r in run.metrics)


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


@pytest.mark.slow
def test_tic_tac_toe_oracle_command_on_a_trained_run(ttt_run, tmp_path, capsys):
    from warmjax import oracle as oracle_cmd

    out = tmp_path / "o.json"
    oracle_cmd.main([str(ttt_run), "--positions", "300", "--simulations", "8",
                     "--playouts", "100", "--out", str(out)])
    import json

    players = json.loads(out.read_text())["players"]
    # Network-free MCTS with 100 playouts plays tic-tac-toe far better than random moves.
    assert players["pure_mcts"]["optimal"] > players["random"]["optimal"] + 0.1
    assert "| player | optimal |" in capsys.readouterr().out


@pytest.mark.slow
def test_play_versus_and_tournament_run_on_an_adapted_game(ttt_run, tmp_path):
    """The three commands on a pgx game: a human game through `play` (moves listed, a
    taken cell refused, the game played to its end), `versus` and a small round robin."""
    import io
    import json

    from warmjax import play, tournament, versus

    out = io.StringIO()
    moves = "moves\na1\na1\n" + "".join(f"{c}\n" for c in
                                         ("b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"))
    play.main([str(ttt_run), "--simulations", "4"], stdin=io.StringIO(moves), out=out)
    text = out.getvalue()
    assert "legal moves: a1, b1, c1, a2, b2, c2, a3, b3, c3" in text
    assert "refused: a1 is taken" in text
    assert "game over" in text

    versus.main([str(ttt_run), "--opponents", "random", "--games", "4", "--simulations", "4",
                 "--out", str(tmp_path / "v.json")])
    row = json.loads((tmp_path / "v.json").read_text())["opponents"]["random"]
    assert row["wins"] + row["draws"] + row["losses"] == 4

    tournament.main([str(ttt_run), "--anchors", "random", "--games", "4", "--simulations", "4",
                     "--playouts", "4", "--out", str(tmp_path / "t")])
    games = json.loads((tmp_path / "t" / "games.json").read_text())
    assert len(games) == 4 and all(5 <= len(g["moves"]) <= 9 for g in games)
    assert set(json.loads((tmp_path / "t" / "elo.json").read_text())["names"]) == {
        *[g["a"] for g in games], *[g["b"] for g in games]}


class _RandomTurn:
    """A match turn (`search.game_loop`) that plays uniformly random legal moves."""

    def start(self, states):
        return ()

    def move(self, key, states, ply, memories):
        key, sub = jax.random.split(key)
        logits = jnp.where(states.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(sub, logits).astype(jnp.int32)
        policy = jax.nn.softmax(logits)
        move = Move(action, policy, jnp.zeros(action.shape), ())
        return key, move, jnp.ones(action.shape, bool)

    def follow(self, memories, action):
        return memories


@pytest.mark.slow
def test_games_ended_by_the_step_cap_are_counted_as_truncated():
    """Go 5×5 capped at 12 plies: a game is truncated exactly when raw pgx, replaying its
    moves, reaches ply 12 without two passes in a row or a superko loss ending it; and
    tic-tac-toe, whose 9-ply bound is the full board, never truncates."""
    env = make("go", size=5, max_terminal_steps=12)
    states = jax.vmap(env.init)(jax.random.split(jax.random.key(3), 64))
    played = game_loop.play_games(env, states, jax.random.key(4), _RandomTurn(), keep_actions=True)
    got = np.asarray(game_loop.truncated(env, played.states))
    actions = np.asarray(played.record.actions)
    live = np.asarray(played.record.live)
    from pgx.go import Go

    raw = Go(size=5, max_terminal_steps=12)
    step = jax.jit(raw.step)
    for g in range(64):
        state = raw.init(jax.random.key(0))
        moves = actions[live[:, g], g]
        passes = 0
        for a in moves:
            state = step(state, int(a))
            passes = passes + 1 if a == 25 else 0
        assert bool(state.terminated)
        by_rules = passes >= 2 or bool(state._x.is_psk)
        assert got[g] == (len(moves) == 12 and not by_rules), g
    assert 0 < got.sum() < 64  # both kinds of ending occur in this sample

    env = make("tic_tac_toe")
    states = jax.vmap(env.init)(jax.random.split(jax.random.key(5), 64))
    played = game_loop.play_games(env, states, jax.random.key(6), _RandomTurn())
    assert (np.asarray(played.states._step_count) == 9).any()
    assert not np.asarray(game_loop.truncated(env, played.states)).any()


@pytest.mark.slow
@pytest.mark.parametrize("name,params", [  # the shogis' (5-9 s) are heavy, as in conformance
    pytest.param(n, {"size": 5} if n in ("hex", "go") else {},
                 marks=pytest.mark.heavy if "shogi" in n else ()) for n in KINDS])
def test_every_action_has_a_label_that_reads_back(name, params):
    env = make(name, **params)
    labels = [env.action_label(a) for a in range(env.num_actions)]
    assert len(set(labels)) == env.num_actions
    assert [env.parse_action(label) for label in labels] == list(range(env.num_actions))
    with pytest.raises(ValueError, match="cannot read move"):
        env.parse_action("zz99")


def test_generic_refusals_name_the_reason():
    hex5 = make("hex", size=5)
    state = hex5.init(jax.random.key(0))
    assert hex5.action_label(25) == "swap"
    assert hex5.illegal_reason(state, 25) == ("swap is legal only as the second player's "
                                             "first move")
    with pytest.raises(ValueError, match="hex has no pass"):
        hex5.parse_action("pass")
    c4 = make("pgx_connect_four")
    state = c4.init(jax.random.key(0))
    for _ in range(6):
        state = c4.step(state, 2)
    assert not bool(state.legal_action_mask[2]) and c4.illegal_reason(state, 2) == (
        "column c is full")
    chess = make("chess")
    assert chess.parse_action("#89") == 89 and chess.parse_action("89") == 89
    with pytest.raises(ValueError, match="#0 to #4671"):
        chess.parse_action("#4672")


@pytest.mark.slow
@pytest.mark.parametrize("name,params", [("tic_tac_toe", {}), ("hex", {"size": 5}),
                                         ("go", {"size": 5}), ("animal_shogi", {})])
def test_winner_and_render_agree_with_the_rewards(name, params):
    """On finished random games, `winner` names the colour (first mover X, by who moved
    first from `init`) of the player id pgx rewarded +1, and `render` says so."""
    env = make(name, **params)
    first_ids, finals = [], []
    step = jax.jit(env.step)
    for g in range(6):
        state = env.init(jax.random.key(g))
        first_ids.append(int(state.current_player))
        key = jax.random.key(100 + g)
        while not bool(state.terminated):
            key, sub = jax.random.split(key)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            state = step(state, jax.random.categorical(sub, logits))
        finals.append(state)
    for first_id, state in zip(first_ids, finals):
        rewards = np.asarray(state.rewards)
        if rewards[0] == rewards[1]:
            expected, line = None, "game over: draw"
        else:
            won = int(np.argmax(rewards))
            expected = FIRST if won == first_id else SECOND
            line = f"game over: {'X' if expected == FIRST else 'O'} wins"
        assert env.winner(state) == expected
        assert env.render(state).splitlines()[-1] == line
