"""`check_game(env)`: does a game keep the rules warmjax and pgx rely on?

A game author runs it on their own game before training (`python -c "from warmjax.games
import check_game, make; check_game(make('my_game'))"`); the tests run it on every
registered game. In the spirit of pgx's own API test (which insists on pgx's env ids, so its
checks are written out here), on a batch of random games played to the end under `jit` and
`vmap`, it checks:

- the API: a `GameEnv` (so a `pgx.core.Env`), two players, a symmetry kind warmjax knows,
  `board_shape`, `num_actions` and `observation_shape` that agree with `init`'s state;
- the state: pgx's public fields with their dtypes and shapes, and `_step_count`;
- `init`: no rewards, not over, some legal move, no plies yet;
- play: every game ends within `max_plies` (or is truncated there, for a game that
  `truncates`); `_step_count` counts the plies;
- pgx's conventions at the end of a game, which `from_board` must keep as well: the legal
  mask is all true, the rewards are zero-sum in {−1, 0, 1} and come only with the last
  move, and a finished state absorbs every action;
- an illegal move loses for the player who made it (pgx's `Env.step`);
- the symmetries (all four kinds: `dihedral`, `mirror`, `rot180`, `none`): each symmetric
  copy that `augment` makes of a position's observation and legal mask is the observation
  and legal mask of the transformed position: built with `from_board` where the game
  scripts positions, else reached by playing the transformed moves from the same start
  (for the symmetries that map the start onto itself: 4 of the 8 in 8×8 Othello);
- where the game scripts positions (`from_board`, `from_ascii`): the observation is the
  board from the mover's side, and the ASCII form reads back to the same state;
- every action's label (`action_label`) reads back (`parse_action`).

`check_game` raises `GameCheckError` naming the first rule broken, and returns the number
of positions it looked at.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pgx.core

from warmjax.games.env import FIRST, SECOND, GameEnv

SYMMETRY_KINDS = ("dihedral", "mirror", "rot180", "none")
PGX_PUBLIC = ("current_player", "observation", "rewards", "terminated", "truncated",
              "legal_action_mask")


class GameCheckError(AssertionError):
    """A rule of the game API that a game breaks (the message names it)."""


def _require(ok, message: str) -> None:
    if not bool(ok):
        raise GameCheckError(message)


def _item(states, *index):
    return jax.tree.map(lambda x: x[index], states)


def random_play(env: GameEnv, games: int, plies: int):
    """Jitted `key -> (states [plies + 1, games], actions [plies, games])`: uniformly random
    legal play; finished games keep stepping (pgx's terminal states absorb every action)."""

    def run(key):
        init_key, play_key = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(init_key, games))

        def body(state, key):
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)
            after = jax.vmap(env.step)(state, action)
            return after, (after, action)

        _, (states, actions) = jax.lax.scan(body, state, jax.random.split(play_key, plies))
        states = jax.tree.map(lambda x0, xs: jnp.concatenate([x0[None], xs]), state, states)
        return states, actions

    return jax.jit(run)


def _random_games(env: GameEnv, games: int, plies: int, seed: int):
    """`random_play`'s games of `seed`, as NumPy."""
    return jax.tree.map(np.asarray, random_play(env, games, plies)(jax.random.key(seed)))


def _scripts_positions(env: GameEnv, state) -> bool:
    """Whether the game builds states from boards (`from_board`); pgx's games do not."""
    try:
        env.from_board(env.board_array(state), env.colour_to_move(state),
                       int(state.current_player))
    except (NotImplementedError, ValueError):
        return False
    return True


