"""A tournament's folder, typed: the one reader and writer of its files (as `run_folder.py` is
of a run's).

    tournament.json        settings and players (written first; a rerun must match them)
    batches/batch-NNNN.json[.gz]   the journal: every finished call's pairs and games
    pairs.json, games.json, players.json, elo.json, elo.md   when every pair has been played

Each file is read into frozen dataclasses here and nowhere else: `Settings`, the players
(`NetworkEntry` for a trained network, `AnchorEntry` for a network-free player), `PairResult`
and `GameRecord`, and `EloTable`. A batch may be kept gzip-compressed (`compress_journal`: an
exported study's games take a tenth of the space); both kinds read and resume alike. Folders
written before a field existed still load: a missing `pairing` is "all", a player without
`departures` has none, and keys this version does not know are kept and written back.

The judgements a run folder may hold, `oracle.json` (`python -m warmjax.oracle`) and
`versus.json` (`python -m warmjax.versus --out`), have one reader each here too:
`read_oracle` and `read_versus`.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from warmjax.fileio import atomic_write
from warmjax.rating.elo import bayes_elo
from warmjax.train.run_id import RunId

FORMAT = "warmjax-tournament-v1"


def write_json(path: Path, payload, *, per_line: bool = False) -> None:
    """Writes JSON atomically: indented, or a list with one compact item per line."""
    if per_line:
        text = "[\n" + ",\n".join(json.dumps(item) for item in payload) + "\n]\n"
    else:
        text = json.dumps(payload, indent=1) + "\n"
    atomic_write(path, text.encode())


def _read(path: Path) -> Any:
    try:
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
        return json.loads(data)
    except (ValueError, OSError, EOFError) as err:
        raise ValueError(f"{path} is corrupt ({err})") from None


# --- settings and players ----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Settings:
    """What every game of the tournament was played with."""

    game: Mapping[str, Any]  # {"name", "params"} with every constructor setting
    games: int  # per pair, each side first in half
    simulations: int  # m of every network's baseline MCTS
    c_puct: float
    temperature_moves: int
    playouts: int  # the anchors' simulations per move
    seed: int
    pairing: str = "all"  # "all", or "seed": networks meet only their own seed's

    SHARED: ClassVar[tuple[str, ...]] = ("game", "games", "simulations", "c_puct",
                                         "temperature_moves", "playouts", "seed", "pairing")

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "Settings":
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @property
    def game_name(self) -> str:
        return self.game["name"]

    def differences(self, other: "Settings") -> list[str]:
        """`key: a there, b now` for each setting that differs."""
        return [f"{k}: {getattr(self, k)!r} there, {getattr(other, k)!r} now"
                for k in self.SHARED if getattr(self, k) != getattr(other, k)]


@dataclasses.dataclass(frozen=True)
class NetworkEntry:
    """A trained network: where it came from and what it is (`entrants.load_runs`)."""

    run_dir: str
    network_sha256: str | None = None  # of its network.msgpack (a rerun must match it)
    experiment: str | None = None
    profile: str | None = None
    game: str = ""
    mode: str = "none"
    enhancement: str | None = None
    iprime: int | None = None
    departures: tuple[str, ...] = ()
    seed: int | None = None
    label: str | None = None
    iteration: int | None = None
    model: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # unknown keys

    kind: ClassVar[str] = "network"

    @property
    def source(self) -> str:
        return self.run_dir

    @property
    def id(self) -> RunId:
        """The run's identity (older files have no departures)."""
        return RunId(game=self.game, mode=self.mode,
                     enhancement=self.enhancement if self.mode != "none" else None,
                     iprime=self.iprime if self.mode == "fixed" else None,
                     departures=tuple(self.departures), seed=self.seed)


@dataclasses.dataclass(frozen=True)
class AnchorEntry:
    """A network-free player (`random`, `pure_mcts` with its playouts, ...)."""

    player: str
    playouts: int | None = None
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    kind: ClassVar[str] = "anchor"

    @property
    def name(self) -> str:
        """How tables name it: `random`, `pure_mcts(100)`."""
        return self.player if self.playouts is None else f"{self.player}({self.playouts})"

    @property
    def source(self) -> str:
        return f"anchor {self.player}"


Entry = NetworkEntry | AnchorEntry


def entry_from_json(raw: Mapping[str, Any], where: str = "a player") -> Entry:
    """A player from its JSON object (`players.json`, `tournament.json`, `elo.json`).

    Raises:
      ValueError: not an object, an unknown kind, or a missing key, naming `where`.
    """
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where} is not a JSON object")
    kind = raw.get("kind")
    cls = {"network": NetworkEntry, "anchor": AnchorEntry}.get(kind)
    if cls is None:
        raise ValueError(f"{where} has kind {kind!r}; expected 'network' or 'anchor'")
    known = {f.name for f in dataclasses.fields(cls)} - {"extra"}
    values = {k: v for k, v in raw.items() if k in known}
    if "departures" in values:
        values["departures"] = tuple(values["departures"] or ())
    try:
        return cls(**values, extra={k: v for k, v in raw.items()
                                    if k not in known and k != "kind"})
    except TypeError as err:
        raise ValueError(f"{where}: {err}") from None


