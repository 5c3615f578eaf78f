"""Players: every search variant behind one interface, so that any two can meet.

A player is called as `player(params, key, states) -> (action [B], policy [B, A])` on B
batched states. A game loop that lets players keep state between moves (the tree of a
search with `reuse_tree`) instead calls `memory = player.start(states)` once,
`action, policy, value, memory = player.play(params, key, states, weight, memory)` on its
turns, and `memory = player.follow(memory, actions)` after every ply; for players that keep
nothing the memory is `()`. `value [B]` is the player's own estimate of the position for the
player to move: a tree search's root value Σₐ π(a)·Q(root, a), 0 for RHEA and random play
(self-play mixes it into the value target with `train.value_mix`, method.md §5).

`params` are the network variables (ignored by network-free players). `policy` is the
search's move distribution: the root visit distribution for tree searches (the training
target), one-hot for RHEA, uniform over legal moves for the random player.
Moves are sampled from the policy while a game is in its first T′ plies
(`state._step_count < config.temperature_moves`) and are its argmax after that (method.md §2).
Every player is built from a `SearchConfig` (settings) and a name: the tree-search variants
of `variants.py` (mcts, rollout, rave, rora, wro, wrora, pure_mcts, pure_rave), RHEA
(`rhea.py`) and the uniformly random player.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import jax
import jax.numpy as jnp

from warmjax.search import reuse
from warmjax.search.config import TIE_BREAKS, SearchConfig
from warmjax.search.rhea import RheaConfig, make_rhea
from warmjax.search.rollout import random_legal_action
from warmjax.search.tree import init_tree
from warmjax.search.variants import SEARCH_VARIANTS, variant_search

PLAYERS = (*SEARCH_VARIANTS, "rhea", "random")
NETWORK_FREE = ("pure_mcts", "pure_rave", "rhea", "random")


@dataclasses.dataclass(frozen=True)
class Player:
    """A named player. Call it as `player(params, key, states, weight=None)`.

    Attributes:
      name: the variant's name.
      config: the settings it was built with (`config.temperature_moves` is its T′).
      act: `(params, key, states, weight) -> (action [B], policy [B, A], value [B])`.
      weight: default w for WRo/WRoRa; a call may pass a (traced) weight instead.
      keep: for a player that carries its search tree between moves, the most nodes
        `follow` keeps (`reuse.advance`); 0 for the others.
    """

    name: str
    config: SearchConfig
    act: Callable
    weight: float = 0.5
    keep: int = 0
    act_memory: Callable | None = None  # (params, key, states, weight, memory) -> (a, p, v, m)
    empty_memory: Callable | None = None  # states -> memory

    def __call__(self, params, key, states, weight=None):
        """`(action [B], policy [B, A])`."""
        action, policy, _ = self.act(params, key, states, self.weight if weight is None else weight)
        return action, policy

    def start(self, states):
        """The memory before a game's first move: `()` unless the player keeps its tree."""
        return () if self.empty_memory is None else self.empty_memory(states)

    def play(self, params, key, states, weight, memory):
        """A move with memory: `(action [B], policy [B, A], value [B], memory after the
        search)`."""
        weight = self.weight if weight is None else weight
        if self.act_memory is None:
            return (*self.act(params, key, states, weight), memory)
        return self.act_memory(params, key, states, weight, memory)

    def follow(self, memory, actions):
        """The memory after `actions [B]` were played, by this player or its opponent."""
        if self.act_memory is None:
            return memory
        return reuse.advance(memory, actions, self.keep)


def choose_actions(key: jax.Array, policy: jax.Array, sample: jax.Array,
                   tie_break: str = "first") -> jax.Array:
    """Samples from `policy [B, A]` where `sample [B]`, argmax elsewhere.

    `tie_break` settles equal maxima: "first" takes the lowest index (AlphaZero General at
    the time of PPSN 2020), "random" one of them uniformly (its later versions).
    """
    logits = jnp.where(policy > 0, jnp.log(jnp.maximum(policy, 1e-30)), -jnp.inf)
    sampled = jax.random.categorical(key, logits, axis=-1)
    if tie_break == "first":
        best = jnp.argmax(policy, axis=-1)
    elif tie_break == "random":
        top = policy >= jnp.max(policy, axis=-1, keepdims=True)
        best = jax.random.categorical(key, jnp.where(top, 0.0, -jnp.inf), axis=-1)
    else:
        raise ValueError(f"unknown tie_break {tie_break!r}; choose from {', '.join(TIE_BREAKS)}")
    return jnp.where(sample, sampled, best).astype(jnp.int32)


