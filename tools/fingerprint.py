"""A fingerprint of warmjax's behaviour on the CPU, to prove a refactor changes nothing.

    JAX_PLATFORMS=cpu python tools/fingerprint.py --out before.json
    ... refactor ...
    JAX_PLATFORMS=cpu python tools/fingerprint.py --out after.json --compare before.json

It hashes, bit for bit:

- every player's actions, policies and values on a fixed batch of positions of each game
  (a tiny untrained network; the weighted variants at w = 0.3; tree reuse over two moves);
- self-play of each kind (baseline, enhanced, enhancement against baseline);
- the metrics (wall times left out) and final parameters of smoke runs: baseline, fixed and
  adaptive, in each game, trained through the `warmjax.run` command;
- the `versus` and `oracle` results of a smoke run's folder (times left out).

`--programs` hashes instead, in a few minutes, the program of one training iteration as
JAX lowers it (source locations stripped) for a few configs, the papers' among them: where
those are identical, a change left the compiled iteration alone. It is a quick check before
the full fingerprint, not a replacement (it does not cover the players, matches or files
outside the iteration), and it compares only on one jax version.

Each item is a SHA-256 of the arrays' bytes (or of the JSON with sorted keys); `--compare`
prints the items that differ and exits 1 if any does. Outputs that later features added
(the probe's rates on quiet positions, the oracle's `search` setting and the network it
judged, versus's settings and intervals, the self-play health figures: `LATER`) are left
out of the items, so that a fingerprint of a commit from before them still compares; a new
player is a new item.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

ROOT = Path(__file__).resolve().parent.parent

def _games() -> dict[str, str]:
    """The registered games (`warmjax.games.registry`) that ship an experiment config
    (`conf/experiment/<mode>_<short>.yaml`), each with that short name."""
    from warmjax.games import registry

    conf = ROOT / "warmjax" / "conf" / "experiment"
    shorts = {spec.name: spec.short or spec.name for spec in registry.specs()}
    return {name: short for name, short in shorts.items()
            if (conf / f"adaptive_{short}.yaml").exists()}


SHORT = _games()
GAMES = tuple(SHORT)


# ----------------------------------------------------------------------------------------
# The calls into warmjax, in one place: after a refactor that renames an interface, only
# this part changes (and must still compute the same things).


class api:  # noqa: N801 - a namespace
    from warmjax.games import make as make_env
    from warmjax.search.players import PLAYERS, make_player

    @staticmethod
    def make_tiny_network(env):
        from warmjax.nets import make_network

        return make_network(env.num_actions, env.observation_shape, None, channels=4,
                            fc=(8, 8))

    @staticmethod
    def two_moves(player, variables, key, states, weight):
        """The player's first move, then (tree reuse) its next move after that one."""
        from warmjax.search.leaf import Inputs

        memory = player.start(states)
        k1, k2 = jax.random.split(key)
        move = player(Inputs(variables, weight), k1, states, memory)
        a1, p1, v1, memory = move.action, move.policy, move.value, move.memory
        memory = player.follow(memory, a1)
        return a1, p1, v1, jax.tree_util.tree_leaves(memory)

    @staticmethod
    def selfplay(env, network, enhancement, variables, key, kind, weight):
        from warmjax.search.config import SearchConfig
        from warmjax.search.players import make_player
        from warmjax.train.selfplay import SelfPlayRules, make_selfplay

        config = SearchConfig(simulations=8, temperature_moves=5)
        base = make_player("mcts", env, network.apply, config)
        enh = make_player(enhancement, env, network.apply, config)
        from warmjax.search.leaf import Inputs

        play = jax.jit(make_selfplay(env, base, enh, SelfPlayRules(4)), static_argnums=2)
        return play(Inputs(variables, jnp.float32(weight)), key, kind)

    @staticmethod
    def versus(run_dir, opponents, games, playouts):
        from warmjax.matches.opponents import versus

        return versus(run_dir, opponents, games=games, playouts=playouts)

    @staticmethod
    def oracle(run_dir, count, playouts):
        from warmjax.matches.oracle_run import oracle

        return oracle(run_dir, count=count, playouts=playouts)


