"""The orientation and head-to-head commands: configs, validation and their JSON output.

Each command runs once per module (tiny settings on Connect Four) and the tests check the
invariants of what it wrote.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import HydraException

from warmjax import headtohead, orientation
from warmjax.evaluate.experiment_cli import config_from_dict
from warmjax.evaluate.match import chunking
from warmjax.headtohead import HeadToHeadConfig
from warmjax.orientation import OrientationConfig
from warmjax.search.players import ENHANCEMENTS

CONF_DIR = str(pathlib.Path(__file__).resolve().parents[1] / "conf")
ROOT = pathlib.Path(__file__).resolve().parents[1]


def hydra_config(name: str, overrides: list[str]):
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        return compose(config_name=name, overrides=overrides)


@pytest.fixture(scope="module")
def orientation_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("orientation") / "orientation.json"
    cfg = hydra_config("orientation", [
        "game=connect_four", "games_per_pair=6", "playouts=8", "seed=3", f"out={out}",
        # 6 games in chunks of at most 4: two calls of 4, two surplus games dropped.
        "max_batch=4", "rhea_population=2", "fast_compile=true",
    ])
    payload = orientation.run(config_from_dict(OrientationConfig, cfg))
    return payload, json.loads(out.read_text())


@pytest.fixture(scope="module")
def headtohead_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("headtohead") / "h2h.json"
    config = HeadToHeadConfig(game="connect_four", games=4, simulations=6, seed=1, out=str(out),
                              fast_compile=True)
    payload = headtohead.run(config)
    return payload, json.loads(out.read_text())


def test_orientation_json(orientation_run):
    payload, written = orientation_run
    assert written == json.loads(json.dumps(payload))
    assert written["game"] == "connect_four"
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
    assert written["config"]["playouts"] == 8


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
    assert set(written["score"]) == set(ENHANCEMENTS)
    for row in written["results"]:
        name = row["enhancement"]
        assert row["wins"] + row["draws"] + row["losses"] == row["games"] == 4
        assert 0.0 <= written["score"][name] <= 1.0
        assert written["score"][name] == pytest.approx((row["wins"] + 0.5 * row["draws"]) / 4)
    assert "| rollout |" in headtohead.markdown_scores(written["results"], "mcts")


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
    (["playouts=0"], "playouts must be a positive integer"),
    (["playouts=8"], "too few for RHEA"),
    (["games_per_pair=ten"], "games_per_pair must be int"),
    (["players=[random,mcts]"], "unknown player 'mcts'"),
    (["+game.params.size=3"], "bad settings for connect_four"),
    (["+colour=red"], "unknown setting.*colour"),
])
def test_orientation_rejects(overrides, message):
    with pytest.raises(ValueError, match=message):
        config_from_dict(OrientationConfig, hydra_config("orientation", overrides))


@pytest.mark.parametrize("overrides,message", [
    (["games=5"], "games must be a positive even integer"),
    (["simulations=0"], "simulations must be a positive integer"),
    (["model.preset=huge"], "unknown model 'huge'"),
    (["model.channels=0"], "network sizes must be positive"),
    (["enhancements=[rollout,mcts]"], "unknown enhancement 'mcts'"),
])
def test_headtohead_rejects(overrides, message):
    with pytest.raises(ValueError, match=message):
        config_from_dict(HeadToHeadConfig, hydra_config("headtohead", overrides))


@pytest.mark.parametrize("name,override", [
    ("orientation", "game=chess"), ("headtohead", "game=chess"), ("headtohead", "model=huge"),
])
def test_unknown_group_choice(name, override):
    # `game` and `model` are the project's Hydra groups: Hydra itself names the bad choice.
    with pytest.raises(HydraException, match=override.replace("=", "/")):
        hydra_config(name, [override])


def test_dataclass_rejects():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        OrientationConfig(game="chess")
    with pytest.raises(ValueError, match="games_per_pair must be a positive even integer"):
        OrientationConfig(games_per_pair=7)
    with pytest.raises(ValueError, match="unknown model 'huge'"):
        HeadToHeadConfig(model="huge")
    with pytest.raises(ValueError, match="games must be a positive even integer"):
        HeadToHeadConfig(games=1)


def test_compose_defaults():
    cfg = hydra_config("orientation", ["game=gobang"])
    config = config_from_dict(OrientationConfig, cfg)
    assert config.game == "gobang" and config.game_params == {"size": 6, "win_length": 4}
    assert config.games_per_pair == 500 and config.playouts == 100 and config.seed == 0
    assert config.out_path == "orientation_gobang.json"
    assert config.players == ("random", "pure_mcts", "pure_rave", "rhea")

    cfg = hydra_config("headtohead", ["game=othello", "model=azg512"])
    config = config_from_dict(HeadToHeadConfig, cfg)
    assert config.game == "othello"
    assert config.model == "azg512" and config.simulations == 100 and config.weight == 0.5
    assert config.out_path == "headtohead_othello.json"
    assert config.enhancements == tuple(ENHANCEMENTS)


@pytest.mark.parametrize("module,override,message", [
    ("warmjax.orientation", "games_per_pair=3", "games_per_pair must be a positive even"),
    ("warmjax.headtohead", "game=chess", "Could not find 'game/chess'"),
])
def test_cli_error_exits_cleanly_and_leaves_no_files(tmp_path, module, override, message):
    env = dict(os.environ, JAX_PLATFORMS="cpu",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("HYDRA_FULL_ERROR", None)
    proc = subprocess.run(
        [sys.executable, "-m", module, override],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode != 0
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []
