"""Pons' Connect Four benchmark (`perfect/pons.py`, `matches/benchmark.py`): the shipped
files are the shared ones, every move's label agrees with warmjax's own solver on a sample,
and a run is scored as AlphaZero.jl scores itself."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from warmjax.perfect import pons
from warmjax.perfect.connect_four_solver import Solver
from warmjax.perfect.positions import ILLEGAL

from ..helpers import ROOT, write_tiny_run

SHARED = ROOT.parent / "shared" / "benchmarks" / "pons"


def test_the_shipped_files_are_the_published_ones():
    sums = dict(reversed(line.split()) for line in
                (pons.FOLDER / "SHA256SUMS").read_text().splitlines() if line.strip())
    assert len(sums) == 12
    for name, digest in sums.items():
        assert hashlib.sha256((pons.FOLDER / name).read_bytes()).hexdigest() == digest, name
    if SHARED.is_dir():  # the project's copy, where this checkout has it beside
        assert (SHARED / "SHA256SUMS").read_text() == (pons.FOLDER / "SHA256SUMS").read_text()


@pytest.mark.parametrize("name", [s.name for s in pons.SETS])
def test_each_set_loads_with_its_stage(name):
    labelled = pons.load(name)
    assert len(labelled) == 1000 and labelled.values.shape == (1000, 7)
    spec = pons.BY_NAME[name]
    if spec.stage.startswith("end"):
        assert labelled.plies.min() > 28
    elif spec.stage.startswith("beginning"):
        assert labelled.plies.max() <= 14
    else:
        assert 15 <= labelled.plies.min() and labelled.plies.max() <= 28
    # A full column is illegal exactly where six stones were played in it.
    for moves, n, values in zip(labelled.moves[:50], labelled.plies[:50], labelled.values):
        counts = np.bincount(moves[:n], minlength=7)
        np.testing.assert_array_equal(values == ILLEGAL, counts == 6)


@pytest.mark.parametrize("name", ["end_easy", "middle_easy", "middle_medium"])
def test_every_move_agrees_with_our_own_solver_on_a_sample(name):
    """Ten positions of each of the three sets our solver settles in a second."""
    labelled = pons.load(name)
    solver = Solver(6, 7, 4)
    for i in range(0, 1000, 100):
        np.testing.assert_array_equal(
            solver.move_values(list(labelled.moves[i, :labelled.plies[i]])),
            labelled.values[i], err_msg=f"{name} line {i + 1}")


def test_a_line_whose_best_column_disagrees_is_refused():
    with pytest.raises(ValueError, match="line 1: the best column's score -1 is not the "
                                         "position's 2"):
        pons.parse("4 2\n", "4 43,1,1,1,1,1,1\n", "made_up")


@pytest.mark.slow
def test_a_run_is_scored_on_every_set(tmp_path, capsys):
    from warmjax import oracle

    run = write_tiny_run(tmp_path / "run", "connect_four", {"cols": 7})
    oracle.main([str(run), "--benchmark", "pons", "--positions", "6", "--simulations", "2",
                 "--deep-simulations", "4", "--playouts", "4"])
    out = capsys.readouterr().out
    assert "| end_easy (6) |" in out and "AlphaZero.jl" in out and "23.5%" in out
    saved = json.loads((run / "pons.json").read_text())
    assert set(saved["sets"]) == {s.name for s in pons.SETS}
    for name, entry in saved["sets"].items():
        assert entry["positions"] == 6
        for player in ("search", "deep_search", "policy_head", "pure_mcts"):
            assert 0 <= entry[player] <= 1 and round(entry[player] * 6) == entry[player] * 6
        classes = entry["classes"]
        assert classes["won"]["positions"] + classes["drawn"]["positions"] <= 6
        assert classes["quiet"]["positions"] + classes["tactical"]["positions"] == 6
    assert saved["settings"]["deep_simulations"] == 4


@pytest.mark.slow
def test_a_kept_network_is_scored_as_that_network_would_be_as_a_runs_final(tmp_path, capsys):
    """`--iteration N` judges the network the run kept after N: the same rates as a run
    whose final network is that one (a copy of the folder with it as network.msgpack);
    `--no-pure-mcts` leaves the reference out; a network not kept is one line."""
    import shutil

    import jax

    from warmjax import oracle
    from warmjax.train import network_io, run_folder

    run = write_tiny_run(tmp_path / "run", "connect_four", {"cols": 7})
    env, network, _ = network_io.load_network(run)
    earlier = network.init(jax.random.PRNGKey(5))
    config = run_folder.read_config(run)
    network_io.save_network(run_folder.kept_network_folder(run, 3), config, network, earlier,
                            iteration=3)
    other = shutil.copytree(run, tmp_path / "other")
    network_io.save_network(other, config, network, earlier, iteration=3)
    flags = ["--benchmark", "pons", "--positions", "4", "--simulations", "2",
             "--deep-simulations", "3", "--no-pure-mcts"]
    oracle.main([str(run), *flags, "--iteration", "3"])
    oracle.main([str(other), *flags])
    kept = json.loads((run / "pons_iteration_003.json").read_text())
    final = json.loads((other / "pons.json").read_text())
    assert not (run / "pons.json").exists()
    for name in final["sets"]:
        assert "pure_mcts" not in kept["sets"][name]
        for player in ("search", "deep_search", "policy_head"):
            assert kept["sets"][name][player] == final["sets"][name][player]
    assert kept["settings"]["iteration"] == 3
    assert kept["settings"]["network_sha256"] == final["settings"]["network_sha256"]
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        oracle.main([str(run), *flags, "--iteration", "7"])
    assert exit_.value.code == 2
    assert "kept no network after iteration 7" in capsys.readouterr().err


def test_the_benchmark_refuses_another_board(tmp_path, capsys):
    from warmjax import oracle

    run = write_tiny_run(tmp_path / "run", "connect_four")  # 6×6
    with pytest.raises(SystemExit):
        oracle.main([str(run), "--benchmark", "pons", "--positions", "2"])
    err = capsys.readouterr().err
    assert "oracle: error:" in err and "connect_four 6×6" in err
    assert "train with game.params.cols=7" in err  # what to do about it


def test_a_mistake_is_a_worse_outcome_not_a_slower_win():
    """Two made-up positions, by hand: in the first, columns 1 and 2 win (one faster),
    3 draws; in the second every legal column draws but 7 (full)."""
    from warmjax.matches.benchmark import mistake_rates

    labelled = pons.parse("4 5\n44 0\n", "4 -5,-1,0,1,1,1,1\n44 0,0,0,0,0,0,43\n", "by_hand")
    np.testing.assert_array_equal(labelled.values[0], [1, 1, 0, -1, -1, -1, -1])
    wrong = mistake_rates(labelled, np.array([1, 0]))  # a slower win; a draw
    np.testing.assert_array_equal(wrong, [False, False])
    np.testing.assert_array_equal(mistake_rates(labelled, np.array([2, 5])), [True, False])
