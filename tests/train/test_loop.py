"""Runs (train/loop.py): outputs, exact resume after kill -9, corrupt checkpoints."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from warmjax.train import run_folder
from warmjax.train.loop import health_text, train
from warmjax.train.run_config import ConfigError

from ..helpers import ROOT, SMOKE, SMOKE_BASELINE, TEST_CACHE, compose_config


def read_metrics(run_dir):
    rows = run_folder.read_metrics(run_dir)
    return [{k: v for k, v in row.to_json().items() if not k.startswith("seconds")}
            for row in rows]


def params_of(state):
    return jax.tree_util.tree_leaves(jax.device_get(state.params))


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("reference")
    config = compose_config(SMOKE, run_dir)
    LINES[:] = []
    state = train(config, log=LINES.append)
    return run_dir, state


LINES: list[str] = []  # what the reference run printed
HEALTH = ("selfplay_first_wins", "selfplay_second_wins", "selfplay_draws",
          "selfplay_max_plies", "selfplay_openings", "selfplay_target_entropy",
          "arena_decisive")


@pytest.mark.slow
def test_run_writes_its_outputs(reference_run):
    run_dir, state = reference_run
    rows = read_metrics(run_dir)
    assert [r["iteration"] for r in rows] == [1, 2, 3]
    for key in ("warmstart_active", "weight", "switched", "r_balance", "arena_wins",
                "arena_draws", "arena_losses", "accepted", "loss_value", "loss_policy",
                "examples", *HEALTH):
        assert key in rows[0]
    # The health figures are in each iteration's progress line too (test_health.py checks
    # them by hand), as its row has them.
    for row in run_folder.read_metrics(run_dir):
        shares = row.selfplay_first_wins + row.selfplay_second_wins + row.selfplay_draws
        assert abs(shares - 1) < 1e-6 and row.selfplay_mean_plies <= row.selfplay_max_plies
        line = next(x for x in LINES if x.startswith(f"iter {row.iteration:>3}/3 "))
        assert f"| {health_text(row)}arena " in line and "decisive)" in line
    raw = json.loads((run_dir / "metrics.jsonl").read_text().splitlines()[0])
    # SMOKE turns the per-stage times off (test_learning.py checks them on).
    assert "seconds_total" in raw and "seconds_selfplay" not in raw
    assert (run_dir / "config.yaml").exists() and (run_dir / "network.json").exists()
    names = sorted(p.name for p in (run_dir / "checkpoints").iterdir())
    assert "best.msgpack" in names and "state_000003.ckpt" in names
    from warmjax.train.network_io import load_network

    env, network, variables = load_network(run_dir)
    for a, b in zip(jax.tree_util.tree_leaves(variables), params_of(state)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # A different configuration in the same folder is refused.
    with pytest.raises(ConfigError, match="different configuration"):
        train(compose_config([*SMOKE, "search.simulations=5"], run_dir), log=lambda _: None)


# Started in place of `python -m warmjax.run`: the run kills itself with SIGKILL as it
# begins to save the checkpoint after iteration 2, so iteration 1 is on disk and
# iteration 2's work is lost, at the same point every time (a watcher polling for files
# raced the run: on a warm compilation cache all three iterations could finish first).
_KILLED_RUN = """
import os, runpy, signal, sys
from warmjax.train import checkpoint

save = checkpoint.CheckpointDir.save

def save_or_die(self, state, iteration, header, prune=True):
    if iteration == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return save(self, state, iteration, header, prune)

