"""Scoring moves against perfect play, batched over a labelled set (method.md §9).

`replay` turns the set's move sequences into one batch of game states; `judge` compares the
moves a player chose with the labels; `make_probe` builds the cheap in-training probe (one
batched search and one network call over the whole set) that the training loop logs as
`oracle_optimal` and `oracle_policy`, and as `oracle_optimal_quiet` and
`oracle_policy_quiet` on the set's quiet positions (`positions.quiet`: no win to take and no
loss to block, where a search with a win check earns its points without understanding).
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.games import make
from warmjax.perfect.positions import LabelledSet, quiet
from warmjax.perfect.replay import replay_moves
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
    return replay_moves(env, labelled.moves, labelled.plies)


def judge(labelled: LabelledSet, actions, immediate: np.ndarray | None = None,
          quiet_mask: np.ndarray | None = None) -> dict:
    """Rates of the chosen `actions [P]` against the labels (fractions of positions).

    - optimal: the move keeps the position's perfect-play value;
    - win_to_draw, win_to_loss, draw_to_loss: the blunders, by what they give away;
    - immediate_win_taken: among positions where a move completes a line at once, the
      fraction where the chosen move does (needs `immediate`, from
      `positions.immediate_wins`);
    - with `quiet_mask [P]` (`positions.quiet`): `quiet_positions` and every rate above
      but the last again on the quiet positions alone, as `quiet_optimal`, … (NaN where
      none is quiet).
    """
    actions = np.asarray(actions)
    if quiet_mask is not None:
        out = judge(labelled, actions, immediate)
        mask = np.asarray(quiet_mask, bool)
        if mask.any():
            part = judge(labelled.take(mask), actions[mask])
        else:
            part = {k: float("nan") for k in ("optimal", "win_to_draw", "win_to_loss",
                                              "draw_to_loss", "illegal")}
        out["quiet_positions"] = int(mask.sum())
        out.update({f"quiet_{k}": v for k, v in part.items() if k != "positions"})
        return out
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


def make_probe(env: Any, labelled: LabelledSet, player: Player, apply_fn: Callable):
    """Builds the probe: `(probe, states)`, with
    `probe(params, key, states) -> {"oracle_optimal", "oracle_policy",
    "oracle_optimal_quiet", "oracle_policy_quiet"}` (device scalars).

    `player` should play argmax (no sampled plies); its optimal-move rate is
    `oracle_optimal`, and the network's policy head's is `oracle_policy`. `states` are the
    set's positions; pass them to the jitted `probe` as an argument (closed-over arrays
    would be constant-folded by XLA, slowly). Pure and jit-able.
    """
    optimal = jnp.asarray(labelled.optimal)
    rows = jnp.arange(len(labelled))
    calm = jnp.asarray(quiet(labelled), jnp.float32)
    count = jnp.sum(calm)

    def on_quiet(hits):  # NaN where the set has no quiet position
        return jnp.where(count > 0, jnp.sum(hits * calm) / jnp.maximum(count, 1.0), jnp.nan)

    def probe(params, key, states):
        search_hits = optimal[rows, player(params, key, states).action]
        head_hits = optimal[rows, policy_head_actions(apply_fn, params, states)]
        return {
            "oracle_optimal": jnp.mean(search_hits),
            "oracle_policy": jnp.mean(head_hits),
            "oracle_optimal_quiet": on_quiet(search_hits),
            "oracle_policy_quiet": on_quiet(head_hits),
        }

    return probe, replay(env, labelled)
