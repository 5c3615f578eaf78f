"""The analysis flows one way: its statistics, model, claims, record and the time-to-strength
measures are pure (numpy, scipy, statsmodels), so that importing them loads neither JAX
nor the games, the search or the solvers; and no module of `warmjax.analysis` imports the
games, the search or the solvers at all (it reads runs' games through
`train.run_settings`)."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from ..helpers import ROOT
from .synthetic import write_run

PURE = ("stats", "model", "claims", "record", "registered", "survival", "compute", "strength")
HEAVY = ("jax", "pgx", "flax", "mctx", "warmjax.games", "warmjax.search", "warmjax.perfect")
# What a whole report must not load (it reads the registry, `warmjax.games`, and the
# labelled sets, `warmjax.perfect.positions`, which need neither).
GAME_CODE = ("jax", "pgx", "flax", "mctx", "numba", "warmjax.search.search",
             "warmjax.games.env", "warmjax.games.pgx_games", "warmjax.games.connect_four")


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


@pytest.mark.slow
def test_a_study_report_runs_without_jax_or_the_games(tmp_path):
    # A whole study report (reading run folders and a tournament's journal, the families,
    # claims, record, Markdown and figures) in a fresh process: the runs' games are read
    # from their settings (`train.run_settings`), never built, so JAX is never imported.
    for seed in (0, 1, 2):
        for params in ({}, {"rows": 6, "cols": 7}):
            write_run(tmp_path / "study", "none", "rollout", seed, 0.0, params=params)
            write_run(tmp_path / "study", "adaptive", "wrora", seed, 0.04, params=params)
    code = ("import sys\n"
            "from warmjax import report\n"
            f"report.main(['--study', {str(tmp_path / 'study')!r}, "
            f"'--out', {str(tmp_path / 'rep')!r}])\n"
            f"print(sorted(m for m in {GAME_CODE!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
    text = (tmp_path / "rep" / "study.md").read_text()
    assert "Connect Four 6×7" in text  # the board, read without building the game
