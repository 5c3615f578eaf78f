"""A measure of the arms that is not a learning curve, added by name (`arm_measures`): the
self-play speed, against hand-computed moves per second."""

from __future__ import annotations

import numpy as np
import pytest

from warmjax.analysis import report

from ..helpers import metric_row
from .synthetic import write_study_run

GAMES = 50  # write_study_run's games per iteration
PLIES = 20.0


def _rows(seconds: float, iterations: int = 4) -> list:
    # One iteration without a self-play time (an old run's row) counts neither its moves
    # nor its seconds.
    return [metric_row(iteration=it, oracle_policy=0.3 + 0.05 * it, oracle_optimal=0.6,
                       selfplay_mean_plies=PLIES,
                       seconds_selfplay=None if it == 1 else seconds * it)
            for it in range(1, iterations + 1)]


@pytest.fixture(scope="module")
def studied(tmp_path_factory):
    root = tmp_path_factory.mktemp("speed")
    seconds = {("none", s): 10.0 + s for s in range(3)}
    seconds |= {("adaptive", s): 20.0 - s for s in range(3)}
    for (mode, seed), sec in seconds.items():
        write_study_run(root / f"{mode}_{seed}", "connect_four", {}, mode, "wrora", seed, 4,
                        _rows(sec))
    # Iterations 2-4 hold 3 × 50 × 20 = 3000 moves in (2 + 3 + 4) × seconds.
    speed = {k: 3 * GAMES * PLIES / (9 * sec) for k, sec in seconds.items()}
    return root, speed


def test_selfplay_speed_per_arm_and_against_the_baseline(studied, tmp_path):
    root, speed = studied
    rec = report.study_record([str(root)], measures=["selfplay_speed"], log=lambda _: None)
    (family,) = rec["families"]
    arms = {a["arm"]: a for a in family["arm_measures"]["selfplay_speed"]["arms"]}
    base, warm = arms["Baseline"], arms["WRoRa adaptive"]
    assert base["runs"]["1"] == pytest.approx(speed["none", 1])
    assert base["mean"] == pytest.approx(np.mean([speed["none", s] for s in range(3)]))
    assert base["vs_baseline"] is None
    diffs = [speed["adaptive", s] - speed["none", s] for s in range(3)]
    assert warm["vs_baseline"]["diff"] == pytest.approx(np.mean(diffs))
    assert warm["vs_baseline"]["n"] == 3

    written = report.render_study(rec, str(tmp_path / "with"))
    text = written["study.md"].read_text()
    section = text.split("### Self-play speed (moves per wall second)")[1]
    row = next(line for line in section.splitlines() if line.startswith("| Baseline | 3 | "))
    assert f"{np.mean([speed['none', s] for s in range(3)]):.0f} [" in row


def test_a_report_without_the_measure_has_none_and_a_bad_name_is_refused(studied, tmp_path):
    root, _ = studied
    text = report.write_study([str(root)], str(tmp_path / "without"),
                              log=lambda _: None)["study.md"].read_text()
    assert "Self-play speed" not in text
    with pytest.raises(ValueError, match="no arm measure named 'speed'; choose from "
                                         "selfplay_speed"):
        report.study_record([str(root)], measures=["speed"])
