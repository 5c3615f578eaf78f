"""Evidence that training learns, at CI scale, judged by a perfect-play solver.

A smaller version of the quick profile's check (README, "Measured"): about a minute of CPU
instead of ten, so the bars are lower. On 300 solved positions (warmjax.oracle), the trained
network's search and its policy head must choose optimal moves clearly more often than the
same network untrained (measured with the quick profile's search: 63% → 82% and 33% → 59%;
with the papers' search, 63% → 77% and 33% → 46%), and it must beat random play. This
test's six iterations measured 63% → 82% and 33% → 56%, and won 60 of 60 games against
random (6 December 2026), against bars of +10 points and 54 wins.
"""

from __future__ import annotations

import jax
import pytest
from hydra import compose, initialize_config_dir

from warmjax.matches.pair_play import make_match
from warmjax.run import CONF_DIR, to_run_config
from warmjax.search import make_player
from warmjax.train import run_folder
from warmjax.train.iteration import STAGES
from warmjax.train.loop import train

from ..helpers import xla_optimised

SHORT = ["+experiment=adaptive_c4", "profile=quick", "tensorboard=false",
         "train.iterations=6", "train.games=64", "train.replay_iterations=4",
         "search.simulations=24", "arena.games=20", "probe.positions=300"]
SIMS = 24
SAMPLED_PLIES = 4  # the first plies of each game are sampled so that the 60 games differ


# End to end: trains runs (`pytest -m "not slow"` leaves them out).
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("learn")
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=[*SHORT, f"run_dir={run_dir}"])
    config = to_run_config(cfg)
    from warmjax.train.iteration import Trainer

    trainer = Trainer(config)
    with xla_optimised():  # six iterations of 64 games: more computing than compiling
        state = train(config, log=lambda _: None)
    return trainer, state


def score(trainer, params_a, player_b, params_b, games=60, seed=0):
    env = trainer.env
    me = make_player("mcts", env, trainer.network.apply, simulations=SIMS,
                     temperature_moves=SAMPLED_PLIES)
    result = jax.device_get(jax.jit(make_match(env, me, player_b, games))(
        params_a, params_b, jax.random.PRNGKey(seed)))
    return int(result.wins), int(result.draws), int(result.losses)


def test_trained_agent_beats_random_and_its_untrained_self(trained):
    trainer, state = trained
    env = trainer.env
    random = make_player("random", env)
    wins, _, _ = score(trainer, state.params, random, None)
    assert wins >= 54, f"trained agent won only {wins}/60 against random"


def test_trained_agent_moves_closer_to_perfect_play(trained):
    trainer, state = trained
    oracle = jax.jit(trainer.probe)
    key = jax.random.PRNGKey(0)
    before = jax.device_get(oracle(trainer.init_state().params, key, trainer.probe_states))
    after = jax.device_get(oracle(state.params, key, trainer.probe_states))
    assert after["oracle_optimal"] >= before["oracle_optimal"] + 0.10, (before, after)
    assert after["oracle_policy"] >= before["oracle_policy"] + 0.10, (before, after)


def test_the_run_times_its_stages(trained):
    # This run keeps the default `stage_times=true` (the smoke runs of other tests turn it
    # off): each iteration's row holds the wall seconds of its stages, which add up to no
    # more than the whole iteration.
    trainer, _ = trained
    rows = run_folder.read_metrics(trainer.config.run_dir)
    assert len(rows) == trainer.config.train.iterations
    for row in rows:
        stages = [getattr(row, f"seconds_{s}") for s in STAGES]
        assert all(s >= 0 for s in stages) and sum(stages) <= row.seconds_total + 1e-3