checkpoint.CheckpointDir.save = save_or_die
sys.argv = ["warmjax.run", *sys.argv[1:]]
runpy.run_module("warmjax.run", run_name="__main__", alter_sys=True)
"""


@pytest.mark.slow
def test_kill_and_resume_is_exact(reference_run, tmp_path):
    ref_dir, ref_state = reference_run
    run_dir = tmp_path / "killed"
    cmd = [sys.executable, "-c", _KILLED_RUN, *SMOKE, f"hydra.run.dir={run_dir}"]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, timeout=600)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    done = sorted(p.name for p in (run_dir / "checkpoints").glob("state_*.ckpt"))
    assert done == ["state_000001.ckpt"]  # killed after one iteration, during the second
    assert [r["iteration"] for r in read_metrics(run_dir)] == [1]
    messages = []
    state = train(compose_config(SMOKE, run_dir), log=messages.append)
    assert any("resuming" in m for m in messages)
    assert read_metrics(run_dir) == read_metrics(ref_dir)
    for a, b in zip(params_of(state), params_of(ref_state)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.slow
def test_corrupt_checkpoint_falls_back(reference_run, tmp_path):
    ref_dir, ref_state = reference_run
    run_dir = tmp_path / "corrupt"
    config = compose_config(SMOKE, run_dir)
    train(config, log=lambda _: None, stop_after=2)
    latest = run_dir / "checkpoints" / "state_000002.ckpt"
    data = latest.read_bytes()
    latest.write_bytes(data[: len(data) // 2])  # a partial write
    messages = []
    state = train(config, log=messages.append)
    warned = [m for m in messages if "state_000002.ckpt is corrupt" in m]
    assert len(warned) == 1 and warned[0].startswith("[warning]")  # said once
    assert any("after iteration 1" in m for m in messages)
    assert read_metrics(run_dir) == read_metrics(ref_dir)
    for a, b in zip(params_of(state), params_of(ref_state)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_compilation_cache_folder(tmp_path, monkeypatch):
    from jax.experimental.compilation_cache import compilation_cache

    from warmjax.train.loop import use_compilation_cache

    run_dir = tmp_path / "runs" / "one"
    config = compose_config(["+experiment=adaptive_c4", "profile=smoke"], run_dir)
    assert config.compilation_cache == "auto"

    def cached_in(setting, size):
        """The cache folder after `use_compilation_cache(setting)` and one compilation."""
        use_compilation_cache(dataclasses.replace(config, compilation_cache=setting), run_dir)
        jax.jit(lambda x: jnp.sin(x) @ x).lower(jnp.ones((size, size))).compile()
        return Path(jax.config.jax_compilation_cache_dir)

    least = jax.config.jax_persistent_cache_min_compile_time_secs
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    try:
        # JAX_COMPILATION_CACHE_DIR (set for the test session) wins over "auto"'s default.
        assert cached_in("auto", 2) == Path(TEST_CACHE)
        monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR")
        beside = cached_in("auto", 3)
        assert beside == tmp_path / "runs" / ".jax_cache" and any(beside.iterdir())
        # An explicit folder takes over although this process has compiled with others.
        mine = cached_in(str(tmp_path / "mine"), 4)
        assert mine == tmp_path / "mine" and any(mine.iterdir())
        assert cached_in(None, 5) == mine  # None leaves JAX's setting as it is
    finally:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", least)
        jax.config.update("jax_compilation_cache_dir", TEST_CACHE)
        compilation_cache.reset_cache()


@pytest.mark.slow
def test_two_identical_runs_count_the_same_and_as_worked_out(reference_run, tmp_path):
    """The ledger (method.md §12): the same config and seed give the same counts, and each
    count is what the run's own settings and game lengths give by hand."""
    from warmjax.train.metrics import LEDGER

    ref_dir, _ = reference_run
    config = compose_config(SMOKE, tmp_path / "again")
    train(config, log=lambda _: None)
    ref = run_folder.read_metrics(ref_dir)
    again = run_folder.read_metrics(tmp_path / "again")
    assert len(LEDGER) == 7
    assert [[getattr(r, k) for k in LEDGER] for r in ref] == \
        [[getattr(r, k) for k in LEDGER] for r in again]
    m, games, bs = config.search.simulations, config.train.games, config.train.batch_size
    probe = config.probe.positions
    for row in ref:
        assert row.count_games_selfplay == games and row.count_games_arena == config.arena.games
        # Every ply of every self-play game was searched (no random openings): 1 + m each.
        assert row.count_evals_selfplay == round((m + 1) * games * row.selfplay_mean_plies)
        assert row.count_evals_selfplay == (m + 1) * row.new_examples // 2  # 2 symmetries
        assert row.count_train_samples == row.train_steps * bs
        # The probe: the search's 1 + m and the policy head's 1 per position, each iteration.
        assert row.count_evals_probe == probe * (m + 2)
        # Self-play searched with WRoRa while warm start was on, and only then played out.
        assert (row.count_playout_steps > 0) == row.warmstart_active
        assert row.count_evals_arena % (m + 1) == 0 and row.count_evals_arena > 0


@pytest.mark.slow
def test_progressive_simulation_searches_each_stage_with_its_budget(tmp_path):
    """train.progressive_simulations (method.md §5): self-play searches with 2, then 3
    simulations, one iteration each, then with m = 4; the arena and the probe keep m. The
    ledger shows each iteration's budget: 1 + m_k evaluations per searched ply."""
    config = compose_config([*SMOKE, "train.progressive_iterations=1",
                             "train.progressive_simulations=[2,3]"], tmp_path / "run")
    train(config, log=lambda _: None)
    rows = run_folder.read_metrics(tmp_path / "run")
    m, games, probe = config.search.simulations, config.train.games, config.probe.positions
    assert m == 4 and [r.iteration for r in rows] == [1, 2, 3]
    for row, budget in zip(rows, [2, 3, 4], strict=True):
        assert row.count_evals_selfplay == (budget + 1) * row.new_examples // 2  # 2 symmetries
        assert row.count_evals_selfplay == round((budget + 1) * games * row.selfplay_mean_plies)
        assert row.count_evals_probe == probe * (m + 2)
        assert row.count_evals_arena % (m + 1) == 0 and row.count_evals_arena > 0


