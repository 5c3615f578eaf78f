"""Self-play health: whether a learner's own games still teach it anything (method.md §5).

A learner that collapses into one long, drawn line of play keeps a low loss while its
play gets worse (results.md §9): its self-play games all end the same way, run to the
board's end, open the same way and carry near-deterministic targets. These figures, one
of each per iteration in `metrics.jsonl` and the progress line, show it as it happens:

- the shares of self-play games won by the first mover, won by the second, and drawn;
- the games' mean and longest length in plies;
- the share of games whose first k plies no earlier game of the batch shares (the distinct
  k-ply openings over the games), k from `opening_plies`;
- the mean entropy, in nats, of the recorded policy targets;
- the share of arena games that were decisive (`MetricRow.arena_decisive`).

Each function works on one iteration's batch of E games, on device.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

# k = 8 on the 6×6 boards: the opening prefix is this share of the board's cells, rounded.
OPENING_SHARE = 8 / 36


def opening_plies(board_shape: tuple[int, int]) -> int:
    """k, the plies of an opening: 8/36 of the board's cells, rounded, at least 1 (8 on the
    6×6 boards, 9 on Connect Four 6×7, 11 on Hex 7×7, 2 on tic-tac-toe)."""
    rows, cols = board_shape
    return max(1, round(OPENING_SHARE * rows * cols))


def outcome_shares(results: jax.Array, first_mover: jax.Array) -> jax.Array:
    """`[3]` float32: the shares of games won by the first mover, won by the second, and
    drawn (`results [E, 2]`, the final rewards by player id; `first_mover [E]` int32, the id
    of each game's first mover). A game is drawn where the first mover's reward is 0."""
    first = jnp.take_along_axis(results, first_mover[:, None], axis=1)[:, 0]
    return jnp.stack([jnp.mean(first > 0), jnp.mean(first < 0), jnp.mean(first == 0)]
                     ).astype(jnp.float32)


def distinct_openings(actions: jax.Array, plies: jax.Array, k: int) -> jax.Array:
    """`[]` float32: the distinct k-ply openings over the games, a share in (0, 1].

    `actions [T, E]` int32 are the moves played, `plies [E]` int32 the games' lengths. A
    game's opening is its first k moves; a game shorter than k is its own opening (the
    missing plies count as one more symbol, never a move). Game e counts where no game
    before it in the batch has the same opening.
    """
    k = min(k, actions.shape[0])
    played = jnp.arange(k)[:, None] < plies[None, :]
    prefix = jnp.where(played, actions[:k], -1).T  # [E, k]
    same = jnp.all(prefix[:, None, :] == prefix[None, :, :], axis=-1)  # [E, E]
    earlier = jnp.tril(same, k=-1)  # e' < e with e's opening
    return jnp.mean(~jnp.any(earlier, axis=1)).astype(jnp.float32)


def target_entropy(policy: jax.Array, valid: jax.Array) -> jax.Array:
    """`[]` float32: the mean entropy (nats) of the recorded policy targets (`policy
    [T, E, A]`, `valid [T, E]` bool, the recorded positions); 0 where none is recorded."""
    terms = jnp.where(policy > 0, -policy * jnp.log(jnp.where(policy > 0, policy, 1.0)), 0.0)
    entropy = jnp.sum(terms, axis=-1)
    count = jnp.sum(valid)
    return (jnp.sum(jnp.where(valid, entropy, 0.0)) / jnp.maximum(count, 1)).astype(jnp.float32)


def selfplay_health(games, k: int) -> dict[str, jax.Array]:
    """The self-play figures of one iteration's `SelfPlayResult`, keyed as `MetricRow`'s
    fields (the arena's share is the iteration's)."""
    wins_first, wins_second, draws = outcome_shares(games.results, games.first_mover)
    return {
        "selfplay_first_wins": wins_first,
        "selfplay_second_wins": wins_second,
        "selfplay_draws": draws,
        "selfplay_max_plies": jnp.max(games.plies),
        "selfplay_openings": distinct_openings(games.actions, games.plies, k),
        "selfplay_target_entropy": target_entropy(games.policy, games.valid),
    }
