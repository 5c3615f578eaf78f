"""Leaf evaluators: where a new node's prior and value come from (method.md §2–§4).

The parts a variant hands the search (`variants.py`), each `part(env, apply_fn, record) ->
Leaf`:

Each is named by its prior, then its value:

- `network_leaf`: prior and value from the network (the baseline and plain RAVE).
- `network_prior_rollout_leaf`: prior from the network, value from a uniformly random
  playout (Rollout, RoRa).
- `network_prior_mix_leaf`: prior from the network, value (1 − w) · v_network + w · v_rollout
  (WRo, WRoRa).
- `uniform_prior_rollout_leaf`: no network: a uniform prior over the legal actions and the
  playout's value (the pure players of §4).

Each evaluator's value rule is one row of `LEAF_VALUES`: a function of the network's value,
the playout and w, and the playout it plays (`rollouts.rollout`, or None for none), so a
new playout is a function and a row. The terminal value and the empty playout record all
of them share are `with_terminal_values` and `no_playout`. A
terminal state's value is always the game result. `record` is how many playout moves to
keep for the AMAF backup (0: none).

What changes from call to call — the network's variables and w — travels as one pytree,
`Inputs`, from the player's call down to the leaf.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Protocol

import jax
import jax.numpy as jnp

from warmjax.search.rollouts import Rollout, rollout

# The network: `apply(variables, observations [B, ...]) -> (logits [B, A], value [B])`.
ApplyFn = Callable[[Any, jax.Array], tuple[jax.Array, jax.Array]]


class Inputs(NamedTuple):
    """The dynamic inputs of a search call (a pytree; either may be traced).

    A player called with a bare variables pytree wraps it as `Inputs(variables)`, with its
    own default w.
    """

    params: Any = None  # the network's variables; None for network-free players
    weight: Any = None  # w of WRo/WRoRa, a float scalar; None: the player's default


class LeafEvaluation(NamedTuple):
    """Batched leaf evaluation."""

    logits: jax.Array  # [B, A] float32 prior logits (illegal entries are masked later)
    value: jax.Array  # [B] float32, for the player to move in each state
    rollout: Rollout  # leaves [B, ...]; empty moves unless recording


class Leaf(NamedTuple):
    """A leaf evaluator part: the root's prior and the new nodes' evaluation."""

    prior: Callable  # (inputs, states) -> logits [B, A] of the root states
    evaluate: Callable  # (inputs, key, states) -> LeafEvaluation


class LeafBuilder(Protocol):
    """A leaf part's builder (`network_leaf` and the others): the part for a game, a network
    (None for network-free players) and the playout moves to record."""

    def __call__(self, env: Any, apply_fn: ApplyFn | None, record: int = 0) -> Leaf: ...


class LeafValue(NamedTuple):
    """One leaf evaluator's value rule: `value(net_value [B], played: Rollout, weight)` ->
    [B] for the player to move, and the playout it plays from the leaf: `(env, key, state,
    record) -> Rollout` of one state (its `steps` go to the compute ledger), or None."""

    value: Callable
    playout: Callable | None


def _mixed(net_value, played, weight):
    return (1.0 - weight) * net_value + weight * played.value


# Each leaf evaluator's value, by name (`network_leaf`, `network_prior_rollout_leaf`,
# `network_prior_mix_leaf` and the network-free `uniform_prior_rollout_leaf` use them); a
# new evaluator is one row.
LEAF_VALUES: dict[str, LeafValue] = {
    "network": LeafValue(lambda net_value, played, weight: net_value, None),
    "rollout": LeafValue(lambda net_value, played, weight: played.value, rollout),
    "mix": LeafValue(_mixed, rollout),
}
LEAF_KINDS = tuple(LEAF_VALUES)


def no_playout(batch: int) -> Rollout:
    """The playout record of leaves that play none: value 0, no moves."""
    return Rollout(value=jnp.zeros((batch,), jnp.float32),
                   actions=jnp.zeros((batch, 0), jnp.int32),
                   players=jnp.zeros((batch, 0), jnp.int32),
                   length=jnp.zeros((batch,), jnp.int32),
                   steps=jnp.zeros((batch,), jnp.int32))


def with_terminal_values(states: Any, value: jax.Array) -> jax.Array:
    """`value` [B] with each terminal state's game result, for its player to move, in its
    place (float32)."""
    result = jnp.take_along_axis(states.rewards, states.current_player[:, None], axis=1)[:, 0]
    return jnp.where(states.terminated, result, value).astype(jnp.float32)


def network_leaf(env: Any, apply_fn: ApplyFn | None, record: int = 0) -> Leaf:
    """Prior and value from the network."""
    return _leaf(env, apply_fn, "network", True, record)


def network_prior_rollout_leaf(env: Any, apply_fn: ApplyFn | None, record: int = 0) -> Leaf:
    """Prior from the network, value from a random playout."""
    return _leaf(env, apply_fn, "rollout", True, record)


def network_prior_mix_leaf(env: Any, apply_fn: ApplyFn | None, record: int = 0) -> Leaf:
    """Prior from the network, value (1 − w)·network + w·playout."""
    return _leaf(env, apply_fn, "mix", True, record)


def uniform_prior_rollout_leaf(env: Any, apply_fn: ApplyFn | None, record: int = 0) -> Leaf:
    """No network: uniform prior, value from a random playout (`apply_fn` is ignored)."""
    del apply_fn
    return _leaf(env, None, "rollout", False, record)


def _leaf(env, apply_fn, kind, use_network, record) -> Leaf:
    evaluate = make_leaf_evaluator(env, apply_fn, kind, use_network=use_network,
                                   record=record)

    def prior(inputs, states):
        if use_network:
            return apply_fn(inputs.params, states.observation)[0]
        return jnp.zeros(states.legal_action_mask.shape, jnp.float32)

    return Leaf(prior, evaluate)


def make_leaf_evaluator(
    env: Any,
    apply_fn: ApplyFn | None,
    kind: str,
    *,
    use_network: bool = True,
    record: int = 0,
) -> Callable:
    """Builds `evaluate(inputs, key, states) -> LeafEvaluation`.

    Args:
      env: the game environment.
      apply_fn: `apply(params, obs [B, H, W, C]) -> (logits [B, A], value [B])`; unused
        when `use_network` is False.
      kind: a key of LEAF_VALUES.
      use_network: False for uniform priors and no network call.
      record: moves to record per playout (for RAVE); 0 records none.

    Returns:
      The evaluator. `states` are batched; `inputs.weight` is a float scalar (used by "mix").
    """
    if kind not in LEAF_VALUES:
        raise ValueError(f"unknown leaf evaluator {kind!r}; choose from {LEAF_KINDS}")
    rule = LEAF_VALUES[kind]
    if not use_network and rule.playout is None:
        raise ValueError("a search without a network needs a leaf value from a playout")
    if use_network and apply_fn is None:
        raise ValueError(f"leaf evaluator {kind!r} needs a network")

    def evaluate(inputs, key, states) -> LeafEvaluation:
        batch = states.current_player.shape[0]
        if use_network:
            logits, net_value = apply_fn(inputs.params, states.observation)
        else:
            logits = jnp.zeros(states.legal_action_mask.shape, jnp.float32)
            net_value = jnp.zeros((batch,), jnp.float32)
        if rule.playout is not None:
            keys = jax.random.split(key, batch)
            played = jax.vmap(lambda k, s: rule.playout(env, k, s, record))(keys, states)
        else:
            played = no_playout(batch)
        value = with_terminal_values(states, rule.value(net_value, played, inputs.weight))
        return LeafEvaluation(logits=logits.astype(jnp.float32), value=value, rollout=played)

    return evaluate
