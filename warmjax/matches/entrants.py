"""A tournament's players: run folders found and loaded, named, and the anchors
(`warmjax.matches.round_robin` describes the naming rules)."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from warmjax.matches.agent import Agent, load_agent
from warmjax.matches.tournament_folder import AnchorEntry, Entry, NetworkEntry
from warmjax.train.network_io import network_info
from warmjax.train.run_folder import expand_runs, kept_network_folder  # noqa: F401 - also here


@dataclasses.dataclass(frozen=True)
class Entrant:
    """One player of the tournament.

    Attributes:
      name: unique, readable name.
      info: what it is (`tournament_folder.NetworkEntry` or `AnchorEntry`, written to
        `players.json`).
      kind: hashable key of the compiled player it uses: `("network", network)`, the
        loaded `Network` itself (a frozen dataclass: its layout, paddings and arithmetic
        included, so every network plays as it was trained), or `("anchor", name)`; pairs
        of the same kinds share a compiled match.
      variables: the network's variables (None for anchors).
    """

    name: str
    info: Entry
    kind: tuple
    variables: Any = None


def run_info(agent: Agent, info: dict) -> NetworkEntry:
    """The entry of a trained network (what the report groups by); `info` is its
    `network.json`."""
    run, run_id = agent.run, agent.run.id
    return NetworkEntry(
        run_dir=str(run.path), network_sha256=info["sha256"],
        experiment=run.config.experiment_name, profile=run.config.profile_name,
        game=run_id.game, mode=run_id.mode, enhancement=run_id.enhancement,
        iprime=run_id.iprime, departures=tuple(run_id.departures), seed=run_id.seed,
        label=run_id.label(), iteration=info.get("iteration"), model=info.get("model"))


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


def load_runs(run_dirs: Sequence[Path], iteration: int | None = None):
    """Loads the agents of the run folders and checks they all play one game: each run's
    final network, or the one it kept after `iteration` (`keep_networks`).

    Returns:
      `(env, game, runs, entrants)` with `game = {"name", "params"}` and `runs` the typed
      `Run`s.

    Raises:
      ValueError: a missing or corrupt network or config, or runs of different games.
    """
    if not run_dirs:
        raise ValueError("a tournament needs at least one run folder")
    env = game = None
    agents = []
    for run_dir in run_dirs:
        agent = load_agent(run_dir, iteration=iteration)
        this_game = canonical_game(agent.env, agent.run.config.game.name,
                                   agent.run.config.game.params)
        if game is None:
            env, game, first = agent.env, this_game, run_dir
        elif this_game != game:
            raise ValueError(
                f"all players must play the same game: {first} plays {game_text(game)} but "
                f"{run_dir} plays {game_text(this_game)}")
        agents.append(agent)

    bases = [agent.run.id.label(seed=True) for agent in agents]
    extras = [[agent.run.config.profile_name, agent.run.path.name] for agent in agents]
    names = unique_names(bases, extras)
    entrants = []
    for name, agent in zip(names, agents):
        kind = ("network", agent.network)
        where = (agent.run.path if iteration is None
                 else kept_network_folder(agent.run.path, iteration))
        entrants.append(Entrant(name, run_info(agent, network_info(where)), kind,
                                agent.variables))
    return env, game, [agent.run for agent in agents], entrants


def anchor_entrants(anchors: Sequence[str], playouts: int) -> list[Entrant]:
    out = []
    for anchor in anchors:
        name = anchor if anchor == "random" else f"{anchor}({playouts})"
        info = AnchorEntry(anchor, None if anchor == "random" else playouts)
        out.append(Entrant(name, info, ("anchor", anchor)))
    return out


def common_setting(values: Sequence, name: str, flag: str | None = None):
    """The value all runs share for the setting `name`; ValueError (naming `flag`) otherwise."""
    distinct = sorted({json.dumps(v) for v in values})
    if len(distinct) != 1:
        fix = f"choose one with {flag}" if flag else "a tournament needs one value"
        raise ValueError(f"the runs differ in {name} ({', '.join(distinct)}); {fix}")
    return json.loads(distinct[0])


def game_text(game: dict) -> str:
    """`name(param=value, ...)` of a canonical game (for messages and headings)."""
    params = ", ".join(f"{k}={v}" for k, v in sorted(game["params"].items()))
    return f"{game['name']}({params})" if params else game["name"]
