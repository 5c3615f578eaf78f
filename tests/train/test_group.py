"""Many runs in one compiled program (train/group.py): equal to the lone runs, resume, and
through `hydra/launcher=vmap` with the runs axis sharded over two host devices."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

from warmjax.train import group, run_folder
from warmjax.train.loop import train, train_group
from warmjax.train.run_config import ConfigError

from ..helpers import ROOT, TEST_CACHE, compose_config

# End to end: trains runs or runs commands (`pytest -m "not slow"` leaves them out).
pytestmark = pytest.mark.slow

# No stage times, so that the session's persistent compilation cache holds the compiled
# iterations: each program compiles once for all the tests here.
FIXED = ["+experiment=fixed_c4", "profile=smoke", "train.iterations=3", "tensorboard=false",
         "probe.positions=16", "stage_times=false", f"compilation_cache={TEST_CACHE}"]
# The two runs differ in both traced settings: the seed and I′. Iteration 1 both play the
# enhancement, iteration 2 one does (a mixed group), iteration 3 neither (the group runs the
# baseline's branch alone: `warmstart.group_kind`).
SETTINGS = [(0, 1), (1, 2)]
# Metrics a group computes with other XLA batching than a lone run: float sums may differ in
# the last bits. Everything else (games, counts, decisions) must be equal.
FLOAT_KEYS = ("loss_value", "loss_policy", "r_balance", "weight")


def configs(root):
    return [compose_config([*FIXED, f"seed={seed}", f"warmstart.iprime={iprime}"],
                           root / f"seed{seed}_i{iprime}")
            for seed, iprime in SETTINGS]


def rows(run_dir):
    return [{k: v for k, v in row.to_json().items() if not k.startswith("seconds")}
            for row in run_folder.read_metrics(run_dir)]


def assert_same_metrics(a, b):
    assert [r["iteration"] for r in a] == [r["iteration"] for r in b]
    for x, y in zip(a, b):
        assert x.keys() == y.keys()
        for key in x:
            if key in FLOAT_KEYS:
                assert x[key] == pytest.approx(y[key], rel=1e-4, abs=1e-5), key
            else:
                assert x[key] == y[key], key


@pytest.fixture(scope="module")
def lone_and_group(tmp_path_factory):
    root = tmp_path_factory.mktemp("group")
    lone = configs(root / "lone")
    lone_states = [train(c, log=lambda _: None) for c in lone]
    together = configs(root / "together")
    group_states = train_group(together, log=lambda _: None)
    return lone, lone_states, together, group_states


def test_group_runs_as_the_lone_runs(lone_and_group):
    lone, lone_states, together, group_states = lone_and_group
    for a, b, sa, sb in zip(lone, together, lone_states, group_states):
        # Iteration 1's self-play games, as stored in the buffer: the same positions.
        np.testing.assert_array_equal(np.asarray(sa.buffer.obs), np.asarray(sb.buffer.obs))
        np.testing.assert_array_equal(np.asarray(sa.buffer.valid), np.asarray(sb.buffer.valid))
        np.testing.assert_allclose(np.asarray(sa.buffer.policy), np.asarray(sb.buffer.policy),
                                   atol=1e-6)
        assert_same_metrics(rows(a.run_dir), rows(b.run_dir))
        for x, y in zip(jax.tree_util.tree_leaves(sa.params), jax.tree_util.tree_leaves(sb.params)):
            np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-4, atol=1e-5)
        # Each run keeps its own folder with the outputs of a lone run.
        folder = Path(b.run_dir)
        names = {p.name for p in (folder / "checkpoints").iterdir()}
        assert {"best.msgpack", "state_000003.ckpt"} <= names
        assert (folder / "network.json").exists() and (folder / "config.yaml").exists()
    # The two runs really differ (seed and I′).
    first, second = (rows(c.run_dir) for c in together)
    assert [r["warmstart_active"] for r in first] == [True, False, False]
    assert [r["warmstart_active"] for r in second] == [True, True, False]


def test_group_resumes_from_the_common_iteration(lone_and_group, tmp_path):
    _, _, together, _ = lone_and_group
    runs = configs(tmp_path)
    train_group(runs, log=lambda _: None, stop_after=1)
    # A kill between two runs' writes: run 0 went on alone to its end.
    train(runs[0], log=lambda _: None)
    assert len(rows(runs[0].run_dir)) == 3 and len(rows(runs[1].run_dir)) == 1
    messages = []
    train_group(runs, log=messages.append)
    assert any("after iteration 1" in m for m in messages)
    for done, reference in zip(runs, together):
        assert_same_metrics(rows(done.run_dir), rows(reference.run_dir))


def test_groups_split_by_program_and_size(tmp_path):
    runs = configs(tmp_path)
    other = dataclasses.replace(runs[0], run_dir=str(tmp_path / "x"),
                                search=dataclasses.replace(runs[0].search, simulations=5))
    assert group.groups([runs[0], other, runs[1]], max_runs=8) == [[0, 2], [1]]
    assert group.groups(runs, max_runs=1) == [[0], [1]]
    # Lone runs keep the given order even where programs interleave.
    assert group.groups([runs[0], other, runs[1]], max_runs=1) == [[0], [1], [2]]
    with pytest.raises(ConfigError, match="cannot share one compiled program"):
        train_group([runs[0], other])
    with pytest.raises(ConfigError, match="share a run folder"):
        train_group([runs[0], runs[0]])


def test_seed_major_orders_by_seed_and_keeps_the_order_within_a_seed(tmp_path):
    base = configs(tmp_path)[0]
    sweep = [dataclasses.replace(base, seed=s, run_dir=str(tmp_path / f"{arm}{s}"))
             for arm in ("a", "b", "c") for s in (9, 8)]  # arm first, as Hydra merged it
    order = group.seed_major(sweep)
    assert [(sweep[i].run_dir[-2], sweep[i].seed) for i in order] == [
        ("a", 8), ("b", 8), ("c", 8), ("a", 9), ("b", 9), ("c", 9)]


def test_vmap_launcher_sweep_sharded_and_resumed(lone_and_group, tmp_path):
    # `hydra/launcher=vmap` on a machine with two devices: the 4-job sweep is one group, its
    # runs axis sharded over both, each job in its own folder with the lone run's metrics.
    lone, _, _, _ = lone_and_group
    cmd = [sys.executable, "-m", "warmjax.run", "-m", *FIXED, "seed=0,1", "warmstart.iprime=1,2",
           "hydra/launcher=vmap", "hydra.launcher.max_runs=4", f"run_root={tmp_path}"]
    env = dict(os.environ, JAX_PLATFORMS="cpu",
               XLA_FLAGS="--xla_force_host_platform_device_count=2")
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "group of 4 runs" in done.stdout
    assert "compiled the iteration of 4 runs" in done.stdout
    assert "sharded over 2 devices" in done.stdout
    folders = [p for p in (tmp_path / "fixed_c4").iterdir() if p.is_dir()]
    assert len(folders) == 4
    for (seed, iprime), reference in zip(SETTINGS, lone):
        [folder] = [p for p in folders if f"seed={seed}," in p.name
                    and p.name.endswith(f"warmstart.iprime={iprime}")]
        assert_same_metrics(rows(folder), rows(reference.run_dir))
    again = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "complete (3 iterations)" in again.stdout
