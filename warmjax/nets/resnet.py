"""A residual network (AlphaZero's shape), in Flax, beside AlphaZero General's (`azg`).

A 3×3 convolution stem, then `blocks` residual blocks of two 3×3 convolutions (batch norm
after each, ReLU after the first and after the sum with the block's input), all padded, so
the board keeps its H×W. Two heads read the tower:

- policy: a 1×1 convolution to `policy_filters` planes, batch norm, ReLU, then one dense
  layer to the action logits;
- value: a 1×1 convolution to `value_filters` planes, batch norm, ReLU, a dense hidden
  layer of `filters` units with ReLU, then one unit through tanh.

At 5 blocks × 128 filters with 32-plane heads this is the size AlphaZero.jl trains on
Connect Four (1.67M parameters on the 7×6 board). The convolutions carry no bias (batch
norm follows); the dense layers do. The AZG network stays the default and the papers'; the
residual family is chosen by `model=resnet…` (`presets.PRESETS`).

Mixed precision (`mixed_precision=True`) as in `azg`: the convolutions and the value
head's hidden layer multiply bfloat16 copies; the weights, batch norm, the output layers
and the losses stay float32.
"""

from __future__ import annotations

from typing import Any

import chex
import flax.linen as nn
import jax
import jax.numpy as jnp

from warmjax.nets.layers import BN_EPSILON, BN_MOMENTUM, Conv3x3


def conv1x1(features: int, dtype: Any) -> nn.Module:
    """A 1×1 convolution without bias: a dense layer over each square's planes."""
    return nn.Dense(features, use_bias=False, dtype=dtype)


class ResNet(nn.Module):
    """The residual network as a Flax module.

    Attributes:
      num_actions: size of the policy head.
      blocks: residual blocks.
      filters: the tower's planes (and the value head's hidden units).
      policy_filters, value_filters: the heads' 1×1 convolutions' planes.
      conv_impl: the 3×3 convolution's computation ("patches" or "xla", `layers.Conv3x3`).
      mixed_precision: bfloat16 multiplications in the tower and hidden layer.
      reply_head, wdl_head: AZG's training-only departures; the residual network has
        neither (fields kept so that `Network` treats both families alike).
    """

    num_actions: int
    blocks: int = 5
    filters: int = 128
    policy_filters: int = 32
    value_filters: int = 32
    conv_impl: str = "patches"
    mixed_precision: bool = False
    reply_head: bool = False
    wdl_head: bool = False

    def _norm(self, train: bool):
        return nn.BatchNorm(use_running_average=not train, momentum=BN_MOMENTUM,
                            epsilon=BN_EPSILON)

    @nn.compact
    def __call__(self, obs: jax.Array, train: bool) -> tuple[jax.Array, jax.Array]:
        """Args: obs `[B, H, W, C]` (bool or float). Returns `(logits [B, A], value [B])`."""
        chex.assert_rank(obs, 4)
        dtype = jnp.bfloat16 if self.mixed_precision else jnp.float32

        def conv(x):
            return Conv3x3(self.filters, padding="SAME", impl=self.conv_impl, dtype=dtype)(x)

        x = nn.relu(self._norm(train)(conv(obs.astype(jnp.float32))))
        for _ in range(self.blocks):
            y = nn.relu(self._norm(train)(conv(x)))
            y = self._norm(train)(conv(y))
            x = nn.relu(x + y)
        batch = obs.shape[0]
        p = conv1x1(self.policy_filters, dtype)(x).astype(jnp.float32)
        p = nn.relu(self._norm(train)(p)).reshape(batch, -1)
        logits = nn.Dense(self.num_actions)(p)
        v = conv1x1(self.value_filters, dtype)(x).astype(jnp.float32)
        v = nn.relu(self._norm(train)(v)).reshape(batch, -1)
        v = nn.relu(nn.Dense(self.filters, dtype=dtype)(v).astype(jnp.float32))
        value = jnp.tanh(nn.Dense(1)(v))[..., 0]
        chex.assert_shape((logits, value), ((batch, self.num_actions), (batch,)))
        return logits, value
