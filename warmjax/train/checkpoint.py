"""Checkpoints: atomic, checksummed, never loaded when corrupt.

A checkpoint file is one JSON header line followed by a msgpack payload (Flax's
serialization of the state's arrays). The header holds a magic string, the iteration, the
SHA-256 of the payload and the run's metrics so far, so that `metrics.jsonl` can be rebuilt
to match the state exactly. Files are written to a temporary name, flushed, fsynced and
renamed, so a crash leaves either the old file or the new one, never half of one. A file
that fails to parse or whose checksum does not match is skipped with a warning, and the
previous checkpoint is used.

Layout of a run folder's `checkpoints/`:
  state_000012.ckpt   full training state after iteration 12 (the last `keep` are kept)
  best.msgpack        variables of the current best network (rewritten on acceptance)

The final network (`network.msgpack` + `network.json` in the run folder) is described in
`warmjax/train/network_io.py`.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import jax
import numpy as np
from flax import serialization

from warmjax.fileio import atomic_write
from warmjax.settings import ConfigError

MAGIC = "warmjax-checkpoint-v1"
_NAME = re.compile(r"^state_(\d{6})\.ckpt$")


class CorruptCheckpoint(Exception):
    """A checkpoint file that cannot be trusted."""


class ForeignCheckpoint(ConfigError):
    """A sound checkpoint of another network than the run's (another `model=`): it is not
    skipped as corrupt but refused, in one line."""


def _shapes(tree: Any, prefix: str = "") -> dict[str, tuple]:
    """`{path: shape}` of a state dict's arrays."""
    if isinstance(tree, dict):
        out = {}
        for key, value in tree.items():
            out.update(_shapes(value, f"{prefix}/{key}"))
        return out
    return {prefix: tuple(getattr(tree, "shape", ()))}


def network_difference(template: Any, stored: Any) -> str | None:
    """Where a stored state dict's network (`params`) differs from the template's in its
    arrays or their shapes: a sentence with both parameter counts, or None."""
    mine = _shapes(template.get("params", {}).get("params", {})) if isinstance(template, dict) \
        else {}
    theirs = _shapes(stored.get("params", {}).get("params", {})) if isinstance(stored, dict) \
        else {}
    if not mine or not theirs or mine == theirs:
        return None
    count = lambda shapes: sum(int(np.prod(s)) for s in shapes.values())  # noqa: E731
    return (f"it holds another network ({count(theirs):,} parameters in {len(theirs)} "
            f"arrays) than this run's ({count(mine):,} in {len(mine)}): a run resumes only "
            "with the model it was started with")


def encode(state: Any, header: dict) -> bytes:
    payload = serialization.to_bytes(jax.device_get(state))
    header = dict(header, magic=MAGIC, sha256=hashlib.sha256(payload).hexdigest(),
                  payload_bytes=len(payload))
    return json.dumps(header).encode() + b"\n" + payload


def decode(data: bytes, template: Any) -> tuple[Any, dict]:
    """Parses a checkpoint. Raises CorruptCheckpoint with the reason."""
    header, payload = _checked(data)
    try:
        stored = serialization.msgpack_restore(payload)
    except Exception as err:  # noqa: BLE001 - any parse failure means corrupt
        raise CorruptCheckpoint(f"payload does not parse ({err})") from None
    wanted = serialization.to_state_dict(template)
    other = network_difference(wanted, stored)
    if other is not None:
        raise ForeignCheckpoint(other)
    try:
        state = serialization.from_state_dict(template, with_absent_fields(wanted, stored))
    except Exception as err:  # noqa: BLE001 - any parse failure means corrupt
        raise CorruptCheckpoint(f"payload does not match the run's state ({err})") from None
    return state, header


