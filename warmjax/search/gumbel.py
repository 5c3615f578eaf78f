"""Gumbel AlphaZero's search (Danihelka et al., ICLR 2022), built on mctx.

`mctx.gumbel_muzero_policy` runs the search: at the root, Gumbel-Top-k sampling of the
considered actions and sequential halving of the simulation budget among them; below the
root, the deterministic selection that matches the visit counts to the improved policy.
This module hands it the game and the network:

- the root: the network's logits, masked to the legal moves, and its value;
- the recurrent function: the game's own `step` (the search's model is the rules, as in
  AlphaZero), the network's logits and value at the new state, the mover's reward, and a
  discount of −1 between the two players (0 once the game has ended, so nothing below a
  finished game reaches the values above it);
- the completed-Q transform σ of the paper, `mctx.qtransform_completed_by_mix_value` with
  c_visit and c_scale (`SearchConfig.gumbel_c_visit`, `gumbel_c_scale`).

Its outputs, in the terms of the paper: `selected` is the action sequential halving
selects (A_{n+1}), `improved` is π′ = softmax(logits + σ(completed Q)) (mctx's
`action_weights`), `visits` the root's visit counts and `value` the root's search value for
the player to move.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import mctx

from warmjax.search.config import SearchConfig

# Illegal moves' logits: low enough that softmax gives them nothing, finite so that no
# arithmetic on them makes a NaN.
ILLEGAL_LOGIT = -1e9


class GumbelOutput(NamedTuple):
    """A Gumbel search of B root states."""

    selected: jax.Array  # [B] int32, the action sequential halving selects
    improved: jax.Array  # [B, A] float32, π′ = softmax(logits + σ(completed Q))
    visits: jax.Array  # [B, A] int32, the root's visit counts
    value: jax.Array  # [B] float32, the root's search value for the player to move
    tree: mctx.Tree


def masked_logits(logits: jax.Array, legal: jax.Array) -> jax.Array:
    """`logits [B, A]` with the illegal moves' set to ILLEGAL_LOGIT."""
    return jnp.where(legal, logits, ILLEGAL_LOGIT).astype(jnp.float32)


def recurrent_fn(env: Any, apply_fn: Callable) -> Callable:
    """mctx's recurrent function for a two-player game whose rules are `env.step`.

    `embedding` is the batch of states; `params` the network's variables. The reward is the
    mover's result of the step, the value the network's for the player to move next, and
    the discount −1 (the next node belongs to the other player) or 0 after the game ended.
    """

    def step(params, rng, action, states):
        del rng
        mover = states.current_player
        after = jax.vmap(env.step)(states, action)
        reward = jnp.take_along_axis(after.rewards, mover[:, None], axis=1)[:, 0]
        logits, value = apply_fn(params, after.observation)
        ended = after.terminated
        output = mctx.RecurrentFnOutput(
            reward=reward.astype(jnp.float32),
            discount=jnp.where(ended, 0.0, -1.0).astype(jnp.float32),
            prior_logits=masked_logits(logits, after.legal_action_mask),
            value=jnp.where(ended, 0.0, value).astype(jnp.float32))
        return output, after

    return step


# Considered actions where the setting is None: the game's, at most mctx's default.
DEFAULT_CONSIDERED = 16


def considered(config: SearchConfig, num_actions: int) -> int:
    """The root's considered actions: `config.gumbel_considered`, or the game's actions, at
    most DEFAULT_CONSIDERED."""
    if config.gumbel_considered is None:
        return min(DEFAULT_CONSIDERED, num_actions)
    return config.gumbel_considered


def check_settings(config: SearchConfig, num_actions: int) -> None:
    """Raises a one-line `ValueError` for settings a Gumbel search cannot take."""
    if config.gumbel_considered is not None and config.gumbel_considered > num_actions:
        raise ValueError(f"search.gumbel_considered ({config.gumbel_considered}) exceeds the "
                         f"game's {num_actions} actions")
    default = SearchConfig()
    taken = [name for name in ("reuse_tree", "dirichlet_fraction", "fpu")
             if getattr(config, name) != getattr(default, name)]
    if taken:
        raise ValueError(f"the gumbel search does not take search.{', search.'.join(taken)} "
                         "(its root exploration is the Gumbel noise, unvisited actions take "
                         "the completed Q, and it keeps no tree)")


def make_gumbel_search(env: Any, apply_fn: Callable, config: SearchConfig) -> Callable:
    """`search(params, key, states) -> GumbelOutput` for B batched root states.

    Raises:
      ValueError: settings it cannot take (`check_settings`).
    """
    check_settings(config, env.num_actions)
    qtransform = functools.partial(mctx.qtransform_completed_by_mix_value,
                                   maxvisit_init=config.gumbel_c_visit,
                                   value_scale=config.gumbel_c_scale)
    recurrent = recurrent_fn(env, apply_fn)

    def search(params, key, states) -> GumbelOutput:
        legal = states.legal_action_mask
        logits, value = apply_fn(params, states.observation)
        root = mctx.RootFnOutput(prior_logits=masked_logits(logits, legal),
                                 value=value.astype(jnp.float32), embedding=states)
        out = mctx.gumbel_muzero_policy(
            params=params, rng_key=key, root=root, recurrent_fn=recurrent,
            num_simulations=config.simulations, invalid_actions=~legal,
            qtransform=qtransform,
            max_num_considered_actions=considered(config, env.num_actions),
            gumbel_scale=config.gumbel_scale)
        tree = out.search_tree
        visits = tree.children_visits[:, tree.ROOT_INDEX]
        return GumbelOutput(selected=out.action.astype(jnp.int32),
                            improved=out.action_weights.astype(jnp.float32),
                            visits=visits.astype(jnp.int32),
                            value=tree.node_values[:, tree.ROOT_INDEX].astype(jnp.float32),
                            tree=tree)

    return search