def entry_to_json(entry: Entry) -> dict:
    """The JSON object of a player (its fields, then the keys kept from an older file)."""
    out = {"kind": entry.kind}
    for field in dataclasses.fields(entry):
        if field.name != "extra":
            value = getattr(entry, field.name)
            out[field.name] = list(value) if isinstance(value, tuple) else value
    out.update(entry.extra)
    return out


def players_from_json(raw: Mapping[str, Any], where: str) -> dict[str, Entry]:
    return {name: entry_from_json(info, f"{where}: player {name!r}")
            for name, info in raw.items()}


def players_to_json(players: Mapping[str, Entry]) -> dict:
    return {name: entry_to_json(entry) for name, entry in players.items()}


# --- pairs and games ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """One game: who moved first, the moves as action indices, the first mover's result."""

    first: str
    second: str
    moves: tuple[int, ...]
    result: int  # +1 the first mover won, 0 a draw, -1 it lost

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "GameRecord":
        return cls(raw["first"], raw["second"], tuple(raw["moves"]), int(raw["result"]))

    def to_json(self) -> dict:
        return {"first": self.first, "second": self.second, "moves": list(self.moves),
                "result": self.result}


@dataclasses.dataclass(frozen=True)
class PairResult:
    """One pair's games, from `a`'s side, and (in the journal) the games themselves."""

    a: str
    b: str
    games: int
    wins: int
    draws: int
    losses: int
    score_a: float
    records: tuple[GameRecord, ...] = ()

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "PairResult":
        return cls(raw["a"], raw["b"], int(raw["games"]), int(raw["wins"]), int(raw["draws"]),
                   int(raw["losses"]), float(raw["score_a"]),
                   tuple(GameRecord.from_json(g) for g in raw.get("records", ())))

    def to_json(self, *, records: bool = True) -> dict:
        out = {"a": self.a, "b": self.b, "games": self.games, "wins": self.wins,
               "draws": self.draws, "losses": self.losses, "score_a": self.score_a}
        if records:
            out["records"] = [g.to_json() for g in self.records]
        return out

    @property
    def key(self) -> frozenset:
        return frozenset((self.a, self.b))


# --- Elo ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class EloTable:
    """`elo.json`: Bayesian Elo (mean 0) with 95% intervals, the players and the settings."""

    names: tuple[str, ...]
    ratings: tuple[float, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    stddev: tuple[float, ...]
    games: tuple[int, ...]
    score: tuple[float, ...]
    advantage: float
    drawelo: float
    players: Mapping[str, Entry]
    settings: Settings

    @classmethod
    def of(cls, elo, players: Mapping[str, Entry], settings: Settings) -> "EloTable":
        """The table of a fit (`elo.EloResult`) for its players."""
        return cls(tuple(elo.names), *(tuple(float(x) for x in getattr(elo, k))
                                       for k in ("ratings", "lower", "upper", "stddev")),
                   tuple(int(x) for x in elo.games), tuple(float(x) for x in elo.score),
                   float(elo.advantage), float(elo.drawelo),
                   {n: players[n] for n in elo.names}, settings)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any], where: str = "elo.json") -> "EloTable":
        try:
            return cls(tuple(raw["names"]), tuple(raw["ratings"]), tuple(raw["lower"]),
                       tuple(raw["upper"]), tuple(raw.get("stddev", ())),
                       tuple(raw.get("games", ())), tuple(raw.get("score", ())),
                       float(raw.get("advantage", 0.0)), float(raw.get("drawelo", 0.0)),
                       players_from_json(raw["players"], where),
                       Settings.from_json(raw["settings"]))
        except KeyError as err:
            raise ValueError(f"{where} lacks {err}") from None

    def to_json(self) -> dict:
        return {"names": list(self.names), "ratings": list(self.ratings),
                "lower": list(self.lower), "upper": list(self.upper),
                "stddev": list(self.stddev), "games": list(self.games),
                "score": list(self.score), "advantage": self.advantage,
                "drawelo": self.drawelo, "players": players_to_json(self.players),
                "settings": self.settings.to_json()}


# --- the folder --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Header:
    """`tournament.json`: the settings, every player that has taken part, and the call
    limits of the last invocation."""

    settings: Settings
    players: Mapping[str, Entry]
    max_games_per_call: int | None = None
    max_pairs_per_call: int | None = None


