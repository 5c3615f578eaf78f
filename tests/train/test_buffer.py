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