def check_api(env: GameEnv) -> None:
    _require(isinstance(env, GameEnv) and isinstance(env, pgx.core.Env),
             f"{type(env).__name__} is not a warmjax.games.GameEnv (a pgx.core.Env)")
    _require(env.num_players == 2, f"num_players is {env.num_players}, not 2")
    _require(env.symmetry in SYMMETRY_KINDS,
             f"symmetry {env.symmetry!r} is not one of {', '.join(SYMMETRY_KINDS)}")
    rows, cols = env.board_shape
    _require(isinstance(rows, int) and isinstance(cols, int) and rows > 0 and cols > 0,
             f"board_shape {env.board_shape!r} is not two positive ints")
    state = env.init(jax.random.key(0))
    _require(tuple(state.observation.shape) == tuple(env.observation_shape),
             f"observation_shape {env.observation_shape} but init's observation has "
             f"{tuple(state.observation.shape)}")
    _require(state.legal_action_mask.shape == (env.num_actions,),
             f"num_actions {env.num_actions} but init's legal mask has "
             f"{state.legal_action_mask.shape}")
    _require(env.max_plies > 0, f"max_plies is {env.max_plies}")
    names = [f.name for f in dataclasses.fields(state)]
    missing = [n for n in (*PGX_PUBLIC, "_step_count") if n not in names]
    _require(not missing, f"the state lacks pgx's field(s) {', '.join(missing)}")
    expected = {"current_player": ((), jnp.int32), "rewards": ((2,), jnp.float32),
                "terminated": ((), jnp.bool_), "truncated": ((), jnp.bool_),
                "legal_action_mask": ((env.num_actions,), jnp.bool_),
                "_step_count": ((), jnp.int32)}
    for field, (shape, dtype) in expected.items():
        value = getattr(state, field)
        _require(value.shape == shape and value.dtype == dtype,
                 f"state.{field} is {value.dtype}{list(value.shape)}, pgx's is "
                 f"{jnp.dtype(dtype)}{list(shape)}")


def check_init(env: GameEnv, games: int = 16, seed: int = 0) -> None:
    keys = jax.random.split(jax.random.key(seed), games)
    s = jax.tree.map(np.asarray, jax.vmap(env.init)(keys))
    _require((s.rewards == 0).all(), "init gives rewards")
    _require(not s.terminated.any() and not s.truncated.any(), "init gives a finished game")
    _require(s.legal_action_mask.any(axis=-1).all(), "init gives no legal move")
    _require((s._step_count == 0).all(), "init's _step_count is not 0")


def check_play(env: GameEnv, s) -> None:
    """The rules of random play to the end, on `states [T + 1, B]`."""
    over = s.terminated | s.truncated
    _require(over[-1].all(), f"some random games did not end within max_plies = "
             f"{env.max_plies}")
    _require(env.truncates or not s.truncated.any(),
             "a game was truncated but the game does not say it truncates (`truncates`)")
    _require((s.terminated[1:] >= s.terminated[:-1]).all(), "a finished game went on")
    _require((s._step_count[1:] == s._step_count[:-1] + ~over[:-1]).all(),
             "_step_count does not count the plies")
    _require((s.rewards.sum(axis=-1) == 0).all(), "rewards are not zero-sum")
    _require(np.isin(s.rewards, (-1.0, 0.0, 1.0)).all(), "rewards outside {-1, 0, 1}")
    ends_now = np.zeros_like(over)
    ends_now[1:] = over[1:] & ~over[:-1]
    _require(not s.rewards[~ends_now].any(), "rewards before or after the last move")
    _require(s.legal_action_mask[s.terminated].all(),
             "a finished state's legal mask is not all true (pgx's convention)")
    _require(s.legal_action_mask[~over].any(axis=-1).all(), "a game on has no legal move")
    was_over = over[:-1]
    for field in ("observation", "current_player", "_step_count", "terminated"):
        before, after = getattr(s, field)[:-1], getattr(s, field)[1:]
        _require((after[was_over] == before[was_over]).all(),
                 f"a finished state changed its {field} when stepped")


