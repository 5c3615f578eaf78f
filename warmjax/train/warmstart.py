"""Warm-start schedules: when the enhancement searches in self-play, and with what weight.

- `none`: the Baseline; every iteration uses baseline MCTS.
- `fixed` (Algorithm 1, method.md §3, §8): iterations 1 … I′ use the enhancement; WRo/WRoRa weigh
  the rollout with w = 1 − i/I′ where i = iteration − 1 counts from 0, so w runs 1, 1 − 1/I′,
  …, 1/I′ over the warm-start iterations.
- `adaptive` (Algorithm 2, method.md §8): until the switch, self-play pits the enhancement
  against baseline MCTS, w = 1/i in iteration i (from 1); the switch happens for good after
  the first iteration whose baseline side's balance r is positive.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from warmjax.names import MODES

# How self-play searches in one iteration.
BASELINE, ENHANCED, ENHANCED_VS_BASELINE = 0, 1, 2
# A vmapped group's runs search in different ways this iteration (`group_kind`).
MIXED = 3


class Schedule(NamedTuple):
    """The warm-start decision for one iteration (traced scalars)."""

    active: jax.Array  # bool: the enhancement plays in self-play
    weight: jax.Array  # float32: w for WRo/WRoRa
    selfplay: jax.Array  # int32: BASELINE, ENHANCED or ENHANCED_VS_BASELINE


def schedule(mode: str, iteration: jax.Array, switched: jax.Array, iprime: int) -> Schedule:
    """Warm-start decision for `iteration` (1-based).

    Args:
      mode: one of MODES (static).
      iteration: the iteration about to run, counting from 1.
      switched: adaptive mode's switch flag before this iteration.
      iprime: I′ for the fixed mode (a Python int, or a traced int when runs with different
        I′ share one compiled program).
    """
    i = jnp.asarray(iteration, jnp.float32)
    switched = jnp.asarray(switched, jnp.bool_)
    if mode == "none":
        return Schedule(jnp.bool_(False), jnp.float32(0.0), jnp.int32(BASELINE))
    if mode == "fixed":
        active = iteration <= iprime
        weight = jnp.where(active, 1.0 - (i - 1.0) / jnp.maximum(iprime, 1), 0.0)
        return Schedule(active, weight, jnp.where(active, ENHANCED, BASELINE).astype(jnp.int32))
    if mode == "adaptive":
        active = ~switched
        weight = jnp.where(active, 1.0 / i, 0.0)
        kind = jnp.where(active, ENHANCED_VS_BASELINE, BASELINE).astype(jnp.int32)
        return Schedule(active, weight, kind)
    raise ValueError(f"unknown warm-start mode {mode!r}; choose from {MODES}")


def group_kind(kind: jax.Array, axis: str) -> jax.Array:
    """In a vmapped group of runs (`jax.vmap(..., axis_name=axis)`), the way every run's
    self-play searches this iteration, the same unbatched scalar for all of them: their
    common `kind`, or MIXED while they differ. Self-play switches on it, so that a group
    runs a warm-start branch only while one of its runs plays it (`selfplay.SelfPlayTurn`).
    """
    low, high = jax.lax.pmin(kind, axis), jax.lax.pmax(kind, axis)
    return jnp.where(low == high, high, MIXED).astype(jnp.int32)


def adaptive_switch(switched: jax.Array, active: jax.Array, balance: jax.Array) -> jax.Array:
    """Algorithm 2's switch: after an enhancement-vs-baseline iteration with r > 0, for good."""
    switched, active = jnp.asarray(switched, jnp.bool_), jnp.asarray(active, jnp.bool_)
    return switched | (active & (jnp.asarray(balance) > 0))


def first_after(mode: str, iteration: jax.Array, switch_iteration: jax.Array,
                iprime) -> jax.Array:
    """Whether `iteration` is the first after warm start (bool scalar): I′ + 1 in the fixed
    mode, the iteration after the switch in the adaptive mode, never without warm start.

    `switch_iteration` is the adaptive run's switch before this iteration (−1: none yet).
    """
    if mode == "none":
        return jnp.bool_(False)
    if mode == "fixed":
        return (jnp.asarray(iteration) == jnp.asarray(iprime) + 1) & (jnp.asarray(iprime) >= 1)
    if mode == "adaptive":
        return jnp.asarray(switch_iteration) == jnp.asarray(iteration) - 1
    raise ValueError(f"unknown warm-start mode {mode!r}; choose from {MODES}")
