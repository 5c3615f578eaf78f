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


@pytest.mark.slow
def test_loss_matches_hand_computation():
    net = make_network(6, (6, 6, 2), "small", dropout=0.0)
    variables = net.init(jax.random.PRNGKey(0))
    rng = np.random.default_rng(0)
    obs = jnp.asarray(rng.random((5, 6, 6, 2)) < 0.3)
    policy = jnp.asarray(rng.dirichlet(np.ones(6), 5), jnp.float32)
    value = jnp.asarray(rng.choice([-1.0, 0.0, 1.0], 5), jnp.float32)
    total, (v_loss, p_loss, _) = loss_fn(net, variables["params"], variables["batch_stats"],
                                          (obs, policy, value), jax.random.PRNGKey(1))
    (logits, v, *_), _ = net.apply_train(variables, obs, jax.random.PRNGKey(1))
    logits, v = np.asarray(logits, np.float64), np.asarray(v, np.float64)
    log_p = logits - np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1, keepdims=True)) \
        - logits.max(1, keepdims=True)
    expected_p = -np.mean(np.sum(np.asarray(policy) * log_p, axis=1))
    expected_v = np.mean((v - np.asarray(value)) ** 2)
    assert float(v_loss) == pytest.approx(expected_v, rel=1e-5)
    assert float(p_loss) == pytest.approx(expected_p, rel=1e-5)
    assert float(total) == pytest.approx(expected_v + expected_p, rel=1e-5)
    # train.value_weight c (a departure): c·MSE + cross-entropy; the parts stay unweighted.
    total, (v_weighted, p_weighted, _) = loss_fn(
        net, variables["params"], variables["batch_stats"], (obs, policy, value),
        jax.random.PRNGKey(1), value_weight=3.0)
    assert float(total) == pytest.approx(3.0 * expected_v + expected_p, rel=1e-5)
    assert (float(v_weighted), float(p_weighted)) == (float(v_loss), float(p_loss))



def random_buffer(seed: int, rows: int, valid_rows: int) -> ReplayBuffer:
    """`rows` random examples with one-hot policy targets, the first `valid_rows` valid."""
    rng = np.random.default_rng(seed)
    return ReplayBuffer(
        obs=jnp.asarray(rng.random((rows, 6, 6, 2)) < 0.3),
        policy=jnp.asarray(np.eye(6)[rng.integers(0, 6, rows)], jnp.float32),
        value=jnp.asarray(rng.choice([-1.0, 1.0], rows), jnp.float32),
        valid=jnp.arange(rows) < valid_rows,
    )


@pytest.mark.slow
def test_update_fits_a_small_buffer():
    net = make_network(6, (6, 6, 2), "small", dropout=0.0)
    variables = net.init(jax.random.PRNGKey(0))
    optimizer = optax.adam(0.005)
    buffer = random_buffer(1, 256, 200)
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


