"""One training iteration as one pure function: self-play, update and arena (method.md §5–§8).

`Trainer` builds everything a run needs from a `RunConfig`: the game, the network, the
players, and `iteration(state) -> (state, metrics)`, which the caller jits once. The state
is a frozen pytree, so a run can be checkpointed as a whole and independent runs could be
vmapped. Nothing in the iteration branches on the host: the warm-start schedule, the adaptive
switch and the arena gate are all traced.

The network in `TrainState.params` is the current best (the arena-gated one): each iteration
trains a candidate from it and keeps the candidate only if it passes the arena, as in
AlphaZero General. The optimizer state is kept with the accepted network; by default
(`train.reset_optimizer`) Adam starts fresh each iteration, as AlphaZero General's does.
With `train.keep_training` (a departure, method.md §7) the candidate is kept as
`TrainState.trainee` whether or not it passes, and the next iteration trains on from it.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import struct

from warmjax.games import make
from warmjax.perfect import positions
from warmjax.probe.score import make_probe
from warmjax.search.leaf import Inputs
from warmjax.search.players import make_player
from warmjax.train import warmstart
from warmjax.train.arena import make_arena, no_arena
from warmjax.train.buffer import ReplayBuffer, empty_buffer, slot_rows, write_slot
from warmjax.train.health import opening_plies, selfplay_health
from warmjax.train.reanalyse import REANALYSE_STREAM, empty_moves, make_reanalyse, write_moves
from warmjax.train.run_config import RunConfig, TrainConfig, cheap_simulations
from warmjax.train.selfplay import SelfPlayRules, make_selfplay
from warmjax.train.start_positions import START_STREAM, draw_starts, starting_games
from warmjax.train.update import make_update

STAGES = ("selfplay", "train", "arena")


@struct.dataclass
class TrainState:
    """Everything a run carries from one iteration to the next."""

    iteration: jax.Array  # [] int32, iterations completed
    params: Any  # variables {"params", "batch_stats"} of the current best network
    opt_state: Any  # optax state of the network in training (`params`, or `trainee`)
    buffer: ReplayBuffer
    switched: jax.Array  # [] bool, adaptive switch done
    switch_iteration: jax.Array  # [] int32, iteration whose balance caused it; -1 if none
    rng: jax.Array  # [2] uint32 PRNG key
    # With `train.keep_training`: the network in training (the last candidate, accepted or
    # not); None otherwise, so such runs' checkpoints keep their layout.
    trainee: Any = None
    # With `train.reanalyse` or `train.start_positions`: the moves of the games behind the
    # buffer's examples (`reanalyse.GameMoves`, with their lengths for the start positions);
    # None otherwise.
    moves: Any = None


def learning_rate_scale(train: TrainConfig, it: jax.Array) -> jax.Array | float:
    """Iteration `it`'s learning rate over `train.learning_rate`: 1 without a schedule, else
    a half cosine from 1 at iteration 1 to final / lr at iteration I (and after)."""
    if train.final_learning_rate is None:
        return 1.0
    cosine = optax.cosine_decay_schedule(
        1.0, max(train.iterations - 1, 1), alpha=train.final_learning_rate / train.learning_rate)
    return cosine(it - 1)


class StageClock:
    """Host-side timestamps set from inside the compiled iteration via debug callbacks.

    JAX never writes a program with host callbacks to its persistent compilation cache, so a
    disabled clock (`stage_times=false`) adds none and lets the compiled iteration be cached.
    """

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.marks: dict[str, float] = {}

    def start(self):
        self.marks = {"start": time.perf_counter()}

    def mark(self, stage: str, dependency: jax.Array):
        if not self.enabled:
            return
        # The callback takes a value the stage produced, so it fires once the stage is done.
        jax.debug.callback(lambda _: self.marks.__setitem__(stage, time.perf_counter()),
                           dependency)

    def durations(self) -> dict[str, float]:
        if not self.enabled:
            return {}
        out, last = {}, self.marks.get("start", 0.0)
        for stage in STAGES:
            now = self.marks.get(stage, last)
            out[f"seconds_{stage}"] = max(now - last, 0.0)
            last = now
        return out


class Trainer:
    """The pieces of a run, built once from a validated `RunConfig`."""

    def __init__(self, config: RunConfig):
        self.config = c = config
        self.env = make(c.game.name, **c.game.params)
        self.network = c.model.build(self.env, reply_head=c.train.reply_weight > 0)
        self.optimizer = optax.adam(c.train.learning_rate)
        apply = self.network.apply
        # Self-play searches with the run's search settings, root noise included; the arena
        # and the probe judge without it.
        judging = c.search.without_noise()
        # The baseline's search (search.baseline_search): the papers' PUCT MCTS, or Gumbel's.
        self.baseline, self.enhancement = self._selfplay_players(c.search)
        self.arena_player = arena_player = make_player(
            c.search.baseline_search, self.env, apply, judging,
            temperature_moves=c.arena.temperature_moves)
        self.probe_evaluations = 0  # network evaluations of one probe (`_make_probe`)
        self.probe, self.probe_states = self._make_probe(judging)
        self.cheap = None  # the playout cap's cheap search, without root noise
        if c.train.playout_cap < 1.0:
            self.cheap = make_player(c.search.baseline_search, self.env, apply,
                                     dataclasses.replace(c.search.without_noise(),
                                                         simulations=cheap_simulations(c)))
        self.selfplay = self._make_selfplay(self.baseline, self.enhancement)
        self.reanalyse = None  # reanalysis (train.reanalyse): the baseline's search, no noise
        if c.train.reanalyse > 0:
            self.reanalyse = make_reanalyse(
                self.env, make_player(c.search.baseline_search, self.env, apply, judging),
                c.train.reanalyse, c.train.reanalyse_value)
        # Progressive simulation (train.progressive_simulations): one self-play per budget,
        # the last at m; the iteration picks its stage's (`selfplay_stage`).
        self.staged_selfplay = [
            self._make_selfplay(*self._selfplay_players(
                dataclasses.replace(c.search, simulations=m)))
            for m in c.train.progressive_simulations] + [self.selfplay]
        self.update = make_update(self.network, self.optimizer, c.train.epochs,
                                  c.train.batch_size, c.train.value_weight,
                                  c.train.reply_weight)
        self.arena = (make_arena(self.env, arena_player, c.arena.games, c.arena.threshold)
                      if c.arena.gate else no_arena)
        self.num_symmetries = self.env.symmetry_tables()[0].shape[0]
        self.slot_size = self.env.max_plies * c.train.games * self.num_symmetries
        self.clock = StageClock(c.stage_times)

    def _selfplay_players(self, search):
        """`(baseline, enhancement)`: self-play's players with the search settings `search`;
        the enhancement None without warm start."""
        c, apply = self.config, self.network.apply
        baseline = make_player(c.search.baseline_search, self.env, apply, search)
        enhancement = None
        if c.warmstart.mode != "none":
            enhancement = make_player(c.warmstart.enhancement, self.env, apply, search)
        return baseline, enhancement

    def _make_selfplay(self, baseline, enhancement):
        t = self.config.train
        return make_selfplay(self.env, baseline, enhancement, SelfPlayRules.of(t), self.cheap)

    def selfplay_stage(self, it: jax.Array | int) -> jax.Array | int:
        """The index into `staged_selfplay` of iteration `it` (from 1): its progressive
        simulation stage, the last (m) once the listed budgets are spent."""
        t = self.config.train
        return jnp.minimum((it - 1) // t.progressive_iterations,
                           len(t.progressive_simulations))

    def _make_probe(self, search):
        """`(probe, states)` of `score.make_probe` on the game's shipped labelled set, or
        `(None, None)` where it has none (`positions.path_for`)."""
        c = self.config
        path = positions.path_for(self.env)
        if c.probe.every == 0 or path is None:
            return None, None
        labelled = positions.load(path, self.env.num_actions)
        if c.probe.positions is not None:
            labelled = labelled.subset(c.probe.positions)
        player = make_player(c.search.baseline_search, self.env, self.network.apply, search,
                             temperature_moves=0)
        # The ledger: per position, the search's 1 + m and the policy head's one.
        self.probe_evaluations = len(labelled) * (player.evaluations_per_search + 1)
        return make_probe(self.env, labelled, player, self.network.apply)

    def init_state(self, seed: int | None = None) -> TrainState:
        """The state before iteration 1: a random network and an empty buffer (for `seed`,
        None: the config's)."""
        key = jax.random.PRNGKey(self.config.seed if seed is None else seed)
        key, net_key = jax.random.split(key)
        params = self.network.init(net_key)
        buffer = empty_buffer(self.config.train.replay_iterations, self.slot_size,
                              self.env.observation_shape, self.env.num_actions,
                              self.env.init(jax.random.key(0)).observation.dtype,
                              reply=self.config.train.reply_weight > 0)
        return TrainState(
            iteration=jnp.int32(0),
            params=params,
            opt_state=self.optimizer.init(params["params"]),
            buffer=buffer,
            switched=jnp.bool_(False),
            switch_iteration=jnp.int32(-1),
            rng=key,
            # A copy: the iteration donates its state, and a buffer cannot be donated twice.
            trainee=(jax.tree_util.tree_map(jnp.copy, params)
                     if self.config.train.keep_training else None),
            moves=(empty_moves(self.config.train.replay_iterations, self.env.max_plies,
                               self.config.train.games,
                               lengths=self.config.train.start_positions > 0)
                   if self.reanalyse or self.config.train.start_positions > 0 else None),
        )

    def examples(self, games) -> ReplayBuffer:
        """Self-play records → one buffer slot of examples with all symmetries
        (`buffer.slot_rows`, the slot's row layout)."""
        t, e = games.valid.shape
        obs = games.obs.reshape(t * e, *games.obs.shape[2:])
        policy = games.policy.reshape(t * e, -1)
        reply = None
        if self.config.train.reply_weight > 0:
            # The opponent's reply: the next ply's π where that ply is recorded, else zeros
            # (a game's last ply, an unrecorded ply), with the position's symmetries.
            later = lambda x: jnp.concatenate([x[1:], jnp.zeros_like(x[:1])])  # noqa: E731
            both = games.valid & later(games.valid)
            reply = jnp.where(both[..., None], later(games.policy), 0.0).reshape(t * e, -1)
            reply = self.env.augment(obs, reply)[1]
        obs, policy = self.env.augment(obs, policy)
        return slot_rows(obs, policy, games.value, games.valid, reply)

    def recording_arena(self):
        """The run's arena keeping its games (`make_arena(record=True)`), for
        `iteration(arena=...)`; None for a run without an arena."""
        c = self.config
        return (make_arena(self.env, self.arena_player, c.arena.games, c.arena.threshold,
                           record=True) if c.arena.gate else None)

    def iteration(self, state: TrainState, iprime: jax.Array | int | None = None, arena=None,
                  group: str | None = None):
        """One iteration. Returns `(new_state, metrics)`; metrics are device scalars.

        `iprime` is I′ of the fixed mode; None: the config's. A traced value lets runs with
        different I′ share one program (`group.py` vmaps this function over runs). `arena`:
        the arena to play instead of the run's (`recording_arena`, whose games come back as
        `metrics["arena_games"]`, a `MatchResult`; `arena_replay.py`). `group`: the vmapped
        axis's name when this is one run of a group (`group.vmapped_iteration`), so that the
        group's self-play runs only the branches its runs play (`warmstart.group_kind`).
        """
        c = self.config
        it = state.iteration + 1
        rng, k_self, k_train, k_arena = jax.random.split(state.rng, 4)
        iprime = c.warmstart.iprime if iprime is None else iprime
        plan = warmstart.schedule(c.warmstart.mode, it, state.switched, iprime)

        inputs = Inputs(state.params, plan.weight)
        # The iteration goes to self-play only where a decaying ε reads it; start positions
        # are drawn from the games kept, with a key of their own.
        starts = None
        if c.train.start_positions > 0:
            starts = draw_starts(self.env, state.moves, jax.random.fold_in(k_self, START_STREAM),
                                 starting_games(c.train.start_positions, c.train.games))
        shared = None if group is None else warmstart.group_kind(plan.selfplay, group)
        args = (inputs, k_self, plan.selfplay, it if c.train.explore_decay else None, starts,
                shared)
        if len(self.staged_selfplay) == 1:
            games = self.selfplay(*args)
        else:  # progressive simulation: the stage's budget
            stage = self.selfplay_stage(it)
            if group is not None:  # a group's runs share their iteration, so their stage:
                stage = jax.lax.pmax(stage, group)  # unbatched, one budget's branch runs
            games = jax.lax.switch(stage, self.staged_selfplay, *args)
        switched = warmstart.adaptive_switch(state.switched, plan.active, games.baseline_balance)
        switch_iteration = jnp.where(switched & ~state.switched, it, state.switch_iteration)
        slot = (it - 1) % c.train.replay_iterations
        buffer = state.buffer
        if c.train.drop_warmstart_games:  # only then, so that off stays bit-identical
            # Every slot but this iteration's holds warm-start games at the first iteration
            # after warm start: they leave the buffer.
            first = warmstart.first_after(c.warmstart.mode, it, state.switch_iteration, iprime)
            buffer = buffer.replace(valid=buffer.valid & ~first)
        buffer = write_slot(buffer, slot, self.examples(games))
        moves, evaluations = state.moves, games.evaluations
        if c.train.start_positions > 0:  # whole games, with their lengths
            moves = write_moves(moves, slot, games.init_keys, games.actions, games.plies)
        if self.reanalyse is not None:  # counted with self-play's, in its seconds too
            moves = write_moves(moves, slot, games.init_keys, games.actions)
            buffer, more = self.reanalyse(state.params,
                                          jax.random.fold_in(k_train, REANALYSE_STREAM),
                                          buffer, moves, slot)
            evaluations = evaluations + more
        self.clock.mark("selfplay", buffer.value[0])

        keep = c.train.keep_training
        start = state.trainee if keep else state.params
        opt_state = state.opt_state
        if c.train.reset_optimizer:
            opt_state = self.optimizer.init(start["params"])
        candidate, candidate_opt, losses = self.update(start, opt_state, buffer, k_train,
                                                       learning_rate_scale(c.train, it))
        self.clock.mark("train", losses.value)

        gate = (arena or self.arena)(candidate, state.params, k_arena)
        self.clock.mark("arena", gate.wins)
        pick = lambda new, old: jax.tree_util.tree_map(  # noqa: E731
            lambda a, b: jnp.where(gate.accepted, a, b), new, old)
        new_state = TrainState(
            iteration=it,
            params=pick(candidate, state.params),
            opt_state=candidate_opt if keep else pick(candidate_opt, state.opt_state),
            buffer=buffer,
            switched=switched,
            switch_iteration=switch_iteration,
            rng=rng,
            trainee=candidate if keep else None,
            moves=moves,
        )
        metrics = {
            "iteration": it,
            "warmstart_active": plan.active,
            "weight": plan.weight,
            "switched": switched,
            "switch_iteration": switch_iteration,
            "r_balance": games.baseline_balance,
            "arena_wins": gate.wins,
            "arena_draws": gate.draws,
            "arena_losses": gate.losses,
            "accepted": gate.accepted,
            "loss_value": losses.value,
            "loss_policy": losses.policy,
            "train_steps": losses.steps,
            "examples": buffer.size(),
            "new_examples": jnp.sum(games.valid, dtype=jnp.int32) * self.num_symmetries,
            "selfplay_mean_plies": jnp.mean(games.plies.astype(jnp.float32)),
            "selfplay_truncated": jnp.sum(games.truncated, dtype=jnp.int32),
            # Self-play health (train/health.py): outcomes, lengths, openings, targets.
            **selfplay_health(games, opening_plies(self.env.board_shape)),
            # The compute ledger (method.md §12); the probe's count is the host's.
            "count_games_selfplay": jnp.int32(c.train.games),
            "count_games_arena": jnp.int32(c.arena.games if c.arena.gate else 0),
            "count_evals_selfplay": evaluations,
            "count_evals_arena": gate.evaluations,
            "count_playout_steps": games.playout_steps + gate.playout_steps,
            "count_train_samples": losses.steps * c.train.batch_size,
        }
        if c.arena.gate:  # without an arena there are no games to share out
            metrics["arena_decisive"] = ((gate.wins + gate.losses) / c.arena.games
                                         ).astype(jnp.float32)
        if gate.games is not None:
            metrics["arena_games"] = gate.games
        return new_state, metrics
