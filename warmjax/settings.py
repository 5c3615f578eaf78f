"""The one path from a Hydra config to frozen dataclasses, for training and every command.

`from_mapping(cls, raw)` turns plain nested mappings (`OmegaConf.to_container` of a
composed config, or a run folder's `config.yaml`) into the dataclass `cls`, once, before
anything compiles:

- a field whose type is a dataclass is built from its sub-mapping, recursively (None or a
  missing key keeps the field's default);
- every value must have its field's annotated type: an int where a float goes is widened, a
  list where a tuple goes becomes a tuple, and nothing else is converted (no strings to
  numbers, no bools to ints);
- unknown keys are named, with the known ones;
- a renamed setting (a class's `RENAMED`, `{old: new}`) still reads under its old name, with
  one line on stderr per old name and process (none for a run folder's stored config);
- a dataclass's own checks (`__post_init__`) run as it is built; their `ValueError`s come
  out as `ConfigError` with the section's dotted path in front (so a check that names its
  field, "simulations must be …", reads "search.simulations must be …").

The run's `RunConfig` (train/run_config.py) and the experiment commands' configs
(matches/experiment_cli.py) both go through here.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Mapping
from typing import Any


class ConfigError(ValueError):
    """An impossible or unknown setting."""


def coerce(name: str, value: Any, hint: Any) -> Any:
    """`value` as the annotated type `hint`; no silent conversions of strings or floats."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    options = typing.get_args(hint) if union else (hint,)
    if value is None and type(None) in options:
        return None
    for option in options:
        kind = typing.get_origin(option) or option
        if kind is tuple and isinstance(value, (list, tuple)):
            return tuple(value)
        if kind is dict and isinstance(value, dict):
            return dict(value)
        if isinstance(value, bool) and kind is not bool:
            continue
        if kind is float and isinstance(value, int):
            return float(value)
        if kind is not type(None) and isinstance(value, kind):
            return value
    names = " or ".join(getattr(o, "__name__", str(o)) for o in options)
    raise ConfigError(f"{name} must be {names}, got {value!r}")


_TOLD: set[str] = set()  # the old names already reported in this process


def _unset(value: Any) -> bool:
    """A placeholder for an old name that the config keeps so that Hydra overrides of it
    still compose: None, or a section of Nones."""
    return value is None or (isinstance(value, Mapping)
                             and all(v is None for v in value.values()))


def renamed_keys(cls: type, raw: Mapping[str, Any], where: str = "",
                 tell: bool = True) -> dict[str, Any]:
    """`raw` with the old names of `cls.RENAMED` moved to their new ones. A set old name wins
    over the new one (a composed config holds the new one's default); a section's set keys
    go over the new section's. `tell`: one line on stderr per old name and process."""
    out = dict(raw)
    for old, new in getattr(cls, "RENAMED", {}).items():
        if old not in out:
            continue
        value = out.pop(old)
        if _unset(value):
            continue
        if isinstance(value, Mapping) and isinstance(out.get(new), Mapping):
            value = {**out[new], **{k: v for k, v in value.items() if v is not None}}
        out[new] = value
        path = f"{where}." if where else ""
        if tell and path + old not in _TOLD:
            _TOLD.add(path + old)
            print(f"warmjax: the setting {path}{old} is now {path}{new} (the old name still "
                  "works for now)", file=sys.stderr)
    return out


def from_mapping(cls: type, raw: Any, where: str = "", base: Any = None,
                 tell: bool = True) -> Any:
    """The frozen dataclass `cls` from the mapping `raw` (see the module docstring).

    Args:
      cls: a dataclass type.
      raw: a mapping of its field names to values (sub-mappings for dataclass fields), or
        None for all defaults.
      where: the dotted path of `raw` in the whole config, for messages ("" at the top).
      base: an instance of `cls` whose values the missing keys keep; None: the class's
        defaults. (A section's base is its field's default in the enclosing dataclass.)
      tell: report an old (renamed) setting's name on stderr (not for a stored config).

    Raises:
      ConfigError: an unknown key, a value of the wrong type, or a failed check.
    """
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"config section {where!r} must be a mapping, got {raw!r}")
    raw = renamed_keys(cls, raw, where, tell)
    hints = typing.get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        place = f" in {where}" if where else ""
        raise ConfigError(f"unknown setting(s){place}: {', '.join(unknown)} "
                          f"(known: {', '.join(fields)})")
    defaults = {f.name: f.default for f in dataclasses.fields(cls)}
    values = {}
    for name, value in raw.items():
        path = f"{where}.{name}" if where else name
        hint = hints[name]
        if dataclasses.is_dataclass(hint):
            inner = getattr(base, name) if base is not None else defaults[name]
            inner = inner if dataclasses.is_dataclass(inner) else None
            values[name] = from_mapping(hint, value, path, inner, tell)
        else:
            values[name] = coerce(path, value, hint)
    try:
        return dataclasses.replace(base, **values) if base is not None else cls(**values)
    except ConfigError:
        raise
    except ValueError as err:
        raise ConfigError(f"{where}.{err}" if where else str(err)) from None


# --------------------------------------------------------------------------------------
# Marks on config fields: what a setting is, said once where the field is declared.

#: The field's metadata key of a named departure from the papers (its value: a short tag).
DEPARTURE = "departure"
#: May change between calls of the same run (more iterations, bookkeeping).
RESUMABLE = "resumable"
#: May differ between the runs of a group that share one compiled program (traced values).
PER_RUN = "per_run"


def setting(default: Any = dataclasses.MISSING, *, departure: str | None = None,
            resumable: bool = False, per_run: bool = False, **kwargs: Any) -> Any:
    """A dataclass field with marks in its metadata: `departure` (a named departure from the
    papers, on where the value differs from `default`), `resumable`, `per_run`."""
    metadata = {}
    if departure is not None:
        metadata[DEPARTURE] = departure
    if resumable:
        metadata[RESUMABLE] = True
    if per_run:
        metadata[PER_RUN] = True
    return dataclasses.field(default=default, metadata=metadata, **kwargs)


def marked(cls: type, mark: str, prefix: str = "") -> dict[str, Any]:
    """`{dotted path: mark value}` of the fields of the dataclass `cls` (nested sections
    included) that carry `mark` in their metadata."""
    out: dict[str, Any] = {}
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        path = f"{prefix}{field.name}"
        if mark in field.metadata:
            out[path] = field.metadata[mark]
        if dataclasses.is_dataclass(hints[field.name]):
            out.update(marked(hints[field.name], mark, f"{path}."))
    return out


def departures_of(config: Any) -> tuple[str, ...]:
    """The tags of the departures from the papers that `config` (a config dataclass, nested
    sections included) switches on: the marked fields whose value differs from the
    field's default."""
    tags = []
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if dataclasses.is_dataclass(value):
            tags += departures_of(value)
        elif DEPARTURE in field.metadata and value != field.default:
            tags.append(field.metadata[DEPARTURE])
    return tuple(tags)


def flatten(mapping: dict, prefix: str = "") -> dict[str, Any]:
    """`{dotted path: value}` of a nested mapping (a config's `to_dict()`), tuples as lists;
    a game's constructor `params` stay one value."""
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        if isinstance(value, dict) and key != "params":
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = list(value) if isinstance(value, tuple) else value
    return out
