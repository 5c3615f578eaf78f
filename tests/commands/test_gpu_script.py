"""The prepared GPU script (benchmarks/gpu_pons.sh) in its dry run on this CPU: the GPU
recipe (profile=gpu, tiny sizes) trains end to end, its network is judged on Pons' six
sets, the self-play speed is measured, and every output lands under $OUT."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
import yaml

from ..helpers import ROOT

pytestmark = pytest.mark.slow


def test_the_gpu_script_dry_run_trains_judges_and_writes_its_outputs(tmp_path):
    env = dict(os.environ, SMALL="1", JAX_PLATFORMS="cpu", OUT=str(tmp_path))
    done = subprocess.run(["bash", "benchmarks/gpu_pons.sh"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    for part in ("train.log", "pons.txt", "speed.txt"):
        assert (tmp_path / part).read_text().rstrip().endswith("(exit 0)"), part
    config = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert config["profile_name"] == "gpu" and config["game"]["params"]["cols"] == 7
    assert config["model"]["preset"] == "resnet3x32" and config["warmstart"]["mode"] == "none"
    assert config["search"]["win_check"] and not config["arena"]["gate"]  # fast's departures
    rows = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert len(rows) == 2
    pons = json.loads((tmp_path / "pons.json").read_text())
    assert list(pons["sets"]) == [
        "end_easy", "middle_easy", "middle_medium", "beginning_easy", "beginning_medium",
        "beginning_hard"]
    for rates in pons["sets"].values():
        assert rates["positions"] == 10 and 0.0 <= rates["deep_search"] <= 1.0
    speed = json.loads((tmp_path / "speed.json").read_text())
    assert speed["rows"] and all(r["simulations_per_second"] > 0 for r in speed["rows"])
    # The printed summary: the speed from the run's own ledger, and the mistake table.
    assert "simulations/s" in done.stdout and "| beginning_hard (10) |" in done.stdout
