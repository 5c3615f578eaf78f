"""Players: every search variant behind one interface, so that any two can meet.

A player has one call: `player(inputs, key, states, memory=()) -> Move` on B batched states,
where `Move` holds the action `[B]`, the policy `[B, A]`, the value `[B]` and the memory the
player carries to its next move. `inputs` is the network's variables, or `Inputs(variables,
weight)` where w of WRo/WRoRa changes from call to call (self-play's schedule); network-free
players ignore it. A game loop that lets players keep state between moves (the tree of a
search with `reuse_tree`) calls `memory = player.start(states)` once, passes the memory to
each call, and `memory = player.follow(memory, actions)` after every ply; a call without
memory searches afresh, and for players that keep nothing the memory is `()`.

`value [B]` is the player's own estimate of the position for the player to move: a tree
search's root value Σₐ π(a)·Q(root, a), 0 for RHEA and random play (self-play mixes it into
the value target with `train.value_mix`, method.md §5). `policy` is the search's move
distribution: the root visit distribution for tree searches (the training target), one-hot
for RHEA, uniform over legal moves for the random player.
Moves are sampled from the policy while a game is in its first T′ plies
(`state._step_count < config.temperature_moves`) and are its argmax after that (method.md §2).
Every player is built from a `SearchConfig` (settings) and a name: the tree-search variants
of `variants.py` (mcts, rollout, rave, rora, wro, wrora, pure_mcts, pure_rave), Gumbel
AlphaZero's search (`gumbel.py`), RHEA (`rhea.py`) and the uniformly random player.
`KINDS`, one table of player kinds, says how each is built and whether it needs a network
(`uses_network(name)`).

The Gumbel player's policy is π′ (or its visit distribution, `gumbel_target`), its value the
root's search value; its move samples π′ in the first T′ plies and is then the action
sequential halving selects (or π′'s argmax, `gumbel_act`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, NamedTuple

import chex
import jax
import jax.numpy as jnp

from warmjax.games.playout import winning_moves
from warmjax.search import reuse
from warmjax.search.config import TIE_BREAKS, SearchConfig
from warmjax.search.gumbel import make_gumbel_search
from warmjax.search.leaf import Inputs
from warmjax.search.rhea import RheaConfig, make_rhea
from warmjax.search.rollouts import random_legal_action
from warmjax.search.search import visit_policy
from warmjax.search.tree import init_tree
from warmjax.search.variants import SEARCH_VARIANTS, variant_search


def uses_network(name: str) -> bool:
    """Whether the player `name` needs a network (`KINDS`; False for a name it lacks)."""
    kind = KINDS.get(name)
    return kind is not None and kind.uses_network


class Move(NamedTuple):
    """A player's move in B games."""

    action: jax.Array  # [B] int32
    policy: jax.Array  # [B, A] float32, the search's move distribution
    value: jax.Array  # [B] float32, its value of the position for the player to move
    memory: Any  # what the player carries to its next move (`Player.follow`); () if nothing
    # [B] int32 environment steps the search spent in random playouts (the compute ledger);
    # None from a player that plays none (`Player.__call__` makes it zeros). RHEA's
    # evolution is not counted here.
    playout_steps: Any = None

    def check(self, batch: int, num_actions: int) -> "Move":
        """The move, its shapes asserted (at trace time): action and value `[B]`, policy
        `[B, A]`."""
        chex.assert_shape((self.action, self.policy, self.value),
                          ((batch,), (batch, num_actions), (batch,)))
        return self


class Analysis(NamedTuple):
    """One search of B positions, opened up (`Player.analyse`)."""

    action: jax.Array  # [B] int32, the move the player makes
    policy: jax.Array  # [B, A] float32, its move distribution (as `Move.policy`)
    prior: jax.Array  # [B, A] float32, the root's prior over the legal moves: the network's
    # softmax (root noise included where the settings add it), uniform for a network-free
    # tree search and for players without a tree
    visits: jax.Array  # [B, A] int32, the root's visit counts (zeros without a tree)
    q: jax.Array  # [B, A] float32, Q(root, a) for the player to move; 0 where unvisited
    value: jax.Array  # [B] float32, as `Move.value`