@pytest.mark.slow
def test_lr_scale_is_adam_at_the_scaled_learning_rate():
    net = make_network(6, (6, 6, 2), "small", dropout=0.0)
    variables = net.init(jax.random.PRNGKey(0))
    buffer = random_buffer(2, 64, 64)

    def trained(lr, scale):
        optimizer = optax.adam(lr)
        update = make_update(net, optimizer, 2, 16)
        out, _, _ = jax.jit(update)(variables, optimizer.init(variables["params"]), buffer,
                                    jax.random.PRNGKey(3), scale)
        return jax.tree_util.tree_leaves(out["params"])

    for a, b in zip(trained(0.005, 0.25), trained(0.00125, 1.0)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.slow
def test_value_weight_scales_the_value_gradient_in_the_update():
    # One SGD step on one minibatch (the whole buffer; batch norm's batch statistics and the
    # mean loss do not depend on the order): θ − η·(c·∇MSE + ∇CE), the two gradients taken
    # apart here.
    net = make_network(6, (6, 6, 2), "small", dropout=0.0)
    variables = net.init(jax.random.PRNGKey(0))
    buffer = random_buffer(3, 32, 32)
    lr, c = 0.1, 4.0
    update = make_update(net, optax.sgd(lr), 1, 32, value_weight=c)
    out, _, _ = jax.jit(update)(variables, optax.sgd(lr).init(variables["params"]), buffer,
                                jax.random.PRNGKey(5))

    def part(params, which):
        (logits, v, *_), _ = net.apply_train({"params": params,
                                              "batch_stats": variables["batch_stats"]},
                                             buffer.obs, jax.random.PRNGKey(0))
        if which == "value":
            return jnp.mean((v - buffer.value) ** 2)
        return -jnp.mean(jnp.sum(buffer.policy * jax.nn.log_softmax(logits), axis=-1))

    grad_v = jax.grad(part)(variables["params"], "value")
    grad_p = jax.grad(part)(variables["params"], "policy")
    expected = jax.tree_util.tree_map(lambda w, gv, gp: w - lr * (c * gv + gp),
                                      variables["params"], grad_v, grad_p)
    for a, b in zip(jax.tree_util.tree_leaves(out["params"]),
                    jax.tree_util.tree_leaves(expected)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="value loss's weight must be positive, got 0"):
        make_update(net, optax.sgd(lr), 1, 32, value_weight=0.0)


def test_cosine_learning_rate_by_hand():
    from warmjax.train.iteration import learning_rate_scale
    from warmjax.train.run_config import ConfigError, RunConfig, TrainConfig

    train = TrainConfig(iterations=5, learning_rate=0.01, final_learning_rate=0.001)
    # Half cosine from 1 to 0.1 over iterations 1..5: 1, 0.1 + 0.9·(1 + cos(π/4))/2, 0.55, …
    expected = [1.0, 0.1 + 0.45 * (1 + np.cos(np.pi / 4)), 0.55,
                0.1 + 0.45 * (1 - np.cos(np.pi / 4)), 0.1, 0.1]
    got = [float(learning_rate_scale(train, jnp.int32(i))) for i in range(1, 7)]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert learning_rate_scale(TrainConfig(), jnp.int32(3)) == 1.0
    with pytest.raises(ConfigError, match="train.final_learning_rate must be positive"):
        RunConfig.from_dict({"train": {"final_learning_rate": 0.0}})


@pytest.mark.slow
def test_reply_target_adds_its_weighted_cross_entropy_and_trains_only_its_head_more():
    """train.reply_weight w (a departure, method.md §6): the loss adds w times the reply
    head's cross-entropy against the batch's reply targets (by hand); the reported losses
    stay the value and policy terms; a zero reply target adds nothing; the head's
    parameters get gradient only from that term, and the shared ones get its share."""
    net = make_network(6, (6, 6, 2), "small", dropout=0.0, reply_head=True)
    variables = net.init(jax.random.PRNGKey(0))
    assert "reply" in variables["params"]
    rng = np.random.default_rng(3)
    obs = jnp.asarray(rng.random((5, 6, 6, 2)) < 0.3)
    policy = jnp.asarray(rng.dirichlet(np.ones(6), 5), jnp.float32)
    value = jnp.asarray(rng.choice([-1.0, 0.0, 1.0], 5), jnp.float32)
    reply = jnp.asarray(rng.dirichlet(np.ones(6), 5), jnp.float32).at[4].set(0.0)
    key = jax.random.PRNGKey(1)
    params, stats = variables["params"], variables["batch_stats"]
    plain, (v_loss, p_loss, _) = loss_fn(net, params, stats, (obs, policy, value), key)
    total, (v_with, p_with, _) = loss_fn(net, params, stats, (obs, policy, value, reply), key,
                                         reply_weight=0.25)
    reply_logits = net.apply_train(variables, obs, key)[0].reply_logits
    logits = np.asarray(reply_logits, np.float64)
    log_q = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    # Row 4's zero target counts in the mean's denominator and adds nothing to its sum.
    expected = -np.sum(np.asarray(reply, np.float64) * log_q) / 5
    assert float(total) == pytest.approx(float(plain) + 0.25 * expected, rel=1e-5)
    assert (float(v_with), float(p_with)) == (float(v_loss), float(p_loss))
    grad = lambda batch, w: jax.grad(  # noqa: E731
        lambda p: loss_fn(net, p, stats, batch, key, reply_weight=w)[0])(params)
    without = grad((obs, policy, value), 0.0)
    assert all(not np.any(np.asarray(g)) for g in jax.tree_util.tree_leaves(without["reply"]))
    with_reply = grad((obs, policy, value, reply), 0.25)
    assert any(np.any(np.asarray(g)) for g in jax.tree_util.tree_leaves(with_reply["reply"]))
    # The value and policy heads' own parameters see no reply term.
    for head in ("Dense_2", "Dense_3"):
        for a, b in zip(jax.tree_util.tree_leaves(without[head]),
                        jax.tree_util.tree_leaves(with_reply[head])):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-7)
    # Inference does not change: the same outputs as a network without the head.
    plain_net = make_network(6, (6, 6, 2), "small", dropout=0.0)
    from warmjax.nets import without_reply_head
    for a, b in zip(net.apply(variables, obs), plain_net.apply(without_reply_head(variables),
                                                               obs)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with pytest.raises(ValueError, match="needs a network with the reply head"):
        make_update(plain_net, optax.adam(0.01), 1, 4, reply_weight=0.25)


def test_wdl_targets_by_hand():
    """model.wdl_head (a departure, method.md §6): a result is a one-hot; a value target t
    keeps its mean P(win) − P(loss) = t with the largest draw share; the value of logits
    is P(win) − P(loss) of their softmax."""
    from warmjax.nets import wdl_target, wdl_value

    got = np.asarray(wdl_target(jnp.asarray([1.0, 0.0, -1.0, 0.25, -0.5])))
    np.testing.assert_allclose(got, [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.25, 0.75, 0],
                                     [0, 0.5, 0.5]], atol=1e-7)
    # log(2), log(1), log(1): probabilities 1/2, 1/4, 1/4, so the value is 1/4.
    assert float(wdl_value(jnp.log(jnp.asarray([2.0, 1.0, 1.0])))) == pytest.approx(0.25)