def digest(tree) -> str:
    """SHA-256 of every leaf's bytes (and shape and dtype), in tree order."""
    h = hashlib.sha256()
    for leaf in jax.tree_util.tree_leaves(jax.device_get(tree)):
        leaf = np.asarray(leaf)
        h.update(str((leaf.shape, leaf.dtype)).encode())
        h.update(np.ascontiguousarray(leaf).tobytes())
    return h.hexdigest()


def json_digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


# Keys that later features added to the hashed outputs (none of them changes an older one):
# the probe's quiet rates, the compute ledger's counts (metrics `count_*`, and self-play's
# `evaluations` and `playout_steps`).
LATER = ("oracle_optimal_quiet", "oracle_policy_quiet", "quiet_", "count_",
         # self-play health (train/health.py)
         "selfplay_first_wins", "selfplay_second_wins", "selfplay_draws",
         "selfplay_max_plies", "selfplay_openings", "selfplay_target_entropy",
         "arena_decisive")
LATER_FIELDS = ("evaluations", "playout_steps", "init_keys", "first_mover")


def older_fields(result):
    """A NamedTuple result without the fields later features appended (`LATER_FIELDS`):
    its leaves are then those an older commit hashed."""
    return tuple(v for k, v in result._asdict().items() if k not in LATER_FIELDS)


def drop_times(value):
    """`value` without wall-clock entries (keys starting with `seconds`) and without the
    keys later features added (`LATER`)."""
    if isinstance(value, dict):
        return {k: drop_times(v) for k, v in value.items()
                if not k.startswith(("seconds", *LATER))}
    if isinstance(value, list):
        return [drop_times(v) for v in value]
    return value


def positions(env, batch: int, plies: int, key):
    """`batch` positions after `plies` random moves (games that ended stay ended)."""
    from warmjax.search.rollouts import random_legal_action

    states = jax.vmap(env.init)(jax.random.split(key, batch))

    def body(i, carry):
        states, key = carry
        key, sub = jax.random.split(key)
        actions = jax.vmap(random_legal_action)(jax.random.split(sub, batch),
                                                states.legal_action_mask)
        stepped = jax.vmap(env.step)(states, actions)
        states = jax.tree_util.tree_map(
            lambda new, old: jnp.where(
                states.terminated.reshape((-1,) + (1,) * (new.ndim - 1)), old, new),
            stepped, states)
        return states, key

    return jax.lax.fori_loop(0, plies, body, (states, key))[0]


def players_part(out: dict) -> None:
    for game in GAMES:
        env = api.make_env(game)
        network = api.make_tiny_network(env)
        variables = network.init(jax.random.PRNGKey(1))
        states = positions(env, 6, 7, jax.random.PRNGKey(2))
        for name in api.PLAYERS:
            for reuse in (False, True):
                if reuse and name in ("rhea", "random", "gumbel"):  # they keep no tree
                    continue
                player = api.make_player(name, env, network.apply, simulations=20,
                                         temperature_moves=4, reuse_tree=reuse)
                result = api.two_moves(player, variables, jax.random.PRNGKey(3), states, 0.3)
                out[f"player/{game}/{name}/reuse={reuse}"] = digest(result)


def selfplay_part(out: dict) -> None:
    for game in GAMES:
        env = api.make_env(game)
        network = api.make_tiny_network(env)
        variables = network.init(jax.random.PRNGKey(4))
        for enhancement in ("rollout", "wrora"):
            for kind in range(3):
                result = api.selfplay(env, network, enhancement, variables,
                                      jax.random.PRNGKey(5), kind, 0.4)
                out[f"selfplay/{game}/{enhancement}/kind={kind}"] = digest(older_fields(result))


