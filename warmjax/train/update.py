"""Training f_θ′ from f_θ on the replay buffer (method.md §6).

Loss = MSE(v, z) + cross-entropy(π, p), with dropout and batch statistics in training mode,
optimised by Adam. With `value_weight` c ≠ 1 (a departure, method.md §6) it is
c·MSE(v, z) + cross-entropy(π, p); with the win/draw/loss head (`model.wdl_head`, a
departure) the value term is a cross-entropy too (`loss_fn`). One epoch is a pass over a
fresh random permutation of the buffer's valid examples in minibatches of `bs`, dropping
the last partial minibatch (AlphaZero General draws ⌊|D| / bs⌋ random minibatches per
epoch).
"""

from __future__ import annotations

from typing import NamedTuple

import chex
import jax
import jax.numpy as jnp
import optax

from warmjax.nets import Network, wdl_target
from warmjax.train.buffer import ReplayBuffer


class Losses(NamedTuple):
    value: jax.Array  # [] mean over the last epoch's minibatches
    policy: jax.Array  # []
    steps: jax.Array  # [] int32 minibatches taken in all


def cross_entropy(target: jax.Array, logits: jax.Array) -> jax.Array:
    """The minibatch's mean of −Σₐ target(a)·log softmax(logits)(a); a zero target adds 0."""
    return -jnp.mean(jnp.sum(target * jax.nn.log_softmax(logits), axis=-1))


def loss_fn(network: Network, params, batch_stats, batch, dropout_key, value_weight=1.0,
            reply_weight=0.0):
    """Returns `(total, (value_loss, policy_loss, new_batch_stats))` for one minibatch; the
    total weighs the value loss by `value_weight` (1: the papers' sum). A batch of four,
    `(obs, policy, value, reply)`, with a network that has the reply head, adds
    `reply_weight` times the reply head's cross-entropy against `reply`.

    With the win/draw/loss head (`model.wdl_head`, a departure) the value term trained is
    the cross-entropy of its logits against `wdl_target(value)`; the value loss reported is
    still the squared error of P(win) − P(loss), comparable with the tanh head's."""
    obs, policy, value = batch[:3]
    variables = {"params": params, "batch_stats": batch_stats}
    out, new_stats = network.apply_train(variables, obs, dropout_key)
    # Targets of another shape ([N, 1] values, say) would broadcast into a wrong loss.
    chex.assert_equal_shape((out.logits, policy))
    chex.assert_equal_shape((out.value, value))
    value_loss = jnp.mean((out.value - value) ** 2)
    policy_loss = cross_entropy(policy, out.logits)
    trained = value_loss if out.wdl_logits is None else cross_entropy(
        wdl_target(value), out.wdl_logits)
    # 1.0 · x is x exactly in floating point, so c = 1 is the papers' loss bit for bit.
    total = value_weight * trained + policy_loss
    if len(batch) == 4:
        chex.assert_equal_shape((out.reply_logits, batch[3]))
        total = total + reply_weight * cross_entropy(batch[3], out.reply_logits)
    return total, (value_loss, policy_loss, new_stats)


def make_update(network: Network, optimizer: optax.GradientTransformation, epochs: int,
                batch_size: int, value_weight: float = 1.0, reply_weight: float = 0.0):
    """Builds `update(variables, opt_state, buffer, key, lr_scale=1) -> (variables, opt_state,
    Losses)`. `lr_scale` multiplies every step of `optimizer` (for Adam, exactly the same as
    running it at `lr_scale` times its learning rate); it may be traced. `value_weight` c
    weighs the value loss (`loss_fn`); `reply_weight` w > 0 trains the reply head on the
    buffer's `reply` targets (both need them); the reported losses are unweighted, and
    leave the reply's out."""
    if value_weight <= 0:
        raise ValueError(f"the value loss's weight must be positive, got {value_weight}")
    if reply_weight > 0 and not network.module.reply_head:
        raise ValueError("a reply weight needs a network with the reply head")
    grad_fn = jax.grad(lambda *a: loss_fn(network, *a, value_weight=value_weight,
                                          reply_weight=reply_weight), argnums=0, has_aux=True)

    def step(carry, batch, key, lr_scale):
        params, stats, opt_state = carry
        grads, (v_loss, p_loss, stats) = grad_fn(params, stats, batch, key)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        updates = jax.tree_util.tree_map(lambda u: u * lr_scale, updates)
        return (optax.apply_updates(params, updates), stats, opt_state), (v_loss, p_loss)

    def update(variables, opt_state, buffer: ReplayBuffer, key, lr_scale=1.0):
        steps = buffer.size() // batch_size

        def epoch(e, carry):
            model, _ = carry
            k_perm, k_drop = jax.random.split(jax.random.fold_in(key, e))
            order = jnp.where(buffer.valid, jax.random.uniform(k_perm, buffer.valid.shape), 2.0)
            perm = jnp.argsort(order)

            def minibatch(k, inner):
                model, sums = inner
                idx = jax.lax.dynamic_slice(perm, (k * batch_size,), (batch_size,))
                batch = (buffer.obs[idx], buffer.policy[idx], buffer.value[idx])
                if reply_weight > 0:
                    batch = (*batch, buffer.reply[idx])
                model, (v_loss, p_loss) = step(model, batch, jax.random.fold_in(k_drop, k),
                                             lr_scale)
                return model, sums + jnp.stack([v_loss, p_loss])

            return jax.lax.fori_loop(0, steps, minibatch, (model, jnp.zeros(2)))

        model = (variables["params"], variables["batch_stats"], opt_state)
        (params, stats, opt_state), sums = jax.lax.fori_loop(
            0, epochs, epoch, (model, jnp.zeros(2)))
        mean = sums / jnp.maximum(steps, 1)
        losses = Losses(value=mean[0], policy=mean[1], steps=steps * epochs)
        return {"params": params, "batch_stats": stats}, opt_state, losses

    return update
