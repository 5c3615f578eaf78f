"""The residual network family (nets/resnet.py): sizes worked out by hand, shapes, the patch
convolution against XLA's, learning on a fixed batch, saving and loading, and a checkpoint
of one preset refused by another."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from warmjax.nets import make_network


def hand_count(h, w, c, actions, blocks, filters, policy, value):
    """Trainable parameters layer by layer (convolutions without bias, batch norm's scale
    and offset, dense layers with bias)."""
    stem = 3 * 3 * c * filters + 2 * filters
    tower = blocks * 2 * (3 * 3 * filters * filters + 2 * filters)
    policy_head = filters * policy + 2 * policy + (h * w * policy) * actions + actions
    value_head = (filters * value + 2 * value + (h * w * value) * filters + filters
                  + filters * 1 + 1)
    return stem + tower + policy_head + value_head


def count(variables):
    return sum(int(x.size) for x in jax.tree_util.tree_leaves(variables["params"]))


@pytest.mark.parametrize("preset, layout", [
    ("resnet5x128", (5, 128, 32, 32)), ("resnet5x64", (5, 64, 32, 32)),
    ("resnet3x32", (3, 32, 16, 16))])
def test_parameter_counts_are_the_hand_counts(preset, layout):
    net = make_network(7, (6, 7, 2), preset)  # Connect Four 7×6: 2 planes, 7 moves
    assert count(net.init(jax.random.PRNGKey(0))) == hand_count(6, 7, 2, 7, *layout)
    if preset == "resnet5x128":
        # 2,560 (stem) + 1,477,120 (five blocks) + 13,575 (policy) + 176,449 (value):
        # AlphaZero.jl's 1.67M.
        assert hand_count(6, 7, 2, 7, *layout) == 1_669_704
    # `channels` overrides the filters; AZG's fully connected sizes do not apply.
    assert count(make_network(7, (6, 7, 2), preset, channels=8).init(jax.random.PRNGKey(0))) \
        == hand_count(6, 7, 2, 7, layout[0], 8, *layout[2:])
    with pytest.raises(ValueError, match="residual network: model.fc"):
        make_network(7, (6, 7, 2), preset, fc=(16, 16))


def test_outputs_have_the_heads_shapes_and_range():
    net = make_network(36, (6, 6, 3), "resnet3x32")  # Othello 6×6's planes and moves
    variables = net.init(jax.random.PRNGKey(0))
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.4, (5, 6, 6, 3))
    logits, value = jax.jit(net.apply)(variables, obs)
    assert logits.shape == (5, 36) and value.shape == (5,)
    assert logits.dtype == value.dtype == jnp.float32
    assert np.all(np.abs(np.asarray(value)) <= 1.0)
    (out, stats) = net.apply_train(variables, obs, jax.random.PRNGKey(2))
    assert out.logits.shape == (5, 36) and out.reply_logits is None and out.wdl_logits is None
    assert jax.tree_util.tree_structure(stats) == jax.tree_util.tree_structure(
        variables["batch_stats"])


@pytest.mark.slow
def test_patch_convolution_agrees_with_xla():
    nets = {impl: make_network(7, (6, 7, 2), "resnet3x32", train_conv=impl)
            for impl in ("patches", "xla")}
    variables = nets["xla"].init(jax.random.PRNGKey(0))
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (6, 6, 7, 2))
    outs = {impl: jax.jit(lambda v, o, n=net: n.apply_train(v, o, jax.random.PRNGKey(2)))(
        variables, obs)[0] for impl, net in nets.items()}
    for x, y in zip(outs["patches"][:2], outs["xla"][:2]):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
def test_mixed_precision_keeps_float32_weights_and_close_outputs():
    f32 = make_network(7, (6, 7, 2), "resnet3x32")
    bf16 = make_network(7, (6, 7, 2), "resnet3x32", mixed_precision=True)
    variables = f32.init(jax.random.PRNGKey(0))
    assert all(x.dtype == jnp.float32 for x in jax.tree_util.tree_leaves(
        bf16.init(jax.random.PRNGKey(0))))
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (16, 6, 7, 2))
    (la, va), (lb, vb) = jax.jit(f32.apply)(variables, obs), jax.jit(bf16.apply)(variables, obs)
    assert not np.array_equal(np.asarray(la), np.asarray(lb))
    np.testing.assert_allclose(np.asarray(lb), np.asarray(la), atol=0.05 * float(jnp.abs(la).max()))
    np.testing.assert_allclose(np.asarray(vb), np.asarray(va), atol=0.05)


@pytest.mark.slow
def test_a_few_training_steps_lower_the_loss_on_a_fixed_batch():
    net = make_network(7, (6, 7, 2), "resnet3x32")
    variables = net.init(jax.random.PRNGKey(0))
    key_obs, key_pi, key_z = jax.random.split(jax.random.PRNGKey(1), 3)
    obs = jax.random.bernoulli(key_obs, 0.3, (32, 6, 7, 2))
    target_pi = jax.nn.softmax(3 * jax.random.normal(key_pi, (32, 7)))
    target_z = jax.random.choice(key_z, jnp.array([-1.0, 0.0, 1.0]), (32,))
    optimizer = optax.adam(1e-2)

    def loss(params, stats):
        out, new_stats = net.apply_train({"params": params, "batch_stats": stats}, obs,
                                         jax.random.PRNGKey(2))
        cross = -jnp.mean(jnp.sum(target_pi * jax.nn.log_softmax(out.logits), axis=-1))
        return cross + jnp.mean((out.value - target_z) ** 2), new_stats

    @jax.jit
    def step(params, stats, opt):
        (value, stats), grads = jax.value_and_grad(loss, has_aux=True)(params, stats)
        updates, opt = optimizer.update(grads, opt, params)
        return optax.apply_updates(params, updates), stats, opt, value

    params, stats = variables["params"], variables["batch_stats"]
    opt = optimizer.init(params)
    losses = []
    for _ in range(30):
        params, stats, opt, value = step(params, stats, opt)
        losses.append(float(value))
    assert losses[-1] < 0.5 * losses[0], losses


@pytest.mark.slow
def test_save_and_load_round_trip_and_a_foreign_checkpoint_is_refused(tmp_path):
    from warmjax.games import make
    from warmjax.train.checkpoint import CheckpointDir, ForeignCheckpoint
    from warmjax.train.network_io import load_network, save_network
    from warmjax.train.run_config import GameConfig, ModelConfig, RunConfig

    env = make("connect_four")
    config = RunConfig(game=GameConfig(name="connect_four"),
                       model=ModelConfig(preset="resnet3x32"))
    net = config.model.build(env)
    variables = net.init(jax.random.PRNGKey(3))
    save_network(tmp_path, config, net, variables, iteration=4)
    _, loaded, again = load_network(tmp_path)
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (4, *env.observation_shape))
    for x, y in zip(net.apply(variables, obs), loaded.apply(again, obs)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))

    # A checkpoint written by one preset, resumed by another: one line, not a fallback.
    checkpoints = CheckpointDir(tmp_path / "checkpoints")
    checkpoints.save({"params": variables}, 1, {"iteration": 1})
    small = make_network(env.num_actions, env.observation_shape, "small")
    with pytest.raises(ForeignCheckpoint) as refused:
        checkpoints.latest({"params": small.init(jax.random.PRNGKey(0))}, log=print)
    line = str(refused.value)
    assert "\n" not in line and "state_000001.ckpt" in line
    assert f"{count(variables):,} parameters" in line
    # The same preset resumes it.
    state, header = checkpoints.latest({"params": net.init(jax.random.PRNGKey(9))})
    assert header["iteration"] == 1
    np.testing.assert_array_equal(
        np.asarray(jax.tree_util.tree_leaves(state["params"])[0]),
        np.asarray(jax.tree_util.tree_leaves(variables)[0]))


def test_the_residual_network_loads_without_the_network_that_builds_it():
    """`resnet` stands below `azg` (which builds it): importing it loads the shared layers,
    not AlphaZero General's network, so the two modules import no circle."""
    import subprocess
    import sys

    probe = ("import sys, warmjax.nets.resnet; "
             "print('warmjax.nets.azg' in sys.modules, 'warmjax.nets.layers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120, env={**__import__("os").environ, "JAX_PLATFORMS": "cpu"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False", "True"]
