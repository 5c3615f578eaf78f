"""Scoring moves against perfect play, batched over a labelled set (method.md §9).

`replay` turns the set's move sequences into one batch of game states; `judge` compares the
moves a player chose with the labels; `make_oracle` builds the cheap in-training probe (one
batched search and one network call over the whole set) that the training loop logs as
`oracle_optimal` and `oracle_policy`.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.games import make
from warmjax.perfect.positions import LabelledSet
from warmjax.search.players import Player
from warmjax.search.search import masked_prior

RATES = ("optimal", "win_to_draw", "win_to_loss", "draw_to_loss", "immediate_win_taken")


def replay(env: Any, labelled: LabelledSet):
    """The set's positions as P batched states of `env` (the set's game and size).

    Raises:
      ValueError: if the environment is another game or size than the set's.
    """
    mine = make(labelled.game_name, **labelled.game_params)
    if (env.name, env.board_shape, env.num_actions, getattr(env, "win_length", None)) != (
            mine.name, mine.board_shape, mine.num_actions, getattr(mine, "win_length", None)):
        raise ValueError(f"the labelled set is {mine.name} {mine.board_shape}; the game is "
                         f"{env.name} {env.board_shape}")
    moves, plies = jnp.asarray(labelled.moves), jnp.asarray(labelled.plies)
    count = plies.shape[0]
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), count))

    def play(states, t):
        stepped = jax.vmap(env.step)(states, jnp.maximum(moves[:, t], 0))
        keep = t < plies
        return jax.tree_util.tree_map(
            lambda new, old: jnp.where(keep.reshape(-1, *(1,) * (new.ndim - 1)), new, old),
            stepped, states), None

    states, _ = jax.lax.scan(play, states, jnp.arange(moves.shape[1]))
    return states


def judge(labelled: LabelledSet, actions, immediate: np.ndarray | None = None) -> dict:
    """Rates of the chosen `actions [P]` against the labels (fractions of positions).

    - optimal: the move keeps the position's perfect-play value;
    - win_to_draw, win_to_loss, draw_to_loss: the blunders, by what they give away;
    - immediate_win_taken: among positions where a move completes a line at once, the
      fraction where the chosen move does (needs `immediate`, from
      `positions.immediate_wins`).
    """
    actions = np.asarray(actions)
    rows = np.arange(len(actions))
    chosen = labelled.values[rows, actions].astype(int)
    best = labelled.best.astype(int)
    out = {
        "positions": int(len(actions)),
        "optimal": float(np.mean(chosen == best)),
        "win_to_draw": float(np.mean((best == 1) & (chosen == 0))),
        "win_to_loss": float(np.mean((best == 1) & (chosen == -1))),
        "draw_to_loss": float(np.mean((best == 0) & (chosen == -1))),
        "illegal": float(np.mean(chosen == -2)),
    }
    if immediate is not None:
        has = immediate.any(axis=1)
        out["immediate_win_positions"] = int(has.sum())
        out["immediate_win_taken"] = (float(np.mean(immediate[rows, actions][has]))
                                      if has.any() else float("nan"))
    return out


def policy_head_actions(apply_fn: Callable, params, states) -> jax.Array:
    """`[P]` argmax of the network's prior over legal moves."""
    logits, _ = apply_fn(params, states.observation)
    return jnp.argmax(masked_prior(logits, states.legal_action_mask), axis=-1).astype(jnp.int32)


def make_oracle(env: Any, labelled: LabelledSet, player: Player, apply_fn: Callable):
    """Builds the probe: `(oracle, states)`, with
    `oracle(params, key, states) -> {"oracle_optimal", "oracle_policy"}` (device scalars).

    `player` should play argmax (no sampled plies); its optimal-move rate is
    `oracle_optimal`, and the network's policy head's is `oracle_policy`. `states` are the
    set's positions; pass them to the jitted `oracle` as an argument (closed-over arrays
    would be constant-folded by XLA, slowly). Pure and jit-able.
    """
    optimal = jnp.asarray(labelled.optimal)
    rows = jnp.arange(len(labelled))

    def oracle(params, key, states):
        search_actions = player(params, key, states).action
        head_actions = policy_head_actions(apply_fn, params, states)
        return {
            "oracle_optimal": jnp.mean(optimal[rows, search_actions]),
            "oracle_policy": jnp.mean(optimal[rows, head_actions]),
        }

    return oracle, replay(env, labelled)
