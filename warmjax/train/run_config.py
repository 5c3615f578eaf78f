"""Typed run configuration: what the Hydra config turns into, once, before any compiling.

Jitted code never sees a DictConfig: `RunConfig.from_dict` builds these frozen dataclasses
through the project's one converter (`warmjax.settings.from_mapping`), and `validate`
rejects impossible settings with a message that names the problem. The `search` section is
the search's own `SearchConfig`, the same object every player is built from.
"""

from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Iterable
from typing import Any, ClassVar

from warmjax.games import make, registry
from warmjax.names import EXPLORE_RETURNS, MODES, WARMSTART_ENHANCEMENTS
from warmjax.nets.presets import CONV_IMPLS, PRESETS, kind_of
from warmjax.search.config import SearchConfig
from warmjax.settings import PER_RUN, RESUMABLE, ConfigError, from_mapping, marked, setting

__all__ = ["ArenaConfig", "ConfigError", "GameConfig", "ModelConfig", "ProbeConfig",
           "RunConfig", "SearchConfig", "TrainConfig", "WarmstartConfig", "validate"]


# True while a run folder's saved config is read (`RunConfig.from_dict(stored=True)`): its
# game is looked up but not built, so that reading runs (the analysis) imports no game. Not
# a compatibility shim: a frozen config's checks take no arguments, so the reader says it
# through this context variable.
_READING_STORED = contextvars.ContextVar("reading_stored", default=False)



@dataclasses.dataclass(frozen=True)
class GameConfig:
    """The game and its constructor settings (board size, line length); {} is 6×6."""

    name: str = "connect_four"
    params: dict = dataclasses.field(default_factory=dict)  # constructor settings
    # A module that registers the game (one kept outside warmjax), imported first; None:
    # the game is warmjax's, pgx's or an entry point's (`games.registry`).
    module: str | None = None

    def __post_init__(self):
        if self.module is not None:
            try:
                registry.import_game_module(self.module)
            except ValueError as err:
                raise ValueError(f"module: {err}") from None
        if registry.find(self.name) is None:
            from warmjax.games.pgx_games import refused_message

            refused = refused_message(self.name)
            if refused is not None:
                raise ValueError(f"name: {refused}")
            raise ValueError(f"name: {registry.unknown_message(self.name)}")
        # The registered defaults build (`check_game`), and a stored config was checked when
        # it was written: only new settings are tried, by building the game.
        if self.params and not _READING_STORED.get():
            try:
                make(self.name, **self.params)  # cheap (no compiling)
            except (TypeError, ValueError) as err:
                raise ValueError(f"params: {err}") from None


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    preset: str | None = "small"
    channels: int | None = None
    fc: tuple[int, ...] | None = None
    dropout: float = 0.3
    # The training convolution: auto (patches on a CPU or GPU, XLA's on a TPU).
    train_conv: str = setting("auto", resumable=True)
    # bfloat16 multiplications with float32 master weights (nets/azg.py); a departure from
    # the papers' float32, off by default.
    mixed_precision: bool = setting(False, departure="bf16")
    # All four convolutions padded, so the fully connected layers see every board square
    # (nets/azg.py); a departure from AlphaZero General's two unpadded ones, off by default.
    same_padding: bool = setting(False, departure="same-padding")
    # The value as win/draw/loss logits, trained by cross-entropy (nets/azg.py); a departure
    # from the papers' tanh value head and squared error, off by default.
    wdl_head: bool = setting(False, departure="wdl")

    def build(self, env, **training_only):
        """The network this section describes, for `env`'s actions and observations;
        `training_only`: `make_network`'s heads that only training reads (`reply_head`)."""
        from warmjax.nets import make_network

        return make_network(env.num_actions, env.observation_shape, self.preset,
                            channels=self.channels, fc=self.fc, dropout=self.dropout,
                            train_conv=self.train_conv, mixed_precision=self.mixed_precision,
                            same_padding=self.same_padding, wdl_head=self.wdl_head,
                            **training_only)

    def __post_init__(self):
        if self.preset is not None and self.preset not in PRESETS:
            raise ValueError(f"preset: unknown model {self.preset!r} (choose from "
                             f"{', '.join(sorted(PRESETS))})")
        if self.train_conv not in CONV_IMPLS:
            raise ValueError(f"train_conv must be one of {', '.join(CONV_IMPLS)}, got "
                             f"{self.train_conv!r}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")
        if kind_of(self.preset) == "resnet":
            for flag in ("fc", "same_padding", "wdl_head"):
                if getattr(self, flag):
                    raise ValueError(f"{flag}: model={self.preset} is a residual network, "
                                     "and fc, same_padding and wdl_head are the AZG "
                                     f"network's; set model.{flag}="
                                     + ("null" if flag == "fc" else "false")
                                     + " (profile=smoke sets fc)")
        if (self.channels is not None and self.channels < 1) or any(u < 1 for u in self.fc or ()):
            raise ValueError(f"channels and fc: network sizes must be positive, got "
                             f"{self.channels} and {self.fc}")


