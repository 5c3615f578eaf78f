"""The game registry: a game is one module plus one config, and nothing else in the package
needs to know it. Here a toy game defined in this test alone trains a smoke run."""

from __future__ import annotations

import dataclasses
import itertools
from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax.struct import dataclass
from pgx import core

from warmjax import orientation
from warmjax.games import EMPTY, FIRST, GameEnv, make, registry
from warmjax.train import run_folder
from warmjax.train.loop import train
from warmjax.train.run_config import ConfigError
from warmjax.train.run_id import RunId, game_name

from ..helpers import compose_config


@dataclass
class ToyState(core.State):
    current_player: jax.Array
    observation: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    legal_action_mask: jax.Array
    _step_count: jax.Array
    _board: jax.Array  # [size*size] int8 of EMPTY/FIRST/SECOND
    _colour: jax.Array  # [] int8, the colour to move

    @property
    def env_id(self) -> str:
        return "toy_three"


def _windows(size: int, length: int) -> np.ndarray:
    """Every line of `length` cells on a `size`×`size` board, as cell indices."""
    out = []
    for r, c in itertools.product(range(size), repeat=2):
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            cells = [(r + k * dr, c + k * dc) for k in range(length)]
            if all(0 <= x < size and 0 <= y < size for x, y in cells):
                out.append([x * size + y for x, y in cells])
    return np.asarray(out, np.int32)


class ToyThree(GameEnv):
    """Three in a row on a small square board: a game the package has never heard of."""

    name: ClassVar[str] = "toy_three"
    symmetry: ClassVar[str] = "dihedral"

    def __init__(self, size: int = 5):
        super().__init__()
        self._size = int(size)
        self._lines = jnp.asarray(_windows(self._size, 3))

    def _init(self, key):
        n = self._size
        return ToyState(current_player=jnp.int32(jax.random.bernoulli(key)),
                        observation=jnp.zeros((n, n, 2), jnp.bool_),
                        rewards=jnp.zeros(2, jnp.float32), terminated=jnp.bool_(False),
                        truncated=jnp.bool_(False),
                        legal_action_mask=jnp.ones(n * n, jnp.bool_),
                        _step_count=jnp.int32(0), _board=jnp.zeros(n * n, jnp.int8),
                        _colour=jnp.int8(FIRST))

    def _step(self, state, action, key):
        del key
        board = state._board.at[action].set(state._colour)
        won = jnp.any(jnp.all(board[self._lines] == state._colour, axis=1))
        legal = board == EMPTY
        winner = state.current_player
        rewards = jnp.where(won, jnp.where(jnp.arange(2) == winner, 1.0, -1.0), 0.0)
        return state.replace(current_player=1 - state.current_player,
                             rewards=rewards.astype(jnp.float32),
                             terminated=won | ~legal.any(), legal_action_mask=legal,
                             _board=board, _colour=(3 - state._colour).astype(jnp.int8))

    def _observe(self, state, player_id):
        colour = jnp.where(player_id == state.current_player, state._colour, 3 - state._colour)
        board = state._board.reshape(self._size, self._size)
        return jnp.stack([board == colour, board == 3 - colour], axis=-1)

    @property
    def id(self):
        return self.name

    @property
    def version(self):
        return "v0"

    @property
    def num_actions(self):
        return self._size * self._size

    @property
    def observation_shape(self):
        return (self._size, self._size, 2)

    @property
    def board_shape(self):
        return (self._size, self._size)

    def board_array(self, state):
        return np.asarray(state._board, np.int8).reshape(self._size, self._size)

    def colour_to_move(self, state):
        return int(state._colour)

    def from_board(self, board, to_move, current_player=0):
        raise NotImplementedError


@pytest.fixture
def toy():
    spec = registry.register(registry.GameSpec("toy_three", "Toy three", ToyThree,
                                               {"size": 5}))
    yield spec
    registry.unregister("toy_three")