@pytest.mark.slow
def test_wdl_head_trains_a_cross_entropy_and_reports_the_squared_error():
    """With the win/draw/loss head the total is the policy's cross-entropy plus the WDL
    logits' cross-entropy against the targets' distributions (by hand, in float64); the
    value loss reported is the squared error of P(win) − P(loss), which inference
    returns as the value; the saved network loads with its head."""
    net = make_network(6, (6, 6, 2), "small", dropout=0.0, wdl_head=True)
    variables = net.init(jax.random.PRNGKey(0))
    assert variables["params"]["wdl"]["kernel"].shape[-1] == 3
    rng = np.random.default_rng(4)
    obs = jnp.asarray(rng.random((6, 6, 6, 2)) < 0.3)
    policy = jnp.asarray(rng.dirichlet(np.ones(6), 6), jnp.float32)
    value = jnp.asarray([1.0, 0.0, -1.0, 0.5, -0.25, 1.0], jnp.float32)
    key = jax.random.PRNGKey(1)
    total, (v_loss, p_loss, _) = loss_fn(net, variables["params"], variables["batch_stats"],
                                          (obs, policy, value), key, value_weight=2.0)
    out, _ = net.apply_train(variables, obs, key)
    wdl = np.asarray(out.wdl_logits, np.float64)
    log_q = wdl - np.log(np.exp(wdl).sum(1, keepdims=True))
    p = np.exp(log_q)
    targets = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.5, 0], [0, 0.75, 0.25],
                        [1, 0, 0]])
    expected_ce = -np.mean(np.sum(targets * log_q, axis=1))
    np.testing.assert_allclose(np.asarray(out.value), p[:, 0] - p[:, 2], rtol=1e-5, atol=1e-6)
    expected_mse = np.mean((p[:, 0] - p[:, 2] - np.asarray(value)) ** 2)
    assert float(v_loss) == pytest.approx(expected_mse, rel=1e-5)
    assert float(total) == pytest.approx(2.0 * expected_ce + float(p_loss), rel=1e-5)
    # Inference (running batch statistics) returns P(win) − P(loss) of its own WDL logits.
    (_, v), sown = net.module.apply(variables, obs, train=False, mutable=["intermediates"])
    q = np.asarray(jax.nn.softmax(sown["intermediates"]["wdl_logits"][0]), np.float64)
    np.testing.assert_allclose(np.asarray(net.apply(variables, obs)[1]), q[:, 0] - q[:, 2],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(v), q[:, 0] - q[:, 2], rtol=1e-5, atol=1e-6)


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_wdl_network_saves_and_loads(tmp_path):
    from warmjax.games import make
    from warmjax.train.network_io import load_network, save_network
    from warmjax.train.run_config import ModelConfig, RunConfig

    config = RunConfig(model=ModelConfig(preset=None, channels=4, fc=(8, 8), wdl_head=True))
    env = make("connect_four")
    net = config.model.build(env)
    variables = net.init(jax.random.PRNGKey(0))
    save_network(tmp_path, config, net, variables, iteration=3)
    _, loaded, got = load_network(tmp_path)
    assert loaded.module.wdl_head
    obs = jnp.zeros((2, *env.observation_shape))
    for a, b in zip(net.apply(variables, obs), loaded.apply(got, obs)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
