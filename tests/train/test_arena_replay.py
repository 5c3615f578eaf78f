"""A run's arena games played again from its checkpoints (`train/arena_replay.py`): the
games are legal, end as the replay says, add up to the counts training wrote in
`metrics.jsonl`, and a replay that does not repeat the record says where."""

from __future__ import annotations

import json
import shutil

import jax
import numpy as np
import pytest

import warmjax
from warmjax.train import loop
from warmjax.train.arena_replay import replay_arena, replayable

from ..helpers import SMOKE, compose_config

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A three-iteration smoke run (4 arena games an iteration, all its states kept)."""
    folder = tmp_path_factory.mktemp("arena") / "run"
    loop.train(compose_config(SMOKE, folder), log=lambda line: None)
    return folder


def recorded(folder, iteration: int) -> dict:
    rows = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
    return rows[iteration - 1]


def check_games(folder, replayed, row: dict) -> None:
    """Each game, replayed move by move in the game, ends where its result says; the results
    are the counts training recorded, each side first in half the games."""
    game = warmjax.make_game("connect_four")
    first_id = int(game.init(jax.random.PRNGKey(0)).current_player)
    scores = []
    for g in replayed.games:
        end = warmjax.position(game, g.moves)  # raises on an illegal move
        assert bool(end.terminated)
        first = float(np.asarray(end.rewards)[first_id])
        assert g.score == (first if g.new_first else -first)
        scores.append(g.score)
    assert [g.new_first for g in replayed.games] == [True, True, False, False]
    assert (scores.count(1), scores.count(0), scores.count(-1)) == (
        row["arena_wins"], row["arena_draws"], row["arena_losses"])
    assert replayed.accepted == row["accepted"]


@pytest.fixture(scope="module")
def last(trained):
    return replay_arena(trained, 3)


def test_the_last_arena_replays_the_runs_record(trained, last):
    assert replayable(trained) == [1, 2, 3]
    assert last.exact, last.differs
    check_games(trained, last, recorded(trained, 3))


def test_the_explorer_replays_the_runs_arena_games(trained, last):
    """The page's list: each replayable iteration's games, titled by who moved first; a
    game of iteration 3's arena is the replay's."""
    pytest.importorskip("starlette")
    from warmjax.explorer.session import Explorer, load_runs

    explorer = Explorer(load_runs([trained]))
    titles = [g["title"] for g in explorer.games(0)]
    assert len(titles) == 12
    assert titles[8] == "arena of iteration 3, game 1 of 4: the new network moves first"
    assert titles[11] == "arena of iteration 3, game 4 of 4: the new network moves second"
    assert [explorer.replay(0, 8 + g) for g in range(4)] == [g.moves for g in last.games]


def test_a_replay_that_differs_from_the_record_says_where(trained, tmp_path):
    """The first arena (from the seed's initial state), against a record whose value loss
    was altered: the games still add up, and the difference is named."""
    copy = shutil.copytree(trained, tmp_path / "run")
    rows = (copy / "metrics.jsonl").read_text().splitlines()
    first = json.loads(rows[0])
    first["loss_value"] += 0.5
    rows[0] = json.dumps(first)
    (copy / "metrics.jsonl").write_text("\n".join(rows) + "\n")
    replayed = replay_arena(copy, 1)
    assert replayed.differs == ["loss_value"]
    check_games(copy, replayed, first)


def test_only_kept_states_replay_and_refusals_name_the_reason(trained, tmp_path):
    copy = shutil.copytree(trained, tmp_path / "run")
    (copy / "checkpoints" / "state_000001.ckpt").unlink()
    assert replayable(copy) == [1, 3]
    with pytest.raises(ValueError, match=r"iteration 2 cannot be replayed .*iterations 1, 3"):
        replay_arena(copy, 2)
    with pytest.raises(ValueError, match="iteration 4 cannot be replayed"):
        replay_arena(copy, 4)
    config = (copy / "config.yaml").read_text()
    assert "gate: true" in config
    (copy / "config.yaml").write_text(config.replace("gate: true", "gate: false"))
    assert replayable(copy) == []
    with pytest.raises(ValueError, match=r"plays no arena \(arena.gate=false\)"):
        replay_arena(copy, 1)