def check_illegal_move_loses(env: GameEnv, s, count: int = 16) -> None:
    flat = jax.tree.map(lambda x: x[:-1].reshape((-1,) + x.shape[2:]), s)
    has_illegal = ~(flat.terminated | flat.truncated) & ~flat.legal_action_mask.all(axis=-1)
    index = np.flatnonzero(has_illegal)[:count]
    if index.size == 0:  # every move legal in every position reached: nothing to check
        return
    picked = _item(flat, index)
    illegal = np.argmin(picked.legal_action_mask, axis=-1).astype(np.int32)
    after = jax.tree.map(np.asarray, jax.jit(jax.vmap(env.step))(picked, illegal))
    rows = np.arange(index.size)
    _require(after.terminated.all(), "an illegal move did not end the game")
    _require((after.rewards[rows, picked.current_player] == -1).all()
             and (after.rewards[rows, 1 - picked.current_player] == 1).all(),
             "an illegal move did not lose for its player (pgx's convention)")


def _positions(s, count: int, seed: int):
    """Up to `count` positions of games still on, as unbatched states, with the ply and
    game each came from."""
    over = s.terminated | s.truncated
    where = np.argwhere(~over)
    rng = np.random.default_rng(seed)
    chosen = where[rng.choice(len(where), size=min(count, len(where)), replace=False)]
    return [(int(t), int(g), _item(s, int(t), int(g))) for t, g in chosen]


def _endings(s, count: int):
    """Up to `count` positions where a game ended (by its rules, not a step cap)."""
    ends = np.zeros_like(s.terminated)
    ends[1:] = s.terminated[1:] & ~s.terminated[:-1] & ~s.truncated[1:]
    return [(int(t), int(g), _item(s, int(t), int(g))) for t, g in np.argwhere(ends)[:count]]


def check_symmetries(env: GameEnv, s, played, count: int = 6, seed: int = 0) -> None:
    """Each symmetric copy of a position (`augment`) is the transformed position's
    observation and legal mask."""
    try:
        cells, actions = env.symmetry_tables()
    except ValueError as err:
        raise GameCheckError(f"symmetry {env.symmetry!r}: {err}") from None
    copies = {"dihedral": 8, "mirror": 2, "rot180": 2, "none": 1}[env.symmetry]
    _require(cells.shape[0] == copies and actions.shape == (copies, env.num_actions),
             f"symmetry {env.symmetry!r} should give {copies} tables, got {cells.shape[0]}")
    rows, cols = env.board_shape
    picked = _positions(s, count, seed) + _endings(s, count)
    obs = jnp.asarray(np.stack([p.observation for _, _, p in picked]))
    mask = np.stack([p.legal_action_mask for _, _, p in picked]).astype(np.float32)
    obs_aug, policy_aug = map(np.asarray, env.augment(obs, jnp.asarray(
        mask / mask.sum(-1, keepdims=True))))
    _require((obs_aug[:, 0] == np.asarray(obs)).all(), "augment's first copy is not the input")
    scripts = _scripts_positions(env, picked[0][2])
    step = jax.jit(env.step)
    for i, (t, g, state) in enumerate(picked):
        if scripts:
            board = env.board_array(state)
            for k in range(copies):
                other = env.from_board(_image(board, cells[k], rows, cols),
                                       env.colour_to_move(state), int(state.current_player))
                _require((obs_aug[i, k] == np.asarray(other.observation)).all(),
                         f"symmetry {k} of {env.symmetry!r} does not map the observation "
                         "onto the transformed position's")
                _same_outcome(env, k, state, other)
                if not bool(state.terminated):
                    _require(((policy_aug[i, k] > 0)
                              == np.asarray(other.legal_action_mask)).all(),
                             f"symmetry {k} of {env.symmetry!r} does not map the legal moves")
            continue
        # Replay the game's moves, transformed, from the same start: for the symmetries
        # that map the start onto itself (the others, Othello's colour-swapping turns, need
        # `from_board`).
        start = _item(s, 0, g)
        for k in range(copies):
            if not (_image(start.observation, cells[k], rows, cols)
                    == np.asarray(start.observation)).all():
                continue
            other = start
            for action in played[:t, g]:
                other = step(other, jnp.int32(actions[k, action]))
            _require((obs_aug[i, k] == np.asarray(other.observation)).all(),
                     f"symmetry {k} of {env.symmetry!r} does not map the observation onto "
                     "the position the transformed moves reach")
            _same_outcome(env, k, state, other)
            if not bool(state.terminated):
                _require(((policy_aug[i, k] > 0) == np.asarray(other.legal_action_mask)).all(),
                         f"symmetry {k} of {env.symmetry!r} does not map the legal moves")


