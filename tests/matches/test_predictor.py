"""The warm-start predictor (matches/predictor.py) and `python -m warmjax.advise`: its rates
against the players scored directly, its interval, a registered game and a game of one's
own, and what it says of the registered study."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

from warmjax.matches import predictor
from warmjax.perfect import positions
from warmjax.probe import score
from warmjax.search.players import make_player

from ..helpers import ROOT, compose_config


def test_the_bootstrap_interval_of_constant_differences_is_that_constant():
    assert predictor.bootstrap_interval(np.full((3, 50), 0.25)) == (0.25, 0.25)
    low, high = predictor.bootstrap_interval(np.array([[1.0, 0.0] * 50, [0.0, 1.0] * 50]))
    assert low < 0.5 < high and high - low < 0.3


@pytest.mark.slow
def test_the_predictor_is_the_two_searches_rates_on_the_labelled_set(tmp_path):
    config = compose_config(["+experiment=adaptive", "profile=fast", "game=connect_four"],
                            tmp_path)
    result = predictor.measure(config, seeds=(4, 5), count=60)
    assert result.settings["positions"] == 60 and result.settings["simulations"] == 64
    assert (result.settings["warm_player"], result.settings["baseline_player"]) == (
        "rollout", "mcts")
    # Seed 5 by hand: the run of seed 5 starts from this network; the players search
    # without root noise, argmax, as the probe judges.
    env = __import__("warmjax.games", fromlist=["make"]).make("connect_four")
    labelled = positions.load(positions.path_for(env), env.num_actions).subset(60)
    states = score.replay(env, labelled)
    network = config.model.build(env)
    key, net_key = jax.random.split(jax.random.PRNGKey(5))
    variables = network.init(net_key)
    warm_key, base_key = jax.random.split(key)
    judging = config.search.without_noise()
    rates = []
    for name, k in (("rollout", warm_key), ("mcts", base_key)):
        player = make_player(name, env, network.apply, judging, temperature_moves=0)
        actions = jax.jit(lambda v, kk, s, p=player: p(v, kk, s).action)(variables, k, states)
        rates.append(score.judge(labelled, actions)["optimal"])
    assert (result.warm[1], result.base[1]) == pytest.approx(tuple(rates))
    mean = 100 * (np.mean(result.warm) - np.mean(result.base))
    assert result.points == pytest.approx(mean)
    assert result.interval[0] <= result.points <= result.interval[1]


def run_advise(*args, env=None):
    return subprocess.run([sys.executable, "-m", "warmjax.advise", *args], cwd=ROOT,
                          env=dict(os.environ, JAX_PLATFORMS="cpu", **(env or {})),
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_advise_on_a_registered_game_and_on_a_game_of_ones_own(tmp_path, capsys):
    out = run_advise("game=gobang", "--positions", "40", "--seeds", "0", "1",
                     "--out", str(tmp_path / "gobang.json"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "predictor: " in out.stdout and "rollout (warm start) optimal" in out.stdout
    saved = json.loads((tmp_path / "gobang.json").read_text())
    assert saved["settings"]["game"] == "gobang" and len(saved["warm_optimal"]) == 2
    # Beside it, the registered study's five boards, and no more than it found.
    assert "| Othello 6×6 | +21.8" in out.stdout
    assert "Not yet analysed" in out.stdout or "The prediction" in out.stdout

    # A game of one's own: labelled by search, then advised.
    examples = str(ROOT / "examples")
    labels = subprocess.run(
        [sys.executable, "-m", "warmjax.labels", "--module", "toy_three", "--game",
         "toy_three", "--count", "12", "--simulations", "32", "--out",
         str(tmp_path / "toy.json")], cwd=ROOT, capture_output=True, text=True,
        env=dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=examples), timeout=600)
    assert labels.returncode == 0, labels.stderr[-2000:]
    toy = run_advise("game=registered", "game.name=toy_three", "game.module=toy_three",
                     "search.simulations=8", "--labelled", str(tmp_path / "toy.json"),
                     "--seeds", "0", "1", env={"PYTHONPATH": examples})
    assert toy.returncode == 0, toy.stderr[-2000:]
    assert "toy_three" in toy.stdout and "12 labelled positions" in toy.stdout
    assert "m = 8" in toy.stdout

    # Mistakes are one line, exit 2.
    from warmjax import advise

    for args, words in [(["game=hex_7", "--labelled", str(tmp_path / "none.json")],
                         "no labelled set"),
                        (["game=animal_shogi"], "no shipped labelled positions"),
                        (["game=othelo"], "othelo"),
                        (["--out", "/proc/advice.json"], "cannot write")]:
        with pytest.raises(SystemExit) as stopped:
            advise.main(args)
        assert stopped.value.code == 2, args
        lines = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
        assert len(lines) == 1 and words in lines[0], (args, lines)


def _five_boards(gains: dict[str, float]) -> list[dict]:
    """The committed record's five boards with fabricated early gains (rates), each over
    seeds 70-73 with differences ±0.01 about its mean."""
    from warmjax import advise

    boards = []
    for b in advise.read_record()["boards"]:
        mean = gains[b["name"]]
        boards.append({"name": b["name"], "title": b["title"], "sample": b["sample"],
                       "predictor": b["predictor"]["points"],
                       "gain": {"mean": mean, "interval": [mean - 0.01, mean + 0.01],
                                "seeds": [70, 71, 72, 73]}})
    return boards


def test_advise_says_what_the_analysis_found_and_that_a_failed_prediction_failed():
    from warmjax import advise
    from warmjax.analysis import ranking

    record = advise.read_record()
    order = [b["name"] for b in sorted(record["boards"], key=lambda b: -b["predictor"]["points"])]
    # The gains in the predictor's order: ρ = 1, p = 1/120; Othello and Gobang in the one
    # placement of 20 that matches it best: conditional p = 1/20 (holds at 0.10).
    same = {name: 0.05 - 0.01 * i for i, name in enumerate(order)}
    held = advise.analysed(record, {"prediction": ranking.prediction(
        _five_boards(same), out_of_sample_holds_at=0.10)}, "2026-12-07")
    assert held["analysed"] == "2026-12-07"
    assert held["outcomes"][order[0]] == {"points": pytest.approx(5.0),
                                          "interval": [pytest.approx(4.0), pytest.approx(6.0)],
                                          "seeds": 4}
    assert "ρ = +1.00, exact one-sided p = 0.00833 over 120 orderings" in held["verdict"]
    assert "Out of sample (Othello 6×6, Gobang 6×6): holds, conditional p = 0.05" \
        in held["verdict"]
    assert held["verdict"].endswith("no more.") and "failed" not in held["verdict"]
    table = advise.studied_table(held)
    assert "not yet measured" not in table and "| +5.0 [+4.0, +6.0] |" in table
    # The reverse order: ρ = −1 counts against the prediction, and advise says it failed.
    reverse = {name: -g for name, g in same.items()}
    failed = advise.analysed(record, {"prediction": ranking.prediction(
        _five_boards(reverse), out_of_sample_holds_at=0.10)}, "2026-12-07")
    assert "ranking counts against the prediction: Spearman's ρ = -1.00" in failed["verdict"]
    assert failed["verdict"].endswith("whether warm start will pay on a new game.")
    assert "The prediction failed" in advise.studied_table(failed)
    # A record without the prediction (an incomplete or other analysis) is refused.
    with pytest.raises(ValueError, match="no prediction"):
        advise.analysed(record, {}, "2026-12-07")