@dataclasses.dataclass(frozen=True)
class ProbeConfig:
    """The perfect-play probe of runs of a game with a labelled set (method.md §9)."""

    # Log oracle_optimal / oracle_policy every k iterations; 0: never.
    every: int = setting(1, resumable=True)
    # The first n positions of the shipped set; None: all of them.
    positions: int | None = setting(None, resumable=True)


@dataclasses.dataclass(frozen=True)
class WarmstartConfig:
    mode: str = "none"  # none | fixed | adaptive
    enhancement: str = "rollout"
    iprime: int = setting(5, per_run=True)  # I′ (fixed mode)


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    iterations: int = setting(100, resumable=True)  # I
    # A wall-clock budget, a stopping rule: the run stops after the first iteration at which
    # its training time (the iterations' seconds_total summed, compiling and the probe left
    # out) reaches this many minutes, or at train.iterations if that comes first; it
    # resumes as any run does, and a larger budget extends it. None: no budget.
    minutes: float | None = setting(None, resumable=True)
    games: int = 50  # E
    replay_iterations: int = 20  # rs
    epochs: int = 10  # ep
    batch_size: int = 64  # bs
    learning_rate: float = 0.005  # lr
    # None: lr throughout, as the papers. Else the learning rate falls from lr at iteration 1
    # to this at iteration I along a half cosine (a setting the papers leave open).
    final_learning_rate: float | None = setting(None, departure="lr-cosine")
    # A fresh Adam state every iteration, as AlphaZero General.
    reset_optimizer: bool = setting(True, departure="adam-kept")
    # Departure from the papers, off in profile=paper (method.md §2): each self-play game
    # opens with k ~ U{0..K} uniformly random moves, not recorded. 0: off.
    random_opening: int = setting(0, departure="random-opening")
    # Departure from the papers, off in profile=paper (method.md §7): a candidate the arena
    # rejects is not thrown away; the next iteration trains on from it (AlphaGo Zero's
    # scheme), while self-play and the arena keep using the best network.
    keep_training: bool = setting(False, departure="keep-training")
    # Departure from the papers, off in profile=paper (method.md §5): the value target is
    # (1 − λ)·z + λ·q, q the root search value of the stored position's mover. 0: z alone.
    value_mix: float = setting(0.0, departure="value-mix")
    # Departure from the papers, off in profile=paper (method.md §6): the training loss is
    # c·MSE(v, z) + cross-entropy(π, p). 1: the papers' sum.
    value_weight: float = setting(1.0, departure="value-weight")
    # Departure from the papers, off in profile=paper (method.md §6): KataGo's auxiliary
    # policy target. A third head predicts the opponent's reply, the next recorded ply's
    # policy target, and the loss adds w · its cross-entropy. 0: off (no such head).
    reply_weight: float = setting(0.0, departure="reply-target")
    # Departure from the papers, off in profile=paper (method.md §5): the policy target is
    # the search's visit distribution at every ply (AlphaZero's), not the played move
    # one-hot after the first T′ plies (AlphaZero General's).
    visit_targets: bool = setting(False, departure="visit-targets")
    # Departure from the papers, off in profile=paper (method.md §5): KataGo's playout-cap
    # randomization. p, the share of the baseline's self-play plies searched in full (m
    # simulations, recorded as examples); the others are searched with n =
    # `cheap_simulations` and no root noise, played but not recorded. 1: every ply full.
    playout_cap: float = setting(1.0, departure="playout-cap")
    cheap_simulations: int | None = None  # n of the playout cap; None: m / 4, at least 1
    # Departure from the papers, off in profile=paper (method.md §5): ε-greedy exploration.
    # Each searched self-play ply plays a uniformly random legal move with chance ε; its
    # example keeps the search's π, and a game's positions up to its last such ply take the
    # root search value q as their value target. 0: off.
    explore: float = setting(0.0, departure="explore")
    # The chance that a game explores at all (drawn once per game); the others are played
    # by the search alone. With explore = 0 it does nothing.
    explore_games: float = 1.0
    # Only the game's first N plies explore; the search plays the rest, and the positions
    # after the last explored ply keep the game's result. None: every ply may explore.
    explore_plies: int | None = None
    # ε decays over the run: iteration i explores with ε·max(0, 1 − (i − 1)/D), D this
    # value, so from iteration D + 1 on the search plays every ply. None: ε throughout.
    # With explore = 0 it does nothing.
    explore_decay: int | None = setting(None, departure="explore-decay")
    # The value target of a position before a game's last explored ply: "q", the search
    # value of the position itself; "watkins", the search value of the first explored ply
    # at or after it, seen from its mover (Watkins's Q(λ): the return up to the first
    # exploratory action, bootstrapped there). With explore = 0 it does nothing.
    explore_return: str = setting("q", departure="watkins")
    # Departure from the papers, off in profile=paper (method.md §5): progressive simulation
    # (MiniZero's; budgets that grow during training). Self-play searches with the k-th of
    # these m in iterations (k−1)·N + 1 to k·N, N = `progressive_iterations`, and with
    # search.simulations after them; the arena, the probe and the trained agent keep
    # search.simulations. (): off.
    progressive_simulations: tuple[int, ...] = setting((), departure="progressive-m")
    progressive_iterations: int = 10  # N, the iterations of each budget above
    # Departure from the papers, off in profile=paper (method.md §5): reanalysis (MuZero's
    # Reanalyse, with the game's rules). Each iteration re-searches K positions of earlier
    # iterations still in the buffer with the current network (m simulations, no root
    # noise); their examples take the fresh π as policy target. 0: off.
    reanalyse: int = setting(0, departure="reanalyse")
    # λ: a reanalysed position's value target becomes (1 − λ)·(its stored target) + λ·q, q
    # the fresh root value. 0: the value target is kept. With reanalyse = 0 it does nothing.
    reanalyse_value: float = 0.0
    # Departure from the papers, off in profile=paper (method.md §5): start positions drawn
    # from earlier games (Go-Exploit's idea). A share s of each iteration's self-play games
    # (those the baseline plays alone) starts from a position drawn uniformly among the
    # positions of the games of the last replay_iterations iterations. 0: every game starts
    # from the first position.
    start_positions: float = setting(0.0, departure="start-positions")
    # Departure from the papers, off in profile=paper (method.md §8): at the first iteration
    # after warm start, the replay buffer drops every warm-start game, so that the baseline
    # trains on its own games only. Without warm start it does nothing.
    drop_warmstart_games: bool = setting(False, departure="drop-warm-games")


