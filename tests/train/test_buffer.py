"""The replay buffer (train/buffer.py)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from warmjax.train.buffer import ReplayBuffer, empty_buffer, write_slot


def test_buffer_ring_overwrites_oldest_slot():
    buffer = empty_buffer(2, 3, (6, 6, 2), 6)

    def slot(value, count):
        return ReplayBuffer(obs=jnp.zeros((3, 6, 6, 2), bool), policy=jnp.zeros((3, 6)),
                            value=jnp.full(3, value), valid=jnp.arange(3) < count)

    buffer = write_slot(buffer, 0, slot(1.0, 3))
    buffer = write_slot(buffer, 1, slot(2.0, 2))
    assert int(buffer.size()) == 5
    buffer = write_slot(buffer, 0, slot(3.0, 1))  # iteration 3 replaces iteration 1
    np.testing.assert_array_equal(np.asarray(buffer.value), [3, 3, 3, 2, 2, 2])
    assert int(buffer.size()) == 3


def test_first_row_finds_each_position_where_slot_rows_wrote_it():
    """T = 3 plies, E = 2 games, 2 symmetry copies: every position's value and valid flag
    sit on its two rows, its copies' policies side by side, at `first_row`."""
    from warmjax.train.buffer import first_row, slot_rows

    plies, games, copies, actions = 3, 2, 2, 4
    value = jnp.arange(plies * games, dtype=jnp.float32).reshape(plies, games)
    valid = value % 2 == 0
    # policy [P, copies, A]: position p's copy c holds 10·p + c everywhere
    policy = (10.0 * jnp.arange(plies * games)[:, None, None]
              + jnp.arange(copies)[None, :, None]) * jnp.ones((1, 1, actions))
    obs = jnp.zeros((plies * games, copies, 3, 3, 1), jnp.bool_)
    rows = slot_rows(obs, policy, value, valid)
    assert rows.valid.shape == (plies * games * copies,)
    for ply in range(plies):
        for game in range(games):
            first = first_row(0, ply, game, plies, games, copies)
            for c in range(copies):
                assert float(rows.value[first + c]) == float(value[ply, game])
                assert bool(rows.valid[first + c]) == bool(valid[ply, game])
                assert float(rows.policy[first + c, 0]) == 10.0 * (ply * games + game) + c
