"""Warm-start schedules, the adaptive switch and the end of warm start (train/warmstart.py),
and the buffer that drops the warm-start games at that end (`train.drop_warmstart_games`)."""

from __future__ import annotations

import numpy as np
import pytest

from warmjax.train import run_folder
from warmjax.train.loop import train
from warmjax.train.warmstart import (
    BASELINE,
    ENHANCED,
    ENHANCED_VS_BASELINE,
    adaptive_switch,
    first_after,
    schedule,
)

from ..helpers import TEST_CACHE, compose_config


def test_fixed_schedule_weights():
    weights = [float(schedule("fixed", i, False, 4).weight) for i in range(1, 7)]
    np.testing.assert_allclose(weights, [1.0, 0.75, 0.5, 0.25, 0.0, 0.0])
    active = [bool(schedule("fixed", i, False, 4).active) for i in range(1, 7)]
    assert active == [True] * 4 + [False] * 2
    assert int(schedule("fixed", 2, False, 4).selfplay) == ENHANCED
    assert int(schedule("fixed", 5, False, 4).selfplay) == BASELINE
    assert int(schedule("none", 1, False, 4).selfplay) == BASELINE


def test_adaptive_schedule_and_switch():
    np.testing.assert_allclose([float(schedule("adaptive", i, False, 5).weight)
                                for i in (1, 2, 4)], [1.0, 0.5, 0.25])
    assert int(schedule("adaptive", 3, False, 5).selfplay) == ENHANCED_VS_BASELINE
    assert int(schedule("adaptive", 3, True, 5).selfplay) == BASELINE
    assert not bool(schedule("adaptive", 3, True, 5).active)
    assert bool(adaptive_switch(False, True, 1.0))
    assert not bool(adaptive_switch(False, True, 0.0))  # r must be positive
    assert not bool(adaptive_switch(False, True, -3.0))
    assert bool(adaptive_switch(True, False, -3.0))  # for good


def test_first_iteration_after_warm_start():
    assert [bool(first_after("fixed", i, -1, 3)) for i in range(1, 7)] == [
        False, False, False, True, False, False]
    assert not any(bool(first_after("fixed", i, -1, 0)) for i in range(1, 4))  # I′ = 0
    # Adaptive: switched at the end of iteration 4, so iteration 5 is the first after.
    assert [bool(first_after("adaptive", i, 4 if i > 4 else -1, 5)) for i in range(1, 8)] == [
        False, False, False, False, True, False, False]
    assert not bool(first_after("none", 2, -1, 1))


@pytest.mark.slow
def test_drop_warmstart_games_empties_the_buffer_at_the_switch(tmp_path):
    # Fixed I′ = 1, three iterations, a buffer of two iterations (the smoke profile's rs):
    # iteration 2 is the first after warm start. Without the setting the buffer would hold
    # iterations 1 and 2 then.
    config = compose_config(["+experiment=fixed_c4", "profile=smoke", "warmstart.iprime=1",
                             "train.iterations=3", "tensorboard=false", "probe.every=0",
                             "stage_times=false", f"compilation_cache={TEST_CACHE}",
                             "train.drop_warmstart_games=true"], tmp_path)
    train(config, log=lambda _: None)
    rows = run_folder.read_metrics(tmp_path)
    new = [r.new_examples for r in rows]
    assert rows[0].warmstart_active and not rows[1].warmstart_active
    assert rows[0].examples == new[0]
    assert rows[1].examples == new[1]  # iteration 1's warm-start games are gone
    assert rows[2].examples == new[1] + new[2]  # then the ring fills as before
    assert "drop-warm-games" in run_folder.read_run(tmp_path).id.departures
