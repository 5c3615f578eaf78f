"""The game registry: a game is one module plus one config, and nothing else in the package
needs to know it. Here a toy game defined in this test alone trains a smoke run."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import subprocess
import sys
from xml.etree import ElementTree

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax import orientation
from warmjax.games import check_game, make, registry
from warmjax.train import run_folder
from warmjax.train.loop import train
from warmjax.train.run_config import ConfigError
from warmjax.train.run_id import RunId, game_name

from ..helpers import ROOT, compose_config

EXAMPLE = ROOT / "examples" / "toy_three.py"


def load_example():
    """Imports examples/toy_three.py (a module outside the package), which registers it."""
    spec = importlib.util.spec_from_file_location("toy_three", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def toy():
    module = load_example()
    yield module.SPEC
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
        registry.register(registry.GameSpec("toy_three", "Another", toy.build))


def test_unknown_game_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown game 'checkers'; choose one of othello, "
                                         "connect_four, gobang, tic_tac_toe"):
        make("checkers")
    with pytest.raises(ValueError, match=r"game.module=<module>, or an entry point in the "
                                         r"group warmjax.games\)$"):
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


@pytest.mark.slow
def test_a_game_outside_the_package_trains_with_one_command(tmp_path, monkeypatch):
    """examples/toy_three.py, which no file of warmjax imports, trains a smoke run named by
    `game.module`; the run folder records the module, so a later reader imports it too."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(ROOT / "examples"))
    out = subprocess.run(
        [sys.executable, "-m", "warmjax.run", "+experiment=adaptive", "game=registered",
         "game.name=toy_three", "game.module=toy_three", "profile=smoke",
         "train.iterations=1", "tensorboard=false", f"run_root={tmp_path}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    # The commands printed at the end work as pasted: they carry the module's PYTHONPATH.
    assert f"  PYTHONPATH='{ROOT / 'examples'}' python -m warmjax.versus '" in out.stdout
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    try:
        (run,) = run_folder.find_runs([tmp_path])
        assert run.config.game.module == "toy_three" and run.id.game == "toy_three"
        assert run.iterations == 1 and run.metrics[0].examples > 0
    finally:
        registry.unregister("toy_three")
        sys.modules.pop("toy_three", None)


def test_a_game_module_that_does_not_import_is_one_line(tmp_path):
    with pytest.raises(ConfigError, match=r"^game.module: cannot import the game module "
                                          r"'no_such_game' \(ModuleNotFoundError"):
        compose_config(["+experiment=adaptive", "game=registered", "game.name=toy_three",
                        "game.module=no_such_game"], tmp_path / "run")


def test_an_installed_packages_entry_point_registers_its_game(tmp_path, monkeypatch):
    # A package's metadata (a .dist-info folder on sys.path) names the module in the group
    # warmjax.games; the registry imports it the first time it meets an unknown name.
    info = tmp_path / "toyplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[warmjax.games]\ntoy = toy_three\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    try:
        assert registry.find("toy_three") is not None
        assert make("toy_three").board_shape == (5, 5)
    finally:
        registry.unregister("toy_three")
        sys.modules.pop("toy_three", None)


def test_the_example_game_passes_the_conformance_check(toy):
    # Its symmetries (dihedral) are checked by replaying transformed moves: it scripts no
    # positions. As a game with no symmetry declared (`none`) it passes too.
    env = make("toy_three")
    assert check_game(env, games=8) > 0
    plain = make("toy_three")
    plain.symmetry = "none"
    assert plain.symmetry_tables()[0].shape == (1, 25)
    check_game(plain, games=8)


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
    assert text.startswith("<svg") and text.count('class="piece') == int(
        np.asarray(state.observation).sum())  # one disc per stone (Othello: the four + one
    # flipped line)
    with pytest.raises(ValueError, match="must end with .svg"):
        state.save_svg(tmp_path / "x.png")
    # A batch is drawn as a grid of its boards, as pgx draws its batches (pgx's own
    # api_test saves a batch).
    batch = jax.vmap(env.step)(jax.vmap(env.init)(jax.random.split(jax.random.key(0), 3)),
                               jnp.array([0, 1, 2]))
    grid = batch.to_svg()
    assert grid.count("<g ") == 3 and grid.count('class="piece') == int(
        np.asarray(batch.observation).sum())
    # A pgx game's state is pgx's own, drawn by pgx's visualiser.
    pgx_state = make("tic_tac_toe").init(jax.random.key(0))
    pgx_state.save_svg(tmp_path / "t.svg")
    assert (tmp_path / "t.svg").read_text().startswith("<?xml") or \
        (tmp_path / "t.svg").read_text().startswith("<svg")


@pytest.mark.parametrize("game", ["connect_four", "othello", "gobang"])
def test_pgx_api_test_on_own_games(game):
    """pgx 2.6's batched API test (random batched play, then a batched `save_svg`) passes
    on warmjax's own games. (Its single-state half stops on pgx's own games too under this
    jax: `act_randomly` samples along axis 1 of an unbatched mask; and it accepts only
    pgx's ids, which warmjax's states do not carry: docs/experiments.md.)"""
    from pgx._src.api_test import api_test_batch

    api_test_batch(make(game), num=1)


def test_connect_four_is_drawn_as_connect_four():
    """Red discs for the first mover, yellow for the second, in a blue frame with its
    holes, the columns lettered as `render` heads them, and the last move's disc marked."""
    env = make("connect_four")
    state = env.init(jax.random.key(0))
    for column in (2, 3, 2):  # X c, O d, X c: X's second disc at row 4 of column c
        state = env.step(state, column)
    svg = ElementTree.fromstring(env.to_svg(state, last=(4, 2)))
    circles = [c.attrib for c in svg.iter("{http://www.w3.org/2000/svg}circle")]
    assert [c["fill"] for c in circles if c.get("class", "").startswith("piece")] == [
        "#d62828", "#d62828", "#f5c518"]  # row by row: X's c at row 4; X's c, O's d at row 5
    assert sum(c["fill"] == "#f4f4f4" for c in circles) == 36 - 3  # the empty holes
    assert [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")] == list("abcdef")
    marked = [c for c in circles if c.get("class") == "last-move"]
    top = 0.6 * 40  # the letters' strip
    assert len(marked) == 1 and (float(marked[0]["cx"]), float(marked[0]["cy"])) == (
        2.5 * 40, top + 4.5 * 40)


# Settings of each game besides its defaults, where it takes any: boards the studies train.
OTHER_SETTINGS = {"connect_four": [{"cols": 7}, {"rows": 5, "cols": 6, "win_length": 3}],
                  "othello": [{"size": 8}], "gobang": [{"size": 7, "win_length": 5}],
                  "hex": [{"size": 5}, {"size": 7}], "go": [{"size": 5}]}


@pytest.mark.parametrize("name", [n for n in registry.names()
                                  if n not in ("chess", "shogi", "gardner_chess")])
def test_the_registry_knows_each_board_and_labelled_set_without_building_the_game(name):
    # The analysis reads a run's board and labelled set from the registry (no game built):
    # the same as the built game's, for the defaults and for other boards.
    spec = registry.get(name)
    assert spec.board is not None
    for params in [{}, *OTHER_SETTINGS.get(name, [])]:
        env = make(name, **params)
        assert spec.board_shape(params) == tuple(env.board_shape), params
        assert spec.labelled_set_name(params) == env.labelled_set_name, params


@pytest.mark.heavy
@pytest.mark.parametrize("name", ["chess", "shogi", "gardner_chess"])
def test_the_chess_like_boards_are_known_without_building_the_game(name):
    assert registry.get(name).board_shape({}) == tuple(make(name).board_shape)


def test_the_registry_loads_no_game_code_until_a_game_is_made():
    # Importing the games, looking one up and reading its board import no game module, pgx
    # or JAX; making it imports its module.
    code = ("import sys\n"
            "from warmjax.games import make, registry\n"
            "spec = registry.get('connect_four')\n"
            "print(spec.title, spec.board_shape({'cols': 7}), registry.names()[:3],\n"
            "      [m for m in ('jax', 'pgx', 'warmjax.games.connect_four') if m in sys.modules])\n"
            "make('connect_four')\n"
            "print('warmjax.games.connect_four' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "Connect Four (6, 7) ('othello', 'connect_four', 'gobang') []", "True"]


def test_a_misspelt_setting_gets_a_did_you_mean():
    with pytest.raises(ValueError, match="no setting 'colums'; did you mean 'cols'"):
        make("connect_four", colums=7)
    with pytest.raises(ValueError, match="no setting 'size'; its settings: rows, cols"):
        make("connect_four", size=3)
