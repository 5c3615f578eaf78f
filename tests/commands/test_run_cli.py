"""`python -m warmjax.run` as a user meets it: folder names, rejected settings, the last line,
and the final network's checksum."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jax
import pytest

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.train import run_folder
from warmjax.train.network_io import load_network, save_network
from warmjax.train.run_config import RunConfig

from ..helpers import ROOT, TEST_CACHE

# End to end: trains runs or runs commands (`pytest -m "not slow"` leaves them out).
pytestmark = pytest.mark.slow


def run_cli(*args, cwd):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-m", "warmjax.run", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_rejected_config_leaves_no_folder(tmp_path):
    out = run_cli("+experiment=fixed_c4", "profile=smoke", "warmstart.iprime=500",
                  f"run_root={tmp_path}", cwd=ROOT)
    assert out.returncode == 2
    assert "warmstart.iprime (I′ = 500) exceeds train.iterations" in out.stderr
    assert "Traceback" not in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_run_folder_name_and_last_lines(tmp_path):
    cache = tmp_path / "jax_cache"
    out = run_cli("+experiment=baseline_c4", "profile=smoke", "tensorboard=false",
                  "stage_times=false", "probe.positions=16", f"run_root={tmp_path}",
                  f"compilation_cache={cache}", cwd=ROOT)
    assert out.returncode == 0, out.stderr
    (folder,) = (tmp_path / "baseline_c4").iterdir()
    # Neither run_root nor the compilation cache is part of the run's name.
    assert folder.name == "probe.positions=16,profile=smoke,stage_times=false,tensorboard=false"
    # Without the stage clock's host callbacks the compiled iteration goes to the cache.
    assert any(path.name.startswith("jit_iteration") for path in cache.iterdir())
    assert (folder / "network.msgpack").exists()
    last = out.stdout.strip().splitlines()[-4:]
    assert last[0] == f"done: the final network is {folder}/network.msgpack; next try"
    assert "python -m warmjax.versus" in last[1] and "python -m warmjax.oracle" in last[2]
    assert "python -m warmjax.play" in last[3]


def test_network_checksum_catches_corruption(tmp_path):
    env = make("connect_four")
    network = make_network(env.num_actions, env.observation_shape, "small", channels=4,
                           fc=(8, 8))
    variables = network.init(jax.random.PRNGKey(0))
    config = RunConfig(model=RunConfig().model.__class__(preset=None, channels=4, fc=(8, 8)))
    save_network(tmp_path, config, network, variables, iteration=3)
    meta = json.loads((tmp_path / "network.json").read_text())
    assert len(meta["sha256"]) == 64
    load_network(tmp_path)  # sound
    path = tmp_path / "network.msgpack"
    data = bytearray(path.read_bytes())
    for i in range(100, 300):
        data[i] ^= 0xFF  # 200 flipped bytes
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"network.msgpack is corrupt: its SHA-256") as err:
        load_network(tmp_path)
    # It says how to recover: a resume after iteration 3 writes the network anew.
    assert "run the run's training command again with train.iterations=4: it resumes " \
        f"from the last checkpoint in {tmp_path / 'checkpoints'}" in str(err.value)


@pytest.mark.parametrize("args,message", [
    (["runs/no_such/profile=quik"], "error: no run folder runs/no_such/profile=quik"),
    (["{run}", "--games", "7"], "--games must be even"),
    (["{run}", "--opponents", "nobody"], "invalid choice: 'nobody'"),
    (["{run}"], "network.msgpack is corrupt"),
])
def test_versus_user_errors(tmp_path, capsys, args, message):
    from warmjax import versus

    env = make("connect_four")
    network = make_network(env.num_actions, env.observation_shape, "small", channels=4,
                           fc=(8, 8))
    config = RunConfig(model=RunConfig().model.__class__(preset=None, channels=4, fc=(8, 8)))
    save_network(tmp_path, config, network, network.init(jax.random.PRNGKey(0)), iteration=1)
    run_folder.write_config(tmp_path, config)
    (tmp_path / "network.msgpack").write_bytes(b"not a network")
    with pytest.raises(SystemExit) as exit_info:
        versus.main([a.format(run=tmp_path) for a in args])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_submitit_local_sweep(tmp_path):
    # The cluster path (method: a Hydra sweep through the submitit launcher), run locally.
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    # Without the stage clock's host callbacks the iteration can go into the session's cache,
    # but the local launcher starts both jobs at once: each compiles it (9.8 and 10.5 s in a
    # recorded run of the suite).
    out = run_cli("-m", "+experiment=baseline_c4", "profile=smoke", "seed=0,1",
                  "hydra/launcher=submitit_local", "tensorboard=false", "probe.positions=16",
                  "stage_times=false", f"compilation_cache={TEST_CACHE}", f"run_root={tmp_path}",
                  cwd=ROOT)
    assert out.returncode == 0, out.stderr
    folders = sorted(p for p in (tmp_path / "baseline_c4").iterdir() if p.name.startswith("probe."))
    assert [p.name.split("seed=")[1].split(",")[0] for p in folders] == ["0", "1"]
    metrics = [[json.loads(line) for line in (p / "metrics.jsonl").read_text().splitlines()]
               for p in folders]
    assert all(len(m) == 2 and (p / "network.msgpack").exists() for m, p in zip(metrics, folders))
    assert metrics[0][0]["loss_policy"] != metrics[1][0]["loss_policy"]  # two seeds, two runs
