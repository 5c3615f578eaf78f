"""Board symmetries for data augmentation (method.md §1).

A symmetry is a permutation of cells and the matching permutation of actions. Tables are
built once in NumPy; `augment` applies all of them to a batch with two gathers.

- Square boards (Othello, Gobang): the 8 dihedral transforms. Actions are cells, plus
  Othello's pass, which every transform leaves in place.
- Connect Four: identity and the left-right mirror. Actions are columns.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np


def dihedral_cell_permutations(size: int) -> np.ndarray:
    """`[8, size*size]` int32: entry `[s, cell]` is where `cell` goes under transform s.

    Transforms are rotations by 0, 90, 180 and 270 degrees, each with and without a
    left-right flip applied first. Transform 0 is the identity.
    """
    cells = np.arange(size * size).reshape(size, size)
    perms = []
    for flip in (False, True):
        base = cells[:, ::-1] if flip else cells
        for k in range(4):
            img = np.rot90(base, k)
            # img[r, c] holds the source cell that lands on (r, c).
            perm = np.empty(size * size, dtype=np.int32)
            perm[img.reshape(-1)] = np.arange(size * size)
            perms.append(perm)
    return np.stack(perms)


def mirror_cell_permutations(rows: int, cols: int) -> np.ndarray:
    """`[2, rows*cols]` int32: identity and the left-right mirror of cells."""
    cells = np.arange(rows * cols).reshape(rows, cols)
    mirrored = np.empty(rows * cols, dtype=np.int32)
    mirrored[cells[:, ::-1].reshape(-1)] = np.arange(rows * cols)
    return np.stack([np.arange(rows * cols, dtype=np.int32), mirrored])


def symmetry_tables(kind: str, rows: int, cols: int, num_actions: int):
    """Cell and action permutations of a game.

    Args:
      kind: "dihedral" (square board; actions are cells plus an optional pass at the end),
        "mirror" (actions are columns), "rot180" (the half turn, actions past the cells
        fixed: Hex and its swap) or "none" (the identity alone: a game without
        symmetries, or one whose symmetries warmjax does not use).
      rows, cols: board shape.
      num_actions: size of the action space.

    Returns:
      `(cell_perm [S, rows*cols], action_perm [S, num_actions])`, int32, where entry
      `[s, x]` is the image of x under symmetry s; symmetry 0 is the identity.
    """
    if kind == "dihedral":
        if rows != cols:
            raise ValueError(f"dihedral symmetry needs a square board, got {rows}x{cols}")
        cell_perm = dihedral_cell_permutations(rows)
        extra = num_actions - rows * cols
        if extra not in (0, 1):
            raise ValueError(f"{num_actions} actions do not fit a {rows}x{cols} board")
        passes = np.broadcast_to(np.arange(rows * cols, num_actions), (8, extra))
        action_perm = np.concatenate([cell_perm, passes], axis=1).astype(np.int32)
    elif kind == "mirror":
        if num_actions != cols:
            raise ValueError(f"mirror symmetry expects one action per column, got {num_actions}")
        cell_perm = mirror_cell_permutations(rows, cols)
        action_perm = np.stack([np.arange(cols), np.arange(cols)[::-1]]).astype(np.int32)
    elif kind == "rot180":  # Hex: the half turn; actions past the cells (swap) stay put
        cells = rows * cols
        cell_perm = np.stack([np.arange(cells), np.arange(cells)[::-1]]).astype(np.int32)
        extra = num_actions - cells
        if extra < 0:
            raise ValueError(f"{num_actions} actions do not fit a {rows}x{cols} board")
        fixed = np.broadcast_to(np.arange(cells, num_actions), (2, extra))
        action_perm = np.concatenate([cell_perm, fixed], axis=1).astype(np.int32)
    elif kind == "none":
        cell_perm = np.arange(rows * cols, dtype=np.int32)[None]
        action_perm = np.arange(num_actions, dtype=np.int32)[None]
    else:
        raise ValueError(f"unknown symmetry kind {kind!r}")
    return cell_perm, action_perm


def inverse_permutations(perm: np.ndarray) -> np.ndarray:
    """Row-wise inverse of `[S, X]` permutations."""
    inv = np.empty_like(perm)
    rows = np.arange(perm.shape[0])[:, None]
    inv[rows, perm] = np.arange(perm.shape[1])[None, :]
    return inv


def augment(obs, policy, cell_perm: np.ndarray, action_perm: np.ndarray):
    """All symmetric copies of a batch of (observation, policy) pairs.

    Args:
      obs: `[B, H, W, C]` observations.
      policy: `[B, A]` policies over actions.
      cell_perm, action_perm: tables from `symmetry_tables`.

    Returns:
      `(obs [B, S, H, W, C], policy [B, S, A])`; copy 0 is the input itself.
    """
    b, h, w, c = obs.shape
    cell_src = jnp.asarray(inverse_permutations(cell_perm))  # [S, H*W]
    action_src = jnp.asarray(inverse_permutations(action_perm))  # [S, A]
    flat = obs.reshape(b, h * w, c)
    obs_out = flat[:, cell_src, :].reshape(b, cell_src.shape[0], h, w, c)
    policy_out = policy[:, action_src]
    return obs_out, policy_out