class TournamentFolder:
    """A tournament's output folder (see the module docstring)."""

    def __init__(self, path: Path | str):
        self.path = Path(path)

    @property
    def header_path(self) -> Path:
        return self.path / "tournament.json"

    def has_header(self) -> bool:
        return self.header_path.exists()

    def read_header(self) -> Header:
        """Raises ValueError: no `tournament.json`, another format, or a bad entry."""
        if not self.has_header():
            raise ValueError(f"{self.path} holds no tournament.json")
        raw = _read(self.header_path)
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise ValueError(f"{self.header_path} is not a {FORMAT} file")
        return Header(Settings.from_json(raw["settings"]),
                      players_from_json(raw["players"], str(self.header_path)),
                      raw.get("max_games_per_call"), raw.get("max_pairs_per_call"))

    def write_header(self, header: Header) -> None:
        (self.path / "batches").mkdir(parents=True, exist_ok=True)
        write_json(self.header_path, {
            "format": FORMAT, "settings": header.settings.to_json(),
            "players": players_to_json(header.players),
            "max_games_per_call": header.max_games_per_call,
            "max_pairs_per_call": header.max_pairs_per_call})

    def resume(self, settings: Settings, players: Mapping[str, Entry]) -> dict[str, Entry]:
        """The players of this invocation merged with those the folder already has.

        Raises:
          ValueError: other settings, or a player whose network or kind has changed.
        """
        if not self.has_header():
            return dict(players)
        saved = self.read_header()
        diff = saved.settings.differences(settings)
        if diff:
            raise ValueError(f"{self.path} holds a tournament with other settings "
                             f"({'; '.join(diff)}); choose another --out or the same settings")
        merged = dict(saved.players)
        for name, entry in players.items():
            old = merged.get(name)
            if old is not None and old.kind != entry.kind:
                raise ValueError(f"{name} was a {old.kind} in this tournament, now a "
                                 f"{entry.kind}")
            if isinstance(old, NetworkEntry) and old.network_sha256 != entry.network_sha256:
                raise ValueError(f"the network of {name} ({entry.run_dir}) differs from the "
                                 f"one this tournament began with ({old.run_dir}); was the "
                                 "run trained further? Use another --out")
            merged[name] = entry
        return merged

    # The journal.
    def batch_paths(self) -> list[Path]:
        """The journal's batch files, plain or compressed, by number."""
        found = [p for p in (self.path / "batches").glob("batch-*")
                 if batch_number(p) is not None]
        return sorted(found, key=lambda p: (batch_number(p), p.name))

    def read_journal(self) -> list[PairResult]:
        """Every pair in the journal, with its games (in batch order)."""
        pairs = []
        for path in self.batch_paths():
            try:
                pairs += [PairResult.from_json(p) for p in _read(path)["pairs"]]
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(f"{path} is corrupt ({err}); delete it to replay its pairs") \
                    from None
        return pairs

    def write_batch(self, number: int, kinds: Sequence[list], pairs: Sequence[PairResult]
                    ) -> None:
        """Journals one batch: its two player kinds (`batches.kind_record`) and its pairs."""
        atomic_write(self.path / "batches" / f"batch-{number:04d}.json", json.dumps(
            {"kinds": list(kinds),
             "pairs": [p.to_json() for p in pairs]}).encode())

    def compress_journal(self) -> None:
        """Replaces each `batch-NNNN.json` by `batch-NNNN.json.gz` (the same bytes,
        gzip-compressed with no timestamp, so that the file is reproducible)."""
        for path in self.batch_paths():
            if path.name.endswith(".json"):
                atomic_write(path.with_name(path.name + ".gz"),
                             gzip.compress(path.read_bytes(), mtime=0))
                path.unlink()

    # The results of a finished tournament.
    def write_results(self, pairs: Sequence[PairResult], players: Mapping[str, Entry],
                      elo: EloTable, markdown: str) -> None:
        write_json(self.path / "pairs.json", [p.to_json(records=False) for p in pairs])
        write_json(self.path / "games.json", [dict(g.to_json(), a=p.a, b=p.b)
                                              for p in pairs for g in p.records],
                   per_line=True)
        write_json(self.path / "players.json", players_to_json(players))
        write_json(self.path / "elo.json", elo.to_json())
        atomic_write(self.path / "elo.md", markdown.encode())

    def read_elo(self) -> EloTable:
        """Raises ValueError: no `elo.json` (the tournament has not finished)."""
        path = self.path / "elo.json"
        if not path.exists():
            raise ValueError(f"{self.path} holds no elo.json (has the tournament finished? "
                             "rerun python -m warmjax.tournament with the same --out)")
        return EloTable.from_json(_read(path), str(path))

    def read_players(self) -> dict[str, Entry]:
        path = self.path / "players.json"
        return players_from_json(_read(path), str(path))

    def read_pairs(self) -> list[PairResult]:
        return [PairResult.from_json(p) for p in _read(self.path / "pairs.json")]

    def read_games(self) -> list[tuple[str, str, GameRecord]]:
        """`(a, b, game)` per game of `games.json`."""
        return [(g["a"], g["b"], GameRecord.from_json(g))
                for g in _read(self.path / "games.json")]


