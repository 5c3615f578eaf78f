"""Self-play: E games in parallel, recorded as training examples (method.md §5, §8).

Each ply, every unfinished game is searched by the baseline player, the enhancement player,
or (adaptive warm-start) the enhancement in some games and the baseline in the others: in
games [0, E/2) the enhancement moves first, in [E/2, E) the baseline does. Moves are sampled
from π for the first T′ plies of a game and are argmax π after; the stored target is π while
sampling and the one-hot move after, as in AlphaZero General, except where the mover is a
player whose target is always its policy (`Player.policy_target`: the Gumbel search's π′).
With `visit_targets` (a departure, method.md §5) the target is π at every ply, as in
AlphaZero: the search's visit distribution also where the move played is its argmax.
With a playout cap (`cheap`, a departure, method.md §5; KataGo's playout-cap
randomization) the baseline searches fully at a share p of the plies and cheaply (its own
few simulations, no root noise) at the others, where the move is played but no example is
recorded: one draw per ply for the whole batch, so that a cheap ply costs less in the one
batched search (KataGo draws per move). Warm-start plies (the enhancement playing) are all
full searches.
A stored position's value target z is the game's final result for the player to move in it;
with `value_mix` λ > 0 (a departure, method.md §5) it is (1 − λ)·z + λ·q, q the mover's
root search value.
With `explore` ε > 0 (a departure, method.md §5; ε-greedy exploration) each searched ply
of the games that explore (a share `explore_games`, drawn once per game) plays, with chance
ε, a uniformly random legal move instead of the search's (with `explore_plies` N, only at its
first N plies). The position is recorded with the
search's π as its policy target; and since the game's result after a random move says little
about the positions before it, every position of a game at or before its last explored ply
takes the search value q as its value target: its own search's, a cut at the position itself
(`explore_return` "q"), or that of the first explored ply at or after it
(`explore_return` "watkins", `watkins_returns`: Watkins's Q(λ) cuts its return at the first
exploratory action).

Each ply's moves are chosen by a `SelfPlayTurn`; `examples` turns the played games into
the recorded targets. The games are played by the one game loop,
`warmjax.search.game_loop.play_games`. When one player
plays every game, it searches the whole batch (under `lax.cond`, only when some game needs
a search); when the enhancement plays the baseline, each side searches only the half of the
games where it is to move (`game_loop.side_moves`), as in a match.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from warmjax.search import game_loop
from warmjax.search.leaf import Inputs
from warmjax.search.players import Move, Player
from warmjax.train.run_config import selfplay_problems
from warmjax.train.warmstart import BASELINE, ENHANCED, ENHANCED_VS_BASELINE

# The playout cap draws each ply's full-or-cheap from its own stream, folded off the game
# loop's key, so that the loop's own draws are those of a run without it.
PLAYOUT_CAP_STREAM = 0x706C6179
# The same for the exploration moves (`explore`).
EXPLORE_STREAM = 0x6578706C
GAMES_DRAW = 1 << 30  # within it, the draw of which games explore (plies take 2t, 2t + 1)


def uniform_legal(key: jax.Array, legal: jax.Array) -> jax.Array:
    """[E] int32: a uniformly random legal move per game (`legal` [E, A]), from one key."""
    return jax.random.categorical(key, jnp.where(legal, 0.0, -jnp.inf))


def explored_at_or_after(wandered: jax.Array) -> jax.Array:
    """[T, E] bool: whether any ply at or after t explored (`wandered [T, E]`)."""
    return jnp.flip(jnp.cumsum(jnp.flip(wandered, 0), axis=0), 0) > 0


def watkins_returns(wandered: jax.Array, q: jax.Array, movers: jax.Array,
                    outcome: jax.Array) -> jax.Array:
    """`[T, E]` value targets cut at exploratory moves, as Watkins's Q(λ) cuts its return.

    For ply t, u is the first ply at or after t whose move was explored (`wandered [T, E]`,
    a random move in place of the search's). The target is the search value q_u of the
    position at u (`q [T, E]`, for its mover), seen from t's mover: q_u where the same
    player moves at t and u (`movers [T, E]`, player ids 0 and 1 of a two-player zero-sum
    game), −q_u where not. Where no ply at or after t explored, it is `outcome [T, E]` (the
    game's result for t's mover): the moves from t to the end were all the search's.
    """
    own = jnp.where(movers == 0, q, -q)  # q_u as player 0 sees it

    def back(carry, step):
        explored, value = step
        carry = jnp.where(explored, value, carry)
        return carry, carry

    _, first = jax.lax.scan(back, jnp.zeros(q.shape[1:], q.dtype), (wandered, own),
                            reverse=True)
    later = explored_at_or_after(wandered)
    return jnp.where(later, jnp.where(movers == 0, first, -first), outcome)


class SelfPlayResult(NamedTuple):
    """Recorded games. T is the game's maximum number of plies, E the number of games."""

    obs: jax.Array  # [T, E, H, W, C] in the game's dtype (bool for the papers' games)
    policy: jax.Array  # [T, E, A] float32 targets (zero where not valid)
    value: jax.Array  # [T, E] float32 z for the player to move
    valid: jax.Array  # [T, E] bool, a move was made from this position
    actions: jax.Array  # [T, E] int32 moves played
    results: jax.Array  # [E, 2] float32 final rewards by player id
    baseline_balance: jax.Array  # [] float32, Σ results of the baseline side (vs enhancement)
    plies: jax.Array  # [E] int32 game lengths
    truncated: jax.Array  # [E] bool, ended by the game's step cap, not by its rules
    # The compute ledger (method.md §12): network evaluations of the searches, 1 + m per
    # searched position for a player with a network, and the environment steps of their
    # random playouts; over the recorded (searched, live) positions only.
    evaluations: jax.Array  # [] int32
    playout_steps: jax.Array  # [] int32
    # [E, 2] uint32: the key each game's first state was made with (`env.init`), so that a
    # game can be replayed from its `actions` (reanalysis, `train/reanalyse.py`)
    init_keys: Any = None
    first_mover: Any = None  # [E] int32: the player id of each game's first mover


@dataclasses.dataclass(frozen=True)
class SelfPlayRules:
    """How self-play plays and records its games (`SelfPlayRules.of(train_config)`): the
    config's `train` fields of the same names, checked by the config's one check
    (`run_config.selfplay_problems`).

    Attributes:
      games: E.
      random_opening: K, the most uniformly random opening moves of a game; 0: none.
      value_mix: λ, the weight of the root search value q in the value target
        (1 − λ)·z + λ·q; 0: z alone, the papers' target.
      visit_targets: the policy target is the search's π at every ply (AlphaZero's), not
        the move played one-hot after the first T′ plies (AlphaZero General's, the papers').
      playout_cap: p, the chance that a baseline ply is a full, recorded search, where a
        playout cap's cheap search is given (`make_selfplay`'s `cheap`).
      explore: ε, the chance that a searched ply plays a uniformly random legal move (its
        example keeps the search's π, and the value targets up to the game's last such ply
        are q); 0: never, the papers' way.
      explore_games: the chance that a game explores at all (drawn once per game); the
        others are played by the search alone and keep their usual targets.
      explore_plies: N, the exploration only at the game's plies 0 … N − 1: the search plays
        the rest of the game, and the positions after the last explored ply keep the game's
        result; None: at every ply.
      explore_decay: D, ε falls over the run: iteration i explores with
        ε·max(0, 1 − (i − 1)/D) (`epsilon`; `make_selfplay`'s function then takes the
        iteration); None: ε throughout.
      explore_return: the value target of a position before its game's last explored ply:
        "q", its own search value; "watkins", the search value of the first explored ply
        at or after it, seen from its mover (`watkins_returns`).

    Raises:
      ValueError: a setting out of its range, named.
    """

    games: int
    random_opening: int = 0
    value_mix: float = 0.0
    visit_targets: bool = False
    playout_cap: float = 1.0
    explore: float = 0.0
    explore_games: float = 1.0
    explore_plies: int | None = None
    explore_return: str = "q"
    explore_decay: int | None = None

    def __post_init__(self):
        problems = selfplay_problems(self)  # the config's own check (`run_config.validate`)
        if problems:
            raise ValueError("; ".join(problems))

    @classmethod
    def of(cls, train: Any) -> SelfPlayRules:
        """The rules a run's `TrainConfig` sets: its fields of these names."""
        return cls(**{f.name: getattr(train, f.name) for f in dataclasses.fields(cls)})

    def epsilon(self, iteration) -> jax.Array | float:
        """ε of iteration `iteration` (from 1): `explore`, decayed where `explore_decay`
        is set."""
        if self.explore_decay is None:
            return self.explore
        return self.explore * jnp.maximum(0.0, 1.0 - (iteration - 1) / self.explore_decay)


def enhancement_first(games: int) -> jax.Array:
    """[E] bool: the games in which the enhancement moves first when it plays the baseline
    (games [0, E/2))."""
    return jnp.arange(games) < games // 2


@dataclasses.dataclass(frozen=True)
class SelfPlayTurn:
    """The per-ply move choice of one batch of self-play games (`game_loop.play_games`'s
    `turn`): who searches each game, the random opening moves, the playout cap's cheap plies
    and the exploration moves. The recording is `examples`'s.

    Attributes:
      baseline, enhancement, cheap: the players (`make_selfplay`).
      rules: the self-play rules.
      inputs: the network's variables and w.
      kind: which players play (BASELINE, ENHANCED or ENHANCED_VS_BASELINE), [] int32.
      opening: [E] int32, the random moves before a game's first searched one.
      coin: the playout cap's key: ply t is full where its draw says so.
      wander: the exploration's key: ply t's draws (`explored`, `random_move`).
      epsilon: this iteration's ε where it decays (`SelfPlayRules.epsilon`), [] float32;
        None: `rules.explore`.
      start_ply: [E] int32, the plies each game had behind it when self-play took it up
        (`start_positions.py`; 0 for a game from its first position); None: all 0. T′ and
        `explore_plies` count a game's plies from its first position.
      group_kind: in a vmapped group of runs, `group.shared_kind` of `kind`: the kind
        every run of the group plays, unbatched, or MIXED while they differ; None for a
        lone run. A switch on it runs one branch for the whole group, where a switch on
        the batched `kind` would run every branch and select (`move`).
    """

    baseline: Player
    enhancement: Player | None
    cheap: Player | None
    rules: SelfPlayRules
    inputs: Inputs
    kind: jax.Array
    opening: jax.Array
    coin: jax.Array
    wander: jax.Array
    epsilon: jax.Array | None = None
    start_ply: jax.Array | None = None
    group_kind: jax.Array | None = None

    def full(self, ply):
        """Whether ply `ply` is a full, recorded search (always, without a playout cap)."""
        if self.cheap is None:
            return jnp.bool_(True)
        return jax.random.bernoulli(jax.random.fold_in(self.coin, ply), self.rules.playout_cap)

    def explored(self, ply):
        """[E] bool: whether ply `ply` of each game plays a random move (never, at ε = 0)."""
        rules = self.rules
        epsilon = rules.explore if self.epsilon is None else self.epsilon
        drawn = jax.random.bernoulli(jax.random.fold_in(self.wander, 2 * ply), epsilon,
                                     (rules.games,))
        if rules.explore_games < 1.0:  # the games that explore at all, drawn once
            drawn = drawn & jax.random.bernoulli(jax.random.fold_in(self.wander, GAMES_DRAW),
                                                 rules.explore_games, (rules.games,))
        if rules.explore_plies is not None:  # only the game's first N plies explore
            drawn = drawn & (self.game_ply(ply) < rules.explore_plies)
        return drawn

    def game_ply(self, ply):
        """Self-play's ply `ply` as the game's own, counted from its first position (the
        players' count, which T′ reads): `ply` plus the plies a started game had behind it."""
        return ply if self.start_ply is None else ply + self.start_ply

    def random_move(self, ply, legal):
        """[E] int32: a uniformly random legal move at ply `ply` of each game."""
        return uniform_legal(jax.random.fold_in(self.wander, 2 * ply + 1), legal)

    def start(self, states):
        return (self.baseline.start(states),
                () if self.enhancement is None else self.enhancement.start(states))

    def _nothing(self, memory, num_actions) -> Move:
        games = self.rules.games
        return Move(jnp.zeros(games, jnp.int32), jnp.zeros((games, num_actions), jnp.float32),
                    jnp.zeros(games, jnp.float32), memory, jnp.zeros(games, jnp.int32))

    def _one_player(self, player, key, states, memory, needed) -> Move:
        """`player` on the whole batch, when some game needs a search."""
        num_actions = states.legal_action_mask.shape[-1]
        return jax.lax.cond(jnp.any(needed),
                            lambda: player(self.inputs, key, states, memory),
                            lambda: self._nothing(memory, num_actions))

    def _baseline_move(self, inputs, key, states, memory, full):
        """The baseline's search: full, or (with the playout cap, where `full` is false) the
        cheap one."""
        if self.cheap is None:
            return self.baseline(inputs, key, states, memory)
        return jax.lax.cond(full, lambda: self.baseline(inputs, key, states, memory),
                            lambda: self.cheap(inputs, key, states, memory))

    def move(self, key, states, ply, memories):
        baseline, enhancement, cheap, rules = (self.baseline, self.enhancement, self.cheap,
                                               self.rules)
        mem_base, mem_enh = memories
        key, k_enh, k_base = jax.random.split(key, 3)
        live = ~states.terminated
        searched = live
        if rules.random_opening > 0:
            searched = live & (states._step_count >= self.opening)
        inputs = self.inputs
        full = self.full(ply)
        if enhancement is None:
            move = self._baseline_move(inputs, k_base, states, mem_base, full)
            action, policy, value, steps = game_loop.move_parts(move)
            mem_base = move.memory
        else:
            def only(player, key, memory):
                return self._one_player(player, key, states, memory, searched)

            def enhanced():
                move = only(enhancement, k_enh, mem_enh)
                return (*game_loop.move_parts(move), mem_base, move.memory)

            def base():
                move = only(lambda *a: self._baseline_move(*a, full), k_base, mem_base)
                return (*game_loop.move_parts(move), move.memory, mem_enh)

            def versus():
                # The enhancement moves first in games [0, E/2): at even plies it is to
                # move there, and the baseline in the other half.
                even = ply % 2 == 0
                enh = game_loop.side_moves(enhancement, inputs, k_enh, states, mem_enh, even)
                base = game_loop.side_moves(baseline, inputs, k_base, states, mem_base, ~even)
                parts = game_loop.interleave(even, game_loop.move_parts(enh),
                                             game_loop.move_parts(base))
                return (*parts, base.memory, enh.memory)

            branches = [None] * 3
            branches[BASELINE], branches[ENHANCED] = base, enhanced
            branches[ENHANCED_VS_BASELINE] = versus
            if self.group_kind is None:  # a lone run: its kind is a scalar, one branch runs
                chosen = jax.lax.switch(self.kind, branches)
            else:
                # Under vmap a switch on the runs' own (batched) kinds runs every branch and
                # selects: a group would pay for Rollout's playouts and the versus games
                # after all its runs have switched. The group's shared kind is unbatched, so
                # only the branch its runs play runs; every branch only while they differ.
                chosen = jax.lax.switch(self.group_kind, [
                    *branches, lambda: jax.lax.switch(self.kind, branches)])
            action, policy, value, steps, mem_base, mem_enh = chosen
        if rules.random_opening > 0:
            key, k_rand = jax.random.split(key)
            uniform = uniform_legal(k_rand, states.legal_action_mask)
            action = jnp.where(searched | ~live, action, uniform)
        if rules.explore > 0:  # the search's π stays the target; the move played is random
            wandering = searched & self.explored(ply)
            action = jnp.where(wandering, self.random_move(ply, states.legal_action_mask),
                               action)
        if cheap is not None:  # a cheap baseline ply is played, not recorded
            searched = searched & (full | (self.kind != BASELINE))
        return key, Move(action, policy, value, (mem_base, mem_enh), steps), searched

    def follow(self, memories, action):
        mem_base, mem_enh = memories
        mem_base = self.baseline.follow(mem_base, action)
        if self.enhancement is not None:
            mem_enh = self.enhancement.follow(mem_enh, action)
        return mem_base, mem_enh


def examples(env: Any, turn: SelfPlayTurn, played: game_loop.Played, init_keys: jax.Array,
             first_mover: jax.Array) -> SelfPlayResult:
    """The recording of played self-play games (`turn`'s, `game_loop.play_games` with
    `keep_examples`): each recorded position's policy and value targets, the baseline side's
    balance and the compute ledger's counts (the module docstring)."""
    baseline, enhancement, cheap, rules = turn.baseline, turn.enhancement, turn.cheap, turn.rules
    kind, opening, explore = turn.kind, turn.opening, rules.explore
    first_half = enhancement_first(rules.games)
    record = played.record
    # The stored target is π while the moves are sampled (the first T′ plies), the move
    # played one-hot after; π throughout where the baseline moved and its target is
    # always its policy.
    plies = jnp.arange(record.policy.shape[0])[:, None]
    # The players sample by the game's ply, counted from its first position.
    sampled = (turn.game_ply(plies) < baseline.config.temperature_moves)[..., None]
    if baseline.policy_target:  # only then, so the papers' players stay bit-identical
        # With the enhancement against the baseline, the baseline moves at odd plies
        # of games [0, E/2) and at even plies of the others.
        versus = (plies % 2 == 0) != first_half[None, :]
        moved = jnp.where(kind == BASELINE, True,
                          jnp.where(kind == ENHANCED_VS_BASELINE, versus, False))
        sampled = sampled | moved[..., None]
    if rules.visit_targets:  # only when on, so off stays bit-identical
        targets = record.policy
    else:
        targets = jnp.where(sampled, record.policy,
                            jax.nn.one_hot(record.actions, env.num_actions, dtype=jnp.float32))
    if explore > 0:  # the explored plies (searched and live) keep the search's π
        drawn = jax.vmap(turn.explored)(plies[:, 0])
        explored = drawn & record.valid
        targets = jnp.where(explored[..., None], record.policy, targets)
        wandered = drawn & record.live  # cheap plies too, where a playout cap skips them
    results = played.results
    value = jnp.take_along_axis(results[None], record.movers[..., None], axis=2)[..., 0]
    if explore > 0 and rules.explore_return == "watkins":
        # The return up to the first explored ply, bootstrapped there; z after the last.
        value = watkins_returns(wandered, record.values, record.movers, value)
    if rules.value_mix > 0:  # only when on, so off stays bit-identical
        value = (1.0 - rules.value_mix) * value + rules.value_mix * record.values
    if explore > 0 and rules.explore_return == "q":
        # q up to a game's last explored ply: its result is off-policy there.
        value = jnp.where(explored_at_or_after(wandered), record.values, value)
    # The baseline side: second mover where the enhancement went first, and vice versa.
    baseline_id = jnp.where(first_half, 1 - first_mover, first_mover)
    balance = jnp.sum(jnp.take_along_axis(results, baseline_id[:, None], axis=1))
    balance = jnp.where(kind == ENHANCED_VS_BASELINE, balance, 0.0)
    # Who searched each recorded position: the enhancement where it moved.
    enhancement_moved = jnp.where(
        kind == ENHANCED, True,
        jnp.where(kind == ENHANCED_VS_BASELINE, (plies % 2 == 0) == first_half[None, :],
                  False))
    per_search = jnp.where(enhancement_moved,
                           0 if enhancement is None else enhancement.evaluations_per_search,
                           baseline.evaluations_per_search)
    evaluations = jnp.sum(jnp.where(record.valid, per_search, 0), dtype=jnp.int32)
    if cheap is not None:  # the cheap searches: searched (past the opening), unrecorded
        past_opening = plies >= opening[None, :]
        cheap_plies = record.live & past_opening & ~record.valid
        evaluations = evaluations + cheap.evaluations_per_search * jnp.sum(
            cheap_plies, dtype=jnp.int32)
    return SelfPlayResult(
        obs=record.obs, policy=jnp.where(record.valid[..., None], targets, 0.0),
        value=jnp.where(record.valid, value, 0.0),
        valid=record.valid, actions=record.actions, results=results,
        baseline_balance=balance, plies=played.states._step_count,
        truncated=game_loop.truncated(env, played.states),
        evaluations=evaluations,
        playout_steps=jnp.sum(played.playout_steps, dtype=jnp.int32),
        init_keys=init_keys,
        first_mover=first_mover,
    )


def make_selfplay(env: Any, baseline: Player, enhancement: Player | None,
                  rules: SelfPlayRules, cheap: Player | None = None):
    """Builds `selfplay(inputs, key, kind, iteration=None, starts=None, group_kind=None) ->
    SelfPlayResult`:
    `inputs` is an `Inputs` with the network's variables and this iteration's w
    (`warmstart.schedule`), `kind` which players play (BASELINE, ENHANCED or
    ENHANCED_VS_BASELINE), `iteration` the iteration (from 1), which only a decaying ε reads
    (`rules.explore_decay`), and `starts` the drawn start positions of the first games
    (`start_positions.Starts`), taken where the baseline plays alone, and `group_kind` the
    kind a vmapped group shares (`SelfPlayTurn.group_kind`). Each ply's moves are
    chosen by a `SelfPlayTurn`, and the played games recorded by `examples`; a started
    game's result holds it whole (its `actions` from its first position, `init_keys` and
    `first_mover` those of that position).

    Args:
      env: the game.
      baseline: the baseline MCTS player. Its `config.temperature_moves` is T′: both players
        sample their first T′ moves, and the stored targets follow the same T′.
      enhancement: the warm-start player (with the baseline's T′), or None when no warm
        start is configured.
      rules: how the games are played and recorded (`SelfPlayRules`).
      cheap: the playout cap's cheap search (the baseline's player with fewer simulations
        and no root noise); None: every baseline ply is a full search, the papers' way.
    """
    games, random_opening = rules.games, rules.random_opening
    temperature_moves = baseline.config.temperature_moves
    if enhancement is not None and enhancement.config.temperature_moves != temperature_moves:
        raise ValueError(f"the enhancement's T′ ({enhancement.config.temperature_moves}) "
                         f"differs from the baseline's ({temperature_moves})")

    def selfplay(inputs, key, kind, iteration=None, starts=None,
                 group_kind=None) -> SelfPlayResult:
        key, init_key = jax.random.split(key)
        init_keys = jax.random.split(init_key, games)
        states = jax.vmap(env.init)(init_keys)
        first_mover = states.current_player
        start_ply = None
        if starts is not None:
            states, start_ply, begun = take_starts(states, starts, kind)
        opening = jnp.zeros(games, jnp.int32)
        if random_opening > 0:  # extra keys only when on, so off stays bit-identical
            key, k_open = jax.random.split(key)
            opening = jax.random.randint(k_open, (games,), 0, random_opening + 1)
        # The playout cap's own stream (unused without one).
        coin = jax.random.fold_in(key, PLAYOUT_CAP_STREAM) if cheap is not None else key
        wander = jax.random.fold_in(key, EXPLORE_STREAM) if rules.explore > 0 else key
        if rules.explore_decay is not None and iteration is None:
            raise ValueError("a decaying ε (explore_decay) needs the iteration")
        epsilon = None if rules.explore_decay is None else rules.epsilon(iteration)
        turn = SelfPlayTurn(baseline, enhancement, cheap, rules, inputs,
                            jnp.asarray(kind, jnp.int32), opening, coin, wander, epsilon,
                            start_ply, group_kind)
        played = game_loop.play_games(env, states, key, turn, keep_examples=True)
        result = examples(env, turn, played, init_keys, first_mover)
        if starts is not None:
            result = whole_games(env, result, starts, start_ply, begun)
        return result

    return selfplay


def _rows(mask: jax.Array, x: jax.Array) -> jax.Array:
    """`mask [n]` shaped to broadcast over `x`'s rows."""
    return mask.reshape(mask.shape + (1,) * (x.ndim - 1))


def take_starts(states: Any, starts: Any, kind) -> tuple[Any, jax.Array, jax.Array]:
    """The first n games' states replaced by the drawn positions (`starts`), where one was
    drawn and the baseline plays alone. Returns `(states, start_ply [E], begun [n])`."""
    n = starts.used.shape[0]
    begun = starts.used & (jnp.asarray(kind) == BASELINE)
    head = jax.tree_util.tree_map(lambda a, b: jnp.where(_rows(begun, a), a, b[:n]),
                                  starts.states, states)
    states = jax.tree_util.tree_map(lambda full, h: full.at[:n].set(h), states, head)
    games = states.current_player.shape[0]
    start_ply = jnp.zeros(games, jnp.int32).at[:n].set(jnp.where(begun, starts.ply, 0))
    return states, start_ply, begun


def whole_games(env: Any, result: SelfPlayResult, starts: Any, start_ply: jax.Array,
                begun: jax.Array) -> SelfPlayResult:
    """A started game's result from its first position: its moves before the start, then
    its own (`result.actions` counts from the start), with that position's key and first
    mover. The recorded examples stay as played."""
    n = begun.shape[0]
    plies, games = result.actions.shape
    u = jnp.arange(plies)[:, None]
    own = jnp.take_along_axis(result.actions, jnp.clip(u - start_ply[None, :], 0, plies - 1),
                              axis=0)
    before = jnp.zeros_like(result.actions).at[:, :n].set(starts.prefix.T)
    actions = jnp.where(u < start_ply[None, :], before, own)
    keys = result.init_keys.at[:n].set(jnp.where(begun[:, None], starts.keys,
                                                 result.init_keys[:n]))
    first = jax.vmap(env.init)(keys[:n]).current_player
    first_mover = result.first_mover.at[:n].set(jnp.where(begun, first,
                                                          result.first_mover[:n]))
    return result._replace(actions=actions, init_keys=keys, first_mover=first_mover)