def test_progressive_simulation_settings_are_checked():
    from warmjax.train.run_config import RunConfig

    with pytest.raises(ConfigError, match=r"train.progressive_simulations must each be from "
                                          r"1 to search.simulations − 1 \(99\), got \[50, 100\]"):
        RunConfig.from_dict({"train": {"progressive_simulations": [50, 100]}})
    with pytest.raises(ConfigError, match=r"must not decrease, got \[50, 25\]"):
        RunConfig.from_dict({"train": {"progressive_simulations": [50, 25]}})
    with pytest.raises(ConfigError, match="does not combine with train.playout_cap < 1"):
        RunConfig.from_dict({"train": {"progressive_simulations": [25],
                                       "playout_cap": 0.5}})
    with pytest.raises(ConfigError, match="train.progressive_iterations must be at least 1"):
        RunConfig.from_dict({"train": {"progressive_simulations": [25],
                                       "progressive_iterations": 0}})


@pytest.mark.slow
def test_a_reply_target_run_trains_and_saves_the_network_that_plays(tmp_path):
    """train.reply_weight (method.md §6): the run trains with the reply head, which its
    checkpoints keep (a resume needs it), and saves the network that plays without it, so
    that every reader of network.msgpack rebuilds it from network.json as before."""
    from warmjax.matches.agent import load_agent
    from warmjax.nets import without_reply_head

    config = compose_config([*SMOKE_BASELINE, "train.iterations=2", "train.reply_weight=0.5"],
                            tmp_path / "run")
    state = train(config, log=lambda _: None)
    assert "reply" in state.params["params"]
    agent = load_agent(tmp_path / "run")
    assert "reply" not in agent.variables["params"]
    saved = jax.tree_util.tree_leaves(agent.variables)
    kept = jax.tree_util.tree_leaves(jax.device_get(without_reply_head(state.params)))
    assert len(saved) == len(kept)
    for a, b in zip(saved, kept):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.slow
def test_a_process_builds_each_program_once_and_its_runs_train_as_alone(tmp_path):
    # The runs of one program in one process (a basic-launcher sweep, a notebook) share the
    # Trainer and its compiled iteration; a run trained that way leaves the metrics and
    # network of the same run trained by a program built afresh. A lone run's I′ is a
    # constant of its program, so another I′ builds another.
    from warmjax.train import loop

    fixed = ["+experiment=fixed_c4", "profile=smoke", "train.iterations=2",
             "tensorboard=false", "probe.positions=16", "stage_times=false",
             f"compilation_cache={TEST_CACHE}"]
    logs = []
    train(compose_config([*fixed, "seed=0"], tmp_path / "first"), log=logs.append)
    built = len(loop._PROGRAMS), list(loop._PROGRAMS.values())[-1]
    train(compose_config([*fixed, "seed=1"], tmp_path / "shared"), log=logs.append)
    assert (len(loop._PROGRAMS), list(loop._PROGRAMS.values())[-1]) == built
    loop.forget_programs()
    train(compose_config([*fixed, "seed=1"], tmp_path / "afresh"), log=logs.append)
    rows = [[{k: v for k, v in row.to_json().items() if not k.startswith("seconds")}
             for row in run_folder.read_metrics(tmp_path / name)] for name in ("shared", "afresh")]
    assert rows[0] == rows[1] and len(rows[0]) == 2
    assert ((tmp_path / "shared" / "network.msgpack").read_bytes()
            == (tmp_path / "afresh" / "network.msgpack").read_bytes())
    train(compose_config([*fixed, "seed=1", "warmstart.iprime=2"], tmp_path / "other"),
          log=logs.append)
    assert len(loop._PROGRAMS) == 2
    (iprime_1, iprime_2) = loop._PROGRAMS.values()
    assert iprime_1["trainer"] is not iprime_2["trainer"]
    assert iprime_2["trainer"].config.warmstart.iprime == 2