def batch_number(path: Path) -> int | None:
    """NNNN of `batch-NNNN.json` or `batch-NNNN.json.gz`; None for any other name."""
    for suffix in (".json", ".json.gz"):
        if path.name.startswith("batch-") and path.name.endswith(suffix):
            number = path.name[len("batch-"):-len(suffix)]
            return int(number) if number.isdigit() else None
    return None


# --- a run's judgements ------------------------------------------------------------------

ORACLE_FILE, VERSUS_FILE = "oracle.json", "versus.json"


@dataclasses.dataclass(frozen=True)
class OracleScore:
    """One player's rates on the labelled positions (`probe.score.judge`'s, as the
    oracle command writes them)."""

    optimal: float
    win_to_draw: float
    win_to_loss: float
    draw_to_loss: float
    immediate_win_taken: float
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class OracleJudgement:
    """`oracle.json`: each judged player's score."""

    players: Mapping[str, OracleScore]
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class VersusResult:
    """One opponent's games in `versus.json`, from the trained agent's side."""

    wins: int
    draws: int
    losses: int
    score: float


def read_oracle(path: Path | str) -> OracleJudgement | None:
    """A run's `oracle.json` (a run folder or the file); None where there is none.

    Raises:
      ValueError: a corrupt file, or a player without its rates, naming the file.
    """
    path = Path(path)
    file = path / ORACLE_FILE if path.is_dir() else path
    if not file.exists():
        return None
    raw = _read(file)
    fields = [f.name for f in dataclasses.fields(OracleScore) if f.name != "extra"]
    try:
        players = {name: OracleScore(**{k: float(s.get(k, float("nan"))) for k in fields},
                                     extra={k: v for k, v in s.items() if k not in fields})
                   for name, s in raw["players"].items()}
    except (KeyError, AttributeError, TypeError) as err:
        raise ValueError(f"{file} is corrupt ({err})") from None
    return OracleJudgement(players, {k: v for k, v in raw.items() if k != "players"})


def read_versus(path: Path | str) -> dict[str, VersusResult] | None:
    """A run's `versus.json` (a run folder or the file): opponent → result; None where there
    is none.

    Raises:
      ValueError: a corrupt file, naming it.
    """
    path = Path(path)
    file = path / VERSUS_FILE if path.is_dir() else path
    if not file.exists():
        return None
    raw = _read(file)
    try:
        # The games per opponent, under "opponents" beside the settings (files before the
        # settings were recorded hold the opponents alone).
        opponents = raw["opponents"] if "opponents" in raw else raw
        return {name: VersusResult(int(r["wins"]), int(r["draws"]), int(r["losses"]),
                                   float(r["score"])) for name, r in opponents.items()}
    except (KeyError, AttributeError, TypeError) as err:
        raise ValueError(f"{file} is corrupt ({err})") from None


# --- rating a folder's games ---------------------------------------------------------------


def elo_games(names: Sequence[str], pairs: Sequence[PairResult]
              ) -> list[tuple[int, int, float]]:
    """`(first, second, score of first)` per game, for `bayes_elo`."""
    index = {n: i for i, n in enumerate(names)}
    return [(index[g.first], index[g.second], (g.result + 1) / 2)
            for p in pairs for g in p.records]


def journal_elo(out: Path | str, keep: Callable[[Entry], bool] | None = None) -> EloTable:
    """Bayesian Elo of every game in a tournament folder's journal (`tournament.json` and
    `batches/`), whoever played them: a tournament grown over several invocations (a study's
    seed blocks, say, each played while its networks existed) rated as one.

    Args:
      out: the tournament folder.
      keep: if given, only the games whose both players it accepts are rated (a registered
        cut's seeds, say, out of a journal that holds more), as if the others were never
        played.

    Returns:
      The Elo table of the players that played a (kept) game.

    Raises:
      ValueError: no `tournament.json`, or no (kept) game yet.
    """
    folder = TournamentFolder(out)
    saved = folder.read_header()
    records = {r.key: r for r in folder.read_journal()
               if keep is None or (keep(saved.players[r.a]) and keep(saved.players[r.b]))}
    pairs = sorted(records.values(), key=lambda r: (r.a, r.b))
    if not pairs:
        raise ValueError(f"{folder.path} holds no finished games yet"
                         + (" among the kept players" if keep is not None else ""))
    names = sorted({n for r in pairs for n in (r.a, r.b)})
    elo = bayes_elo(elo_games(names, pairs), len(names), names=names)
    return EloTable.of(elo, saved.players, saved.settings)