def best_variables(path: Path, template: Any) -> Any:
    """The best network's variables in the checkpoint at `path` (the state's `params`), read
    without the rest of the state: `template` is the network's variables (any values).

    Raises:
      CorruptCheckpoint: a file that fails its checks, or whose network is not `template`'s.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise CorruptCheckpoint(f"unreadable ({err})") from None
    _, payload = _checked(data)
    try:
        params = serialization.msgpack_restore(payload)["params"]
        return serialization.from_state_dict(template, params)
    except Exception as err:  # noqa: BLE001 - any parse failure means corrupt
        raise CorruptCheckpoint(f"its network does not match the run's ({err})") from None


def _checked(data: bytes) -> tuple[dict, bytes]:
    """`(header, payload)` of a checkpoint file's bytes, its header and checksum checked."""
    newline = data.find(b"\n")
    if newline < 0:
        raise CorruptCheckpoint("no header line")
    try:
        header = json.loads(data[:newline])
    except ValueError as err:
        raise CorruptCheckpoint(f"unreadable header ({err})") from None
    if header.get("magic") != MAGIC:
        raise CorruptCheckpoint("not a warmjax checkpoint")
    payload = data[newline + 1:]
    if len(payload) != header.get("payload_bytes"):
        raise CorruptCheckpoint(f"truncated: {len(payload)} of {header.get('payload_bytes')} bytes")
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise CorruptCheckpoint("checksum mismatch")
    return header, payload


def with_absent_fields(template: Any, stored: Any) -> Any:
    """`stored` (a checkpoint's state dict) with every field that `template` (the run's
    state dict) holds as None and `stored` lacks set to None: a field a later version
    added for a setting that is off in this run (the reply targets of
    `train.reply_weight`, say), so that checkpoints written before it still resume."""
    if not isinstance(template, dict) or not isinstance(stored, dict):
        return stored
    out = dict(stored)
    for key, value in template.items():
        if key in out:
            out[key] = with_absent_fields(value, out[key])
        elif value is None:
            out[key] = None
    return out


def checkpoint_iterations(run_dir: Path | str) -> tuple[int, ...]:
    """The iterations after which a run folder holds a training state (without creating
    its `checkpoints/`, as `CheckpointDir` does)."""
    folder = Path(run_dir) / "checkpoints"
    if not folder.is_dir():
        return ()
    return tuple(sorted(int(m.group(1)) for p in folder.iterdir() if (m := _NAME.match(p.name))))


def state_name(iteration: int) -> str:
    """The file name of the state after `iteration`."""
    return f"state_{iteration:06d}.ckpt"


class CheckpointDir:
    """The checkpoints of one run."""

    def __init__(self, path: Path, keep: int = 3):
        self.path = Path(path)
        self.keep = keep
        self.path.mkdir(parents=True, exist_ok=True)

    def files(self) -> list[tuple[int, Path]]:
        found = []
        for p in self.path.iterdir():
            m = _NAME.match(p.name)
            if m:
                found.append((int(m.group(1)), p))
        return sorted(found)

    def save(self, state: Any, iteration: int, header: dict, prune: bool = True) -> Path:
        """Writes the state after `iteration` atomically; then, with `prune`, deletes all
        but the newest `keep` (a group of runs prunes only once every run has saved)."""
        path = self.path / state_name(iteration)
        atomic_write(path, encode(state, dict(header, iteration=iteration)))
        if prune:
            self.prune()
        return path

    def prune(self) -> None:
        """Deletes all but the newest `keep` checkpoints."""
        for _, old in self.files()[:-self.keep]:
            old.unlink(missing_ok=True)

    def load(self, template: Any, iteration: int) -> tuple[Any, dict] | None:
        """The checkpoint after `iteration`, or None if it is missing or corrupt."""
        path = self.path / state_name(iteration)
        try:
            return decode(path.read_bytes(), template)
        except (CorruptCheckpoint, OSError):
            return None

    def save_best(self, variables: Any) -> None:
        atomic_write(self.path / "best.msgpack", serialization.to_bytes(jax.device_get(variables)))

    def latest(self, template: Any, log=print) -> tuple[Any, dict] | None:
        """The newest checkpoint that loads cleanly, or None. Corrupt ones are reported."""
        for _, path in reversed(self.files()):
            try:
                return decode(path.read_bytes(), template)
            except ForeignCheckpoint as err:
                raise ForeignCheckpoint(f"{path}: {err}") from None
            except (CorruptCheckpoint, OSError) as err:
                # Said once, through the run's log (a Python warning as well would repeat it).
                log(f"[warning] checkpoint {path.name} is corrupt or partial ({err}); "
                    "falling back to the previous one")
        return None
