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
    assert text.count("game over:") == 1  # the end is said once, then the next step asked
    after = text[text.index("game over:"):].splitlines()
    assert after[1].startswith("new game, undo or quit? ")
    assert after[-1] == "end of input"
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


class Player:
    """A human at the keyboard: column letters in turn while a game is on; at each game's
    end the next of `after_end` (the prompt tells it which is asked)."""

    def __init__(self, out, after_end):
        self.out, self.after_end, self.turn = out, list(after_end), 0

    def isatty(self):
        return False

    def readline(self):
        if self.out.getvalue().endswith("new game, undo or quit? "):
            return self.after_end.pop(0) + "\n" if self.after_end else ""
        self.turn += 1
        return "abcdef"[self.turn % 6] + "\n"


@pytest.mark.slow
def test_a_finished_game_offers_undo_and_a_new_game(tmp_path):
    run = write_tiny_run(tmp_path, "connect_four")
    out = io.StringIO()
    code = play.main([str(run), "--seed", "1"], stdin=Player(out, ["hint", "undo", "new",
                                                                   "quit"]), out=out)
    text = out.getvalue()
    assert code == 0
    ends = [i for i, line in enumerate(text.splitlines()) if line.startswith("game over:")]
    assert len(ends) == 3  # the first game, again after the undo, and the second game
    lines = text.splitlines()
    assert lines[ends[0] + 1] == "new game, undo or quit? hint"
    assert lines[ends[0] + 2] == "refused: the game is over; type new, undo or quit"
    assert lines[ends[0] + 4] == "took back your last move and the agent's reply"
    assert lines[ends[0] + 5 + 8].startswith("your move (X): ")  # the board, then play
    second = lines.index("game 2: you are X")
    assert ends[1] < second < ends[2]
    assert lines[second + 1:second + 9] == ["   a b c d e f", *[f" {r} . . . . . ." for r in
                                                               range(1, 7)], "X to move"]
    assert lines[-1].endswith("new game, undo or quit? quit")


def test_play_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        play.main([str(tmp_path / "missing")])
    assert exit_info.value.code == 2
    assert "error: no run folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        play.main([str(tmp_path), "--colour", "red"])
