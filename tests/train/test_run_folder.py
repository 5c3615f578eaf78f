"""`warmjax.train.run_folder`: what a run folder holds, written and read back, and the errors
for missing or corrupt files."""

from __future__ import annotations

import dataclasses
import json

import pytest

from warmjax.train import run_folder
from warmjax.train.metrics import MetricRow
from warmjax.train.run_config import ConfigError, RunConfig
from warmjax.train.run_id import RunId

from ..helpers import metric_row


def test_config_and_metrics_round_trip(tmp_path):
    config = RunConfig(seed=3)
    assert not run_folder.is_run_folder(tmp_path)
    run_folder.write_config(tmp_path, config)
    assert run_folder.is_run_folder(tmp_path)
    assert run_folder.read_config(tmp_path) == config
    assert run_folder.read_metrics(tmp_path) == ()  # no iteration finished yet
    first, second = metric_row(iteration=1, loss_value=0.5), metric_row(iteration=2)
    run_folder.write_metrics(tmp_path, [first])
    run_folder.append_metrics(tmp_path, second)
    run = run_folder.read_run(tmp_path)
    assert run.path == tmp_path and run.config == config
    assert run.metrics == (first, second) and run.iterations == 2
    assert run.id == RunId("connect_four", seed=3)
    run_folder.write_metrics(tmp_path, run.metrics[:1])  # a resume rewrites the history
    assert run_folder.read_metrics(tmp_path) == (first,)


def test_metric_rows_are_the_json_keys(tmp_path):
    # Written in one place and read in one: the JSON object has the row's fields as keys;
    # the optional ones appear only where set.
    row = metric_row(iteration=4, r_balance=-3.0, oracle_optimal=0.75, oracle_policy=0.5)
    raw = row.to_json()
    assert raw["iteration"] == 4 and raw["oracle_optimal"] == 0.75
    assert "seconds_selfplay" not in raw and "seconds_oracle" not in raw
    assert MetricRow.from_json(json.loads(json.dumps(raw))) == row
    with pytest.raises(ValueError, match="here: unknown setting\\(s\\): loss"):
        MetricRow.from_json({**raw, "loss": 1.0}, "here")
    with pytest.raises(ValueError, match="here lacks accepted"):
        MetricRow.from_json({k: v for k, v in raw.items() if k != "accepted"}, "here")
    with pytest.raises(ValueError, match="here: accepted must be bool, got 1"):
        MetricRow.from_json({**raw, "accepted": 1}, "here")


def test_an_older_run_folder_keeps_loading(tmp_path):
    # A config saved before later settings existed reads them at their defaults, and rows
    # without the per-stage times or the probe read None there.
    (tmp_path / "config.yaml").write_text(
        "game: {name: othello, params: {}}\nwarmstart: {mode: fixed, enhancement: rave, "
        "iprime: 3}\nsearch: {simulations: 16}\nseed: 2\n")
    raw = metric_row(iteration=1).to_json()
    (tmp_path / "metrics.jsonl").write_text(json.dumps(raw) + "\n")
    run = run_folder.read_run(tmp_path)
    assert run.config.train == RunConfig().train and run.config.search.simulations == 16
    assert run.config.search.temperature_moves == 15  # the run config's default T′
    assert run.id == RunId("othello", "fixed", "rave", 3, (), 2)
    assert run.id.label(seed=True) == "Rave I′=3 s2"
    assert run.metrics[0].oracle_optimal is None and run.metrics[0].seconds_train is None


def test_a_run_refuses_another_configuration_in_its_folder(tmp_path):
    run_folder.claim(tmp_path, RunConfig(seed=1, run_dir=str(tmp_path)))
    # More iterations and bookkeeping may change between calls (marked `resumable`)...
    longer = RunConfig(seed=1, run_dir="elsewhere", tensorboard=False,
                       train=dataclasses.replace(RunConfig().train, iterations=200))
    run_folder.claim(tmp_path, longer)
    assert run_folder.read_config(tmp_path) == longer
    # ... the seed and the learning rate may not.
    other = dataclasses.replace(longer, seed=2, train=dataclasses.replace(
        longer.train, learning_rate=0.01))
    with pytest.raises(ConfigError, match="differs in: seed, train.learning_rate"):
        run_folder.claim(tmp_path, other)


def test_missing_and_corrupt_files_are_named(tmp_path):
    with pytest.raises(ValueError, match=f"{tmp_path} is not a run folder \\(no config.yaml\\)"):
        run_folder.read_config(tmp_path)
    (tmp_path / "config.yaml").write_text("seed: [1\n")
    with pytest.raises(ValueError, match="config.yaml is not valid YAML"):
        run_folder.read_config(tmp_path)
    (tmp_path / "config.yaml").write_text("just words\n")
    with pytest.raises(ValueError, match="config.yaml does not hold a configuration"):
        run_folder.read_config(tmp_path)
    (tmp_path / "config.yaml").write_text("seed: 1\nsearch: {simulations: 0}\n")
    with pytest.raises(ValueError, match="config.yaml: .*search.simulations"):
        run_folder.read_config(tmp_path)
    (tmp_path / "metrics.jsonl").write_text('{"iteration": 1}\n{"iteration": \n')
    with pytest.raises(ValueError, match="metrics.jsonl:1 lacks"):
        run_folder.read_metrics(tmp_path)
    (tmp_path / "metrics.jsonl").write_text(json.dumps(metric_row().to_json())
                                            + '\n{"iteration": \n')
    with pytest.raises(ValueError, match="metrics.jsonl:2 is not JSON"):
        run_folder.read_metrics(tmp_path)


def test_read_run_gives_the_network(tiny_run):
    import jax
    import numpy as np

    from warmjax.train.network_io import load_network

    env, network, variables = run_folder.read_run(tiny_run).network()
    _, _, again = load_network(tiny_run)
    assert env.name == "connect_four" and network.module.channels == 4
    for a, b in zip(jax.tree_util.tree_leaves(variables), jax.tree_util.tree_leaves(again)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_a_run_folder_trains_in_one_process_at_a_time(tmp_path):
    from warmjax.train.loop import train

    config = RunConfig(run_dir=str(tmp_path))
    held = run_folder.lock(tmp_path)  # as another command training there would hold it
    with pytest.raises(ConfigError, match="another process is training in"):
        run_folder.lock(tmp_path)
    with pytest.raises(ConfigError, match="another process is training in"):
        train(config)
    assert not run_folder.is_run_folder(tmp_path)  # refused before writing anything
    held.close()
    run_folder.lock(tmp_path).close()  # free again
