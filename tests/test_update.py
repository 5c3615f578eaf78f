"""The training loss and update (train/update.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from warmjax.nets import make_network
from warmjax.train.buffer import ReplayBuffer
from warmjax.train.update import loss_fn, make_update


def test_loss_matches_hand_computation():
    net = make_network(6, (6, 6, 2), "small", dropout=0.0)
    variables = net.init(jax.random.PRNGKey(0))
    rng = np.random.default_rng(0)
    obs = jnp.asarray(rng.random((5, 6, 6, 2)) < 0.3)
    policy = jnp.asarray(rng.dirichlet(np.ones(6), 5), jnp.float32)
    value = jnp.asarray(rng.choice([-1.0, 0.0, 1.0], 5), jnp.float32)
    total, (v_loss, p_loss, _) = loss_fn(net, variables["params"], variables["batch_stats"],
                                          (obs, policy, value), jax.random.PRNGKey(1))
    (logits, v), _ = net.apply_train(variables, obs, jax.random.PRNGKey(1))
    logits, v = np.asarray(logits, np.float64), np.asarray(v, np.float64)
    log_p = logits - np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1, keepdims=True)) \
        - logits.max(1, keepdims=True)
    expected_p = -np.mean(np.sum(np.asarray(policy) * log_p, axis=1))
    expected_v = np.mean((v - np.asarray(value)) ** 2)
    assert float(v_loss) == pytest.approx(expected_v, rel=1e-5)
    assert float(p_loss) == pytest.approx(expected_p, rel=1e-5)
    assert float(total) == pytest.approx(expected_v + expected_p, rel=1e-5)



def test_update_fits_a_small_buffer():
    net = make_network(6, (6, 6, 2), "small", dropout=0.0)
    variables = net.init(jax.random.PRNGKey(0))
    optimizer = optax.adam(0.005)
    rng = np.random.default_rng(1)
    rows = 256
    buffer = ReplayBuffer(
        obs=jnp.asarray(rng.random((rows, 6, 6, 2)) < 0.3),
        policy=jnp.asarray(np.eye(6)[rng.integers(0, 6, rows)], jnp.float32),
        value=jnp.asarray(rng.choice([-1.0, 1.0], rows), jnp.float32),
        valid=jnp.arange(rows) < 200,
    )
    update = jax.jit(make_update(net, optimizer, 20, 32))
    _, _, first = update(variables, optimizer.init(variables["params"]), buffer,
                         jax.random.PRNGKey(0))
    assert int(first.steps) == 20 * (200 // 32)
    short = jax.jit(make_update(net, optimizer, 1, 32))
    _, _, one_epoch = short(variables, optimizer.init(variables["params"]), buffer,
                            jax.random.PRNGKey(0))
    # Twenty epochs fit the (random) targets far better than one.
    assert float(first.value) < 0.5 * float(one_epoch.value)
    assert float(first.policy) < 0.7 * float(one_epoch.policy)