def make_player(
    name: str,
    env: Any,
    apply_fn: Callable | None = None,
    config: SearchConfig | None = None,
    *,
    weight: float = 0.5,
    rhea: RheaConfig | None = None,
    **settings: Any,
) -> Player:
    """Builds a player by name.

    Args:
      name: one of PLAYERS.
      env: the game.
      apply_fn: the network's inference function; needed unless the player is network-free.
      config: the search settings (`SearchConfig`); None: the defaults.
      weight: default w for wro/wrora.
      rhea: RHEA settings (defaults to method.md §4 with `config.simulations` playouts).
      **settings: `SearchConfig` fields that replace the config's, as in
        `make_player("mcts", env, apply, simulations=64, temperature_moves=0)`.

    Raises:
      ValueError: unknown name or setting, or a network player without `apply_fn`.
    """
    known = {f.name for f in dataclasses.fields(SearchConfig)}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise ValueError(f"unknown search setting(s) {', '.join(unknown)}; known: "
                         f"{', '.join(sorted(known))}")
    config = dataclasses.replace(config or SearchConfig(), **settings)
    if name not in PLAYERS:
        raise ValueError(f"unknown player {name!r}; choose from {', '.join(PLAYERS)}")
    uses_network = name not in NETWORK_FREE
    if uses_network and apply_fn is None:
        raise ValueError(f"player {name!r} needs a network")
    if name == "random":

        def act(params, key, states, weight):
            del params, weight
            keys = jax.random.split(key, states.current_player.shape[0])
            legal = states.legal_action_mask
            actions = jax.vmap(random_legal_action)(keys, legal)
            return actions, legal / jnp.sum(legal, axis=-1, keepdims=True), no_value(states)

        return Player(name, config, act, weight)

    if name == "rhea":
        evolve = jax.vmap(make_rhea(env, rhea or RheaConfig(simulations=config.simulations)))

        def act(params, key, states, weight):
            del params, weight
            keys = jax.random.split(key, states.current_player.shape[0])
            actions = evolve(keys, states).action
            return (actions, jax.nn.one_hot(actions, env.num_actions, dtype=jnp.float32),
                    no_value(states))

        return Player(name, config, act, weight)

    search = variant_search(name, env, apply_fn if uses_network else None, config)

    def decide(key, states, out):
        sample = states._step_count < config.temperature_moves
        actions = choose_actions(key, out.policy, sample, config.tie_break)
        if config.win_check:
            wins = winning_moves(env, states)
            actions = jnp.where(jnp.any(wins, axis=-1), jnp.argmax(wins, axis=-1), actions)
        return actions.astype(jnp.int32)

    def act(params, key, states, weight):
        search_key, act_key = jax.random.split(key)
        out = search(params, search_key, states, weight)
        return decide(act_key, states, out), out.policy, root_value(out)

    if not config.reuse_tree:
        return Player(name, config, act, weight)

    def act_memory(params, key, states, weight, memory):
        search_key, act_key = jax.random.split(key)
        out = search(params, search_key, states, weight, memory)
        count = memory.count
        used = jnp.where(count > 0, count, 1) + config.simulations
        return (decide(act_key, states, out), out.policy, root_value(out),
                reuse.Memory(out.tree, used))

    def empty_memory(states):
        batch, num_actions = states.legal_action_mask.shape
        tree = init_tree(states, jnp.zeros((batch, num_actions), jnp.float32), config.capacity)
        return reuse.Memory(tree, jnp.zeros(batch, jnp.int32))

    return Player(name, config, act, weight, keep=config.capacity - config.simulations,
                  act_memory=act_memory, empty_memory=empty_memory)


def no_value(states) -> jax.Array:
    """`[B]` zeros: the value of a player that does not estimate one."""
    return jnp.zeros(states.current_player.shape, jnp.float32)


def root_value(out) -> jax.Array:
    """`[B]` a search's value of its roots for the player to move: Σₐ π(a)·Q(root, a), the
    mean of the values its simulations backed up through the root's edges."""
    return jnp.sum(out.policy * out.values, axis=-1)


def winning_moves(env: Any, states) -> jax.Array:
    """`[B, A]` bool: the legal moves that end the game at once with a win for the mover."""
    actions = jnp.arange(states.legal_action_mask.shape[-1], dtype=jnp.int32)

    def one(state):
        after = jax.vmap(env.step, in_axes=(None, 0))(state, actions)
        won = after.terminated & (after.rewards[:, state.current_player] > 0)
        return won & state.legal_action_mask

    return jax.vmap(one)(states)
