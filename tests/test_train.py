"""Training: config, warm-start schedules, self-play records, buffer, update, arena, resume."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from hydra import compose, initialize_config_dir

from warmjax.games import make
from warmjax.nets import make_network
from warmjax.run import CONF_DIR, to_run_config
from warmjax.search import make_player
from warmjax.train import estimate
from warmjax.train.arena import accept
from warmjax.train.buffer import ReplayBuffer, empty_buffer, write_slot
from warmjax.train.config import ConfigError, RunConfig
from warmjax.train.loop import train
from warmjax.train.selfplay import make_selfplay
from warmjax.train.update import loss_fn, make_update
from warmjax.train.warmstart import (
    BASELINE,
    ENHANCED,
    ENHANCED_VS_BASELINE,
    adaptive_switch,
    schedule,
)

ROOT = Path(__file__).resolve().parent.parent


def compose_config(overrides, run_dir):
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=[*overrides, f"run_dir={run_dir}"])
    return to_run_config(cfg)


# --------------------------------------------------------------------------------------
# Configuration.


def test_hydra_compose_smoke_and_experiments(tmp_path):
    config = compose_config(["+experiment=adaptive_c4", "profile=smoke"], tmp_path)
    assert config.game.name == "connect_four" and config.warmstart.mode == "adaptive"
    assert config.train.iterations == 2 and config.profile_name == "smoke"
    paper = compose_config(["+experiment=fixed_othello"], tmp_path)
    assert paper.profile_name == "paper" and paper.model.preset == "azg512"
    assert (paper.train.iterations, paper.train.games, paper.search.simulations) == (100, 50, 100)
    assert (paper.train.replay_iterations, paper.train.epochs, paper.train.batch_size) == (20, 10, 64)
    assert (paper.arena.games, paper.arena.threshold, paper.warmstart.iprime) == (40, 0.6, 5)
    assert paper.train.learning_rate == 0.005 and paper.model.dropout == 0.3
    for name in ("baseline", "fixed", "adaptive"):
        for game, full in (("c4", "connect_four"), ("othello", "othello"), ("gobang", "gobang")):
            c = compose_config([f"+experiment={name}_{game}", "profile=quick",
                                "warmstart.enhancement=wrora", "warmstart.iprime=3"], tmp_path)
            assert c.game.name == full and c.warmstart.enhancement == "wrora"
    # A command-line model choice wins over the profile's.
    assert compose_config(["model=azg64"], tmp_path).model.preset == "azg64"


@pytest.mark.parametrize("overrides,needle", [
    (["game=othello", "game.name=chess"], "unknown game 'chess'"),
    (["warmstart=fixed", "warmstart.enhancement=mcts2"], "unknown enhancement 'mcts2'"),
    (["warmstart=fixed", "warmstart.iprime=9", "train.iterations=5"], "exceeds"),
    (["warmstart=adaptive", "train.games=7"], "even train.games"),
    (["search.simulations=0"], "search.simulations (m)"),
    (["arena.games=0"], "arena.games (n)"),
    (["arena.threshold=1.5"], "arena.threshold (u)"),
    (["arena.threshold=0"], "arena.threshold (u)"),
])
def test_impossible_settings_are_named(tmp_path, overrides, needle):
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        compose_config(overrides, tmp_path)


def test_unknown_keys_are_rejected():
    with pytest.raises(ConfigError, match="unknown keys in train"):
        RunConfig.from_dict({"train": {"gamez": 3}})


# --------------------------------------------------------------------------------------
# Warm-start schedules.


def test_fixed_schedule_weights():
    weights = [float(schedule("fixed", i, False, 4).weight) for i in range(1, 7)]
    np.testing.assert_allclose(weights, [1.0, 0.75, 0.5, 0.25, 0.0, 0.0])
    active = [bool(schedule("fixed", i, False, 4).active) for i in range(1, 7)]
    assert active == [True] * 4 + [False] * 2
    assert int(schedule("fixed", 2, False, 4).selfplay) == ENHANCED
    assert int(schedule("fixed", 5, False, 4).selfplay) == BASELINE
    assert int(schedule("none", 1, False, 4).selfplay) == BASELINE


def test_adaptive_schedule_and_switch():
    np.testing.assert_allclose([float(schedule("adaptive", i, False, 5).weight)
                                for i in (1, 2, 4)], [1.0, 0.5, 0.25])
    assert int(schedule("adaptive", 3, False, 5).selfplay) == ENHANCED_VS_BASELINE
    assert int(schedule("adaptive", 3, True, 5).selfplay) == BASELINE
    assert not bool(schedule("adaptive", 3, True, 5).active)
    assert bool(adaptive_switch(False, True, 1.0))
    assert not bool(adaptive_switch(False, True, 0.0))  # r must be positive
    assert not bool(adaptive_switch(False, True, -3.0))
    assert bool(adaptive_switch(True, False, -3.0))  # for good


# --------------------------------------------------------------------------------------
# Self-play records.


@functools.lru_cache(maxsize=None)
def c4_players():
    env = make("connect_four")
    strong = make_player("pure_mcts", env, num_simulations=48, temperature_moves=2)
    weak = make_player("random", env)
    return env, strong, weak


def test_selfplay_records_and_value_targets():
    env, strong, weak = c4_players()
    selfplay = jax.jit(make_selfplay(env, weak, strong, 16, temperature_moves=2))
    games = jax.device_get(selfplay(None, jax.random.PRNGKey(0), ENHANCED_VS_BASELINE, 0.5))
    valid = np.asarray(games.valid)
    plies = np.asarray(games.plies)
    np.testing.assert_array_equal(valid.sum(0), plies)
    # Replay each game: the observation at ply t is the state's, and z is the final result
    # for the player to move there.
    step = jax.jit(env.step)
    init_keys = jax.random.split(jax.random.split(jax.random.PRNGKey(0))[1], 16)
    for g in range(16):
        state = env.init(init_keys[g])
        for t in range(plies[g]):
            np.testing.assert_array_equal(games.obs[t, g], np.asarray(state.observation))
            policy, action = games.policy[t, g], int(games.actions[t, g])
            assert abs(policy.sum() - 1) < 1e-5 and bool(state.legal_action_mask[action])
            if t >= 2:  # after T′ the target is the one-hot move
                np.testing.assert_array_equal(policy, np.eye(env.num_actions)[action])
            assert games.value[t, g] == games.results[g, int(state.current_player)]
            state = step(state, action)
        assert bool(state.terminated)
        np.testing.assert_array_equal(games.results[g], np.asarray(state.rewards))
        assert sorted(games.results[g].tolist()) in ([-1.0, 1.0], [0.0, 0.0])
    # The strong side (enhancement here) beats the random baseline side: r < 0.
    assert float(games.baseline_balance) < -8


def test_random_opening_is_unrecorded_and_off_means_unchanged():
    env, strong, weak = c4_players()
    key = jax.random.PRNGKey(2)
    plain = jax.jit(make_selfplay(env, strong, weak, 16, temperature_moves=2))
    off = jax.jit(make_selfplay(env, strong, weak, 16, temperature_moves=2, random_opening=0))
    a, b = plain(None, key, BASELINE, 0.5), off(None, key, BASELINE, 0.5)
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))

    opened = jax.jit(make_selfplay(env, strong, weak, 16, temperature_moves=2,
                                   random_opening=6))
    games = jax.device_get(opened(None, key, BASELINE, 0.5))
    valid, plies = np.asarray(games.valid), np.asarray(games.plies)
    lead = np.argmax(valid, axis=0)  # the first recorded ply of each game
    assert lead.max() <= 6 and len(set(lead.tolist())) >= 3  # k ~ U{0..6}, varied
    step = jax.jit(env.step)
    init_keys = jax.random.split(jax.random.split(key)[1], 16)
    for g in range(16):
        # Unrecorded before k, recorded from k to the end of the game.
        np.testing.assert_array_equal(valid[:, g], (np.arange(len(valid)) >= lead[g])
                                      & (np.arange(len(valid)) < plies[g]))
        state = env.init(init_keys[g])
        for t in range(plies[g]):
            action = int(games.actions[t, g])
            assert bool(state.legal_action_mask[action])  # random moves are legal ones
            if valid[t, g]:
                np.testing.assert_array_equal(games.obs[t, g], np.asarray(state.observation))
                assert games.value[t, g] == games.results[g, int(state.current_player)]
            state = step(state, action)
        assert bool(state.terminated)
        np.testing.assert_array_equal(games.results[g], np.asarray(state.rewards))


def test_selfplay_balance_sign_follows_the_baseline_side():
    env, strong, weak = c4_players()
    selfplay = jax.jit(make_selfplay(env, strong, weak, 16, temperature_moves=0))
    games = selfplay(None, jax.random.PRNGKey(1), ENHANCED_VS_BASELINE, 0.5)
    assert float(games.baseline_balance) > 8  # the baseline is the strong side now
    games = selfplay(None, jax.random.PRNGKey(1), BASELINE, 0.5)
    assert float(games.baseline_balance) == 0.0  # only counted against the enhancement


# --------------------------------------------------------------------------------------
# Buffer, loss, update, arena rule.


def test_buffer_ring_overwrites_oldest_slot():
    buffer = empty_buffer(2, 3, (6, 6, 2), 6)

    def slot(value, count):
        return ReplayBuffer(obs=jnp.zeros((3, 6, 6, 2), bool), policy=jnp.zeros((3, 6)),
                            value=jnp.full(3, value), valid=jnp.arange(3) < count)

    buffer = write_slot(buffer, 0, slot(1.0, 3))
    buffer = write_slot(buffer, 1, slot(2.0, 2))
    assert int(buffer.size()) == 5
    buffer = write_slot(buffer, 0, slot(3.0, 1))  # iteration 3 replaces iteration 1
    np.testing.assert_array_equal(np.asarray(buffer.value), [3, 3, 3, 2, 2, 2])
    assert int(buffer.size()) == 3


def test_loss_matches_hand_computation():
    net = make_network(6, (6, 6, 2), "small", dropout=0.0)
    variables = net.init(jax.random.PRNGKey(0))
    rng = np.random.default_rng(0)
    obs = jnp.asarray(rng.random((5, 6, 6, 2)) < 0.3)
    policy = jnp.asarray(rng.dirichlet(np.ones(6), 5), jnp.float32)
    value = jnp.asarray(rng.choice([-1.0, 0.0, 1.0], 5), jnp.float32)
    total, (v_loss, p_loss, _) = loss_fn(net, variables["params"], variables["batch_stats"],
                                          (obs, policy, value), jax.random.PRNGKey(1))
    (logits, v), _ = net.apply_train(variables, obs, jax.random.PRNGKey(1))
    logits, v = np.asarray(logits, np.float64), np.asarray(v, np.float64)
    log_p = logits - np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1, keepdims=True)) \
        - logits.max(1, keepdims=True)
    expected_p = -np.mean(np.sum(np.asarray(policy) * log_p, axis=1))
    expected_v = np.mean((v - np.asarray(value)) ** 2)
    assert float(v_loss) == pytest.approx(expected_v, rel=1e-5)
    assert float(p_loss) == pytest.approx(expected_p, rel=1e-5)
    assert float(total) == pytest.approx(expected_v + expected_p, rel=1e-5)


def test_training_convolutions_agree():
    # `train_conv` only changes how the convolutions are computed: patches @ kernel or XLA's
    # convolution give the same outputs and the same gradients on the same parameters.
    nets = {impl: make_network(6, (6, 6, 2), "small", dropout=0.0, train_conv=impl)
            for impl in ("patches", "xla")}
    assert make_network(6, (6, 6, 2), "small").train_conv_impl == "patches"  # CPU: auto
    variables = nets["xla"].init(jax.random.PRNGKey(0))
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (5, 6, 6, 2))

    def out_and_grad(net):
        def value_sum(params):
            (logits, v), _ = net.apply_train({**variables, "params": params}, obs,
                                             jax.random.PRNGKey(2))
            return jnp.sum(v) + jnp.sum(jnp.tanh(logits))
        return jax.value_and_grad(value_sum)(variables["params"])

    (a, grad_a), (b, grad_b) = out_and_grad(nets["patches"]), out_and_grad(nets["xla"])
    np.testing.assert_allclose(float(a), float(b), rtol=1e-5)
    for x, y in zip(jax.tree_util.tree_leaves(grad_a), jax.tree_util.tree_leaves(grad_b)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="unknown train_conv 'cudnn'"):
        make_network(6, (6, 6, 2), "small", train_conv="cudnn")


def test_update_fits_a_small_buffer():
    net = make_network(6, (6, 6, 2), "small", dropout=0.0)
    variables = net.init(jax.random.PRNGKey(0))
    optimizer = optax.adam(0.005)
    rng = np.random.default_rng(1)
    rows = 256
    buffer = ReplayBuffer(
        obs=jnp.asarray(rng.random((rows, 6, 6, 2)) < 0.3),
        policy=jnp.asarray(np.eye(6)[rng.integers(0, 6, rows)], jnp.float32),
        value=jnp.asarray(rng.choice([-1.0, 1.0], rows), jnp.float32),
        valid=jnp.arange(rows) < 200,
    )
    update = jax.jit(make_update(net, optimizer, 20, 32))
    _, _, first = update(variables, optimizer.init(variables["params"]), buffer,
                         jax.random.PRNGKey(0))
    assert int(first.steps) == 20 * (200 // 32)
    short = jax.jit(make_update(net, optimizer, 1, 32))
    _, _, one_epoch = short(variables, optimizer.init(variables["params"]), buffer,
                            jax.random.PRNGKey(0))
    # Twenty epochs fit the (random) targets far better than one.
    assert float(first.value) < 0.5 * float(one_epoch.value)
    assert float(first.policy) < 0.7 * float(one_epoch.policy)


def test_arena_acceptance_rule():
    assert bool(accept(3, 2, 0.6))  # 3 / 5 = 0.6 meets u
    assert not bool(accept(5, 4, 0.6))
    assert not bool(accept(0, 0, 0.6))  # an all-draw arena rejects
    assert bool(accept(1, 0, 1.0))
    assert not bool(accept(0, 3, 0.6))


# --------------------------------------------------------------------------------------
# Runs: outputs, exact resume after kill -9, corrupt checkpoints.

SMOKE = ["+experiment=adaptive_c4", "profile=smoke", "train.iterations=3", "tensorboard=false"]


def read_metrics(run_dir):
    rows = [json.loads(line) for line in (Path(run_dir) / "metrics.jsonl").read_text().splitlines()]
    return [{k: v for k, v in row.items() if not k.startswith("seconds")} for row in rows]


def params_of(state):
    return jax.tree_util.tree_leaves(jax.device_get(state.params))


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("reference")
    config = compose_config(SMOKE, run_dir)
    state = train(config, log=lambda _: None)
    return run_dir, state


def test_run_writes_its_outputs(reference_run):
    run_dir, state = reference_run
    rows = read_metrics(run_dir)
    assert [r["iteration"] for r in rows] == [1, 2, 3]
    for key in ("warmstart_active", "weight", "switched", "r_balance", "arena_wins",
                "arena_draws", "arena_losses", "accepted", "loss_value", "loss_policy",
                "examples"):
        assert key in rows[0]
    raw = json.loads((run_dir / "metrics.jsonl").read_text().splitlines()[0])
    assert {"seconds_selfplay", "seconds_train", "seconds_arena"} <= set(raw)
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


def test_kill_and_resume_is_exact(reference_run, tmp_path):
    ref_dir, ref_state = reference_run
    run_dir = tmp_path / "killed"
    cmd = [sys.executable, "-m", "warmjax.run", *SMOKE, f"hydra.run.dir={run_dir}"]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    first = run_dir / "checkpoints" / "state_000001.ckpt"
    deadline = time.time() + 300
    while not first.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert first.exists(), "the run was killed before its first checkpoint"
    done = sorted(p.name for p in (run_dir / "checkpoints").glob("state_*.ckpt"))
    assert "state_000003.ckpt" not in done  # it really was interrupted
    messages = []
    state = train(compose_config(SMOKE, run_dir), log=messages.append)
    assert any("resuming" in m for m in messages)
    assert read_metrics(run_dir) == read_metrics(ref_dir)
    for a, b in zip(params_of(state), params_of(ref_state)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


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


def test_paper_profile_on_cpu_states_its_cost(tmp_path, monkeypatch, capsys):
    from warmjax import run

    config = compose_config(["+experiment=adaptive_c4", "model=small"], tmp_path)
    assert config.profile_name == "paper"
    monkeypatch.setattr(run, "estimate_paper_seconds", lambda c: 36_000.0)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    assert run.warn_paper_on_cpu(config, confirm=True) is False
    out = capsys.readouterr().out
    assert "about 10 hours" in out and "profile=quick" in out
    monkeypatch.setattr("builtins.input", lambda prompt: "y")
    assert run.warn_paper_on_cpu(config, confirm=True) is True
    quick = compose_config(["+experiment=adaptive_c4", "profile=quick"], tmp_path)
    assert run.warn_paper_on_cpu(quick, confirm=True) is True  # no question asked


def test_paper_estimate_is_a_real_measurement(tmp_path):

    config = compose_config(["+experiment=adaptive_c4", "model=small", "train.games=4",
                             "train.iterations=2"], tmp_path)
    per_eval = estimate.seconds_per_evaluation(config)
    assert 0 < per_eval < 1
    assert 0 < estimate.estimate_paper_seconds(config) < 3600
    # The arithmetic, by hand, for Connect Four 6x6: 28.8 plies, 2 mirror copies.
    t, plies = config.train, 0.8 * 36
    per_iteration = (t.games * plies * config.search.simulations
                     + t.epochs * t.replay_iterations * t.games * plies * 2 * 3
                     + config.arena.games * plies * config.search.simulations)
    assert estimate.run_seconds(config, 1e-3) == pytest.approx(2 * per_iteration * 1e-3)
    bigger = compose_config(["+experiment=adaptive_c4", "model=small", "train.games=4",
                             "train.iterations=4"], tmp_path)
    assert estimate.run_seconds(bigger, per_eval) == pytest.approx(
        2 * estimate.run_seconds(config, per_eval))


def test_iteration_vmaps_over_independent_runs(tmp_path):
    from warmjax.train.iteration import Trainer

    config = compose_config(SMOKE, tmp_path)
    trainer = Trainer(config)
    first = trainer.init_state()
    second = first.replace(rng=jax.random.PRNGKey(7))
    runs = jax.tree_util.tree_map(lambda a, b: jnp.stack([a, b]), first, second)
    states, metrics = jax.jit(jax.vmap(trainer.iteration))(runs)
    assert np.asarray(states.iteration).tolist() == [1, 1]
    assert np.asarray(metrics["examples"]).shape == (2,)
    # Each run's buffer holds its own self-play: the two seeds played different games.
    obs = np.asarray(states.buffer.obs)
    assert not np.array_equal(obs[0], obs[1])
