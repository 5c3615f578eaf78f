"""The orientation and head-to-head commands: configs, validation and their JSON output.

Each command runs once per module (tiny settings on Connect Four) and the tests check the
invariants of what it wrote.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import HydraException

from warmjax import headtohead, orientation
from warmjax.cli import CONF_DIR
from warmjax.headtohead import HeadToHeadConfig
from warmjax.matches.experiment_cli import config_from_dict
from warmjax.matches.pair_play import chunking
from warmjax.names import PAPERS_ENHANCEMENTS as ENHANCEMENTS  # the table's rows
from warmjax.orientation import OrientationConfig
from warmjax.search.config import SearchConfig
from warmjax.train.run_config import GameConfig, ModelConfig

from ..helpers import ROOT

# Two of the table's rows for head-to-head's end-to-end run: a playout and a RAVE enhancement.
TWO_ROWS = ("rollout", "rave")

# End to end: trains runs or runs commands (`pytest -m "not slow"` leaves them out).
pytestmark = pytest.mark.slow


def hydra_config(name: str, overrides: list[str]):
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        return compose(config_name=name, overrides=overrides)


@pytest.fixture(scope="module")
def orientation_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("orientation") / "orientation.json"
    cfg = hydra_config("orientation", [
        "game=connect_four", "games_per_pair=6", "search.simulations=8", "seed=3",
        "search.temperature_moves=2", f"out={out}",
        # 6 games in chunks of at most 4: two calls of 4, two surplus games dropped.
        "max_batch=4", "rhea.population=2", "fast_compile=true",
    ])
    payload = orientation.run(config_from_dict(OrientationConfig, cfg))
    return payload, json.loads(out.read_text())


@pytest.fixture(scope="module")
def headtohead_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("headtohead") / "h2h.json"
    # Two of the table's rows, each its own compiled match (the default, all five, is checked
    # in test_compose_defaults).
    config = HeadToHeadConfig(games=4, search=SearchConfig(simulations=6), seed=1, out=str(out),
                              enhancements=TWO_ROWS, fast_compile=True)
    payload = headtohead.run(config)
    return payload, json.loads(out.read_text())


def test_orientation_json(orientation_run):
    payload, written = orientation_run
    assert written == json.loads(json.dumps(payload))
    assert written["game"] == "connect_four"
    assert written["temperature_moves"] == 2  # the T′ the players used, as configured
    names = written["players"]
    assert names == ["random", "pure_mcts", "pure_rave", "rhea"]
    matrix = written["matrix"]
    assert len(matrix) == 4 and all(len(row) == 4 for row in matrix)
    for i in range(4):
        assert matrix[i][i] is None
        for j in range(4):
            if i != j:
                assert 0.0 <= matrix[i][j] <= 1.0
                assert matrix[i][j] + matrix[j][i] == pytest.approx(1.0)
    assert len(written["pairs"]) == 6
    for pair in written["pairs"]:
        i, j = names.index(pair["a"]), names.index(pair["b"])
        assert i < j
        assert pair["wins"] + pair["draws"] + pair["losses"] == pair["games"] == 6
        assert matrix[i][j] == pytest.approx((pair["wins"] + 0.5 * pair["draws"]) / 6)
        assert 0 < pair["distinct_games"] <= 6
    assert written["config"]["search"]["simulations"] == 8


def test_orientation_table(orientation_run):
    payload, _ = orientation_run
    table = orientation.markdown_matrix(payload["players"], payload["matrix"])
    lines = table.splitlines()
    assert len(lines) == 2 + 4
    assert lines[0].startswith("| player | random | pure_mcts | pure_rave | rhea |")


def test_headtohead_json(headtohead_run):
    payload, written = headtohead_run
    assert written == json.loads(json.dumps(payload))
    assert written["game"] == "connect_four"
    assert written["opponent"] == "mcts"
    assert set(written["score"]) == set(TWO_ROWS)
    for row in written["results"]:
        name = row["enhancement"]
        assert row["wins"] + row["draws"] + row["losses"] == row["games"] == 4
        assert 0.0 <= written["score"][name] <= 1.0
        assert written["score"][name] == pytest.approx((row["wins"] + 0.5 * row["draws"]) / 4)
    assert "| rollout |" in headtohead.markdown_scores(written["results"], "mcts")
    assert (written["networks"], written["tie_break"]) == ("pair", "first")


def test_headtohead_networks_per_pair_make_distinct_games(tmp_path):
    # RAVE and MCTS are deterministic at T′ = 0 given their networks: with one shared network
    # there are at most two distinct games (one per first mover); with a fresh pair of
    # networks per game pair, the games differ (at m = 4 two pairs may still meet the same
    # game: seed 0 gives 7 distinct of 8).
    def distinct(networks):
        config = HeadToHeadConfig(games=8, search=SearchConfig(simulations=4), seed=0,
                                  enhancements=("rave",), networks=networks,
                                  out=str(tmp_path / f"{networks}.json"), fast_compile=True)
        return headtohead.run(config)["results"][0]["distinct_games"]

    assert distinct("shared") <= 2
    assert distinct("pair") >= 6


def test_apply_each_scores_each_example_with_its_own_network():
    from warmjax.games import make
    from warmjax.nets import make_network

    env = make("connect_four")
    net = make_network(env.num_actions, env.observation_shape, "small")
    stacked = net.init_each(jax.random.PRNGKey(0), 3)
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (3, *env.observation_shape))
    logits, value = net.apply_each(stacked, obs.astype(jnp.float32))
    for b in range(3):
        one = jax.tree_util.tree_map(lambda x, b=b: x[b], stacked)
        ref_logits, ref_value = net.apply(one, obs[b:b + 1].astype(jnp.float32))
        np.testing.assert_allclose(np.asarray(logits[b]), np.asarray(ref_logits[0]),
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(value[b]), float(ref_value[0]), rtol=1e-4, atol=1e-5)
    assert not np.allclose(np.asarray(logits[0]), np.asarray(logits[1]))  # different networks


def test_tie_break_first_or_random():
    from warmjax.search.players import choose_actions

    policy = jnp.tile(jnp.array([[0.0, 0.4, 0.2, 0.4]]), (200, 1))
    no_sample = jnp.zeros(200, bool)
    first = choose_actions(jax.random.PRNGKey(0), policy, no_sample, "first")
    assert set(np.asarray(first).tolist()) == {1}
    rand = np.asarray(choose_actions(jax.random.PRNGKey(0), policy, no_sample, "random"))
    assert set(rand.tolist()) == {1, 3} and 60 < np.sum(rand == 1) < 140
    with pytest.raises(ValueError, match="unknown tie_break 'last'"):
        choose_actions(jax.random.PRNGKey(0), policy, no_sample, "last")


@pytest.mark.parametrize("games,max_batch,expected", [
    (500, 256, (2, 250)), (200, 256, (1, 200)), (6, 4, (2, 4)), (502, 256, (2, 252)),
    (2, 256, (1, 2)),
])
def test_chunking(games, max_batch, expected):
    chunks, batch = chunking(games, max_batch)
    assert (chunks, batch) == expected
    assert batch % 2 == 0 and batch <= max_batch and chunks * batch >= games


@pytest.mark.parametrize("overrides,message", [
    (["games_per_pair=3"], "games_per_pair must be a positive even integer"),
    (["games_per_pair=0"], "games_per_pair must be a positive even integer"),
    (["search.simulations=0"], "search.simulations \\(m\\) must be at least 1"),
    (["search.simulations=8"], "rhea.simulations: a budget of 8 playouts cannot evaluate"),
    (["rhea.population=0"], "rhea.population must be at least 1"),
    (["games_per_pair=ten"], "games_per_pair must be int"),
    (["players=[random,mcts]"], "unknown player 'mcts'"),
    (["+game.params.size=3"], "game.params: .*bad settings for connect_four"),
    (["+colour=red"], "unknown setting.*colour"),
    (["search.c_puct=-1"], "search.c_puct must be non-negative"),
    (["rhea.legal_first=maybe"], "rhea.legal_first must be bool"),
])
def test_orientation_rejects(overrides, message):
    with pytest.raises(ValueError, match=message):
        config_from_dict(OrientationConfig, hydra_config("orientation", overrides))


@pytest.mark.parametrize("overrides,message", [
    (["games=5"], "games must be a positive even integer"),
    (["search.simulations=0"], "search.simulations \\(m\\) must be at least 1"),
    (["model.preset=huge"], "model.preset: unknown model 'huge'"),
    (["model.channels=0"], "model.channels and fc: network sizes must be positive"),
    (["enhancements=[rollout,mcts]"], "unknown enhancement 'mcts'"),
    (["networks=one"], "unknown networks 'one'; choose from pair, shared"),
    (["search.tie_break=last"], "search.tie_break must be one of first, random"),
])
def test_headtohead_rejects(overrides, message):
    with pytest.raises(ValueError, match=message):
        config_from_dict(HeadToHeadConfig, hydra_config("headtohead", overrides))


@pytest.mark.parametrize("name,override", [
    ("orientation", "game=checkers"), ("headtohead", "game=checkers"),
    ("headtohead", "model=huge"),
])
def test_unknown_group_choice(name, override):
    # `game` and `model` are the project's Hydra groups: Hydra itself names the bad choice.
    with pytest.raises(HydraException, match=override.replace("=", "/")):
        hydra_config(name, [override])


def test_dataclass_rejects():
    # Each section validates itself, wherever it is used.
    with pytest.raises(ValueError, match="unknown game 'checkers'"):
        OrientationConfig(game=GameConfig("checkers"))
    with pytest.raises(ValueError, match="games_per_pair must be a positive even integer"):
        OrientationConfig(games_per_pair=7)
    with pytest.raises(ValueError, match="unknown model 'huge'"):
        HeadToHeadConfig(model=ModelConfig("huge"))
    with pytest.raises(ValueError, match="games must be a positive even integer"):
        HeadToHeadConfig(games=1)


def test_compose_defaults():
    cfg = hydra_config("orientation", ["game=gobang"])
    config = config_from_dict(OrientationConfig, cfg)
    assert config.game == GameConfig("gobang", {"size": 6, "win_length": 4})
    assert config.games_per_pair == 500 and config.search.simulations == 100
    assert config.seed == 0 and config.rhea.simulations is None  # RHEA's budget: the search's m
    assert config.out_path == "orientation_gobang.json"
    assert config.players == ("random", "pure_mcts", "pure_rave", "rhea")
    # The readings the papers leave open: per game, the one closest to their table
    # (results.md §3) unless a setting says otherwise.
    search = config.search
    assert (search.c_puct, search.rave_rollout_moves, search.reuse_tree) == (1.0, True, False)
    assert search.temperature_moves == 0
    assert config.reading == {"rave_all_players": False, "rhea_legal_first": True}
    othello = config_from_dict(OrientationConfig, hydra_config("orientation", ["game=othello"]))
    assert othello.reading == {"rave_all_players": True, "rhea_legal_first": False}
    assert not othello.rhea.legal_first
    given = config_from_dict(OrientationConfig, hydra_config(
        "orientation", ["game=othello", "rhea.legal_first=true"]))
    assert given.reading == {"rave_all_players": True, "rhea_legal_first": True}

    cfg = hydra_config("headtohead", ["game=othello", "model=azg512"])
    config = config_from_dict(HeadToHeadConfig, cfg)
    assert config.game.name == "othello"
    assert config.model.preset == "azg512" and config.search.simulations == 100
    assert config.weight == 0.5 and config.search.temperature_moves == 0
    assert config.out_path == "headtohead_othello.json"
    assert config.enhancements == tuple(ENHANCEMENTS)


@pytest.mark.parametrize("module,args,message", [
    ("warmjax.orientation", ["games_per_pair=3"],
     "orientation: error: games_per_pair must be a positive even"),
    ("warmjax.headtohead", ["game=checkers"],
     "headtohead: error: Could not find 'game/checkers'; choose from animal_shogi, chess, "
     "connect_four"),
    ("warmjax.headtohead", ["simulation=3"], "headtohead: error: Could not override 'simulation'"),
    ("warmjax.headtohead", ["search.simulations=0"],
     "headtohead: error: search.simulations (m) must be at least 1"),
    ("warmjax.run", ["+experiment=adaptive_c4", "game=checkers"],
     "error: Could not find 'game/checkers'; choose from"),
    ("warmjax.run", ["+experiment=adaptive_c4", "train.iteratons=3"],
     "error: unknown setting train.iteratons; did you mean train.iterations?"),
    ("warmjax.run", ["+experiment=adaptive_c4", "train.games=3", "hydra.run.dir=here"],
     "error: invalid configuration: adaptive warm-start needs an even train.games"),
    ("warmjax.tournament", ["no_such_run", "--out", "t"], "tournament: error: no_such_run"),
    ("warmjax.tournament", ["no_such_run"], "error: the following arguments are required: --out"),
    ("warmjax.report", ["--runs", "no_such_run"], "report: error: no_such_run"),
    ("warmjax.versus", ["no_such/run"], "versus: error: no run folder no_such/run"),
    ("warmjax.oracle", ["no_such/run"], "oracle: error: no run folder no_such/run"),
    ("warmjax.play", ["no_such/run"], "play: error: no run folder no_such/run"),
    ("warmjax.versus", ["r", "--games", "3"], "versus: error: --games must be even"),
    ("warmjax.labels", ["--count", "0"], "labels: error: --count must be at least 1"),
])
def test_cli_error_exits_cleanly_and_leaves_no_files(tmp_path, module, args, message):
    # Every command reports a user's mistake as one `error:` line and exit status 2.
    env = dict(os.environ, JAX_PLATFORMS="cpu",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("HYDRA_FULL_ERROR", None)
    proc = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert list(tmp_path.iterdir()) == []
