"""The arena's acceptance rule (train/arena.py)."""

from __future__ import annotations

from warmjax.train.arena import accept


def test_arena_acceptance_rule():
    assert bool(accept(3, 2, 0.6))  # 3 / 5 = 0.6 meets u
    assert not bool(accept(5, 4, 0.6))
    assert not bool(accept(0, 0, 0.6))  # an all-draw arena rejects
    assert bool(accept(1, 0, 1.0))
    assert not bool(accept(0, 3, 0.6))