@dataclasses.dataclass(frozen=True)
class ArenaConfig:
    games: int = 40  # n
    threshold: float = 0.6  # u
    temperature_moves: int = 15
    # Departure from the papers (method.md §7), true = on: false plays no arena and keeps
    # every candidate (AlphaZero's continuous training; n, u and T′ then go unused).
    gate: bool = setting(True, departure="no-gate")


@dataclasses.dataclass(frozen=True)
class RunConfig:
    game: GameConfig = GameConfig()
    model: ModelConfig = ModelConfig()
    search: SearchConfig = SearchConfig(temperature_moves=15)  # the papers' T′
    warmstart: WarmstartConfig = WarmstartConfig()
    train: TrainConfig = TrainConfig()
    arena: ArenaConfig = ArenaConfig()
    probe: ProbeConfig = ProbeConfig()
    seed: int = setting(0, per_run=True)
    run_dir: str = setting("runs/default", resumable=True, per_run=True)
    profile_name: str = "paper"
    experiment_name: str = "custom"
    keep_checkpoints: int = setting(3, resumable=True, per_run=True)
    # Iterations after which the best network is kept in `networks/iteration_NNN/` (a
    # study's horizons: its networks rated at several points of the run); () keeps none.
    keep_networks: tuple[int, ...] = setting((), resumable=True, per_run=True)
    tensorboard: bool = setting(True, resumable=True, per_run=True)
    # JAX's persistent compilation cache: "auto" is `.jax_cache` beside the run folder (so a
    # rerun or a resume does not compile again), or JAX_COMPILATION_CACHE_DIR where that is
    # set; None leaves JAX's own setting (off unless that variable is set); else a path.
    compilation_cache: str | None = setting("auto", resumable=True)
    # Per-stage seconds in the metrics (host callbacks, which keep JAX from caching the
    # compiled iteration; false: only seconds_total, and the iteration is cached).
    stage_times: bool = setting(True, resumable=True)

    # Old names that still read (`settings.renamed_keys`): kept while committed run folders
    # use them (tests/train/test_run_config.py fails once none does; then they go).
    RENAMED: ClassVar[dict[str, str]] = {"oracle": "probe"}

    @classmethod
    def from_dict(cls, raw: dict[str, Any], stored: bool = False) -> "RunConfig":
        """Builds and validates the config from plain nested dicts (e.g.
        `OmegaConf.to_container`, or a run folder's config.yaml). `stored`: a run folder's
        saved config, whose old setting names (`RENAMED`) are read without a message and
        whose game is looked up but not built (it was when the config was written).

        Raises:
          ConfigError: an unknown key, a value of the wrong type or an impossible setting,
            named.
        """
        token = _READING_STORED.set(stored)
        try:
            config = from_mapping(cls, raw, tell=not stored)
        finally:
            _READING_STORED.reset(token)
        validate(config)
        return config

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def cheap_simulations(c: RunConfig) -> int:
    """n, the playout cap's cheap search: `train.cheap_simulations`, or m / 4 (at least 1)."""
    n = c.train.cheap_simulations
    return max(1, c.search.simulations // 4) if n is None else int(n)


def resumable_paths() -> frozenset[str]:
    """The settings (dotted paths) a run may change between calls in its folder: more
    iterations, the folder, bookkeeping, and the training convolution (the same function
    either way). Marked `resumable` where they are declared."""
    return frozenset(marked(RunConfig, RESUMABLE))


def per_run_paths() -> frozenset[str]:
    """The settings (dotted paths) the runs of one compiled program may differ in: the
    traced values (seed, I′) and each run's bookkeeping. Marked `per_run` where declared."""
    return frozenset(marked(RunConfig, PER_RUN))


# Settings a warm-start mode does not read: set on the command line, they would only make a
# second run folder of the same run (`ignored_overrides`).
IGNORED_BY_MODE = {
    "none": {"warmstart.iprime": "I′ of the fixed warm start",
             "warmstart.enhancement": "the warm-start enhancement"},
    "adaptive": {"warmstart.iprime": "I′ of the fixed warm start"},
}


def ignored_overrides(config: RunConfig, keys: Iterable[str]) -> list[str]:
    """The command-line settings among `keys` (dotted, as Hydra overrides name them)
    that `config`'s warm-start mode ignores, each with why: they are refused rather than
    given a run folder of their own, which a study would count as another seed."""
    mode = config.warmstart.mode
    ignored = IGNORED_BY_MODE.get(mode, {})
    out = []
    for key in keys:
        key = key.lstrip("+~")
        if key in ignored:
            what = {"none": "the baseline", "adaptive": "adaptive warm start"}[mode]
            out.append(f"{key} is {ignored[key]}, which {what} does not use; leave it out "
                       "(a run folder of its own would hold the same run)")
    return out


def run_identity(config: RunConfig) -> str:
    """What makes a run the run it is: every setting but those a run may change between
    calls (`resumable_paths`: the folder, bookkeeping, more iterations) and those its
    warm-start mode ignores (`IGNORED_BY_MODE`). Two folders with one identity hold the
    same run (the same iterations, bit for bit on one machine)."""
    import json

    flat = {}

    def walk(value, path):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{path}.{k}" if path else k)
        else:
            flat[path] = value

    walk(config.to_dict(), "")
    skip = resumable_paths() | set(IGNORED_BY_MODE.get(config.warmstart.mode, {}))
    return json.dumps({k: v for k, v in flat.items() if k not in skip}, sort_keys=True,
                      default=str)


def selfplay_problems(rules: Any) -> list[str]:
    """What is wrong with self-play's settings (the `train` fields `selfplay.SelfPlayRules`
    takes, read off any object that has them: a `TrainConfig` or a `SelfPlayRules`), each
    named by its field: their one check."""
    out = []
    if rules.random_opening < 0:
        out.append(f"random_opening must be ≥ 0, got {rules.random_opening}")
    if not 0.0 <= rules.value_mix <= 1.0:
        out.append(f"value_mix must be in [0, 1], got {rules.value_mix}")
    if not 0.0 <= rules.explore < 1.0:
        out.append(f"explore (the share of random moves) must be in [0, 1), "
                   f"got {rules.explore}")
    if not 0.0 < rules.explore_games <= 1.0:
        out.append(f"explore_games (the share of exploring games) must be in (0, 1], "
                   f"got {rules.explore_games}")
    if rules.explore_return not in EXPLORE_RETURNS:
        out.append(f"explore_return must be one of {', '.join(EXPLORE_RETURNS)}, "
                   f"got {rules.explore_return!r}")
    if rules.explore_decay is not None and rules.explore_decay < 1:
        out.append(f"explore_decay (the iterations over which ε falls to 0) must be at "
                   f"least 1, got {rules.explore_decay}")
    if rules.explore_plies is not None and rules.explore_plies < 1:
        out.append(f"explore_plies (the plies that may explore) must be at least 1, "
                   f"got {rules.explore_plies}")
    if not 0.0 < rules.playout_cap <= 1.0:
        out.append(f"playout_cap (the share of full searches) must be in (0, 1], "
                   f"got {rules.playout_cap}")
    return out


def validate(config: RunConfig) -> None:
    """Raises `ConfigError` for unknown names and impossible settings."""
    c = config
    problems = []
    if c.warmstart.mode not in MODES:
        problems.append(f"unknown warm-start mode {c.warmstart.mode!r} (choose from {MODES})")
    if c.warmstart.mode != "none" and c.warmstart.enhancement not in WARMSTART_ENHANCEMENTS:
        problems.append(f"unknown enhancement {c.warmstart.enhancement!r} "
                        f"(choose from {', '.join(WARMSTART_ENHANCEMENTS)})")
    if c.seed < 0:
        problems.append(f"seed must be non-negative, got {c.seed}")
    if c.train.iterations < 1:
        problems.append(f"train.iterations (I) must be at least 1, got {c.train.iterations}")
    if c.train.minutes is not None and not c.train.minutes > 0:
        problems.append(f"train.minutes must be positive (or null), got {c.train.minutes}")
    if c.warmstart.mode == "fixed":
        if c.warmstart.iprime < 1:
            problems.append(f"warmstart.iprime (I′) must be at least 1, got {c.warmstart.iprime}")
        if c.warmstart.iprime > c.train.iterations:
            problems.append(f"warmstart.iprime (I′ = {c.warmstart.iprime}) exceeds "
                            f"train.iterations (I = {c.train.iterations})")
    if c.train.games < 1:
        problems.append(f"train.games (E) must be at least 1, got {c.train.games}")
    if c.warmstart.mode == "adaptive" and c.train.games % 2:
        problems.append(f"adaptive warm-start needs an even train.games (E), got {c.train.games}"
                        " (half the games start with each side)")
    if c.arena.temperature_moves < 0:
        problems.append(f"arena.temperature_moves (T′) must be non-negative, "
                        f"got {c.arena.temperature_moves}")
    if c.arena.games < 1:
        problems.append(f"arena.games (n) must be at least 1, got {c.arena.games}")
    elif c.arena.games % 2:
        problems.append(f"arena.games (n) must be even (each side first in half), "
                        f"got {c.arena.games}")
    if not 0.0 < c.arena.threshold <= 1.0:
        problems.append(f"arena.threshold (u) must be in (0, 1], got {c.arena.threshold}")
    if c.train.replay_iterations < 1:
        problems.append(f"train.replay_iterations (rs) must be at least 1, "
                        f"got {c.train.replay_iterations}")
    if c.train.epochs < 0 or c.train.batch_size < 1:
        problems.append("train.epochs must be ≥ 0 and train.batch_size ≥ 1")
    problems += [f"train.{problem}" for problem in selfplay_problems(c.train)]
    if not c.train.value_weight > 0:
        problems.append(f"train.value_weight (the value loss's weight) must be positive, "
                        f"got {c.train.value_weight}")
    if c.train.reply_weight < 0:
        problems.append(f"train.reply_weight (the reply target's weight) must be ≥ 0, "
                        f"got {c.train.reply_weight}")
    if c.train.reanalyse < 0:
        problems.append(f"train.reanalyse (positions re-searched per iteration) must be ≥ 0, "
                        f"got {c.train.reanalyse}")
    elif c.train.reanalyse > 0 and c.train.replay_iterations < 2:
        problems.append("train.reanalyse needs train.replay_iterations ≥ 2 (it re-searches "
                        "the positions of earlier iterations)")
    if not 0.0 <= c.train.reanalyse_value <= 1.0:
        problems.append(f"train.reanalyse_value must be in [0, 1], got {c.train.reanalyse_value}")
    if not 0.0 <= c.train.start_positions <= 1.0:
        problems.append(f"train.start_positions (the share of games started from an earlier "
                        f"game's position) must be in [0, 1], got {c.train.start_positions}")
    if c.train.start_positions > 0 and c.train.reanalyse > 0:
        problems.append("train.start_positions and train.reanalyse cannot be combined: "
                        "reanalysis replays each kept game from its first position")
    if 0.0 < c.train.playout_cap < 1.0:
        n = cheap_simulations(c)
        if not 1 <= n < c.search.simulations:
            problems.append(f"train.cheap_simulations must be from 1 to search.simulations − 1"
                            f" ({c.search.simulations - 1}), got {n}")
        if c.search.reuse_tree:
            problems.append("train.playout_cap < 1 needs search.reuse_tree=false (a cheap "
                            "search keeps no tree for the next move)")
    if c.train.progressive_simulations:
        m = c.search.simulations
        if any(not 1 <= s < m for s in c.train.progressive_simulations):
            problems.append(f"train.progressive_simulations must each be from 1 to "
                            f"search.simulations − 1 ({m - 1}), got "
                            f"{list(c.train.progressive_simulations)}")
        if list(c.train.progressive_simulations) != sorted(c.train.progressive_simulations):
            problems.append(f"train.progressive_simulations must not decrease, got "
                            f"{list(c.train.progressive_simulations)}")
        if c.train.progressive_iterations < 1:
            problems.append(f"train.progressive_iterations must be at least 1, "
                            f"got {c.train.progressive_iterations}")
        if c.train.playout_cap < 1.0:
            problems.append("train.progressive_simulations does not combine with "
                            "train.playout_cap < 1 (the cheap search's n is fixed)")
    if c.train.learning_rate <= 0:
        problems.append(f"train.learning_rate must be positive, got {c.train.learning_rate}")
    if c.train.final_learning_rate is not None and c.train.final_learning_rate <= 0:
        problems.append(f"train.final_learning_rate must be positive (or null), "
                        f"got {c.train.final_learning_rate}")
    if c.probe.every < 0 or (c.probe.positions is not None and c.probe.positions < 1):
        problems.append("probe.every must be ≥ 0 and probe.positions ≥ 1 (or null)")
    if any(i < 1 for i in c.keep_networks):
        problems.append(f"keep_networks must hold iterations of at least 1, got "
                        f"{list(c.keep_networks)}")
    if c.keep_checkpoints < 1:
        problems.append(f"keep_checkpoints must be at least 1, got {c.keep_checkpoints}")
    if problems:
        if len(problems) == 1:
            raise ConfigError(f"invalid configuration: {problems[0]}")
        raise ConfigError("invalid configuration:\n  - " + "\n  - ".join(problems))
