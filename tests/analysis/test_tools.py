"""The reporting tools in tools/ on fabricated run folders, against hand-computed values."""

from __future__ import annotations

import importlib.util

from ..helpers import ROOT, fabricate_run, metric_row


def load_tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_strength_per_minute(tmp_path, capsys):
    tool = load_tool("strength_per_minute")
    # 90 s per iteration; the policy head reaches 60% at iteration 3, never 70%.
    policy = [0.40, 0.55, 0.61, 0.65]
    search = [0.80, 0.86, 0.88, 0.91]
    rows = [metric_row(iteration=i + 1, seconds_total=90.0, oracle_policy=p, oracle_optimal=s)
            for i, (p, s) in enumerate(zip(policy, search))]
    assert tool.first_minutes(rows, "oracle_policy", 0.60) == "4.5 (it 3)"
    assert tool.first_minutes(rows, "oracle_policy", 0.70) == "—"
    assert tool.first_minutes(rows, "oracle_optimal", 0.80) == "1.5 (it 1)"
    fabricate_run(tmp_path / "run", network=False, metrics=rows)
    tool.main([str(tmp_path / "run"), "--policy", "60", "--search", "90"])
    out = capsys.readouterr().out
    assert "| Baseline s0 | mcts, m = 24 | 4 | 6.0 | 91.0 | 65.0 | 4.5 (it 3) | 6.0 (it 4) |" in out
