"""Warm-start schedules and the adaptive switch (train/warmstart.py)."""

from __future__ import annotations

import numpy as np

from warmjax.train.warmstart import (
    BASELINE,
    ENHANCED,
    ENHANCED_VS_BASELINE,
    adaptive_switch,
    schedule,
)


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
