"""The network (nets/azg.py): the training convolution switch."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.nets import make_network


def test_training_convolutions_agree():
    # `train_conv` only changes how the convolutions are computed: patches @ kernel or XLA's
    # convolution give the same outputs and the same gradients on the same parameters.
    nets = {impl: make_network(6, (6, 6, 2), "small", dropout=0.0, train_conv=impl)
            for impl in ("patches", "xla")}
    assert make_network(6, (6, 6, 2), "small").train_conv_impl == "patches"  # CPU: auto
    variables = nets["xla"].init(jax.random.PRNGKey(0))
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (5, 6, 6, 2))

    def out_and_grad(net):
        def value_sum(params):
            (logits, v), _ = net.apply_train({**variables, "params": params}, obs,
                                             jax.random.PRNGKey(2))
            return jnp.sum(v) + jnp.sum(jnp.tanh(logits))
        return jax.value_and_grad(value_sum)(variables["params"])

    (a, grad_a), (b, grad_b) = out_and_grad(nets["patches"]), out_and_grad(nets["xla"])
    np.testing.assert_allclose(float(a), float(b), rtol=1e-5)
    for x, y in zip(jax.tree_util.tree_leaves(grad_a), jax.tree_util.tree_leaves(grad_b)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="unknown train_conv 'cudnn'"):
        make_network(6, (6, 6, 2), "small", train_conv="cudnn")