def test_a_registered_game_is_made_named_and_read_everywhere(toy):
    env = make("toy_three")
    assert env.board_shape == (5, 5) and make("toy_three", size=6).num_actions == 36
    assert game_name("toy_three") == "Toy three"
    # A game that states no readings gets the standard ones (orientation's defaults).
    assert orientation.paper_reading("toy_three", "rave_all_players") is False
    assert orientation.paper_reading("toy_three", "rhea_legal_first") is True
    assert RunId("toy_three").order() > RunId("gobang").order()
    with pytest.raises(ValueError, match="bad settings for toy_three"):
        make("toy_three", rows=3)
    with pytest.raises(ValueError, match="already registered"):
        registry.register(registry.GameSpec("toy_three", "Another", ToyThree))


def test_unknown_game_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown game 'checkers'; choose one of othello, "
                                         "connect_four, gobang, tic_tac_toe"):
        make("checkers")
    # The papers' games keep their settings and readings.
    assert registry.get("connect_four").short == "c4"
    assert orientation.paper_reading("othello", "rave_all_players") is True


@pytest.mark.slow
def test_a_toy_game_trains_a_smoke_run_through_the_generic_experiment(toy, tmp_path):
    # `+experiment=adaptive` with the toy game named through the `registered` game config
    # (its registered settings): no file of the package knows it.
    config = compose_config(["+experiment=adaptive", "game=registered", "game.name=toy_three",
                             "profile=smoke",
                             "train.iterations=2", "probe.every=0"], tmp_path / "run")
    assert config.experiment_name == "adaptive_toy_three"
    assert config.game.params == {} and config.warmstart.mode == "adaptive"
    train(config, log=lambda _: None)
    run = run_folder.read_run(tmp_path / "run")
    assert run.iterations == 2 and run.id.game == "toy_three"
    first = run.metrics[0]
    assert first.warmstart_active and first.examples > 0  # warm start played the toy game
    # Its games were real games: every self-play game lasted at least 5 plies (three in a
    # row needs three stones of one player) and at most the 25 cells.
    assert 5 <= first.selfplay_mean_plies <= 25


def test_unregistered_game_in_a_config_names_the_registered_ones(tmp_path):
    with pytest.raises((ConfigError, ValueError), match="unknown game 'toy_three'"):
        compose_config(["+experiment=adaptive", "game=registered", "game.name=toy_three",
                        "profile=smoke"], tmp_path / "run")


def test_none_symmetry_is_the_identity_alone():
    from warmjax.games.symmetry import symmetry_tables

    cells, actions = symmetry_tables("none", 3, 4, 13)
    assert cells.shape == (1, 12) and actions.shape == (1, 13)
    assert (cells[0] == np.arange(12)).all() and (actions[0] == np.arange(13)).all()


def test_generic_and_short_experiments_agree(tmp_path):
    generic = compose_config(["+experiment=fixed", "game=othello"], tmp_path)
    short = compose_config(["+experiment=fixed_othello"], tmp_path)
    assert dataclasses.replace(generic, experiment_name="x") == \
        dataclasses.replace(short, experiment_name="x")
    assert generic.experiment_name == "fixed_othello" == short.experiment_name


@pytest.mark.parametrize("game", ["connect_four", "othello", "gobang"])
def test_own_games_have_ids_of_their_own_and_draw_themselves(game, tmp_path):
    # pgx's visualiser knows pgx's games by id; warmjax's have other internals, so they
    # carry ids of their own and draw their boards themselves.
    env = make(game)
    state = env.step(env.init(jax.random.key(0)), 2)
    assert state.env_id == env.id == f"warmjax/{game}"
    path = tmp_path / "x.svg"
    state.save_svg(path)
    text = path.read_text()
    assert text.startswith("<svg") and text.count("<circle") == int(
        np.asarray(state.observation).sum())  # one disc per stone (Othello: the four + one
    # flipped line)
    with pytest.raises(ValueError, match="must end with .svg"):
        state.save_svg(tmp_path / "x.png")
    with pytest.raises(ValueError, match="draws one state"):
        jax.vmap(env.init)(jax.random.split(jax.random.key(0), 2)).to_svg()
    # A pgx game's state is pgx's own, drawn by pgx's visualiser.
    pgx_state = make("tic_tac_toe").init(jax.random.key(0))
    pgx_state.save_svg(tmp_path / "t.svg")
    assert (tmp_path / "t.svg").read_text().startswith("<?xml") or \
        (tmp_path / "t.svg").read_text().startswith("<svg")
