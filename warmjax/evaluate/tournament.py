"""Round-robin tournaments among trained networks and network-free anchors (method.md §10).

    JAX_PLATFORMS=cpu python -m warmjax.tournament 'runs/fixed_c4/*' 'runs/adaptive_c4/*' \
        --anchors random pure_mcts --playouts 100 --games 20 --out tournaments/c4

Every player meets every other in `--games` G games (even; each side moves first in half).
A trained network plays the baseline MCTS of method.md §2; an anchor is a network-free player
(`random`, `pure_mcts`, `pure_rave` or `rhea`, the tree searches with `--playouts`
simulations per move; default `--anchors random`, the papers' random player). Ratings are
Bayesian Elo (`warmjax.evaluate.elo`), printed and written to `elo.md` / `elo.json` with
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
- Player names are `<experiment>/baseline/s<seed>`, `<experiment>/<enhancement>/I<I′>/s<seed>`
  (fixed I′) and `<experiment>/<enhancement>/adaptive/s<seed>`, taken from `config.yaml`;
  where two runs would share a name, the profile and then the folder name are appended.
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
  `--out` skips every pair found there (adding players plays only the new pairs);
- when every pair has been played: `pairs.json` (per-pair wins, draws, losses from the
  first-named player's side), `games.json` (every game: players, first mover, moves as
  action indices, result for the first mover), `players.json`, `elo.json` and `elo.md`.
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import inspect
import itertools
import json
import math
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from warmjax import cli
from warmjax.evaluate.elo import EloResult, bayes_elo
from warmjax.evaluate.match import NO_MOVE, make_match
from warmjax.nets import make_network
from warmjax.search.players import NETWORK_FREE, make_player
from warmjax.search.rhea import RheaConfig
from warmjax.train import run_folder
from warmjax.train.checkpoint import atomic_write
from warmjax.train.network_io import load_network

ANCHORS = NETWORK_FREE  # random, pure_mcts, pure_rave, rhea
FORMAT = "warmjax-tournament-v1"
# Settings a resumed tournament must share with the one it continues.
SHARED_SETTINGS = ("game", "games", "simulations", "c_puct", "temperature_moves", "playouts",
                   "seed")


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

    def __post_init__(self):
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
class Entrant:
    """One player of the tournament.

    Attributes:
      name: unique, readable name.
      info: JSON description (the mapping written to `players.json`).
      kind: hashable key of the compiled player it uses: `("network", channels, fc)` or
        `("anchor", name)`; pairs of the same kinds share a compiled match.
      variables: the network's variables (None for anchors).
    """

    name: str
    info: dict
    kind: tuple
    variables: Any = None


@dataclasses.dataclass(frozen=True)
class TournamentResult:
    """What `run_tournament` returns.

    Attributes:
      names: the players, in the order of the Elo arrays.
      players: name → description (`players.json`).
      pairs: per-pair results (`pairs.json`).
      games: every game record (`games.json`).
      elo: the Bayesian Elo fit, or None if the tournament stopped early (`max_batches`).
      played_batches: compiled calls played in this invocation.
      pending_pairs: pairs still to play (0 when complete).
    """

    names: tuple[str, ...]
    players: dict
    pairs: list
    games: list
    elo: EloResult | None
    played_batches: int
    pending_pairs: int

    @property
    def complete(self) -> bool:
        return self.pending_pairs == 0


# --- players -----------------------------------------------------------------------------


def expand_runs(patterns: Sequence[str]) -> list[Path]:
    """Run folders from paths and glob patterns (sorted, duplicates removed).

    A glob keeps the folders it matches and ignores files (e.g. Hydra's `multirun.yaml`).

    Raises:
      ValueError: a pattern that matches no folder, or a path that is not a folder.
    """
    folders: list[Path] = []
    for pattern in patterns:
        if any(ch in pattern for ch in "*?["):
            found = [Path(p) for p in sorted(glob.glob(pattern)) if Path(p).is_dir()]
            if not found:
                raise ValueError(f"{pattern!r} matches no run folder")
            folders += found
        else:
            path = Path(pattern)
            if not path.is_dir():
                raise ValueError(f"{pattern} is not a run folder")
            folders.append(path)
    unique, seen = [], set()
    for folder in folders:
        key = folder.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(folder)
    return unique


def variant_label(run_config: dict) -> str:
    """`baseline`, `<enhancement>/I<I′>` or `<enhancement>/adaptive` from a run's config."""
    ws = run_config.get("warmstart") or {}
    mode = ws.get("mode", "none")
    if mode == "none":
        return "baseline"
    if mode == "fixed":
        return f"{ws['enhancement']}/I{ws['iprime']}"
    return f"{ws['enhancement']}/{mode}"


def run_info(run_dir: Path, run_config: dict, meta: dict, digest: str) -> dict:
    """The mapping entry of a trained network (what the report groups by)."""
    ws = run_config.get("warmstart") or {}
    mode = ws.get("mode", "none")
    return {
        "kind": "network",
        "run_dir": str(run_dir),
        "experiment": run_config.get("experiment_name", "custom"),
        "profile": run_config.get("profile_name"),
        "game": run_config["game"]["name"],
        "mode": mode,
        "enhancement": None if mode == "none" else ws.get("enhancement"),
        "iprime": ws.get("iprime") if mode == "fixed" else None,
        "seed": run_config.get("seed"),
        "iteration": meta.get("iteration"),
        "model": meta.get("model"),
        "network_sha256": digest,
    }


def unique_names(bases: list[str], extras: list[list[str]]) -> list[str]:
    """Makes `bases` unique: where names collide, appends the next extra, then `#k`."""
    names = list(bases)
    for level in range(max((len(e) for e in extras), default=0)):
        counts = {n: names.count(n) for n in names}
        names = [f"{n}/{extras[i][level]}" if counts[n] > 1 and level < len(extras[i]) else n
                 for i, n in enumerate(names)]
    seen: dict[str, int] = {}
    out = []
    for name in names:
        k = seen.get(name, 0) + 1
        seen[name] = k
        out.append(name if names.count(name) == 1 else f"{name}#{k}")
    return out


def canonical_game(env, name: str, params: dict) -> dict:
    """`{"name", "params"}` with every constructor setting spelled out.

    A run that names the defaults (`rows=6`) and one that leaves them out play the same game.
    """
    signature = inspect.signature(type(env).__init__)
    full = {k: p.default for k, p in signature.parameters.items()
            if k != "self" and p.default is not inspect.Parameter.empty}
    full.update(params)
    return {"name": name, "params": dict(sorted(full.items()))}


def load_runs(run_dirs: Sequence[Path]):
    """Loads the networks of the run folders and checks they all play one game.

    Returns:
      `(env, game, run_configs, entrants)` with `game = {"name", "params"}`.

    Raises:
      ValueError: a missing or corrupt network or config, or runs of different games.
    """
    if not run_dirs:
        raise ValueError("a tournament needs at least one run folder")
    env = game = None
    loaded = []
    for run_dir in run_dirs:
        run_config = run_folder.read_config(run_dir)
        run_env, network, variables = load_network(run_dir)
        meta = json.loads((run_dir / "network.json").read_text())
        this_game = canonical_game(run_env, meta["game"]["name"], meta["game"]["params"])
        if game is None:
            env, game, first = run_env, this_game, run_dir
        elif this_game != game:
            raise ValueError(
                f"all players must play the same game: {first} plays {_game_text(game)} but "
                f"{run_dir} plays {_game_text(this_game)}")
        digest = hashlib.sha256((run_dir / "network.msgpack").read_bytes()).hexdigest()
        loaded.append((run_dir, run_config, meta, network, variables, digest))

    bases = [
        f"{c.get('experiment_name', 'custom')}/{variant_label(c)}/s{c.get('seed', 0)}"
        for _, c, *_ in loaded
    ]
    extras = [[str(c.get("profile_name")), d.name] for d, c, *_ in loaded]
    names = unique_names(bases, extras)
    entrants = []
    for name, (run_dir, run_config, meta, network, variables, digest) in zip(names, loaded):
        module = network.module
        kind = ("network", module.channels, tuple(module.fc))
        entrants.append(Entrant(name, run_info(run_dir, run_config, meta, digest), kind,
                                variables))
    return env, game, [c for _, c, *_ in loaded], entrants


def anchor_entrants(anchors: Sequence[str], playouts: int) -> list[Entrant]:
    out = []
    for anchor in anchors:
        name = anchor if anchor == "random" else f"{anchor}({playouts})"
        info = {"kind": "anchor", "player": anchor,
                "playouts": None if anchor == "random" else playouts}
        out.append(Entrant(name, info, ("anchor", anchor)))
    return out


def common_setting(run_configs: list[dict], section: str, key: str, flag: str | None = None):
    """The value all runs share for `section.key`; ValueError (naming `flag`) otherwise."""
    values = sorted({json.dumps((c.get(section) or {}).get(key)) for c in run_configs})
    if len(values) != 1:
        fix = f"choose one with {flag}" if flag else "a tournament needs one value"
        raise ValueError(f"the runs differ in {section}.{key} ({', '.join(values)}); {fix}")
    return json.loads(values[0])


# --- compiled matches --------------------------------------------------------------------

# Compiled matchups, reused by later tournaments in the same process (tests, notebooks).
_COMPILED: dict[tuple, Callable] = {}


def _player(kind: tuple, env, settings: dict):
    if kind[0] == "network":
        _, channels, fc = kind
        network = make_network(env.num_actions, env.observation_shape, None, channels=channels,
                               fc=fc)
        return make_player("mcts", env, network.apply, simulations=settings["simulations"],
                           c_puct=settings["c_puct"],
                           temperature_moves=settings["temperature_moves"])
    return make_player(kind[1], env, simulations=settings["playouts"],
                       temperature_moves=settings["temperature_moves"])


def compiled_matchup(env, game: dict, kind_a: tuple, kind_b: tuple, pairs: int,
                     settings: dict, example, fast_compile: bool) -> tuple[Callable, float]:
    """`(call, compile_seconds)`: `call(vars_a, vars_b, keys [K]) -> MatchResult [K, ...]`.

    `vars_a` is stacked `[K, ...]` network variables for a network kind and None for an
    anchor; likewise `vars_b`.
    """
    signature = (json.dumps(game, sort_keys=True), kind_a, kind_b, pairs,
                 *(settings[k] for k in ("games", "simulations", "c_puct",
                                         "temperature_moves", "playouts")), fast_compile)
    if signature in _COMPILED:
        return _COMPILED[signature], 0.0
    match = make_match(env, _player(kind_a, env, settings), _player(kind_b, env, settings),
                       settings["games"], record=True)
    axes = (0 if kind_a[0] == "network" else None, 0 if kind_b[0] == "network" else None, 0)
    batched = jax.jit(jax.vmap(match, in_axes=axes))
    tic = time.perf_counter()
    options = {"xla_backend_optimization_level": 0} if fast_compile else None
    call = batched.lower(*example).compile(compiler_options=options)
    _COMPILED[signature] = call
    return call, time.perf_counter() - tic


def pair_key(seed: int, a: str, b: str) -> jax.Array:
    """The key of pair (a, b): independent of batching and order (see the module doc)."""
    return jax.random.fold_in(jax.random.PRNGKey(seed), zlib.crc32(f"{a}|{b}".encode()))


@dataclasses.dataclass(frozen=True)
class Batch:
    """One compiled call: up to K pairs (i, j) whose players are of kinds (kind_a, kind_b)."""

    kind_a: tuple
    kind_b: tuple
    pairs: tuple[tuple[int, int], ...]
    size: int  # K, the compiled batch (pairs are padded up to it)


def plan_batches(entrants: Sequence[Entrant], todo: Sequence[tuple[int, int]], games: int,
                 max_games_per_call: int, max_pairs_per_call: int = 32) -> list[Batch]:
    """Groups the pairs to play by matchup of kinds, in calls within the games/pairs limits."""
    matchups: dict[tuple, list] = {}
    for i, j in todo:
        matchups.setdefault((entrants[i].kind, entrants[j].kind), []).append((i, j))
    per_call = max(1, min(max_games_per_call // games, max_pairs_per_call))
    batches = []
    for (kind_a, kind_b), pairs in matchups.items():
        size = min(per_call, len(pairs))
        for start in range(0, len(pairs), size):
            batches.append(Batch(kind_a, kind_b, tuple(pairs[start:start + size]), size))
    return batches


def _stack(trees: list):
    return jax.tree_util.tree_map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *trees)


def play_batch(env, game: dict, entrants: Sequence[Entrant], batch: Batch, settings: dict,
               fast_compile: bool) -> tuple[list[dict], float, float]:
    """Plays one batch. Returns `(pair records, compile seconds, run seconds)`."""
    padded = list(batch.pairs) + [batch.pairs[-1]] * (batch.size - len(batch.pairs))
    vars_a = vars_b = None
    if batch.kind_a[0] == "network":
        vars_a = _stack([entrants[i].variables for i, _ in padded])
    if batch.kind_b[0] == "network":
        vars_b = _stack([entrants[j].variables for _, j in padded])
    keys = jnp.stack([pair_key(settings["seed"], entrants[i].name, entrants[j].name)
                      for i, j in padded])
    call, compile_s = compiled_matchup(env, game, batch.kind_a, batch.kind_b, batch.size,
                                       settings, (vars_a, vars_b, keys), fast_compile)
    tic = time.perf_counter()
    result = jax.device_get(call(vars_a, vars_b, keys))
    run_s = time.perf_counter() - tic
    records = []
    for row, (i, j) in enumerate(batch.pairs):
        a, b = entrants[i].name, entrants[j].name
        scores = np.asarray(result.scores[row])  # [G] A's result
        a_first = np.asarray(result.a_first[row])  # [G]
        actions = np.asarray(result.actions[row])  # [T, G]
        games = []
        for g in range(scores.shape[0]):
            moves = actions[:, g]
            moves = [int(x) for x in moves[moves != NO_MOVE]]
            first_is_a = bool(a_first[g])
            games.append({
                "first": a if first_is_a else b,
                "second": b if first_is_a else a,
                "moves": moves,
                "result": int(scores[g]) if first_is_a else -int(scores[g]),
            })
        records.append({
            "a": a, "b": b, "games": int(scores.shape[0]),
            "wins": int(np.sum(scores > 0)), "draws": int(np.sum(scores == 0)),
            "losses": int(np.sum(scores < 0)),
            "score_a": float(np.mean((scores + 1.0) / 2.0)),
            "records": games,
        })
    return records, compile_s, run_s


# --- the journal -------------------------------------------------------------------------


def _write_json(path: Path, payload, *, per_line: bool = False) -> None:
    """Writes JSON atomically: indented, or a list with one compact item per line."""
    if per_line:
        text = "[\n" + ",\n".join(json.dumps(item) for item in payload) + "\n]\n"
    else:
        text = json.dumps(payload, indent=1) + "\n"
    atomic_write(path, text.encode())


def read_journal(out: Path) -> list[dict]:
    """Every pair record in `out/batches/` (in file order)."""
    pairs = []
    for path in sorted((out / "batches").glob("batch-*.json")):
        try:
            pairs += json.loads(path.read_text())["pairs"]
        except (ValueError, KeyError) as err:
            raise ValueError(f"{path} is corrupt ({err}); delete it to replay its pairs") \
                from None
    return pairs


def check_resume(out: Path, settings: dict, players: dict) -> dict:
    """Checks `out/tournament.json` against this invocation; returns the merged players.

    Raises:
      ValueError: different settings, or a player whose network has changed.
    """
    path = out / "tournament.json"
    if not path.exists():
        return dict(players)
    saved = json.loads(path.read_text())
    if saved.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} file")
    diff = [f"{k}: {saved['settings'].get(k)!r} there, {settings.get(k)!r} now"
            for k in SHARED_SETTINGS if saved["settings"].get(k) != settings.get(k)]
    if diff:
        raise ValueError(f"{out} holds a tournament with other settings ({'; '.join(diff)}); "
                         "choose another --out or the same settings")
    merged = dict(saved["players"])
    for name, info in players.items():
        old = merged.get(name)
        if old is not None and old.get("network_sha256") != info.get("network_sha256"):
            raise ValueError(f"the network of {name} ({info.get('run_dir')}) differs from the "
                             f"one this tournament began with ({old.get('run_dir')}); was the "
                             "run trained further? Use another --out")
        if old is not None and old.get("kind") != info.get("kind"):
            raise ValueError(f"{name} was a {old.get('kind')} in this tournament, now a "
                             f"{info.get('kind')}")
        merged[name] = info
    return merged


# --- the tournament ----------------------------------------------------------------------


def elo_games(names: Sequence[str], pairs: Sequence[dict]) -> list[tuple[int, int, float]]:
    """`(first, second, score of first)` per game, for `bayes_elo`."""
    index = {n: i for i, n in enumerate(names)}
    return [(index[g["first"]], index[g["second"]], (g["result"] + 1) / 2)
            for p in pairs for g in p["records"]]


def elo_payload(elo: EloResult, players: dict, settings: dict) -> dict:
    return {
        "names": list(elo.names),
        "ratings": elo.ratings.tolist(),
        "lower": elo.lower.tolist(),
        "upper": elo.upper.tolist(),
        "stddev": elo.stddev.tolist(),
        "games": elo.games.tolist(),
        "score": elo.score.tolist(),
        "advantage": elo.advantage,
        "drawelo": elo.drawelo,
        "players": {n: players[n] for n in elo.names},
        "settings": settings,
    }


def elo_markdown(elo: EloResult, players: dict, settings: dict) -> str:
    lines = [
        f"# Tournament: {_game_text(settings['game'])}",
        "",
        (f"{settings['games']} games per pair (each side first in half); networks play "
         f"baseline MCTS with m = {settings['simulations']}; "
         f"T′ = {settings['temperature_moves']}; anchors' playouts {settings['playouts']}; "
         f"seed {settings['seed']}."),
        "Bayesian Elo (mean 0) with 95% intervals:",
        "",
        elo.table("markdown"),
        "",
        "| Name | Source |",
        "|:---|:---|",
    ]
    for name in elo.names:
        info = players[name]
        source = info["run_dir"] if info["kind"] == "network" else f"anchor {info['player']}"
        lines.append(f"| {name} | {source} |")
    return "\n".join(lines) + "\n"


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
    env, game, run_configs, entrants = load_runs(expand_runs(config.runs))
    entrants += anchor_entrants(config.anchors, config.playouts)
    names = [e.name for e in entrants]
    if len(set(names)) != len(names):
        raise ValueError(f"player names collide: {names}")
    if len(entrants) < 2:
        raise ValueError("a tournament needs at least two players (add runs or --anchors)")
    settings = {
        "game": game,
        "games": config.games,
        "simulations": config.simulations if config.simulations is not None
        else common_setting(run_configs, "search", "simulations", "--simulations"),
        "c_puct": common_setting(run_configs, "search", "c_puct"),
        "temperature_moves": config.temperature_moves if config.temperature_moves is not None
        else common_setting(run_configs, "search", "temperature_moves", "--temperature-moves"),
        "playouts": config.playouts,
        "seed": config.seed,
    }
    out = Path(config.out)
    (out / "batches").mkdir(parents=True, exist_ok=True)
    players = check_resume(out, settings, {e.name: e.info for e in entrants})
    _write_json(out / "tournament.json", {"format": FORMAT, "settings": settings,
                                          "players": players,
                                          "max_games_per_call": config.max_games_per_call,
                                          "max_pairs_per_call": config.max_pairs_per_call})

    current = set(names)
    done: dict[frozenset, dict] = {}
    for record in read_journal(out):
        pair = frozenset((record["a"], record["b"]))
        if pair <= current and pair not in done:
            done[pair] = record
    todo = [(i, j) for i, j in itertools.combinations(range(len(entrants)), 2)
            if frozenset((names[i], names[j])) not in done]
    if done:
        log(f"resuming {out}: {_pairs(len(done))} played, {len(todo)} to play")
    batches = plan_batches(entrants, todo, config.games, config.max_games_per_call,
                           config.max_pairs_per_call)
    number = max((int(p.stem.split("-")[1]) for p in (out / "batches").glob("batch-*.json")
                  if p.stem.split("-")[1].isdigit()), default=0)
    played = 0
    for batch in batches:
        if max_batches is not None and played >= max_batches:
            break
        records, compile_s, run_s = play_batch(env, game, entrants, batch, settings,
                                               config.fast_compile)
        number += 1
        atomic_write(out / "batches" / f"batch-{number:04d}.json", json.dumps(
            {"kinds": [list(batch.kind_a), list(batch.kind_b)], "pairs": records}).encode())
        for record in records:
            done[frozenset((record["a"], record["b"]))] = record
        played += 1
        log(f"batch {played}/{len(batches)}: {_pairs(len(records))} "
            f"{_kind_text(batch.kind_a)} vs {_kind_text(batch.kind_b)} x {config.games} games "
            f"(compile {compile_s:.1f}s, run {run_s:.1f}s)")

    order = {n: i for i, n in enumerate(names)}
    pairs = sorted(done.values(), key=lambda r: sorted((order[r["a"]], order[r["b"]])))
    pending = math.comb(len(names), 2) - len(pairs)
    this_players = {n: players[n] for n in names}
    games = [dict(g, a=p["a"], b=p["b"]) for p in pairs for g in p["records"]]
    summary = [{k: v for k, v in p.items() if k != "records"} for p in pairs]
    if pending:
        log(f"stopped with {_pairs(pending)} to play; rerun the same command to go on")
        return TournamentResult(tuple(names), this_players, summary, games, None, played,
                                pending)

    elo = bayes_elo(elo_games(names, pairs), len(names), names=names)
    _write_json(out / "pairs.json", summary)
    _write_json(out / "games.json", games, per_line=True)
    _write_json(out / "players.json", this_players)
    _write_json(out / "elo.json", elo_payload(elo, this_players, settings))
    atomic_write(out / "elo.md", elo_markdown(elo, this_players, settings).encode())
    return TournamentResult(tuple(names), this_players, summary, games, elo, played, 0)


def _game_text(game: dict) -> str:
    params = ", ".join(f"{k}={v}" for k, v in sorted(game["params"].items()))
    return f"{game['name']}({params})" if params else game["name"]


def _pairs(n: int) -> str:
    return f"{n} pair" if n == 1 else f"{n} pairs"


def _kind_text(kind: tuple) -> str:
    if kind[0] == "network":
        return f"networks[{kind[1]}ch, fc {'x'.join(map(str, kind[2]))}]"
    return kind[1]


# --- command line ------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> tuple[TournamentConfig, int | None]:
    """The command line → `(config, max_batches)` (ValueError for impossible settings)."""
    parser = cli.ArgumentParser(
        prog="python -m warmjax.tournament",
        description="Round-robin tournament of trained networks (and anchors) with Bayesian "
                    "Elo. Rerun the same command to resume.")
    parser.add_argument("runs", nargs="+", help="run folders or (quoted) glob patterns")
    parser.add_argument("--anchors", nargs="*", default=["random"], choices=ANCHORS,
                        help="network-free players to add (default: random, as in the papers; "
                             "--anchors alone: none)")
    parser.add_argument("--playouts", type=int, default=100,
                        help="simulations per move of the anchors' searches (default 100)")
    parser.add_argument("--games", type=int, default=20,
                        help="games per pair, even; each side first in half (default 20)")
    parser.add_argument("--simulations", type=int, default=None,
                        help="m of every network's baseline MCTS (default: the runs' common m)")
    parser.add_argument("--temperature-moves", type=int, default=None,
                        help="plies sampled at the start of each game (default: the runs' T′)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="output folder (and resume journal)")
    parser.add_argument("--max-games-per-call", type=int, default=2048,
                        help="most games in one compiled call (default 2048)")
    parser.add_argument("--max-pairs-per-call", type=int, default=32,
                        help="most pairs in one compiled call (default 32)")
    parser.add_argument("--max-batches", type=int, default=None,
                        help="stop after this many calls (resume later with the same command)")
    parser.add_argument("--fast-compile", action="store_true",
                        help="XLA optimisation level 0: faster compiling, slower games")
    args = parser.parse_args(argv)
    config = TournamentConfig(
        runs=tuple(args.runs), out=args.out, anchors=tuple(args.anchors), games=args.games,
        simulations=args.simulations, temperature_moves=args.temperature_moves,
        playouts=args.playouts, seed=args.seed, max_games_per_call=args.max_games_per_call,
        max_pairs_per_call=args.max_pairs_per_call, fast_compile=args.fast_compile)
    return config, args.max_batches


def main(argv: Sequence[str] | None = None) -> None:
    try:
        config, max_batches = parse_args(argv)
        result = run_tournament(config, max_batches=max_batches)
    except ValueError as err:
        cli.fail(err, "tournament")
    if result.elo is None:
        print(f"{_pairs(result.pending_pairs)} still to play; rerun to go on")
        return
    print(result.elo.table("plain"))
    print(f"\nwrote {config.out}/elo.md, elo.json, pairs.json, games.json, players.json")
