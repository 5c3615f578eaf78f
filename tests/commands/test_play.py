"""`python -m warmjax.play`: scripted games through stdin, refusals, undo, hint, the end."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest

from warmjax import play

from ..helpers import ROOT, write_tiny_run


@pytest.mark.slow
def test_scripted_connect_four_game_through_a_pipe(tmp_path):
    run = write_tiny_run(tmp_path, "connect_four")
    # A malformed move, an undo, a hint, then columns round and round until the game ends
    # (moves into full columns are refused and the next line is read).
    script = ["7x", "c", "undo", "hint", *(["a", "b", "c", "d", "e", "f"] * 12)]
    out = subprocess.run([sys.executable, "-m", "warmjax.play", str(run), "--seed", "1"],
                         input="\n".join(script) + "\n", capture_output=True, text=True,
                         cwd=ROOT, env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=300)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "refused: cannot read '7x'" in text
    assert "took back your last move and the agent's reply" in text
    assert "agent's policy: " in text
    # The hint's value is the search's Σ π(a)·Q(a) over the moves it shows (to ±0.01).
    hint = next(line for line in text.splitlines() if "agent's policy: " in line)
    value = float(re.search(r"value of the position for you: ([+-][\d.]+)", text).group(1))
    shares = [(float(p) / 100, float(q)) for p, q in re.findall(r"(\d+)% \(Q ([+-][\d.]+)\)",
                                                                 hint)]
    assert shares and abs(sum(p * q for p, q in shares) - value) < 0.06
    assert "The last move is drawn in lower case" in text.splitlines()[1]
    assert "agent (O) plays" in text
    assert "   a b c d e f" in text and " 6 " in text  # coordinates
    assert "game over:" in text.splitlines()[-1]
    assert text.count("game over") == 1  # the end is said once
    # The banner names the agent's search (the run's PUCT MCTS, m = 4 in the tiny run).
    assert "the agent plays with its network's PUCT MCTS, m = 4." in text.splitlines()[0]
    if "refused: column" in text:
        assert "is full" in text


def run_in_process(run, lines, *args):
    out = io.StringIO()
    code = play.main([str(run), *args], stdin=io.StringIO("\n".join(lines) + "\n"), out=out)
    return code, out.getvalue()


@pytest.mark.slow
def test_gobang_refuses_a_taken_cell_and_marks_the_last_move(tmp_path):
    run = write_tiny_run(tmp_path, "gobang")
    code, text = run_in_process(run, ["c3", "c3", "z9", "quit"])
    assert code == 0
    assert "refused: c3 is taken" in text
    assert "refused: move 'z9' is off the 6x6 board" in text
    assert " 3 . . x" in text  # the last move in lower case
    assert text.rstrip().endswith("game abandoned")


@pytest.mark.slow
def test_second_player_and_end_of_input(tmp_path):
    run = write_tiny_run(tmp_path, "othello")
    code, text = run_in_process(run, ["pass"], "--colour", "second")
    assert code == 0
    assert text.index("agent (X) plays") < text.index("your move (O)")
    assert "refused: you cannot pass: you have a legal move" in text
    assert "end of input: game abandoned" in text


def test_play_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        play.main([str(tmp_path / "missing")])
    assert exit_info.value.code == 2
    assert "error: no run folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        play.main([str(tmp_path), "--colour", "red"])
