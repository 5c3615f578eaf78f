"""A tournament's players: run folders found and loaded, named, and the anchors
(`warmjax.evaluate.tournament` describes the naming rules)."""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import inspect
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from warmjax.train import run_folder
from warmjax.train.network_io import load_network


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
                f"all players must play the same game: {first} plays {game_text(game)} but "
                f"{run_dir} plays {game_text(this_game)}")
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


def game_text(game: dict) -> str:
    """`name(param=value, ...)` of a canonical game (for messages and headings)."""
    params = ", ".join(f"{k}={v}" for k, v in sorted(game["params"].items()))
    return f"{game['name']}({params})" if params else game["name"]
