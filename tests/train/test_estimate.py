"""The CPU cost estimate of the paper profile (train/estimate.py, run.py)."""

from __future__ import annotations

import pytest

from warmjax.train import estimate

from ..helpers import compose_config


def test_paper_profile_on_cpu_states_its_cost(tmp_path, monkeypatch, capsys):
    from warmjax import run

    config = compose_config(["+experiment=adaptive_c4", "model=small"], tmp_path)
    assert config.profile_name == "paper"
    monkeypatch.setattr(run, "estimate_paper_seconds", lambda c: 36_000.0)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    assert run.warn_paper_on_cpu(config, confirm=True) is False
    out = capsys.readouterr().out
    assert "about 10 hours" in out and "profile=fast" in out  # the main job's profile
    monkeypatch.setattr("builtins.input", lambda prompt: "y")
    assert run.warn_paper_on_cpu(config, confirm=True) is True
    quick = compose_config(["+experiment=adaptive_c4", "profile=quick"], tmp_path)
    assert run.warn_paper_on_cpu(quick, confirm=True) is True  # no question asked


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_paper_estimate_is_a_real_measurement(tmp_path):

    config = compose_config(["+experiment=adaptive_c4", "model=small", "train.games=4",
                             "train.iterations=2"], tmp_path)
    per_eval = estimate.seconds_per_evaluation(config)
    assert 0 < per_eval < 1
    assert 0 < estimate.estimate_paper_seconds(config) < 3600
    # The arithmetic, by hand, for Connect Four 6x6: 28.8 plies, 2 mirror copies.
    t, plies = config.train, 0.8 * 36
    per_iteration = (t.games * plies * config.search.simulations
                     + t.epochs * t.replay_iterations * t.games * plies * 2 * 3
                     + config.arena.games * plies * config.search.simulations)
    assert estimate.run_seconds(config, 1e-3) == pytest.approx(2 * per_iteration * 1e-3)
    bigger = compose_config(["+experiment=adaptive_c4", "model=small", "train.games=4",
                             "train.iterations=4"], tmp_path)
    assert estimate.run_seconds(bigger, per_eval) == pytest.approx(
        2 * estimate.run_seconds(config, per_eval))