@dataclasses.dataclass(frozen=True)
class Player:
    """A named player. Call it as `player(inputs, key, states, memory=()) -> Move`.

    Attributes:
      name: the variant's name.
      config: the settings it was built with (`config.temperature_moves` is its T′).
      search: `(inputs, key, states, memory) -> Move` with `inputs` an `Inputs` whose
        weight is set; `memory` is () for a fresh search.
      weight: default w for WRo/WRoRa, where the call's `inputs` carry none.
      keep: for a player that carries its search tree between moves, the most nodes
        `follow` keeps (`reuse.advance`); 0 for the others.
      empty_memory: `states -> memory` before a game's first move, for a player that keeps
        its tree; None for the others.
      policy_target: self-play stores the player's policy as the training target at every
        ply (the Gumbel search's π′), not only in the first T′ plies with the move played
        one-hot after them (AlphaZero General's, the papers').
      analysis: `(inputs, key, states) -> Analysis`, a fresh search opened up
        (`Player.analyse`).
    """

    name: str
    config: SearchConfig
    search: Callable
    weight: float = 0.5
    keep: int = 0
    empty_memory: Callable | None = None
    policy_target: bool = False
    analysis: Callable | None = None

    def _inputs(self, inputs) -> Inputs:
        if not isinstance(inputs, Inputs):
            inputs = Inputs(inputs)
        return inputs if inputs.weight is not None else inputs._replace(weight=self.weight)

    def analyse(self, inputs, key, states) -> Analysis:
        """A fresh search of each of the B `states`, opened up: the move, the policy, the
        root's prior, visit counts and Q, and the value (`Analysis`). For the same key the
        move is the one `player(inputs, key, states)` makes. `inputs` as for a call (None
        for a network-free player)."""
        return self.analysis(self._inputs(inputs), key, states)

    def __call__(self, inputs, key, states, memory=()) -> Move:
        """The player's move in each of the B `states` (see the module docstring)."""
        move = self.search(self._inputs(inputs), key, states, memory)
        if move.playout_steps is None:
            move = move._replace(playout_steps=jnp.zeros(states.current_player.shape,
                                                         jnp.int32))
        return move

    @property
    def evaluations_per_search(self) -> int:
        """Network evaluations one search of one position costs (the compute ledger): the
        root's prior and one per simulation, 1 + m, for a player with a network (PUCT and
        its warm-start variants, Gumbel's); 0 for a network-free player."""
        return self.config.simulations + 1 if uses_network(self.name) else 0

    def start(self, states):
        """The memory before a game's first move: `()` unless the player keeps its tree."""
        return () if self.empty_memory is None else self.empty_memory(states)

    def follow(self, memory, actions):
        """The memory after `actions [B]` were played, by this player or its opponent."""
        if self.empty_memory is None:
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
    """Builds a player by name (a key of `KINDS`).

    Args:
      name: one of PLAYERS.
      env: the game.
      apply_fn: the network's inference function; needed unless the player is network-free.
      config: the search settings (`SearchConfig`); None: the defaults.
      weight: default w for wro/wrora.
      rhea: RHEA settings (default: method.md §4's); a budget left None is `config.simulations`.
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
    if name not in KINDS:
        raise ValueError(f"unknown player {name!r}; choose from {', '.join(PLAYERS)}")
    kind = KINDS[name]
    if kind.uses_network and apply_fn is None:
        raise ValueError(f"player {name!r} needs a network")
    return kind.build(Recipe(name, env, apply_fn if kind.uses_network else None, config,
                             weight, rhea))


class Recipe(NamedTuple):
    """What a player kind builds its player from (`make_player`'s arguments, checked)."""

    name: str
    env: Any
    apply_fn: Callable | None
    config: SearchConfig
    weight: float
    rhea: RheaConfig | None


def _random_player(r: Recipe) -> Player:
    def random_move(inputs, key, states, memory):
        del inputs
        keys = jax.random.split(key, states.current_player.shape[0])
        legal = states.legal_action_mask
        actions = jax.vmap(random_legal_action)(keys, legal)
        return Move(actions, uniform(states), no_value(states), memory)

    def random_analysis(inputs, key, states):
        move = random_move(inputs, key, states, ())
        return without_tree(states, move.action, move.policy, move.value)

    return Player(r.name, r.config, random_move, r.weight, analysis=random_analysis)


def _rhea_player(r: Recipe) -> Player:
    evolve = jax.vmap(make_rhea(r.env, (r.rhea or RheaConfig()).with_budget(r.config.simulations)))

    def rhea_move(inputs, key, states, memory):
        del inputs
        keys = jax.random.split(key, states.current_player.shape[0])
        actions = evolve(keys, states).action
        return Move(actions, jax.nn.one_hot(actions, r.env.num_actions, dtype=jnp.float32),
                    no_value(states), memory)

    def rhea_analysis(inputs, key, states):
        move = rhea_move(inputs, key, states, ())
        return without_tree(states, move.action, move.policy, move.value)

    return Player(r.name, r.config, rhea_move, r.weight, analysis=rhea_analysis)


def _with_win_check(r: Recipe, states, actions):
    """`actions`, or a move that wins at once where one exists (`win_check`)."""
    if r.config.win_check:
        wins = winning_moves(r.env, states)
        actions = jnp.where(jnp.any(wins, axis=-1), jnp.argmax(wins, axis=-1), actions)
    return actions.astype(jnp.int32)


def _gumbel_player(r: Recipe) -> Player:
    config = r.config
    gumbel = make_gumbel_search(r.env, r.apply_fn, config)

    def searched(inputs, key, states):
        search_key, act_key = jax.random.split(key)
        out = gumbel(inputs.params, search_key, states)
        policy = (out.improved if config.gumbel_target == "improved"
                  else visit_policy(out.visits, states.legal_action_mask))
        later = out.selected if config.gumbel_act == "selected" else jnp.argmax(
            out.improved, axis=-1)
        sampled = choose_actions(act_key, out.improved,
                                 jnp.ones_like(states.terminated), config.tie_break)
        early = states._step_count < config.temperature_moves
        actions = _with_win_check(r, states, jnp.where(early, sampled, later))
        return out, actions, policy

    def gumbel_move(inputs, key, states, memory):
        out, actions, policy = searched(inputs, key, states)
        return Move(actions, policy, out.value, memory)

    def gumbel_analysis(inputs, key, states):
        out, actions, policy = searched(inputs, key, states)
        tree, legal = out.tree, states.legal_action_mask
        root = jnp.full(legal.shape[:1], tree.ROOT_INDEX, jnp.int32)
        prior = jax.nn.softmax(tree.children_prior_logits[:, tree.ROOT_INDEX], axis=-1)
        q = jnp.where(out.visits > 0, tree.qvalues(root), 0.0).astype(jnp.float32)
        return Analysis(actions, policy, jnp.where(legal, prior, 0.0), out.visits, q,
                        out.value)

    return Player(r.name, config, gumbel_move, r.weight, policy_target=True,
                  analysis=gumbel_analysis)


def _tree_player(r: Recipe) -> Player:
    """A variant of the one tree search (`variants.py`), keeping its tree between moves
    where `reuse_tree`."""
    config = r.config
    search = variant_search(r.name, r.env, r.apply_fn, config)

    def decide(key, states, out):
        sample = states._step_count < config.temperature_moves
        actions = choose_actions(key, out.policy, sample, config.tie_break)
        return _with_win_check(r, states, actions)

    def tree_move(inputs, key, states, memory):
        search_key, act_key = jax.random.split(key)
        if isinstance(memory, reuse.Memory):  # go on from the tree the last move left
            out = search(inputs, search_key, states, memory)
            count = memory.count
            used = jnp.where(count > 0, count, 1) + config.simulations
            memory = reuse.Memory(out.tree, used)
        else:
            out = search(inputs, search_key, states)
        return Move(decide(act_key, states, out), out.policy,
                    root_value(out, config.greedy_value), memory,
                    out.playout_steps)

    def tree_analysis(inputs, key, states):  # tree_move's fresh search, opened up
        search_key, act_key = jax.random.split(key)
        out = search(inputs, search_key, states)
        return Analysis(decide(act_key, states, out), out.policy,
                        out.tree.children_prior[:, out.tree.ROOT], out.visits, out.values,
                        root_value(out, config.greedy_value))

    if not config.reuse_tree:
        return Player(r.name, config, tree_move, r.weight, analysis=tree_analysis)

    def empty_memory(states):
        batch, num_actions = states.legal_action_mask.shape
        tree = init_tree(states, jnp.zeros((batch, num_actions), jnp.float32), config.capacity)
        return reuse.Memory(tree, jnp.zeros(batch, jnp.int32))

    return Player(r.name, config, tree_move, r.weight,
                  keep=config.capacity - config.simulations, empty_memory=empty_memory,
                  analysis=tree_analysis)


class PlayerKind(NamedTuple):
    """One kind of player: how it is built, and whether it needs a network."""

    build: Callable[[Recipe], Player]
    uses_network: bool


# Every player by name: the tree-search variants (their table says which need a network),
# then the players that are not variants of the one tree search.
KINDS: dict[str, PlayerKind] = {
    **{name: PlayerKind(_tree_player, variant.uses_network)
       for name, variant in SEARCH_VARIANTS.items()},
    "gumbel": PlayerKind(_gumbel_player, True),
    "rhea": PlayerKind(_rhea_player, False),
    "random": PlayerKind(_random_player, False),
}
PLAYERS = tuple(KINDS)
NETWORK_FREE = tuple(name for name, kind in KINDS.items() if not kind.uses_network)


def uniform(states) -> jax.Array:
    """`[B, A]` the uniform distribution over each state's legal moves."""
    legal = states.legal_action_mask
    return legal / jnp.sum(legal, axis=-1, keepdims=True)


def without_tree(states, action, policy, value) -> Analysis:
    """The `Analysis` of a player that builds no tree: a uniform prior, no visits, Q 0."""
    zeros = jnp.zeros(states.legal_action_mask.shape, jnp.int32)
    return Analysis(action, policy, uniform(states), zeros, zeros.astype(jnp.float32), value)


def no_value(states) -> jax.Array:
    """`[B]` zeros: the value of a player that does not estimate one."""
    return jnp.zeros(states.current_player.shape, jnp.float32)


def root_value(out, greedy: bool = False) -> jax.Array:
    """`[B]` a search's value of its roots for the player to move: Σₐ π(a)·Q(root, a), the
    mean of the values its simulations backed up through the root's edges; or, `greedy`
    (`SearchConfig.greedy_value`), Q(root, a*) of the most visited edge a* (the first such;
    before any pruning of the visits by forced playouts)."""
    if greedy:
        best = jnp.argmax(out.visits, axis=-1)
        return jnp.take_along_axis(out.values, best[:, None], axis=-1)[:, 0]
    return jnp.sum(out.policy * out.values, axis=-1)
