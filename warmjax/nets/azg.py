"""AlphaZero General's board network (method.md §6), in Flax.

Four 3x3 convolutions with batch norm and ReLU (the first two padded, the last two
unpadded), then two fully connected layers with batch norm, ReLU and dropout, then a
policy head (logits over actions) and a tanh value head (or, with `wdl_head`, a named
departure, win/draw/loss logits whose value is P(win) − P(loss)).

AlphaZero General uses 512 channels and fully connected sizes (1024, 512); the authors'
own fork used 256 channels. `small` presets keep the shape of the network with fewer
channels and units for CPU work.

Mixed precision (`mixed_precision=True`, off by default; a named setting, not the papers'):
the convolutions and the two hidden fully connected layers multiply bfloat16 activations by
bfloat16 copies of the weights; the weights themselves (the optimiser's master copy), batch
norm, the heads and the losses stay float32.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, NamedTuple

import chex
import flax.linen as nn
import jax
import jax.numpy as jnp

from warmjax.nets.layers import BN_EPSILON, BN_MOMENTUM, Conv3x3
from warmjax.nets.presets import CONV_IMPLS, PRESETS  # noqa: F401 - also azg's
from warmjax.nets.resnet import ResNet


class AZNet(nn.Module):
    """The network as a Flax module.

    Attributes:
      num_actions: size of the policy head.
      channels: convolution channels (512 in AlphaZero General).
      fc: sizes of the two fully connected layers.
      dropout: dropout rate after each fully connected layer.
      mixed_precision: bfloat16 multiplications in the hidden layers (module docstring).
    """

    num_actions: int
    channels: int = 512
    fc: tuple[int, ...] = (1024, 512)
    dropout: float = 0.3
    conv_impl: str = "patches"
    mixed_precision: bool = False
    # AlphaZero General's paddings; boards under 5×5 pad all four (`paddings_for`).
    paddings: tuple[str, ...] = ("SAME", "SAME", "VALID", "VALID")
    # A third head, trained only (`Network.apply_train`): the opponent's reply (KataGo's
    # auxiliary policy target; `train.reply_weight`, a departure). Off: the papers' network.
    reply_head: bool = False
    # The value as win/draw/loss probabilities (`model.wdl_head`, a departure): the value is
    # P(win) − P(loss), and training reads the three logits. Off: the papers' tanh head.
    wdl_head: bool = False

    @nn.compact
    def __call__(self, obs: jax.Array, train: bool) -> tuple[jax.Array, jax.Array]:
        """Args: obs `[B, H, W, C]` (bool or float). Returns `(logits [B, A], value [B])`."""
        chex.assert_rank(obs, 4)
        x = obs.astype(jnp.float32)
        dtype = jnp.bfloat16 if self.mixed_precision else jnp.float32
        for padding in self.paddings:
            x = Conv3x3(self.channels, padding=padding, impl=self.conv_impl, dtype=dtype)(x)
            x = nn.BatchNorm(use_running_average=not train, momentum=BN_MOMENTUM,
                             epsilon=BN_EPSILON)(x)
            x = nn.relu(x)
        x = x.reshape(x.shape[0], -1)
        for units in self.fc:
            x = nn.Dense(units, use_bias=False, dtype=dtype)(x).astype(jnp.float32)
            x = nn.BatchNorm(use_running_average=not train, momentum=BN_MOMENTUM,
                             epsilon=BN_EPSILON)(x)
            x = nn.relu(x)
            x = nn.Dropout(self.dropout, deterministic=not train)(x)
        logits = nn.Dense(self.num_actions)(x)
        if self.wdl_head:  # the logits sown for training; inference sees the value only
            wdl_logits = nn.Dense(3, name="wdl")(x)
            self.sow("intermediates", "wdl_logits", wdl_logits)
            value = wdl_value(wdl_logits)
        else:
            value = jnp.tanh(nn.Dense(1)(x))[..., 0]
        chex.assert_shape((logits, value), ((obs.shape[0], self.num_actions), (obs.shape[0],)))
        if self.reply_head:  # sown, so that inference returns what it always did
            self.sow("intermediates", "reply_logits", nn.Dense(self.num_actions, name="reply")(x))
        return logits, value


def wdl_value(wdl_logits: jax.Array) -> jax.Array:
    """The value of win/draw/loss logits `[..., 3]`: P(win) − P(loss), in [−1, 1]."""
    p = jax.nn.softmax(wdl_logits, axis=-1)
    return p[..., 0] - p[..., 2]


def wdl_target(value: jax.Array) -> jax.Array:
    """The win/draw/loss distribution `[..., 3]` of value targets t in [−1, 1] whose mean
    P(win) − P(loss) is t and whose draw share is as large as it can be: (t, 1 − t, 0) for
    t ≥ 0, (0, 1 + t, −t) below. A game's result z ∈ {1, 0, −1} is a one-hot."""
    t = jnp.clip(value, -1.0, 1.0)
    return jnp.stack([jnp.maximum(t, 0.0), 1.0 - jnp.abs(t), jnp.maximum(-t, 0.0)], axis=-1)


