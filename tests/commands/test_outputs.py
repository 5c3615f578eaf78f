"""Outputs that say what they are (issue 69): `versus.json` with each side's settings and
an interval on each score, `oracle.json` naming the network it judged, and a report that
marks an oracle file the run has since outgrown."""

from __future__ import annotations

import json
import math

import jax
import pytest

from warmjax.analysis import tables
from warmjax.matches.opponents import score_interval
from warmjax.matches.tournament_folder import read_versus
from warmjax.train import network_io, run_folder

from ..helpers import fabricate_run, write_tiny_run


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson's interval, from its formula (Wilson 1927), for the check below."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize("wins, draws, losses", [(97, 1, 2), (10, 0, 0), (0, 4, 6)])
def test_the_score_interval_is_wilsons(wins, draws, losses):
    low, high = score_interval(wins, draws, losses)
    assert (low, high) == pytest.approx(wilson(wins + draws / 2, wins + draws + losses))
    score = (wins + draws / 2) / (wins + draws + losses)
    assert low <= score <= high


@pytest.mark.slow
def test_versus_writes_its_settings_and_intervals(tmp_path, capsys):
    from warmjax import versus

    run = write_tiny_run(tmp_path / "run")
    versus.main([str(run), "--games", "4", "--opponents", "random", "pure_mcts",
                 "--simulations", "2", "--playouts", "3"])
    out = capsys.readouterr().out
    assert "the agent: mcts, m = 2, T′ = 15, trained network" in out
    assert "| pure_mcts | pure_mcts, m = 3, T′ = 15 |" in out
    assert "95% interval" in out and f"wrote {run / 'versus.json'}" in out
    saved = json.loads((run / "versus.json").read_text())
    assert saved["agent"]["simulations"] == 2 and saved["games"] == 4
    for name in ("random", "pure_mcts"):
        r = saved["opponents"][name]
        assert r["wins"] + r["draws"] + r["losses"] == 4
        assert r["score_ci95"] == pytest.approx(list(wilson(r["wins"] + r["draws"] / 2, 4)))
    assert saved["opponents"]["pure_mcts"]["settings"]["simulations"] == 3
    # The report reads it, as it reads the files written before the settings were.
    assert read_versus(run)["random"].wins == saved["opponents"]["random"]["wins"]
    (tmp_path / "old.json").write_text(json.dumps(
        {"random": {"wins": 3, "draws": 0, "losses": 1, "score": 0.75}}))
    assert read_versus(tmp_path / "old.json")["random"].losses == 1


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_the_report_marks_an_oracle_file_the_run_outgrew(tmp_path):
    from warmjax import oracle

    run = fabricate_run(tmp_path / "run", mode="adaptive")
    oracle.main([str(run), "--positions", "4", "--simulations", "2", "--players", "random",
                 "search"])
    settings = json.loads((run / "oracle.json").read_text())["settings"]
    info = network_io.network_info(run)
    assert settings["iteration"] == info["iteration"]
    assert settings["network_sha256"] == info["sha256"]
    read = run_folder.read_run(run)
    assert "(stale)" not in tables.judged_markdown([read])
    tables.final_figures(read)  # current: no complaint
    # The run trains on: a new network after a later iteration.
    agent_env, network, variables = network_io.load_network(run)
    network_io.save_network(run, read.config, network, network.init(jax.random.PRNGKey(9)),
                            iteration=info["iteration"] + 5)
    read = run_folder.read_run(run)
    text = tables.judged_markdown([read])
    assert "| Connect Four | Rollout adaptive | 0 (stale) |" in text
    assert (f"its oracle.json judged the network after iteration {info['iteration']}, the "
            f"run is now at iteration {info['iteration'] + 5}") in text
    with pytest.raises(ValueError, match="judged the network after iteration"):
        tables.final_figures(read)


STATUS = ("import time\nfrom warmjax import cli\nwith cli.status('compiling the thing'):\n"
          "    time.sleep(1.3)\nprint('after')")


@pytest.mark.parametrize("terminal", [True, False])
def test_a_long_step_says_what_it_does_only_on_a_terminal(terminal):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("TTY_")}
    if terminal:  # how rich is told that stderr is a terminal
        env.update(TTY_COMPATIBLE="1", TTY_INTERACTIVE="1")
    out = subprocess.run([sys.executable, "-c", STATUS], capture_output=True, text=True,
                         env=env, check=True)
    assert out.stdout == "after\n"
    if terminal:
        assert "compiling the thing" in out.stderr and "0:00:01" in out.stderr
    else:
        assert out.stderr == ""
