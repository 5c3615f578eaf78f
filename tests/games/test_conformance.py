"""The conformance check (`warmjax.games.check_game`) on every registered game, and on
games that break its rules (it must name each), plus what only warmjax's own games
(`GAMES` below) promise: states whose types let `step` compile once.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.games import EMPTY, GameCheckError, check_game, make, registry
from warmjax.games.connect_four import ConnectFour
from warmjax.games.gobang import Gobang

from ..game_helpers import item, random_play
from ..helpers import ROOT

# warmjax's own games (pgx's, through the adapter, are pgx's states: tests/games/test_pgx_games.py).
GAMES = ("othello", "connect_four", "gobang")

NUM_GAMES = 48


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    """The game's env, jitted batched functions and a batch of random games (NumPy)."""
    env = make(request.param)
    rows, cols = env.board_shape
    num_plies = 2 * rows * cols + 4  # room for passes; every game must end before this
    states, _ = random_play(env, NUM_GAMES, num_plies)(jax.random.key(0))
    return SimpleNamespace(
        name=request.param,
        env=env,
        step=jax.jit(jax.vmap(env.step)),
        states=jax.tree.map(np.asarray, states),
    )


def test_make_rejects_unknown_game():
    with pytest.raises(ValueError, match="unknown game"):
        make("checkers")  # chess is pgx's, registered through the adapter


# --------------------------------------------------------------------------------------
# check_game on every registered game (pgx's chess-like games take minutes, animal shogi
# 14 s: -m heavy).

CHESS_LIKE = ("gardner_chess", "chess", "shogi", "animal_shogi")
FAST_GAMES = ("connect_four", "gobang")


def _registered():
    for name in registry.names():
        marks = (pytest.mark.heavy if name in CHESS_LIKE
                 else () if name in FAST_GAMES else pytest.mark.slow)
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", _registered())
def test_check_game_passes_on_every_registered_game(name):
    env = make(name)
    assert check_game(env, games=8, log=None) > 0


def test_check_game_says_what_passed(capsys):
    """A passing check prints one line naming what it checked (tic-tac-toe: the 8
    symmetries of the square); `log=None` prints nothing."""
    env = make("tic_tac_toe")
    positions = check_game(env, games=4)
    line = capsys.readouterr().out.strip()
    assert line == (f"check_game: tic_tac_toe passed: the API and dtypes, the first state, 4 "
                    f"random games to the end ({positions} positions) under jit and vmap, "
                    "illegal moves, 8 symmetries, scripted positions and move labels")
    check_game(env, games=4, log=None)
    assert capsys.readouterr().out == ""


@pytest.mark.slow
@pytest.mark.parametrize("name,params,kind", [("hex", {"size": 5}, "rot180"),
                                              ("tic_tac_toe", {}, "dihedral"),
                                              ("connect_four", {}, "mirror")])
def test_every_symmetry_kind_is_checked(name, params, kind):
    # `none` is the toy game's (tests/games/test_registry.py); pgx's games without
    # scripted positions are checked by replaying the transformed moves.
    env = make(name, **params)
    assert env.symmetry == kind
    check_game(env, games=8)


class EdgeMarked(Gobang):
    """Gobang whose observation adds a plane marking the left edge: the dihedral group no
    longer maps positions onto positions."""

    @property
    def observation_shape(self):
        return (*self.board_shape, 3)

    def _observe(self, state, player_id):
        planes = super()._observe(state, player_id)
        edge = jnp.zeros(planes.shape[:2], jnp.bool_).at[:, 0].set(True)
        return jnp.concatenate([planes, edge[..., None]], axis=-1)


class MirroredGobang(Gobang):
    symmetry = "mirror"  # a board game whose actions are cells, not columns


class ForgetfulBoard(ConnectFour):
    """Connect Four whose scripted positions keep the free columns as legal even when the
    game is over, against pgx's convention (an all-true mask at the end)."""

    def from_board(self, board, to_move, current_player=0):
        state = super().from_board(board, to_move, current_player)
        return state.replace(legal_action_mask=jnp.asarray(np.asarray(board)[0] == EMPTY))


class GenerousConnectFour(ConnectFour):
    """Connect Four that rewards the loser too: not zero-sum."""

    def _step(self, state, action, key):
        after = super()._step(state, action, key)
        return after.replace(rewards=jnp.abs(after.rewards))


@pytest.mark.parametrize("game,message", [
    (EdgeMarked, "symmetry 1 of 'dihedral' does not map the observation"),
    (MirroredGobang, "symmetry 'mirror': mirror symmetry expects one action per column"),
    (ForgetfulBoard, "pgx's conventions at the end of a game"),
    (GenerousConnectFour, "rewards are not zero-sum"),
])
def test_check_game_names_the_rule_a_game_breaks(game, message):
    with pytest.raises(GameCheckError, match=re.escape(message)):
        check_game(game(), games=8)


def test_states_keep_their_types_so_step_compiles_once(game):
    """init, step and from_board states have the same avals (weak types included)."""
    env = game.env
    state = env.init(jax.random.key(1))
    after = item(game.states, 1, 0)
    scripted = env.from_board(env.board_array(after), env.colour_to_move(after))
    avals = [jax.tree.map(jax.typeof, jax.tree.map(jnp.asarray, s)) for s in (state, scripted)]
    assert avals[0] == avals[1]

    chex.clear_trace_counter()  # the counter is global and this test is parametrized

    @jax.jit
    @chex.assert_max_traces(n=1)
    def step(state, action):
        return env.step(state, action)

    action = jnp.argmax(state.legal_action_mask).astype(jnp.int32)
    for s in (state, step(state, action), scripted):
        step(s, jnp.argmax(s.legal_action_mask).astype(jnp.int32))


def test_no_private_pgx_imports():
    # pgx's `_src` is private: warmjax builds on its public API only.
    import re

    package = ROOT / "warmjax"
    offenders = [str(path.relative_to(package)) for path in package.rglob("*.py")
                 if re.search(r"^\s*(from|import)\s+pgx\._src", path.read_text(), re.M)]
    assert offenders == []
