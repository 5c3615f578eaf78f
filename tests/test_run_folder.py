"""`warmjax.train.run_folder`: what a run folder holds, written and read back, and the errors
for missing or corrupt files."""

from __future__ import annotations

import pytest

from warmjax.train import run_folder
from warmjax.train.config import RunConfig


def test_config_and_metrics_round_trip(tmp_path):
    config = RunConfig(seed=3).to_dict()
    assert not run_folder.is_run_folder(tmp_path)
    run_folder.write_config(tmp_path, config)
    assert run_folder.is_run_folder(tmp_path)
    assert run_folder.read_config(tmp_path) == config
    assert RunConfig.from_dict(run_folder.read_config(tmp_path)) == RunConfig(seed=3)
    assert run_folder.read_metrics(tmp_path) == []  # no iteration finished yet
    run_folder.write_metrics(tmp_path, [{"iteration": 1, "loss": 0.5}])
    run_folder.append_metrics(tmp_path, {"iteration": 2, "loss": 0.25})
    record = run_folder.read_run(tmp_path)
    assert record.path == tmp_path and record.config == config
    assert record.run_config() == RunConfig(seed=3)
    assert [row["iteration"] for row in record.metrics] == [1, 2]
    run_folder.write_metrics(tmp_path, record.metrics[:1])  # a resume rewrites the history
    assert run_folder.read_metrics(tmp_path) == [{"iteration": 1, "loss": 0.5}]


def test_missing_and_corrupt_files_are_named(tmp_path):
    with pytest.raises(ValueError, match=f"{tmp_path} is not a run folder \\(no config.yaml\\)"):
        run_folder.read_config(tmp_path)
    (tmp_path / "config.yaml").write_text("seed: [1\n")
    with pytest.raises(ValueError, match="config.yaml is not valid YAML"):
        run_folder.read_config(tmp_path)
    (tmp_path / "config.yaml").write_text("just words\n")
    with pytest.raises(ValueError, match="config.yaml does not hold a configuration"):
        run_folder.read_config(tmp_path)
    (tmp_path / "metrics.jsonl").write_text('{"iteration": 1}\n{"iteration": \n')
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
