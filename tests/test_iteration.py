"""The compiled iteration (train/iteration.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .helpers import SMOKE, compose_config


def test_iteration_vmaps_over_independent_runs(tmp_path):
    from warmjax.train.iteration import Trainer

    config = compose_config(SMOKE, tmp_path)
    trainer = Trainer(config)
    first = trainer.init_state()
    second = first.replace(rng=jax.random.PRNGKey(7))
    runs = jax.tree_util.tree_map(lambda a, b: jnp.stack([a, b]), first, second)
    states, metrics = jax.jit(jax.vmap(trainer.iteration))(runs)
    assert np.asarray(states.iteration).tolist() == [1, 1]
    assert np.asarray(metrics["examples"]).shape == (2,)
    # Each run's buffer holds its own self-play: the two seeds played different games.
    obs = np.asarray(states.buffer.obs)
    assert not np.array_equal(obs[0], obs[1])
