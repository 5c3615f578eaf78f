"""The analysis flows one way: its statistics, model, claims, record and the time-to-strength
measures are pure (numpy, scipy, statsmodels), so that importing them loads neither JAX
nor the games, the search or the solvers; and no module of `warmjax.analysis` imports the
games, the search or the solvers at all (it reads runs' games through
`matches.run_games`)."""

from __future__ import annotations

import ast
import subprocess
import sys

from ..helpers import ROOT

PURE = ("stats", "model", "claims", "record", "registered", "survival", "compute", "strength")
HEAVY = ("jax", "pgx", "flax", "mctx", "warmjax.games", "warmjax.search", "warmjax.perfect")


def test_the_pure_analysis_modules_leave_jax_unloaded():
    code = ("import sys\n"
            + "".join(f"import warmjax.analysis.{m}\n" for m in PURE)
            + f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def top_level_imports(path) -> set[str]:
    """The modules a file imports at its top (not inside functions or TYPE_CHECKING)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_pure_modules_import_no_game_search_or_solver():
    for module in PURE:
        imported = top_level_imports(ROOT / "warmjax" / "analysis" / f"{module}.py")
        assert not {m for m in imported
                    if m.split(".")[:2] in (["warmjax", "games"], ["warmjax", "search"],
                                            ["warmjax", "perfect"])
                    or m.split(".")[0] in ("jax", "pgx", "flax")}, module


def test_no_analysis_module_imports_the_games_search_or_solvers():
    offenders = {}
    for path in sorted((ROOT / "warmjax" / "analysis").glob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
                names |= {f"{node.module}.{alias.name}" for alias in node.names}
        bad = sorted(n for n in names if n.split(".")[:2] in (
            ["warmjax", "games"], ["warmjax", "search"], ["warmjax", "perfect"]))
        if bad:
            offenders[path.name] = bad
    assert offenders == {}
