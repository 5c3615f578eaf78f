"""A slow, literal, plain-Python MCTS used as the reference for the batched search.

One tree of Python objects per root, no transpositions, float64 arithmetic, written straight
from method.md §2–§3 without sharing code with `warmjax.search`:

- select argmax_a of Q + c·P·sqrt(N(s))/(1+N(s,a)) over legal actions (first index on ties;
  at N(s) = 0 the highest prior, as AlphaZero General's 1e-8), or RAVE's
  (1−β)·U + β·U_rave with β = sqrt(k/(3N(s)+k));
- at a new leaf: the game result if terminal, else the leaf evaluator's value;
- back the value up, negated for the other player;
- forced playouts (KataGo's, `forced` = k > 0): at the root, the first legal action with
  fewer visits than sqrt(k·P·N(s)) is taken before the rule's choice; `pruned` takes such
  visits back one at a time, as KataGo describes its policy-target pruning;
- RAVE: for each node on the path (the new leaf included) and each action that the node's
  player (or, with all_players, anyone) played at that step or later in the simulation,
  tree moves then rollout moves, legal in the node, once: N_rave += 1, W_rave += value.

Game steps and network calls go through caller-supplied single-state functions.
"""

from __future__ import annotations

import math

import numpy as np


class Node:
    def __init__(self, state, prior, num_actions):
        self.state = state
        self.player = int(state.current_player)
        self.terminal = bool(state.terminated)
        self.result = float(np.asarray(state.rewards)[self.player])
        self.legal = np.asarray(state.legal_action_mask, dtype=bool)
        self.prior = prior
        self.children = {}
        self.n = np.zeros(num_actions, dtype=np.int64)
        self.w = np.zeros(num_actions, dtype=np.float64)
        self.n_rave = np.zeros(num_actions, dtype=np.int64)
        self.w_rave = np.zeros(num_actions, dtype=np.float64)


def softmax_legal(logits, legal):
    logits = np.asarray(logits, dtype=np.float64)
    z = np.where(legal, logits, -np.inf)
    z = np.exp(z - z[legal].max())
    return z / z.sum()


def _u(w, n, prior, c):
    total = n.sum()
    q = np.where(n > 0, w / np.maximum(n, 1), 0.0)
    explore = math.sqrt(total) if total > 0 else 1e-4  # sqrt(0 + 1e-8)
    return q + c * prior * explore / (1.0 + n)


def select(node, c, rave, equivalence, forced=0.0, root=False):
    if forced > 0 and root:
        for a in range(len(node.n)):
            if node.legal[a] and node.n[a] < math.sqrt(forced * node.prior[a] * node.n.sum()):
                return a
    u = _u(node.w, node.n, node.prior, c)
    if rave:
        beta = math.sqrt(equivalence / (3.0 * node.n.sum() + equivalence))
        u = (1 - beta) * u + beta * _u(node.w_rave, node.n_rave, node.prior, c)
    u = np.where(node.legal, u, -np.inf)
    return int(np.argmax(u))


def reference_search(
    root_state,
    step,
    evaluate,
    simulations,
    c=1.0,
    rave=False,
    all_players=False,
    equivalence=None,
    forced=0.0,
):
    """Runs m simulations from one root.

    Args:
      root_state: one game state.
      step: `step(state, action) -> state` for one state.
      evaluate: `evaluate(state, sim) -> (logits [A], value, rollout_moves)` for one
        non-terminal state, value for its player to move, rollout_moves a list of
        (action, player) (empty without a rollout). `sim` is the simulation index (the
        root's evaluation gets sim = -1).
      simulations: m.
      forced: k of forced playouts at the root (0: none).

    Returns:
      The root `Node`.
    """
    num_actions = len(np.asarray(root_state.legal_action_mask))
    equivalence = simulations if equivalence is None else equivalence
    logits, _, _ = evaluate(root_state, -1)
    root = Node(root_state, softmax_legal(logits, np.asarray(root_state.legal_action_mask)),
                num_actions)
    for sim in range(simulations):
        node, path, rollout_moves = root, [], []
        while True:
            if node.terminal:
                leaf, value = node, node.result
                break
            a = select(node, c, rave, equivalence, forced, node is root)
            path.append((node, a))
            if a in node.children:
                node = node.children[a]
                continue
            s2 = step(node.state, a)
            logits, value, rollout_moves = evaluate(s2, sim)
            leaf = Node(s2, softmax_legal(logits, np.asarray(s2.legal_action_mask)), num_actions)
            if leaf.terminal:
                value, rollout_moves = leaf.result, []
            node.children[a] = leaf
            break
        for n, a in path:
            n.n[a] += 1
            n.w[a] += value if n.player == leaf.player else -value
        if rave:
            moves = [(a, n.player) for n, a in path] + list(rollout_moves)
            nodes = [n for n, _ in path] + [leaf]
            for t1, n in enumerate(nodes):
                v = value if n.player == leaf.player else -value
                seen = set()
                for a, p in moves[t1:]:
                    if (all_players or p == n.player) and a not in seen and n.legal[a]:
                        seen.add(a)
                        n.n_rave[a] += 1
                        n.w_rave[a] += v
    return root


def pruned(root, c, k):
    """The root's visits after policy-target pruning: every action but the most visited
    gives up visits one at a time, at most floor(sqrt(k·P·N(s))), while its PUCT score with
    one visit fewer would stay no higher than the most visited action's; an action brought
    down to one visit gives that one up too."""
    n = root.n.astype(np.float64)
    total = n.sum()
    best = int(np.argmax(n))
    q = np.where(n > 0, root.w / np.maximum(n, 1), 0.0)

    def score(a, visits):
        return q[a] + c * root.prior[a] * math.sqrt(total) / (1.0 + visits)

    best_score = score(best, n[best])
    out = n.copy()
    for a in range(len(n)):
        if a == best or n[a] == 0:
            continue
        for _ in range(int(math.floor(math.sqrt(k * root.prior[a] * total)))):
            if out[a] == 0 or score(a, out[a] - 1) > best_score:
                break
            out[a] -= 1
        if out[a] == 1 and out[a] < n[a]:
            out[a] = 0
    return out
