"""The figures' legends never cover a curve: every legend lies outside every panel
(checked on the drawn figure, in display coordinates), however long its labels."""

from __future__ import annotations

import numpy as np
import pytest

from warmjax.analysis import plots, tables
from warmjax.analysis.tables import BalanceSeries, IprimeElo, ProbeCurve
from warmjax.train import run_folder

from ..helpers import fabricate_run, metric_row

LONG = "Rollout adaptive, fpu parent, ε-greedy 0.5, value weight 4, greedy value"


@pytest.fixture
def drawn(monkeypatch):
    """The figures the plots would save, kept open."""
    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: figures.append(fig) or path)
    yield figures
    for fig in figures:
        plots.plt.close(fig)


def overlaps(fig) -> list[str]:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert legends, "the figure has no legend to check"
    found = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            if ax.axison and box.overlaps(ax.get_window_extent(renderer)):
                found.append(ax.get_title() or "an untitled panel")
    return found


def curve(label, k=0):
    its = np.arange(1, 21)
    rate = 0.5 + 0.02 * its - 0.01 * k
    return ProbeCurve("connect_four", label, its, rate, rate - 0.2, np.full(20, 0.03),
                      np.full(20, 0.03), np.full(20, 3), ())


def study_arm(name, mode):
    its = list(range(1, 21))
    band = {"iterations": its, "mean": [0.5 + 0.02 * i for i in its],
            "low": [0.45 + 0.02 * i for i in its], "high": [0.55 + 0.02 * i for i in its]}
    return {"arm": name, "mode": mode, "runs": 6, "curves": {"policy": band, "search": band}}


def test_no_legend_covers_a_curve(drawn, tmp_path):
    plots.plot_probe_curves([curve(f"{LONG} {k}", k) for k in range(6)], "connect_four",
                             tmp_path / "a.png")
    plots.plot_balance([tables.balance_json(BalanceSeries(
        "connect_four", "rollout", {f"{LONG} seed {k}": [(1, 0.1 * k), (2, 0.2)]
                                    for k in range(8)}, (1, 2), (0.3, 0.2), (8, 8)))],
                       "connect_four", tmp_path / "b.png")
    plots.plot_elo_by_iprime(IprimeElo({"rollout": [(1, 10.0, 5.0, 3), (5, 20.0, 4.0, 3)],
                                        "rave": [(1, 0.0, 5.0, 3), (5, 30.0, 4.0, 3)]}, ()),
                             "sweep", tmp_path / "c.png")
    arms = [study_arm("baseline", "none"), study_arm(LONG, "adaptive")]
    plots.plot_study_curves("study", 100, arms, tmp_path / "d.png")
    plots.plot_board_curves("boards", [("6×6", arms), ("6×7", arms)], tmp_path / "e.png")
    comparison = {"diff": 20.0, "ci": [5.0, 35.0]}
    plots.plot_elo_leads({LONG: [(15, comparison), (30, comparison)]}, tmp_path / "f.png")
    plots.plot_strength_over_time([{"label": f"{LONG} {k}", "minutes": [1, 2, 3],
                                    "compute": [1, 2, 3], "compute_source": "estimated",
                                    "policy": [0.5, 0.6, 0.7], "search": [0.6, 0.7, 0.8]}
                                   for k in range(4)], tmp_path / "g.png",
                                  {"policy": 0.85, "search": 0.95})
    rows = [metric_row(iteration=it, arena_wins=3, arena_losses=1) for it in (1, 2, 3)]
    runs = [run_folder.read_run(fabricate_run(tmp_path / f"r{k}", game="tic_tac_toe",
                                              seed=k, metrics=rows, network=False))
            for k in range(4)]
    plots.plot_training(runs, "tic_tac_toe", tmp_path / "h.png")
    assert len(drawn) == 8
    for fig in drawn:
        assert overlaps(fig) == [], fig.texts[0].get_text() if fig.texts else fig
