"""Labels made by search for a game without a solver (`probe/search_labels.py`): checked
against the exact solver on tic-tac-toe, on positions worked out by hand, and end to end on
the example game kept outside warmjax (labels command, oracle)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from warmjax.games import make, registry
from warmjax.perfect import positions
from warmjax.probe.search_labels import LOSS, WIN, labels_of, move_values

from ..games.test_registry import load_example


@pytest.mark.slow
def test_deep_search_labels_agree_with_the_solver_on_tic_tac_toe():
    """Twenty solved tic-tac-toe positions: with 2,000 simulations per move the labels give
    every position's value and nearly every optimal move set exactly
    (studies/search_labels/check.py measures the same at scale)."""
    exact = positions.load(positions.DATA_DIR / "tic_tac_toe_3x3.json").subset(20)
    env = make("tic_tac_toe")
    moves = [list(m[:n]) for m, n in zip(exact.moves, exact.plies)]
    labels = labels_of(move_values(env, moves, 2000))
    legal = exact.values != positions.ILLEGAL
    np.testing.assert_array_equal(labels == positions.ILLEGAL, ~legal)
    assert np.mean(labels.max(axis=1) == exact.best) == 1.0
    guess = (labels == labels.max(axis=1, keepdims=True)) & legal
    assert np.mean(np.all(guess == exact.optimal & legal, axis=1)) >= 0.85


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_a_move_that_ends_the_game_is_valued_by_the_rules():
    """X (first) has a and b of the top row and is to move after O's reply: c1 wins at once,
    a win whatever the search; a move elsewhere lets O win or draw."""
    env = make("tic_tac_toe")
    # Cells 0..8 row by row: X 0, O 3, X 1, O 4; X to move. 2 wins; 5 is O's threat.
    values = move_values(env, [[0, 3, 1, 4]], 400)[0]
    assert values[2] == 1.0 and labels_of(values[None])[0, 2] == WIN
    assert np.isnan(values[[0, 1, 3, 4]]).all()  # taken cells
    # A move that neither wins nor blocks O's threat on 5 loses at once, which the search
    # of the position after it (O to move) must see.
    assert all(labels_of(values[None])[0, a] == LOSS for a in (6, 7, 8))


@pytest.fixture
def toy():
    module = load_example()
    yield module.SPEC
    registry.unregister("toy_three")


@pytest.mark.slow
def test_a_game_without_a_solver_gets_a_labelled_set_and_an_oracle(toy, tmp_path, capsys):
    from warmjax import labels as labels_command
    from warmjax.matches.oracle_run import oracle

    from ..helpers import write_tiny_run

    out = tmp_path / "toy.json"
    labels_command.main(["--game", "toy_three", "--count", "12", "--simulations", "64",
                         "--out", str(out)])
    assert "labelled by search: pure MCTS, 64 simulations per move" in capsys.readouterr().out
    labelled = positions.load(out, 25)
    assert len(labelled) == 12
    # Immediate wins come from the rules: every flagged move ends the game with a win.
    wins = positions.immediate_wins(labelled)
    for i in np.flatnonzero(wins.any(axis=1)):
        a = int(np.flatnonzero(wins[i])[0])
        assert labelled.values[i, a] == WIN  # the search labels agree: a win is a win
    saved = json.loads(out.read_text())
    assert saved["meta"]["command"].startswith("python -m warmjax.labels --game toy_three")
    # The oracle scores an agent of the game on it as on a solved set.
    run = write_tiny_run(tmp_path / "run", "toy_three")
    result = oracle(run, simulations=4, playouts=8, labelled_path=out,
                    players=("search", "random"))
    assert result["settings"]["positions"] == 12
    assert 0 <= result["players"]["random"]["optimal"] <= 1


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_a_search_labelled_set_is_where_the_probe_and_the_oracle_look(toy, tmp_path,
                                                                      monkeypatch, capsys):
    from warmjax import labels as labels_command
    from warmjax.matches.oracle_run import oracle

    from ..helpers import write_tiny_run

    monkeypatch.setattr(positions, "DATA_DIR", tmp_path / "data")  # not the package's
    env = make("toy_three")
    assert env.labelled_set_name == "toy_three_5x5.json"
    assert positions.path_for(env) is None  # none written yet
    labels_command.main(["--game", "toy_three", "--count", "6", "--simulations", "16"])
    assert positions.path_for(env) == tmp_path / "data" / "toy_three_5x5.json"
    run = write_tiny_run(tmp_path / "run", "toy_three")
    result = oracle(run, simulations=4, playouts=8, players=("random",))
    assert result["settings"]["positions"] == 6


def test_the_labels_command_says_what_is_missing(toy, capsys):
    from warmjax import labels as labels_command

    with pytest.raises(SystemExit):
        labels_command.main(["--game", "connect_four", "--simulations", "10"])
    assert "--simulations is for games labelled by search" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        labels_command.main(["--game", "go"])
    assert "go has no way to label positions" in capsys.readouterr().err
