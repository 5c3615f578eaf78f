"""Rolling horizon evolution (RHEA), the network-free player of method.md §4, batched.

An individual is a plan of the player's next L own actions (L, the horizon). To evaluate it
from the root: the plan's actions are played on the player's turns (an action that is
illegal at that point is replaced by a uniformly random legal one, for that playout only:
the plan itself is not changed), the opponent replies uniformly at random, and when the plan
is used up a uniformly random playout runs to the end. A playout's score is Q / h: Q ∈ {+1,
−1, 0} is the result for the root player and h ≥ 1 the number of plies from the root to the
end, so quick wins and slow losses score best. Fitness is the mean over n playouts.

Evolution: a population of P random plans, then generations of (P + 1) truncation: clone a
uniformly chosen parent, replace each action with probability p_mut by a random one, evaluate
the child, and remove the worst of the P + 1 (on a tie the child goes). The budget (m,
`simulations`) counts playouts: P·n for the first population, n per child after that
(100 playouts, n = 2: 10 initial plans and 40 children). The move played is the first action
of the best plan.

Plans draw actions uniformly from the whole action space, except the first action, which is
drawn from the root's legal actions so the move played is always legal. The papers never say
that plans are legal: with `legal_first=False` the first action is drawn from all actions
too, and when the best plan's first action is illegal at the root a uniformly random legal
move is played instead (a weaker RHEA; method.md §4).
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from warmjax.search.rollouts import random_legal_action


@dataclasses.dataclass(frozen=True)
class RheaConfig:
    """RHEA settings (method.md §4 defaults)."""

    horizon: int = 10
    population: int = 10
    playouts_per_eval: int = 2
    # m: playouts per move, the budget; None: the m of the player's search (`make_player`).
    simulations: int | None = None
    mutation_rate: float = 0.2
    legal_first: bool = True  # a plan's first action is drawn from the root's legal moves

    def __post_init__(self):
        # Each message starts with the field's name (the config loader puts "rhea." first).
        for name in ("horizon", "population", "playouts_per_eval"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not 0.0 <= self.mutation_rate <= 1.0:
            raise ValueError(f"mutation_rate must be in [0, 1], got {self.mutation_rate}")
        if self.simulations is not None and \
                self.simulations < self.population * self.playouts_per_eval:
            raise ValueError(
                f"simulations: a budget of {self.simulations} playouts cannot evaluate the "
                f"first population ({self.population} x {self.playouts_per_eval}); lower "
                f"population or playouts_per_eval")

    def with_budget(self, simulations: int) -> "RheaConfig":
        """The settings with the budget `simulations` where they leave it to the search."""
        if self.simulations is not None:
            return self
        return dataclasses.replace(self, simulations=simulations)

    @property
    def generations(self) -> int:
        """Children evaluated after the first population."""
        initial = self.population * self.playouts_per_eval
        return (self.simulations - initial) // self.playouts_per_eval


class RheaResult(NamedTuple):
    """One root's evolution (unbatched; leaves gain a leading B under vmap)."""

    action: jax.Array  # [] int32, first action of the best plan
    population: jax.Array  # [P, L] int32, final plans
    fitness: jax.Array  # [P] float32, their fitness
    evaluated_fitness: jax.Array  # [P + G] float32, fitness of every plan ever evaluated
    playouts: jax.Array  # [] int32, playouts spent


def plan_score(env: Any, key: jax.Array, state: Any, plan: jax.Array) -> jax.Array:
    """One playout of `plan` from `state` (unbatched). Returns Q / h for the root player."""
    me = state.current_player
    horizon = plan.shape[0]

    def cond(carry):
        return ~carry[0].terminated

    def body(carry):
        s, used, steps, result = carry
        k = jax.random.fold_in(key, steps)
        random_action = random_legal_action(k, s.legal_action_mask)
        mine = (s.current_player == me) & (used < horizon)
        planned = plan[jnp.minimum(used, horizon - 1)]
        ok = s.legal_action_mask[planned]
        action = jnp.where(mine & ok, planned, random_action)
        s = env.step(s, action)
        return s, used + mine.astype(jnp.int32), steps + 1, result + s.rewards[me]

    init = (state, jnp.int32(0), jnp.int32(0), jnp.float32(0.0))
    _, _, steps, result = jax.lax.while_loop(cond, body, init)
    return result / jnp.maximum(steps, 1).astype(jnp.float32)


