"""The trained network on disk, in a documented format the evaluation tools load.

A run folder's final network is two files:

- `network.json`: `{"format": "warmjax-network-v1", "game": {"name", "params"},
  "model": {"preset", "channels", "fc", "dropout", "mixed_precision"[, "same_padding"][,
  "wdl_head"]} (AZG's), or {"preset", "kind": "resnet", "blocks", "filters",
  "policy_filters", "value_filters", "mixed_precision"} (the residual family's),
  "num_actions",
  "obs_shape",
  "iteration", "sha256"}`, enough to rebuild the Flax module, with the SHA-256 of the
  msgpack file (checked on loading; files written before it was added have none);
- `network.msgpack`: Flax's msgpack serialization (`flax.serialization.to_bytes`) of the
  variables `{"params": ..., "batch_stats": ...}`.

`load_network(folder)` returns `(env, network, variables)`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jax
from flax import serialization

from warmjax.fileio import atomic_write
from warmjax.games import make
from warmjax.nets import make_network, residual_layout, without_reply_head

FORMAT = "warmjax-network-v1"


def save_network(folder: Path, config, network, variables: Any, iteration: int) -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    # A training-only head (the opponent's reply, `train.reply_weight`) is not part of the
    # network that plays: the file holds what `network.json`'s layout rebuilds.
    data = serialization.to_bytes(jax.device_get(without_reply_head(variables)))
    layout = residual_layout(network)
    if layout is not None:  # the residual family: its layout, no fully connected layers
        model = {"preset": config.model.preset, "kind": "resnet", **layout,
                 "mixed_precision": network.module.mixed_precision}
    else:
        model = {"preset": config.model.preset, "channels": network.module.channels,
                 "fc": list(network.module.fc), "dropout": network.module.dropout,
                 "mixed_precision": network.module.mixed_precision,
                 # only where on, so that other runs' files stay as they were
                 **({"same_padding": True} if config.model.same_padding else {}),
                 **({"wdl_head": True} if network.module.wdl_head else {})}
    meta = {
        "format": FORMAT,
        "game": {"name": config.game.name, "params": dict(config.game.params)},
        "model": model,
        "num_actions": network.num_actions,
        "obs_shape": list(network.obs_shape),
        "iteration": int(iteration),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    atomic_write(folder / "network.msgpack", data)
    atomic_write(folder / "network.json", json.dumps(meta, indent=2).encode())


def network_info(path: Path) -> dict:
    """The description in a run folder's (or its file's) `network.json`, with the SHA-256 of
    `network.msgpack` (computed for files written before it was recorded).

    Raises:
      ValueError: a missing, foreign or unreadable network file, naming it.
    """
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    meta = _read_meta(folder)
    if "sha256" not in meta:
        try:
            meta["sha256"] = hashlib.sha256((folder / "network.msgpack").read_bytes()).hexdigest()
        except FileNotFoundError:
            raise ValueError(f"{folder / 'network.msgpack'} is missing") from None
    return meta


def _read_meta(folder: Path) -> dict:
    meta_path = folder / "network.json"
    if not meta_path.exists():
        raise ValueError(f"{folder} holds no network.json (has the run finished an iteration?)")
    try:
        meta = json.loads(meta_path.read_text())
    except ValueError as err:
        raise ValueError(f"{meta_path} is not valid JSON ({err})") from None
    if meta.get("format") != FORMAT:
        raise ValueError(f"{meta_path} is not a {FORMAT} file")
    return meta


def _recovery(folder: Path, meta: dict) -> str:
    """How to get a sound network back: a resume writes it anew after its next iteration."""
    after = meta.get("iteration")
    more = f"train.iterations={after + 1}" if isinstance(after, int) else "one more iteration"
    return (f"to recover, run the run's training command again with {more}: it resumes from "
            f"the last checkpoint in {folder / 'checkpoints'} and writes the network anew "
            "(or train the run again)")


def load_network(path: Path):
    """Loads `(env, network, variables)` from a run folder or its `network.json`.

    Raises:
      ValueError: a missing, foreign or corrupt network file, naming it.
    """
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    meta = _read_meta(folder)
    env = make(meta["game"]["name"], **meta["game"]["params"])
    model = meta["model"]
    if model.get("kind") == "resnet":
        network = make_network(env.num_actions, env.observation_shape, None, resnet={
            k: int(model[k]) for k in ("blocks", "filters", "policy_filters", "value_filters")},
            mixed_precision=bool(model.get("mixed_precision", False)))
    else:
        network = make_network(env.num_actions, env.observation_shape, None,
                               channels=model["channels"], fc=tuple(model["fc"]),
                               dropout=model["dropout"],
                               mixed_precision=bool(model.get("mixed_precision", False)),
                               same_padding=bool(model.get("same_padding", False)),
                               wdl_head=bool(model.get("wdl_head", False)))
    template = network.init(jax.random.PRNGKey(0))
    msgpack = folder / "network.msgpack"
    try:
        data = msgpack.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"{msgpack} is missing") from None
    if "sha256" in meta and hashlib.sha256(data).hexdigest() != meta["sha256"]:
        raise ValueError(f"{msgpack} is corrupt: its SHA-256 does not match network.json; "
                         + _recovery(folder, meta))
    try:
        variables = serialization.from_bytes(template, data)
    except Exception as err:  # noqa: BLE001
        raise ValueError(f"{folder / 'network.msgpack'} is corrupt or does not match "
                         f"network.json ({err}); " + _recovery(folder, meta)) from None
    return env, network, variables