@pytest.mark.slow
def test_tensorboard_scalars_are_the_metrics_under_grouped_tags(reference_run, tmp_path):
    """A run with TensorBoard on writes each metrics row's values, read back with
    TensorBoard's own event reader, under `group/name` tags."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = tmp_path / "tb_run"
    train(compose_config([*SMOKE, "train.iterations=2", "tensorboard=true"], run_dir),
          log=lambda _: None)
    events = EventAccumulator(str(run_dir / "tb"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    groups = {tag.split("/")[0] for tag in tags}
    assert groups <= {"loss", "probe", "time", "selfplay", "arena", "compute", "data",
                      "warmstart"}
    assert {"loss/policy", "loss/value", "probe/search", "probe/policy_head", "time/total",
            "arena/accepted", "selfplay/draws", "compute/evals_selfplay",
            "warmstart/r_balance"} <= tags
    for row in run_folder.read_metrics(run_dir):
        for tag, name in (("loss/policy", "loss_policy"), ("probe/search", "oracle_optimal"),
                          ("selfplay/mean_plies", "selfplay_mean_plies")):
            (event,) = [e for e in events.Scalars(tag) if e.step == row.iteration]
            assert event.value == pytest.approx(getattr(row, name), rel=1e-6)


@pytest.mark.slow
def test_a_longer_train_iterations_says_it_extends_the_run(reference_run, tmp_path):
    import shutil

    run_dir = tmp_path / "longer"
    shutil.copytree(reference_run[0], run_dir)
    messages = []
    train(compose_config([*SMOKE, "train.iterations=4"], run_dir), log=messages.append)
    assert (f"resuming {run_dir} after iteration 3 of 4; it was a run of 3 iterations, "
            "extended to 4 by train.iterations=4") in messages
    assert [r.iteration for r in run_folder.read_metrics(run_dir)] == [1, 2, 3, 4]


@pytest.mark.slow
def test_metrics_without_checkpoints_are_never_trained_over(reference_run, tmp_path):
    """A run folder copied without its checkpoints/ (a device session's complete runs come
    back so): a complete one is left as it is, an unfinished one is refused; neither loses
    a byte of its metrics."""
    import shutil

    ref_dir, _ = reference_run
    complete = tmp_path / "complete"
    shutil.copytree(ref_dir, complete, ignore=shutil.ignore_patterns("checkpoints", ".lock"))
    before = (complete / run_folder.METRICS).read_bytes()
    messages = []
    assert train(compose_config(SMOKE, complete), log=messages.append) is None
    assert (complete / run_folder.METRICS).read_bytes() == before
    assert any("is complete (3 iterations) and keeps no checkpoint" in m for m in messages)
    assert not any(m.startswith("iter") for m in messages)

    unfinished = tmp_path / "unfinished"
    shutil.copytree(ref_dir, unfinished, ignore=shutil.ignore_patterns("checkpoints", ".lock"))
    lines = (unfinished / run_folder.METRICS).read_text().splitlines(keepends=True)
    (unfinished / run_folder.METRICS).write_text("".join(lines[:2]))
    before = (unfinished / run_folder.METRICS).read_bytes()
    with pytest.raises(ConfigError, match="holds 2 iterations of metrics but no checkpoint"):
        train(compose_config(SMOKE, unfinished), log=lambda _: None)
    assert (unfinished / run_folder.METRICS).read_bytes() == before


@pytest.mark.slow
def test_a_minutes_budget_stops_after_the_iteration_that_spends_it_and_resumes(
        reference_run, tmp_path):
    """`train.minutes`: the run stops after the first iteration whose summed
    `seconds_total` reaches the budget; a rerun with the same budget does nothing, a larger
    one goes on, and the iterations are those of a run without a budget (a stopping rule,
    not another run)."""
    reference_dir = reference_run[0]
    config = compose_config([*SMOKE, "train.minutes=1e-9"], tmp_path)
    lines = []
    train(config, log=lines.append)
    assert len(read_metrics(tmp_path)) == 1
    assert any("train.minutes=1e-09 spent" in line and "after iteration 1" in line
               for line in lines)
    lines.clear()
    train(config, log=lines.append)
    assert len(read_metrics(tmp_path)) == 1 and any("is complete (1 iterations" in line
                                                    for line in lines)
    spent = sum(r.seconds_total for r in run_folder.read_metrics(tmp_path))
    more = dataclasses.replace(config, train=dataclasses.replace(
        config.train, minutes=(spent + 1e-9) / 60))
    train(more, log=lambda _: None)
    assert len(read_metrics(tmp_path)) == 2
    train(dataclasses.replace(config, train=dataclasses.replace(config.train, minutes=None)),
          log=lambda _: None)
    assert read_metrics(tmp_path) == read_metrics(reference_dir)
    with pytest.raises(ConfigError, match="train.minutes must be positive"):
        compose_config([*SMOKE, "train.minutes=0"], tmp_path / "x")


@pytest.mark.slow
def test_a_resume_says_when_it_rewrites_a_corrupt_metrics_line(tmp_path):
    config = compose_config(SMOKE, tmp_path)
    train(config, log=lambda _: None, stop_after=2)
    path = tmp_path / "metrics.jsonl"
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2] + "\n")  # torn line 2
    said = []
    train(config, log=said.append, stop_after=1)
    warned = [line for line in said if "[warning]" in line and "metrics.jsonl" in line]
    assert len(warned) == 1 and "line 2 differs" in warned[0], said
    assert len(read_metrics(tmp_path)) == 3  # repaired from the checkpoint, then one more
