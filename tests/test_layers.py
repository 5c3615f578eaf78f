"""The layers of docs/design.md, read from the code's own imports (`ast`): every import of
one warmjax package (or top-level module) goes to a lower floor, so nothing runs back up
and there are no circles. Within a package anything goes."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "warmjax"
# The floors, ground first: what each package may build on is everything below it.
FLOORS = (
    ("names", "settings", "fileio", "markdown"),
    ("games", "nets", "rating"),
    ("perfect", "search", "cli"),  # the exact solvers need only the games
    ("probe",),  # scoring against perfect play: the search on the solvers' sets
    ("train",),
    ("matches",),
    ("analysis", "api", "explorer", "labels", "run"),
    ("advise", "calibrate", "explore", "headtohead", "oracle", "orientation", "play", "report",
     "screen", "study", "tournament", "versus", "__init__", "__main__"),
)
FLOOR = {name: i for i, names in enumerate(FLOORS) for name in names}


def imports() -> dict[str, set[tuple[str, Path]]]:
    """Per package (or top-level module): the other warmjax packages it imports, with
    where."""
    return _imports_under(ROOT)


@functools.cache  # read once for the many packages' tests (each read parses every module)
def _imports_under(root: Path) -> dict[str, set[tuple[str, Path]]]:
    out: dict[str, set[tuple[str, Path]]] = {}
    for path in root.rglob("*.py"):
        top = path.relative_to(root).with_suffix("").parts[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = ([f"warmjax.{a.name}" for a in node.names]
                         if node.module == "warmjax" else [node.module])
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] == "warmjax" and len(parts) > 1 and parts[1] != top:
                    out.setdefault(top, set()).add((parts[1], path))
    return out


def test_every_package_has_a_floor():
    tops = {p.relative_to(ROOT).with_suffix("").parts[0] for p in ROOT.rglob("*.py")}
    assert tops <= set(FLOOR), f"give these a floor in FLOORS: {sorted(tops - set(FLOOR))}"


@pytest.mark.parametrize("package", sorted(FLOOR))
def test_imports_run_downwards_only(package):
    up = sorted(f"{path.relative_to(ROOT.parent)} imports warmjax.{target}"
                for target, path in imports().get(package, ())
                if FLOOR.get(target, len(FLOORS)) >= FLOOR[package])
    assert not up, "imports that do not run down a floor: " + "; ".join(up)


def test_the_checker_sees_an_arrow_up(tmp_path, monkeypatch):
    """A games module importing the search is caught."""
    fake = tmp_path / "warmjax"
    (fake / "games").mkdir(parents=True)
    (fake / "search").mkdir()
    (fake / "games" / "bad.py").write_text("from warmjax.search.tree import Tree\n")
    (fake / "search" / "tree.py").write_text("import warmjax.games\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT", fake)
    found = imports()
    assert ("search", fake / "games" / "bad.py") in found["games"]
    assert FLOOR["search"] >= FLOOR["games"]