def runs_part(out: dict, folder: Path) -> None:
    cache = folder / "jax_cache"
    for game in GAMES:
        for mode in ("baseline", "fixed", "adaptive"):
            run_dir = folder / f"{mode}_{game}"
            overrides = [f"+experiment={mode}_{SHORT[game]}", "profile=smoke",
                         "train.iterations=2", "tensorboard=false", "stage_times=false",
                         f"compilation_cache={cache}", f"hydra.run.dir={run_dir}"]
            if mode == "fixed":
                overrides.append("warmstart.iprime=1")
            subprocess.run([sys.executable, "-m", "warmjax.run", *overrides], check=True,
                           cwd=folder, stdout=subprocess.DEVNULL)
            rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text()
                    .splitlines() if line.strip()]
            out[f"run/{mode}_{game}/metrics"] = json_digest(drop_times(rows))
            out[f"run/{mode}_{game}/network"] = hashlib.sha256(
                (run_dir / "network.msgpack").read_bytes()).hexdigest()


def evaluation_part(out: dict, folder: Path) -> None:
    run_dir = folder / "adaptive_connect_four"
    result = api.versus(run_dir, ["random", "untrained", "pure_mcts"], games=4, playouts=8)
    if "opponents" in result:  # the games alone: settings and intervals came later (`LATER`)
        result = {name: {k: r[k] for k in ("wins", "draws", "losses", "score", "seconds")}
                  for name, r in result["opponents"].items()}
    out["versus/adaptive_connect_four"] = json_digest(drop_times(result))
    result = api.oracle(run_dir, count=64, playouts=8)
    result["settings"].pop("run_dir", None)
    result["settings"].pop("labelled_set", None)
    result["settings"].pop("search", None)  # added with search.baseline_search (`LATER`)
    for later in ("iteration", "network_sha256"):  # which network was judged (`LATER`)
        result["settings"].pop(later, None)
    out["oracle/adaptive_connect_four"] = json_digest(drop_times(result))


# `--programs`: configs whose iteration program is hashed (Hydra overrides).
PROGRAMS = {
    "smoke_baseline": ["+experiment=baseline_c4", "profile=smoke"],
    "smoke_fixed": ["+experiment=fixed_c4", "profile=smoke"],
    "smoke_adaptive": ["+experiment=adaptive_c4", "profile=smoke"],
    "paper_adaptive_c4": ["+experiment=adaptive_c4", "profile=paper"],
    "fast": ["+experiment=adaptive_c4", "profile=fast"],
    "quick_othello_gumbel": ["+experiment=baseline_othello", "profile=quick",
                             "departures=gumbel"],
}


def programs_part(out: dict) -> None:
    """The SHA-256 of each `PROGRAMS` config's lowered iteration, source locations out."""
    import re

    from warmjax.run import compose_run_config
    from warmjax.train.iteration import Trainer

    for name, overrides in PROGRAMS.items():
        config = compose_run_config([*overrides, "tensorboard=false", "stage_times=false"],
                                    "unused")
        trainer = Trainer(config)
        text = jax.jit(trainer.iteration).lower(trainer.init_state()).as_text()
        text = re.sub(r"#loc\d*", "", re.sub(r"loc\([^\n]*?\)", "", text))
        out[f"program/{name}"] = hashlib.sha256(text.encode()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--compare", default=None)
    parser.add_argument("--programs", action="store_true",
                        help="hash only the training iteration's lowered program (minutes)")
    args = parser.parse_args()
    out: dict[str, str] = {}
    if args.programs:
        programs_part(out)
    else:
        players_part(out)
        selfplay_part(out)
        with tempfile.TemporaryDirectory() as tmp:
            runs_part(out, Path(tmp))
            evaluation_part(out, Path(tmp))
    Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"{len(out)} items written to {args.out}")
    if args.compare:
        before = json.loads(Path(args.compare).read_text())
        differ = sorted(k for k in set(before) | set(out) if before.get(k) != out.get(k))
        for key in differ:
            print(f"differs: {key}")
        print(f"{len(out) - len(differ)} of {len(set(before) | set(out))} items identical")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    sys.exit(main())