def random_plan(key: jax.Array, root_legal: jax.Array, horizon: int,
                legal_first: bool = True) -> jax.Array:
    """`[L]` int32 plan: the first action legal at the root (or, without `legal_first`, any),
    the rest uniform over actions."""
    k_first, k_rest = jax.random.split(key)
    if legal_first:
        first = random_legal_action(k_first, root_legal)
    else:
        first = jax.random.randint(k_first, (), 0, root_legal.shape[0], jnp.int32)
    rest = jax.random.randint(k_rest, (horizon - 1,), 0, root_legal.shape[0], jnp.int32)
    return jnp.concatenate([first[None], rest])


def mutate(key: jax.Array, plan: jax.Array, root_legal: jax.Array, rate: float,
           legal_first: bool = True) -> jax.Array:
    """Replaces each action of `plan` with probability `rate` by a fresh random one."""
    k_mask, k_new = jax.random.split(key)
    change = jax.random.bernoulli(k_mask, rate, plan.shape)
    return jnp.where(change, random_plan(k_new, root_legal, plan.shape[0], legal_first), plan)


def make_rhea(env: Any, config: RheaConfig = RheaConfig(simulations=100)):
    """Builds `rhea(key, state) -> RheaResult` for one root state (vmap it over games).

    Raises:
      ValueError: settings without a budget (`simulations` None).
    """
    if config.simulations is None:
        raise ValueError("RHEA needs a budget: set simulations (or build it with make_player)")
    pop, n, horizon = config.population, config.playouts_per_eval, config.horizon

    def fitness(state, plan, key):
        keys = jax.random.split(key, n)
        return jnp.mean(jax.vmap(lambda k: plan_score(env, k, state, plan))(keys))

    def rhea(key, state) -> RheaResult:
        legal = state.legal_action_mask
        k_init, k_eval, k_gen = jax.random.split(key, 3)
        if not config.legal_first:  # extra key only in this reading: the default is unchanged
            k_gen, k_move = jax.random.split(k_gen)
        plans = jax.vmap(lambda k: random_plan(k, legal, horizon, config.legal_first))(
            jax.random.split(k_init, pop))
        scores = jax.vmap(lambda p, k: fitness(state, p, k))(plans, jax.random.split(k_eval, pop))
        history = jnp.zeros(pop + config.generations, jnp.float32).at[:pop].set(scores)

        def generation(g, carry):
            plans, scores, history = carry
            k_parent, k_mut, k_fit = jax.random.split(jax.random.fold_in(k_gen, g), 3)
            parent = jax.random.randint(k_parent, (), 0, pop)
            child = mutate(k_mut, plans[parent], legal, config.mutation_rate, config.legal_first)
            child_score = fitness(state, child, k_fit)
            history = history.at[pop + g].set(child_score)
            all_plans = jnp.concatenate([plans, child[None]])
            all_scores = jnp.concatenate([scores, child_score[None]])
            # Remove the worst; scanning from the end makes the child go on a tie.
            worst = pop - jnp.argmin(all_scores[::-1])
            keep = jnp.arange(pop) + (jnp.arange(pop) >= worst)
            return all_plans[keep], all_scores[keep], history

        plans, scores, history = jax.lax.fori_loop(
            0, config.generations, generation, (plans, scores, history)
        )
        best = jnp.argmax(scores)
        action = plans[best, 0]
        if not config.legal_first:
            action = jnp.where(legal[action], action, random_legal_action(k_move, legal))
        playouts = jnp.int32(n * (pop + config.generations))
        return RheaResult(
            action=action,
            population=plans,
            fitness=scores,
            evaluated_fitness=history,
            playouts=playouts,
        )

    return rhea
