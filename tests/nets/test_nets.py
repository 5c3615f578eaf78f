"""The network (nets/azg.py): the training convolution switch."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.nets import make_network


@pytest.mark.slow
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
            (logits, v, *_), _ = net.apply_train({**variables, "params": params}, obs,
                                                 jax.random.PRNGKey(2))
            return jnp.sum(v) + jnp.sum(jnp.tanh(logits)), (logits, v)
        return jax.jit(jax.value_and_grad(value_sum, has_aux=True))(variables["params"])

    ((a, out_a), grad_a), ((b, out_b), grad_b) = (out_and_grad(nets["patches"]),
                                                  out_and_grad(nets["xla"]))
    # The sum has 185 float32 terms of size up to 1 and cancels to about -0.23, so its
    # error is bounded against the terms' size, not its own: CI once saw 2.5e-6 (1.1e-5
    # relative) on another CPU. Each output, compared alone, agrees to float32 rounding.
    np.testing.assert_allclose(float(a), float(b), rtol=0, atol=185 * 1e-7)
    for x, y in zip(out_a, out_b):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-5)
    for x, y in zip(jax.tree_util.tree_leaves(grad_a), jax.tree_util.tree_leaves(grad_b)):
        # Float32 sums in another order: each leaf agrees to about 1e-6 of its norm.
        assert float(jnp.linalg.norm(x - y)) <= 1e-5 * float(jnp.linalg.norm(y)) + 1e-9
    with pytest.raises(ValueError, match="unknown train_conv 'cudnn'"):
        make_network(6, (6, 6, 2), "small", train_conv="cudnn")


@pytest.mark.slow
def test_mixed_precision_keeps_float32_weights_and_close_outputs():
    # bfloat16 multiplications (8 bits of mantissa) against the float32 network on the same
    # parameters: outputs agree to bfloat16's precision, and the weights stay float32.
    f32 = make_network(6, (6, 6, 2), "small", dropout=0.0)
    bf16 = make_network(6, (6, 6, 2), "small", dropout=0.0, mixed_precision=True)
    variables = f32.init(jax.random.PRNGKey(0))
    assert all(x.dtype == jnp.float32 for x in jax.tree_util.tree_leaves(
        bf16.init(jax.random.PRNGKey(0))))
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (32, 6, 6, 2))
    (la, va), (lb, vb) = jax.jit(f32.apply)(variables, obs), jax.jit(bf16.apply)(variables, obs)
    assert lb.dtype == vb.dtype == jnp.float32
    assert not np.array_equal(np.asarray(la), np.asarray(lb))  # it really is another product
    np.testing.assert_allclose(np.asarray(lb), np.asarray(la), atol=0.05 * float(jnp.abs(la).max()))
    np.testing.assert_allclose(np.asarray(vb), np.asarray(va), atol=0.02)

    def loss(net, params):
        (logits, value, *_), _ = net.apply_train({**variables, "params": params}, obs,
                                                 jax.random.PRNGKey(2))
        return jnp.mean(value ** 2) + jnp.mean(jax.nn.logsumexp(logits, axis=-1))

    grads = jax.jit(jax.grad(lambda p: loss(bf16, p)))(variables["params"])
    reference = jax.jit(jax.grad(lambda p: loss(f32, p)))(variables["params"])
    for g, r in zip(jax.tree_util.tree_leaves(grads), jax.tree_util.tree_leaves(reference)):
        assert g.dtype == jnp.float32 and np.all(np.isfinite(np.asarray(g)))
        cosine = float(jnp.vdot(g, r) / (jnp.linalg.norm(g) * jnp.linalg.norm(r) + 1e-12))
        assert cosine > 0.95  # bfloat16 rounding, not another direction


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_same_padding_keeps_the_board_for_the_dense_layers(tmp_path):
    # AlphaZero General's two unpadded convolutions leave (6 − 4)² = 4 squares of 32 channels
    # for the first dense layer of `small` (128 inputs); all four padded leave 36 (1,152).
    # The setting travels in network.json, so a saved network loads with its own layout.
    from warmjax.games import make
    from warmjax.train.network_io import load_network, save_network
    from warmjax.train.run_config import GameConfig, ModelConfig, RunConfig

    def dense_inputs(net):
        return net.init(jax.random.PRNGKey(0))["params"]["Dense_0"]["kernel"].shape[0]

    assert dense_inputs(make_network(7, (6, 7, 2), "small")) == 2 * 3 * 32
    assert dense_inputs(make_network(7, (6, 7, 2), "small", same_padding=True)) == 6 * 7 * 32
    env = make("connect_four")
    config = RunConfig(game=GameConfig(name="connect_four"),
                       model=ModelConfig(preset="small", same_padding=True))
    net = make_network(env.num_actions, env.observation_shape, "small", same_padding=True)
    variables = net.init(jax.random.PRNGKey(3))
    save_network(tmp_path, config, net, variables, iteration=1)
    _, loaded, again = load_network(tmp_path)
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (4, *env.observation_shape))
    for x, y in zip(net.apply(variables, obs), loaded.apply(again, obs)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
