"""Writes docs/api.md, the Python API's reference, from the docstrings of `warmjax.__all__`
(tests/test_api.py checks that the committed page is what this writes).

    python tools/api_doc.py            # rewrites docs/api.md
    python tools/api_doc.py --check    # exit 1 if docs/api.md is out of date
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import sys
from pathlib import Path

import warmjax

PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"
EXAMPLE = PAGE.parents[1] / "examples" / "whole_game.py"  # shown whole, after the imports
# What a class shows besides its own docstring: its public methods and properties.
SKIP = {"count", "index"}  # NamedTuple's tuple methods


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""


def _doc(obj) -> str:
    """The docstring as it reads in the source, kept as written (its Args: and Raises:
    indentation included)."""
    return "```text\n" + inspect.cleandoc(obj.__doc__ or "(no docstring)") + "\n```"


def _members(cls) -> list[str]:
    lines = []
    for name, member in vars(cls).items():
        if name.startswith("_") and name != "__call__" or name in SKIP:
            continue
        if isinstance(member, (property, )) or hasattr(member, "func"):  # cached_property
            target = member.fget if isinstance(member, property) else member.func
            lines += [f"#### `{cls.__name__}.{name}`", "", _doc(target), ""]
        elif inspect.isfunction(member):
            shown = name if name != "__call__" else "__call__"
            lines += [f"#### `{cls.__name__}.{shown}{_signature(member)}`", "",
                      _doc(member), ""]
    return lines


def _fields(cls) -> list[str]:
    """A NamedTuple's fields with their comments' first words, as the source gives them."""
    if not hasattr(cls, "_fields") or dataclasses.is_dataclass(cls):
        return []
    comments, field = {}, None
    for line in inspect.getsource(cls).splitlines():
        body = line.strip()
        name = body.split(":", 1)[0]
        if name in cls._fields:
            field = name
            comments[field] = [body.split("#", 1)[1].strip()] if "#" in body else []
        elif field and body.startswith("#"):  # the comment goes on
            comments[field].append(body.lstrip("# "))
        else:
            field = None
    lines = ["Fields:", ""]
    for name in cls._fields:
        text = " ".join(comments.get(name, []))
        lines.append(f"- `{name}`: {text}" if text else f"- `{name}`")
    return [*lines, ""]


def page() -> str:
    out = ["# The Python API", "",
           "Written by `python tools/api_doc.py` from the docstrings of the names "
           "`import warmjax` offers (`warmjax.__all__`); README's \"From Python\" is the "
           "quickstart. Run folders, studies and reports stay with the commands "
           "(docs/experiments.md).", "", "```python", "import warmjax",
           f"warmjax.__version__  # {warmjax.__version__!r}", "```", "",
           inspect.cleandoc(importlib.import_module("warmjax.api").__doc__).split("\n\n")[-1],
           "", "## A whole game", "",
           "A batch made from positions, `game.step`, whose turn it is, who won, and the "
           "agent against pure MCTS in a loop: `examples/whole_game.py` (run it with a run "
           "folder; `tests/test_api.py` does).", "", "```python",
           EXAMPLE.read_text().split('"""\n', 1)[1].strip(), "```", ""]
    for name in sorted((n for n in warmjax.__all__ if n != "__version__"), key=str.lower):
        obj = getattr(warmjax, name)
        if inspect.isclass(obj):
            out += [f"## `{name}`", "", f"class `{obj.__module__}.{obj.__qualname__}`", "",
                    _doc(obj), "", *_fields(obj), *_members(obj)]
        elif callable(obj):
            out += [f"## `{name}{_signature(obj)}`", "",
                    f"`{obj.__module__}.{obj.__qualname__}`", "", _doc(obj), ""]
        else:
            out += [f"## `{name}`", "", f"`{obj!r}`" if len(repr(obj)) < 300 else "", ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    text = page()
    if args.check:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(f"{PAGE} is out of date: run python tools/api_doc.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