def _same_outcome(env: GameEnv, k: int, state, other) -> None:
    _require(bool(other.terminated) == bool(state.terminated)
             and (np.asarray(other.rewards) == np.asarray(state.rewards)).all(),
             f"symmetry {k} of {env.symmetry!r} changes whether or how the game ends")


def _image(obs, cell_perm, rows: int, cols: int) -> np.ndarray:
    """A board `[rows, cols]` or an observation `[rows, cols, ...]` with its cells moved by
    `cell_perm`."""
    flat = np.asarray(obs).reshape(rows * cols, -1)
    image = np.empty_like(flat)
    image[cell_perm] = flat
    return image.reshape(np.shape(obs))


def check_scripted_positions(env: GameEnv, s, count: int = 24, seed: int = 0) -> None:
    """For a game that scripts positions: the observation is the board from the mover's
    side, and the ASCII form (`render`, `from_ascii`) reads back to the same state, at the
    end of a game too (its legal mask all true and its rewards)."""
    picked = _positions(s, count, seed) + _endings(s, count)
    if not picked or not _scripts_positions(env, picked[0][2]):
        return
    for _, _, state in picked:
        board, colour = env.board_array(state), env.colour_to_move(state)
        obs = np.asarray(state.observation)
        if obs.shape == (*env.board_shape, 2):
            other = SECOND if colour == FIRST else FIRST
            _require((obs[..., 0] == (board == colour)).all()
                     and (obs[..., 1] == (board == other)).all(),
                     "the observation is not the board from the mover's side")
        to_move = "X" if colour == FIRST else "O"
        again = env.from_ascii(env.render(state), to_move, int(state.current_player))
        for field in ("terminated", "legal_action_mask", "rewards", "observation"):
            _require((np.asarray(getattr(again, field))
                      == np.asarray(getattr(state, field))).all(),
                     f"from_board (through the ASCII form) does not give the same {field}"
                     + (" (pgx's conventions at the end of a game: an all-true legal mask "
                        "and the rewards)" if bool(state.terminated) else ""))


def check_action_labels(env: GameEnv) -> None:
    for action in range(env.num_actions):
        label = env.action_label(action)
        _require(env.parse_action(label) == action,
                 f"action {action}'s label {label!r} reads back as another action")


def check_game(env: GameEnv, games: int = 16, seed: int = 0,
               log: Callable[[str], None] | None = print) -> int:
    """Checks `env` against the rules of the module docstring.

    Args:
      env: the game (`warmjax.games.make(name, **params)`, or an instance of your own).
      games: random games played to the end.
      seed: their seed.
      log: where the line saying what passed goes (None: nowhere).

    Returns:
      The number of positions the random games went through.

    Raises:
      GameCheckError: the first rule broken, named.
    """
    check_api(env)
    check_init(env, games, seed)
    states, played = _random_games(env, games, env.max_plies + 1, seed)
    check_play(env, states)
    check_illegal_move_loses(env, states)
    check_symmetries(env, states, played, seed=seed)
    check_scripted_positions(env, states, seed=seed)
    check_action_labels(env)
    positions = int((~(states.terminated | states.truncated)).sum())
    if log is not None:
        log(f"check_game: {env.id} passed: the API and dtypes, the first state, {games} random "
            f"games to the end ({positions} positions) under jit and vmap, illegal moves, "
            f"{env.symmetry_tables()[0].shape[0]} symmetries, scripted positions and move "
            "labels")
    return positions
