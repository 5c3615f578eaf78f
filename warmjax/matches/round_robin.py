"""Round-robin tournaments among trained networks and network-free anchors (method.md §10).

    JAX_PLATFORMS=cpu python -m warmjax.tournament 'runs/fixed_c4/*' 'runs/adaptive_c4/*' \
        --anchors random pure_mcts --playouts 100 --games 20 --out tournaments/c4

Every player meets every other in `--games` G games (even; each side moves first in half).
With `--pairing seed` networks meet only the networks of runs with the same seed (and every
anchor): a study's round robin within each seed, n_seeds · C(arms, 2) pairs instead of
C(arms · n_seeds, 2). Each arm has one network per seed, so the arms' mean ratings compare as
in a full round robin, while the seeds' blocks are tied to each other only through the
anchors.
A trained network plays the baseline MCTS of method.md §2; an anchor is a network-free player
(`random`, `pure_mcts`, `pure_rave` or `rhea`, the tree searches with `--playouts`
simulations per move; default `--anchors random`, the papers' random player). Ratings are
Bayesian Elo (`warmjax.rating.elo`), printed and written to `elo.md` / `elo.json` with
the name → run mapping.

Settings (the choices where the papers are silent):

- One common m for all networks (`--simulations`): the tournament rates networks, not
  search budgets. The default is the runs' own `search.simulations` when they all agree
  (an error asks for `--simulations` when they do not); likewise `c_puct`.
- `--temperature-moves` T′: both sides sample their first T′ plies' moves from the search
  policy and play argmax after, so that games between deterministic searches differ. The
  default is the runs' `search.temperature_moves` when they agree. Anchors use the same T′.
- All players must play the same game (same board settings, defaults spelled out or not);
  a run folder without a readable network, or with a network of another game, is an error
  naming the folder.
- Player names are the runs' labels with their seeds (`RunId.label`):
  `Baseline s0`, `Rollout I′=3 s1`, `WRoRa adaptive s2`, departures from the papers after a
  `+`; where two runs would share a name, the profile and then the folder name are appended.
  Anchors are `random`, `pure_mcts(<playouts>)` etc. The mapping is in `players.json`.

Batching: players fall into kinds: a network architecture (one compiled search serves every
network of that shape, its variables an argument) or an anchor. The pairs of one matchup of
kinds (say, network vs network of the same shape, or network vs `random`) are stacked and
played as one `jax.vmap`ped, jitted match call over the stacked variables (all pairings of
the matchup at once, not round by round), in calls of at most `--max-games-per-call` games
and `--max-pairs-per-call` pairs (each pair in a call holds a copy of both networks'
variables: about 2 × 48 MB per pair for the papers' 512-channel network). The last call of
a matchup is padded with copies of its last pair, whose games are discarded, so each
matchup compiles once.

Keys: pair {a, b} plays with the key `fold_in(PRNGKey(seed), crc32("a|b"))`, independent of
batching, order and resumption, so an interrupted and resumed tournament gives the same
games as an uninterrupted one (given the same batching).

Output folder (`--out`):

- `tournament.json`: the settings and players (written first; a rerun must match it);
- `batches/batch-NNNN.json`: the journal: every finished call's pairs with their game
  records, each file written atomically once its call has finished. A rerun with the same
  `--out` skips every pair found there (adding players plays only the new pairs). A
  batch compressed to `batch-NNNN.json.gz` (`TournamentFolder.compress_journal`) counts the same;
- when every pair has been played: `pairs.json` (per-pair wins, draws, losses from the
  first-named player's side), `games.json` (every game: players, first mover, moves as
  action indices, result for the first mover), `players.json`, `elo.json` and `elo.md`.
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from warmjax import cli
from warmjax.markdown import table
from warmjax.matches.batches import kind_record, kind_text, plan_batches, play_batch
from warmjax.matches.entrants import (
    anchor_entrants,
    common_setting,
    expand_runs,
    game_text,
    load_runs,
)
from warmjax.matches.tournament_folder import (
    EloTable,
    Entry,
    GameRecord,
    Header,
    PairResult,
    Settings,
    TournamentFolder,
    batch_number,
    elo_games,
    journal_elo,  # noqa: F401 - also here
)
from warmjax.rating.elo import EloResult, bayes_elo
from warmjax.search.players import NETWORK_FREE
from warmjax.search.rhea import RheaConfig

ANCHORS = NETWORK_FREE  # random, pure_mcts, pure_rave, rhea
PAIRINGS = ("all", "seed")


def scheduled_pairs(infos: Sequence[Entry], pairing: str) -> list[tuple[int, int]]:
    """The index pairs `(i, j)`, i < j, that meet: all of them, or (`seed`) those with an
    anchor and those of two networks with the same seed."""
    def meets(a: Entry, b: Entry) -> bool:
        return (pairing == "all" or a.kind != "network" or b.kind != "network"
                or a.seed == b.seed)
    return [(i, j) for i, j in itertools.combinations(range(len(infos)), 2)
            if meets(infos[i], infos[j])]


@dataclasses.dataclass(frozen=True)
class TournamentConfig:
    """Settings of a tournament.

    Attributes:
      runs: run folders or glob patterns (quoted globs are expanded here, sorted).
      anchors: network-free players to include (see ANCHORS).
      games: G games per pair, even (each side first in G/2).
      simulations: m of the networks' baseline MCTS; None: the runs' common m.
      temperature_moves: T′ for every player; None: the runs' common T′.
      playouts: simulations per move of the anchors' searches (RHEA: its playout budget).
      seed: the root key of every game.
      out: the output folder (also the resume journal).
      max_games_per_call: most games (pairs × G) in one compiled call.
      max_pairs_per_call: most pairs in one compiled call (bounds the stacked variables).
      fast_compile: compile at XLA's backend optimisation level 0 (tests, tiny runs).
      pairing: `all` (every player meets every other) or `seed` (networks meet only the
        networks of the same seed; anchors meet everyone).
      iteration: rate the networks the runs kept after this iteration (`keep_networks`: a
        study's horizons); None: their final networks.
    """

    runs: tuple[str, ...]
    out: str
    anchors: tuple[str, ...] = ()
    games: int = 20
    simulations: int | None = None
    temperature_moves: int | None = None
    playouts: int = 100
    seed: int = 0
    max_games_per_call: int = 2048
    max_pairs_per_call: int = 32
    fast_compile: bool = False
    pairing: str = "all"
    iteration: int | None = None

    def __post_init__(self):
        if self.iteration is not None and self.iteration < 1:
            raise ValueError(f"iteration must be at least 1, got {self.iteration}")
        if self.pairing not in PAIRINGS:
            raise ValueError(f"unknown pairing {self.pairing!r}; choose from "
                             f"{', '.join(PAIRINGS)}")
        if self.games < 2 or self.games % 2:
            raise ValueError(f"games must be a positive even number (each side first in half), "
                             f"got {self.games}")
        for name in ("simulations", "playouts", "max_games_per_call", "max_pairs_per_call"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if self.temperature_moves is not None and self.temperature_moves < 0:
            raise ValueError(f"temperature_moves must be non-negative, got "
                             f"{self.temperature_moves}")
        if len(set(self.anchors)) != len(self.anchors):
            raise ValueError(f"anchors must be distinct, got {list(self.anchors)}")
        for name in self.anchors:
            if name not in ANCHORS:
                raise ValueError(f"unknown anchor {name!r}; choose from {', '.join(ANCHORS)}")
        if "rhea" in self.anchors:
            try:
                RheaConfig(simulations=self.playouts)
            except ValueError as err:
                raise ValueError(f"--playouts {self.playouts} is too few for rhea: {err}") \
                    from None


@dataclasses.dataclass(frozen=True)
class TournamentResult:
    """What `run_tournament` returns.

    Attributes:
      names: the players, in the order of the Elo arrays.
      players: name → entry (`players.json`).
      pairs: per-pair results with their games (`pairs.json`, `games.json`).
      elo: the Bayesian Elo fit, or None if the tournament stopped early (`max_batches`).
      played_batches: compiled calls played in this invocation.
      pending_pairs: pairs still to play (0 when complete).
    """

    names: tuple[str, ...]
    players: dict[str, Entry]
    pairs: list[PairResult]
    elo: EloResult | None
    played_batches: int
    pending_pairs: int

    @property
    def complete(self) -> bool:
        return self.pending_pairs == 0

    @property
    def games(self) -> list[GameRecord]:
        """Every game, pair by pair."""
        return [g for p in self.pairs for g in p.records]


# --- the tournament ----------------------------------------------------------------------


def tournament_markdown(fit: EloResult, elo: EloTable) -> str:
    """`elo.md`: the settings in words, the fit's Elo table and where each player came
    from."""
    settings = elo.settings
    lines = [
        f"# Tournament: {game_text(settings.game)}",
        "",
        (f"{settings.games} games per pair (each side first in half); networks play "
         f"baseline MCTS with m = {settings.simulations}; "
         f"T′ = {settings.temperature_moves}; anchors' playouts {settings.playouts}; "
         f"seed {settings.seed}"
         + ("; networks meet only networks of their own seed." if settings.pairing
            == "seed" else ".")),
        "Bayesian Elo (mean 0) with 95% intervals:",
        "",
        fit.table("markdown"),
        "",
        table(["Name", "Source"], [[name, elo.players[name].source] for name in elo.names],
              "ll"),
    ]
    return "\n".join(lines)


def run_tournament(config: TournamentConfig, *, max_batches: int | None = None,
                   log: Callable[[str], None] | None = None) -> TournamentResult:
    """Plays (or resumes) a tournament and writes its outputs (see the module docstring).

    Args:
      config: the settings.
      max_batches: play at most this many compiled calls, then stop (a scheduler's time
        slice; the tests' interruption). The final files are written only when all pairs
        have been played.
      log: where progress lines go (default: stderr).

    Returns:
      A `TournamentResult`; its `elo` is None while pairs are pending.

    Raises:
      ValueError: bad run folders, mixed games, settings that differ from the runs' or
        from the tournament in `out` (see `check_resume`).
    """
    log = log or (lambda s: print(s, file=sys.stderr, flush=True))
    env, game, runs, entrants = load_runs(expand_runs(config.runs), config.iteration)
    search = [run.config.search for run in runs]
    entrants += anchor_entrants(config.anchors, config.playouts)
    names = [e.name for e in entrants]
    if len(set(names)) != len(names):
        raise ValueError(f"player names collide: {names}")
    if len(entrants) < 2:
        raise ValueError("a tournament needs at least two players (add runs or --anchors)")
    settings = Settings(
        game=game,
        games=config.games,
        simulations=config.simulations if config.simulations is not None
        else common_setting([s.simulations for s in search], "search.simulations",
                            "--simulations"),
        c_puct=common_setting([s.c_puct for s in search], "search.c_puct"),
        temperature_moves=config.temperature_moves if config.temperature_moves is not None
        else common_setting([s.temperature_moves for s in search], "search.temperature_moves",
                            "--temperature-moves"),
        playouts=config.playouts,
        seed=config.seed,
        pairing=config.pairing,
    )
    out = Path(config.out)
    folder = TournamentFolder(out)
    players = folder.resume(settings, {e.name: e.info for e in entrants})
    folder.write_header(Header(settings, players, config.max_games_per_call,
                               config.max_pairs_per_call))

    current = set(names)
    done: dict[frozenset, PairResult] = {}
    for record in folder.read_journal():
        if record.key <= current and record.key not in done:
            done[record.key] = record
    scheduled = scheduled_pairs([e.info for e in entrants], config.pairing)
    wanted = {frozenset((names[i], names[j])) for i, j in scheduled}
    done = {pair: record for pair, record in done.items() if pair in wanted}
    todo = [(i, j) for i, j in scheduled if frozenset((names[i], names[j])) not in done]
    if done:
        log(f"resuming {out}: {plural_pairs(len(done))} played, {len(todo)} to play")
    batches = plan_batches(entrants, todo, config.games, config.max_games_per_call,
                           config.max_pairs_per_call)
    number = max((batch_number(p) for p in folder.batch_paths()), default=0)
    played = 0
    for batch in batches:
        if max_batches is not None and played >= max_batches:
            break
        with cli.status(f"batch {played + 1}/{len(batches)}: {plural_pairs(len(batch.pairs))} "
                        f"x {config.games} games (compiling, then playing)"):
            records, compile_s, run_s = play_batch(env, game, entrants, batch, settings,
                                                   config.fast_compile)
        number += 1
        folder.write_batch(number, (kind_record(batch.kind_a), kind_record(batch.kind_b)), records)
        for record in records:
            done[record.key] = record
        played += 1
        log(f"batch {played}/{len(batches)}: {plural_pairs(len(records))} "
            f"{kind_text(batch.kind_a)} vs {kind_text(batch.kind_b)} x {config.games} games "
            f"(compile {compile_s:.1f}s, run {run_s:.1f}s)")

    order = {n: i for i, n in enumerate(names)}
    pairs = sorted(done.values(), key=lambda r: sorted((order[r.a], order[r.b])))
    pending = len(scheduled) - len(pairs)
    this_players = {n: players[n] for n in names}
    if pending:
        log(f"stopped with {plural_pairs(pending)} to play; rerun the same command to go on")
        return TournamentResult(tuple(names), this_players, pairs, None, played, pending)

    elo = bayes_elo(elo_games(names, pairs), len(names), names=names)
    rated = EloTable.of(elo, this_players, settings)
    folder.write_results(pairs, this_players, rated, tournament_markdown(elo, rated))
    return TournamentResult(tuple(names), this_players, pairs, elo, played, 0)


def plural_pairs(n: int) -> str:
    """"1 pair", "n pairs"."""
    return f"{n} pair" if n == 1 else f"{n} pairs"