class TrainOutputs(NamedTuple):
    """What `Network.apply_train` computes: the heads inference returns, and the logits
    of the heads only training reads (None where the network has no such head)."""

    logits: jax.Array  # [B, A]
    value: jax.Array  # [B]
    reply_logits: jax.Array | None = None  # [B, A]: the opponent's reply
    wdl_logits: jax.Array | None = None  # [B, 3]: win, draw, loss


@dataclasses.dataclass(frozen=True)
class Network:
    """A network and its pure functions.

    `variables` are Flax's `{"params": ..., "batch_stats": ...}`; the search, the arena and
    the evaluation tools treat them as one opaque pytree (the "params" of a player).

    Attributes:
      module: the Flax module.
      obs_shape: `(H, W, C)` of one observation.
    """

    module: AZNet
    obs_shape: tuple[int, int, int]
    train_conv: str = "auto"

    @property
    def train_conv_impl(self) -> str:
        """The convolution of `apply_train`: for "auto", patches @ kernel on a CPU and a GPU
        (measured faster on both: on an H100, 0.72 against 0.87 ms per 512-channel
        training step, see docs/performance.md §1) and XLA's convolution on a TPU (not
        measured); else the one `train_conv` names."""
        if self.train_conv != "auto":
            return self.train_conv
        return "xla" if jax.default_backend() == "tpu" else "patches"

    @property
    def num_actions(self) -> int:
        return self.module.num_actions

    def init(self, key: jax.Array) -> Any:
        """Fresh variables for the network."""
        dummy = jnp.zeros((1, *self.obs_shape), jnp.float32)
        return self.module.init({"params": key}, dummy, train=False)

    def apply(self, variables: Any, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Inference: running batch-norm statistics, no dropout.

        Args:
          variables: the network's variables.
          obs: `[B, H, W, C]` observations from the mover's point of view.

        Returns:
          `(logits [B, A], value [B])`, value in [-1, 1] for the player to move.
        """
        return self.module.clone(conv_impl="xla").apply(variables, obs, train=False)

    def apply_each(self, variables: Any, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Inference with one network per example: `variables` carry a leading `[B]` axis
        (from `init_each`), and example b is scored by network b. Same outputs as `apply`."""

        def one(v, o):
            logits, value = self.apply(v, o[None])
            return logits[0], value[0]

        return jax.vmap(one)(variables, obs)

    def init_each(self, key: jax.Array, count: int) -> Any:
        """`count` independently initialised networks, stacked on a leading axis."""
        return jax.vmap(self.init)(jax.random.split(key, count))

    def apply_train(self, variables: Any, obs: jax.Array, dropout_key: jax.Array):
        """Training mode: batch statistics and dropout.

        Returns:
          `(TrainOutputs, new_batch_stats)`: the logits and value, and the logits of the
          reply and win/draw/loss heads where the network has them.
        """
        sown = self.module.reply_head or self.module.wdl_head
        (logits, value), updates = self.module.clone(conv_impl=self.train_conv_impl).apply(
            variables, obs, train=True, rngs={"dropout": dropout_key},
            mutable=["batch_stats", "intermediates"] if sown else ["batch_stats"],
        )
        extra = updates.get("intermediates", {})
        out = TrainOutputs(logits, value,
                           extra["reply_logits"][0] if "reply_logits" in extra else None,
                           extra["wdl_logits"][0] if "wdl_logits" in extra else None)
        return out, updates["batch_stats"]


def make_network(
    num_actions: int,
    obs_shape: tuple[int, int, int],
    preset: str | None = "small",
    *,
    channels: int | None = None,
    fc: tuple[int, ...] | None = None,
    dropout: float = 0.3,
    train_conv: str = "auto",
    mixed_precision: bool = False,
    same_padding: bool = False,
    reply_head: bool = False,
    wdl_head: bool = False,
    resnet: dict[str, int] | None = None,
) -> Network:
    """Builds a `Network` from a preset name, with optional overrides.

    A residual preset (`resnet5x128`, …: `nets/resnet.py`) builds the residual network;
    `channels` then sets its filters, and `resnet` (`{"blocks", "filters",
    "policy_filters", "value_filters"}`, as `residual_layout` gives them) builds one
    without a preset (a saved network's description). The AZG network's departures
    (`fc`, `same_padding`, `reply_head`, `wdl_head`) are refused for it.

    `train_conv` picks the training convolution: "auto" (patches on a CPU or GPU, XLA's on
    a TPU), "patches" or "xla"; both compute the same function on the same parameters.
    `mixed_precision` multiplies in bfloat16 (the module docstring); off by default.
    `same_padding` pads all four convolutions, so that the fully connected layers see the
    whole board's H×W positions rather than (H − 4)×(W − 4): a named departure from
    AlphaZero General's network (`model.same_padding`), off by default. `reply_head` adds
    a head that only training reads, the opponent's reply (`train.reply_weight`), off by
    default; the networks a run saves leave it out (`without_reply_head`). `wdl_head`
    replaces the tanh value head by win/draw/loss logits whose value is P(win) − P(loss)
    (`model.wdl_head`, a departure), off by default.

    Raises:
      ValueError: unknown preset, non-positive sizes, or a board too small for the two
        unpadded convolutions.
    """
    settings: dict[str, Any] = {}
    if preset is not None:
        if preset not in PRESETS:
            raise ValueError(f"unknown network preset {preset!r}; choose from {sorted(PRESETS)}")
        settings.update(PRESETS[preset])
    if settings.pop("kind", "azg") == "resnet" or resnet is not None:
        settings.update(resnet or {})
        return _residual(num_actions, obs_shape, preset, settings, channels, fc, dropout,
                         train_conv, mixed_precision, same_padding, reply_head, wdl_head)
    if channels is not None:
        settings["channels"] = channels
    if fc is not None:
        settings["fc"] = tuple(fc)
    if "channels" not in settings or "fc" not in settings:
        raise ValueError("give a preset or both channels and fc")
    if settings["channels"] < 1 or any(u < 1 for u in settings["fc"]):
        raise ValueError(f"network sizes must be positive, got {settings}")
    if not 0.0 <= dropout < 1.0:
        raise ValueError(f"dropout must be in [0, 1), got {dropout}")
    if train_conv not in CONV_IMPLS:
        raise ValueError(f"unknown train_conv {train_conv!r}; choose from {', '.join(CONV_IMPLS)}")
    if len(obs_shape) != 3 or min(obs_shape) < 1:
        raise ValueError(f"observations must be [H, W, C] planes, got shape {tuple(obs_shape)}")
    module = AZNet(num_actions=num_actions, dropout=dropout, mixed_precision=mixed_precision,
                   paddings=("SAME",) * 4 if same_padding else paddings_for(obs_shape),
                   reply_head=reply_head, wdl_head=wdl_head, **settings)
    return Network(module=module, obs_shape=tuple(obs_shape), train_conv=train_conv)


def _residual(num_actions, obs_shape, preset, settings, channels, fc, dropout, train_conv,
              mixed_precision, same_padding, reply_head, wdl_head) -> Network:
    name = preset or "the residual network"
    for flag, value in (("fc", fc), ("same_padding", same_padding),
                        ("reply_head (train.reply_weight)", reply_head),
                        ("wdl_head", wdl_head)):
        if value:
            raise ValueError(f"{name} is a residual network: model.{flag.split(' ')[0]} is "
                             f"the AZG network's and does not apply; leave it unset")
    if channels is not None:
        settings["filters"] = channels
    if any(v < 1 for v in settings.values()):
        raise ValueError(f"network sizes must be positive, got {settings}")
    if train_conv not in CONV_IMPLS:
        raise ValueError(f"unknown train_conv {train_conv!r}; choose from {', '.join(CONV_IMPLS)}")
    if len(obs_shape) != 3 or min(obs_shape) < 1:
        raise ValueError(f"observations must be [H, W, C] planes, got shape {tuple(obs_shape)}")
    module = ResNet(num_actions=num_actions, mixed_precision=mixed_precision, **settings)
    return Network(module=module, obs_shape=tuple(obs_shape), train_conv=train_conv)


def residual_layout(network: Network) -> dict[str, int] | None:
    """A residual network's layout (`make_network(resnet=…)` rebuilds it), None for AZG's."""
    m = network.module
    if not hasattr(m, "blocks"):
        return None
    return {"blocks": m.blocks, "filters": m.filters, "policy_filters": m.policy_filters,
            "value_filters": m.value_filters}


def describe(network: Network) -> str:
    """The network in a few words: `resnet 5×128` or `azg 32ch, fc 128x64`."""
    layout = residual_layout(network)
    if layout is not None:
        return f"resnet {layout['blocks']}×{layout['filters']}"
    m = network.module
    return f"azg {m.channels}ch, fc {'x'.join(map(str, m.fc))}"


def without_reply_head(variables: Any) -> Any:
    """`variables` without the reply head's parameters (`AZNet.reply_head`): what a
    network without it plays with, exactly, since inference never reads that head."""
    params = variables["params"]
    if "reply" not in params:
        return variables
    return {**variables, "params": {k: v for k, v in params.items() if k != "reply"}}


def paddings_for(obs_shape) -> tuple[str, ...]:
    """The four convolutions' paddings: AlphaZero General's (two padded, two unpadded, which
    shrink the board by 4) where the board is at least 5×5, else all four padded (3×3
    tic-tac-toe, 4×3 animal shogi)."""
    h, w = obs_shape[0], obs_shape[1]
    if h >= 5 and w >= 5:
        return ("SAME", "SAME", "VALID", "VALID")
    return ("SAME",) * 4


ApplyFn = Callable[[Any, jax.Array], tuple[jax.Array, jax.Array]]
