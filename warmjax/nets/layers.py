"""The layers both board networks share (`azg`, AlphaZero General's; `resnet`, the residual
one): the 3×3 convolution and the batch-norm settings."""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp

# Flax's batch-norm momentum is the weight of the old average; PyTorch's 0.1 is the weight
# of the new batch, so AlphaZero General's default corresponds to 0.9 here.
BN_MOMENTUM = 0.9
BN_EPSILON = 1e-5


class Conv3x3(nn.Module):
    """A 3x3 convolution without bias, computed as patches @ kernel.

    The kernel has the usual `[3, 3, C_in, C_out]` shape. Gathering the nine shifted views
    and multiplying once ("patches") computes the same function as `lax.conv_general_dilated`
    ("xla"), and its gradient is a matmul too: on XLA's CPU backend a convolution's gradient
    inside a loop (as in the training epochs) runs about 15x slower than this. Inference,
    where XLA's convolution is the faster one, uses "xla"; both share the parameters.

    Attributes:
      features: output channels.
      padding: "SAME" (zero padding, same size) or "VALID" (shrinks by 2).
    """

    features: int
    padding: str = "SAME"
    impl: str = "patches"
    dtype: Any = jnp.float32  # of the multiplication; the kernel is stored in float32

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        channels = x.shape[-1]
        kernel = self.param("kernel", nn.initializers.lecun_normal(),
                            (3, 3, channels, self.features))
        x, kernel = x.astype(self.dtype), kernel.astype(self.dtype)
        if self.impl == "xla":
            out = jax.lax.conv_general_dilated(
                x, kernel, (1, 1), self.padding, dimension_numbers=("NHWC", "HWIO", "NHWC"))
            return out.astype(jnp.float32)
        if self.padding == "SAME":
            x = jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        h, w = x.shape[1] - 2, x.shape[2] - 2
        views = [x[:, dy:dy + h, dx:dx + w, :] for dy in range(3) for dx in range(3)]
        out = jnp.concatenate(views, axis=-1) @ kernel.reshape(9 * channels, self.features)
        return out.astype(jnp.float32)
