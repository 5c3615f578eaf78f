"""Labelled positions for a game without an exact solver: each move valued by a deep search.

    python -m warmjax.labels --game toy_three --count 300 --simulations 1000

A game registers `Labels(depth, low, high, None, generate=GENERATE)` (no solver) to get a
labelled set this way; `python -m warmjax.labels` then writes it where the probe and the
oracle find it, and both score players on it as on a solved set.

How a set is made. Positions come from uniformly random games of the game's own rules
(`env.step`), each stopped at a ply drawn from [low, high]; a position reached twice, a
finished one and one whose legal moves all get the same label are dropped (as for the
solved sets). Each legal move is then played and the position after it searched by
network-free MCTS with random playouts (`pure_mcts`) of `simulations` simulations; the
move's value for the player who made it is minus that search's root value (the game's own
result where the move ends it). A value above +1/3 labels the move a win, below −1/3 a
loss, a draw between. "Optimal" then means "in the best of the three classes", as for an
exact set.

How far to trust it: these are estimates, not perfect play. `studies/search_labels/check.py`
labels positions of games that do have an exact solver this way and counts how often the
labels agree with the solver's (docs/experiments.md, "Your own game"): quote a game's
figures on a search-labelled set with that agreement beside them. Immediate wins (a move
that ends the game with a win) are exact, found by the rules; threats (the opponent's
immediate wins) need the game's `from_board` and are left unmarked where it has none.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from warmjax.games import make
from warmjax.perfect.positions import ILLEGAL, STALL_DRAWS, LabelledSet, _pack, check_found
from warmjax.search.players import make_player

GENERATE = "warmjax.probe.search_labels:generate_by_search"
SIMULATIONS = 1000  # the default depth of each move's search
WIN, DRAW, LOSS = 1, 0, -1
THRESHOLD = 1 / 3  # |value| above it: a win or a loss; a draw between
CHUNK = 256  # positions searched per compiled call


def draw_positions(env: Any, count: int, seed: int, low: int, high: int, seen: set,
                   log=None) -> tuple[list[list[int]], int]:
    """`count` positions of random play, each stopped at a ply in [low, high], none of them
    in `seen` (observations, as bytes; the new ones are added): their move lists and how
    many random games were drawn. Fewer where `STALL_DRAWS` random games in a row find no
    new one (the game has no more at those plies)."""
    rng = np.random.default_rng(seed)
    step = jax.jit(jax.vmap(env.step))
    init = jax.jit(jax.vmap(env.init))
    kept: list[list[int]] = []
    drawn = since_new = 0
    batch = max(64, 2 * count)
    while len(kept) < count and since_new < STALL_DRAWS:
        targets = rng.integers(low, high + 1, size=batch)
        states = init(jax.random.split(jax.random.PRNGKey(int(rng.integers(2**31))), batch))
        moves = np.full((batch, high), -1, np.int32)
        alive = np.ones(batch, bool)
        for ply in range(high):
            legal = np.asarray(states.legal_action_mask)
            go = alive & (ply < targets)
            if not go.any():
                break
            noise = rng.random(legal.shape) * legal
            action = np.where(go, noise.argmax(axis=1), 0).astype(np.int32)
            moves[go, ply] = action[go]
            after = step(states, jnp.asarray(action))
            states = jax.tree_util.tree_map(
                lambda new, old: jnp.where(jnp.asarray(go).reshape(-1, *(1,) * (new.ndim - 1)),
                                           new, old), after, states)
            alive &= ~np.asarray(states.terminated)
        drawn += batch
        since_new += batch
        observations = np.asarray(states.observation)
        for i in np.flatnonzero(alive):
            key = observations[i].tobytes()
            if key in seen or np.asarray(states.legal_action_mask[i]).sum() < 2:
                continue
            seen.add(key)
            since_new = 0
            kept.append([int(a) for a in moves[i, :targets[i]]])
            if len(kept) == count:
                break
        if log is not None:
            log(f"{len(kept)} of {count} positions drawn")
    return kept, drawn


def move_values(env: Any, moves: list[list[int]], simulations: int, seed: int = 0,
                log=None) -> np.ndarray:
    """`[P, A]` float32: each legal move's value for the player who makes it, by a
    `simulations`-deep network-free search of the position after it (the game's result
    where the move ends it); nan where the move is illegal."""
    from warmjax.perfect.replay import replay_moves

    count = len(moves)
    padded = np.full((count, max(len(m) for m in moves)), -1, np.int32)
    for i, m in enumerate(moves):
        padded[i, :len(m)] = m
    states = replay_moves(env, padded, np.array([len(m) for m in moves], np.int32))
    player = make_player("pure_mcts", env, simulations=simulations, temperature_moves=0)
    actions = jnp.arange(env.num_actions, dtype=jnp.int32)

    def values(states, key):
        children = jax.vmap(lambda s: jax.vmap(env.step, in_axes=(None, 0))(s, actions))(
            states)
        flat = jax.tree_util.tree_map(lambda x: x.reshape(-1, *x.shape[2:]), children)
        searched = player.analyse(None, key, flat).value.reshape(-1, env.num_actions)
        mover = states.current_player
        result = jnp.take_along_axis(children.rewards, mover[:, None, None], axis=2)[..., 0]
        value = jnp.where(children.terminated, result, -searched)
        return jnp.where(states.legal_action_mask, value, jnp.nan)

    values = jax.jit(values)
    out = []
    for start in range(0, count, CHUNK):
        part = jax.tree_util.tree_map(lambda x: x[start:start + CHUNK], states)
        out.append(np.asarray(values(part, jax.random.PRNGKey(seed + start))))
        if log is not None:
            log(f"{min(start + CHUNK, count)} of {count} positions searched")
    return np.concatenate(out)


def labels_of(values: np.ndarray) -> np.ndarray:
    """`[P, A]` int8 WIN / DRAW / LOSS (ILLEGAL where nan) of searched values."""
    labels = np.where(values > THRESHOLD, WIN, np.where(values < -THRESHOLD, LOSS, DRAW))
    return np.where(np.isnan(values), ILLEGAL, labels).astype(np.int8)


def generate_by_search(name: str, count: int, seed: int, params: dict, low: int, high: int,
                       log=None, simulations: int = SIMULATIONS) -> LabelledSet:
    """`count` positions of `name` labelled by search (the module docstring says how)."""
    env = make(name, **params)
    kept_moves, kept_values, drawn, seen = [], [], 0, set()
    while len(kept_moves) < count:
        need = count - len(kept_moves)
        moves, more = draw_positions(env, need, seed + drawn, low, high, seen, log)
        drawn += more
        if not moves:  # the game has no more distinct positions at these plies
            break
        labels = labels_of(move_values(env, moves, simulations, seed + drawn, log))
        for m, v in zip(moves, labels):
            legal = v[v != ILLEGAL]
            if not np.all(legal == legal[0]):  # a position that tells no move from another
                kept_moves.append(m)
                kept_values.append(v)
    check_found(kept_moves, count, drawn, f"plies {low}-{high}")
    flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in params.items())
    meta = {"seed": seed, "min_ply": low, "max_ply": high, "games_drawn": drawn,
            "labels": f"pure MCTS, {simulations} simulations per move, win or loss "
                      f"beyond ±{THRESHOLD:.2f}",
            "command": f"python -m warmjax.labels --game {name} --count {count} --seed "
                       f"{seed} {flags} --min-ply {low} --max-ply {high} "
                       f"--simulations {simulations}".replace("  ", " ")}
    return _pack(kept_moves[:count], kept_values[:count], {"name": name, **params}, meta)
