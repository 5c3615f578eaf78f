"""Checkpoints (train/checkpoint.py): a checkpoint written before a later version added a
state field for a setting that is off still resumes, and nothing else is let through."""

from __future__ import annotations

import hashlib
import json

import jax
import numpy as np
import pytest
from flax import serialization

from warmjax.train.checkpoint import MAGIC, CorruptCheckpoint, decode, encode

from ..helpers import SMOKE, compose_config


def _written(state_dict) -> bytes:
    """A checkpoint file's bytes around `state_dict`, as `encode` writes them."""
    payload = serialization.msgpack_serialize(state_dict)
    header = {"iteration": 1, "magic": MAGIC, "sha256": hashlib.sha256(payload).hexdigest(),
              "payload_bytes": len(payload)}
    return json.dumps(header).encode() + b"\n" + payload


def test_a_checkpoint_from_before_the_reply_targets_still_resumes(tmp_path):
    from warmjax.train.iteration import Trainer

    trainer = Trainer(compose_config(SMOKE, tmp_path))
    state = jax.device_get(trainer.init_state())
    assert state.buffer.reply is None  # train.reply_weight is off
    # Such a run's checkpoint as written before the buffer had a `reply` field.
    old = serialization.to_state_dict(state)
    del old["buffer"]["reply"]
    restored, header = decode(_written(old), state)
    assert header["iteration"] == 1 and restored.buffer.reply is None
    for a, b in zip(jax.tree_util.tree_leaves(restored), jax.tree_util.tree_leaves(state),
                    strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # Today's checkpoints round-trip, the absent field included.
    again, _ = decode(encode(state, {"iteration": 1}), state)
    assert again.buffer.reply is None
    # A field the run needs is never filled in: such a file does not match the run.
    broken = serialization.to_state_dict(state)
    del broken["buffer"]["value"]
    with pytest.raises(CorruptCheckpoint, match="does not match the run's state"):
        decode(_written(broken), state)
