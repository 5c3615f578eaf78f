"""Known-answer and differential tests of the Bayesian Elo fit (`warmjax.rating.elo`).

The references here are written straight from the model's probabilities,

    P(first wins) = f(-Δ - adv + drawelo),  P(first loses) = f(Δ + adv + drawelo),
    P(draw) = 1 - P(first wins) - P(first loses),  f(x) = 1 / (1 + 10^(x/400)),

with no use of the implementation's γ/θ algebra, so a wrong sign, scale or prior shows up.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warmjax.rating.elo import EloResult, bayes_elo, elo_scale, outcome_probabilities

ADV, DRAWELO = 32.8, 97.3
SCALE = elo_scale(DRAWELO)


def f(x):
    return 1.0 / (1.0 + 10.0 ** (np.asarray(x, np.float64) / 400.0))


def ref_log_posterior(elo, games, *, advantage=ADV, drawelo=DRAWELO, prior=2.0):
    """Log-posterior (up to a constant) of model ratings `elo [P]`, straight from the spec.

    The prior as bayeselo adds it: a pair (a, b) that played n_ab real games gets
    0.25 · prior · n_ab · (1/n_a + 1/n_b) virtual draws with a moving first and as many with
    b moving first (n_a: all of a's games), each scored like a real draw.
    """
    elo = np.asarray(elo, np.float64)
    g = np.asarray(games, np.float64).reshape(-1, 3)
    i, j, s = g[:, 0].astype(int), g[:, 1].astype(int), g[:, 2]
    delta = elo[i] - elo[j]
    pw = f(-delta - advantage + drawelo)
    pl = f(delta + advantage + drawelo)
    p = np.where(s == 1.0, pw, np.where(s == 0.0, pl, 1.0 - pw - pl))
    total = np.sum(np.log(p))
    if prior:
        n_games, n_pair = {}, {}
        for a, b in zip(i, j):
            n_games[a] = n_games.get(a, 0) + 1
            n_games[b] = n_games.get(b, 0) + 1
            pair = (min(a, b), max(a, b))
            n_pair[pair] = n_pair.get(pair, 0) + 1
        for (a, b), n_ab in n_pair.items():
            count = 0.25 * prior * n_ab * (1.0 / n_games[a] + 1.0 / n_games[b])
            for first, second in ((a, b), (b, a)):
                d = elo[first] - elo[second]
                p_draw = 1.0 - f(-d - advantage + drawelo) - f(d + advantage + drawelo)
                total += count * np.log(p_draw)
    return total


def bisect_max_1d(fun, lo=-3000.0, hi=3000.0, h=1e-3):
    """Maximiser of a concave 1-D function by bisection on its central-difference slope."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if fun(mid + h) - fun(mid - h) > 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def two_player_map(games, **kw):
    """Model Δ = elo_0 - elo_1 at the maximum of the reference log-posterior."""
    return bisect_max_1d(lambda d: ref_log_posterior([d / 2, -d / 2], games, **kw))


def record(first, second, wins, draws, losses):
    """`wins`/`draws`/`losses` games of `first` (moving first) against `second`."""
    return (
        [(first, second, 1.0)] * wins
        + [(first, second, 0.5)] * draws
        + [(first, second, 0.0)] * losses
    )


def random_tournament(rng, num_players, rounds, true_sd=150.0):
    """Double round robins (each colour once per pair per round), simulated from the model."""
    true = rng.normal(0.0, true_sd, num_players)
    games = []
    for _ in range(rounds):
        for a in range(num_players):
            for b in range(num_players):
                if a != b:
                    pw, pd, _ = outcome_probabilities(true[a], true[b])
                    u = rng.random()
                    games.append((a, b, 1.0 if u < pw else 0.5 if u < pw + pd else 0.0))
    return games


# --- the model and the scale ------------------------------------------------------------


def test_outcome_probabilities_sign_convention():
    win, draw, loss = outcome_probabilities(100.0, 0.0, advantage=0.0)
    assert win > loss  # the higher-rated first player wins more often
    assert win + draw + loss == pytest.approx(1.0)
    assert win == pytest.approx(f(-100.0 + DRAWELO))
    win0, _, loss0 = outcome_probabilities(0.0, 0.0, advantage=0.0)
    assert win0 == pytest.approx(loss0)
    win_adv, _, loss_adv = outcome_probabilities(0.0, 0.0)
    assert win_adv > loss_adv  # the first-move advantage favours the first player


def test_draw_probability_factorises():
    # P(draw) = (θ² - 1) P(win) P(loss) with θ = 10^(drawelo/400): a draw acts like one win
    # plus one loss, which is what makes the MM updates and the closed forms below work.
    theta = 10.0 ** (DRAWELO / 400.0)
    d = np.linspace(-800.0, 800.0, 33)
    win, draw, loss = outcome_probabilities(d, 0.0)
    np.testing.assert_allclose(draw, (theta**2 - 1.0) * win * loss, rtol=1e-12)


def test_elo_scale_matches_no_draw_slope():
    # d/dΔ of the expected score P(win) + P(draw)/2 at Δ = 0 (adv = 0), per unit of *scaled*
    # Elo, equals the no-draw slope ln 10 / 1600.
    h = 1e-3

    def expected(d):
        win, draw, _ = outcome_probabilities(d, 0.0, advantage=0.0)
        return win + 0.5 * draw

    slope_model = (expected(h) - expected(-h)) / (2 * h)
    assert slope_model / SCALE == pytest.approx(math.log(10.0) / 1600.0, rel=1e-6)
    x = 10.0 ** (-DRAWELO / 400.0)
    assert SCALE == pytest.approx(4 * x / (1 + x) ** 2)
    assert 0.92 < SCALE < 0.93


# --- two players: closed forms ----------------------------------------------------------


@pytest.mark.parametrize(
    "wins, draws, losses", [(7, 0, 3), (3, 0, 7), (5, 4, 1), (2, 6, 2), (9, 1, 0), (1, 3, 6)]
)
def test_two_players_closed_form_no_advantage(wins, draws, losses):
    # With adv = 0 and y = 10^(Δ/400), θ = 10^(drawelo/400): P(win) = y/(y+θ),
    # P(loss) = 1/(1+θy), P(draw) ∝ P(win) P(loss), so the log-likelihood is
    # (W+D) log(y/(y+θ)) + (L+D) log(1/(1+θy)) + const. Setting its derivative in log y to 0:
    # (W+D)(1+θy) = (L+D) y (y+θ), i.e. (L+D) y² + θ (L-W) y - (W+D) = 0.
    theta = 10.0 ** (DRAWELO / 400.0)
    w, d, l_ = wins, draws, losses
    y = (theta * (w - l_) + math.sqrt(theta**2 * (w - l_) ** 2 + 4 * (l_ + d) * (w + d))) / (
        2 * (l_ + d)
    )
    delta = 400.0 * math.log10(y)
    # Split the record over both colours: colours don't matter when adv = 0.
    games = record(0, 1, wins, draws, 0) + record(1, 0, losses, 0, 0)
    res = bayes_elo(games, 2, advantage=0.0, prior=0.0)
    np.testing.assert_allclose(res.ratings, [SCALE * delta / 2, -SCALE * delta / 2], atol=1e-7)
    # The same Δ maximises the reference likelihood (checks the closed form itself).
    assert two_player_map(games, advantage=0.0, prior=0.0) == pytest.approx(delta, abs=1e-5)


@pytest.mark.parametrize("per_colour", [(6, 2, 2), (3, 3, 4), (5, 0, 5)])
def test_two_players_with_advantage_matches_bruteforce(per_colour):
    w, d, l_ = per_colour
    games = record(0, 1, w, d, l_) + record(1, 0, l_, d, w)  # same record from each seat
    res = bayes_elo(games, 2, prior=0.0)
    delta = two_player_map(games, prior=0.0)
    assert res.ratings[0] - res.ratings[1] == pytest.approx(SCALE * delta, abs=1e-5)
    if w == l_:
        assert res.ratings[0] == pytest.approx(0.0, abs=1e-9)


def test_single_game_prior_closed_form():
    # One win of A over B; prior 2 gives the pair 0.25 · 2 · 1 · (1/1 + 1/1) = 1 virtual draw
    # with each player first: 2 in all. With adv = 0 the closed form above holds with
    # W = 1, D = 2, L = 0: 2 y² - θ y - 3 = 0.
    theta = 10.0 ** (DRAWELO / 400.0)
    y = (theta + math.sqrt(theta**2 + 24.0)) / 4.0
    delta = 400.0 * math.log10(y)
    res = bayes_elo([(0, 1, 1.0)], 2, advantage=0.0)
    np.testing.assert_allclose(res.ratings, [SCALE * delta / 2, -SCALE * delta / 2], atol=1e-7)


def test_single_game_prior_with_advantage_matches_bruteforce():
    games = [(0, 1, 1.0)]
    res = bayes_elo(games, 2)
    delta = two_player_map(games)
    assert res.ratings[0] - res.ratings[1] == pytest.approx(SCALE * delta, abs=1e-5)
    # Winning as the second player is worth more than winning as the first.
    res_second = bayes_elo([(1, 0, 0.0)], 2)
    assert res_second.ratings[0] > res.ratings[0] > 0


@pytest.mark.parametrize("wins, expected", [(1, 89.26), (2, 150.16), (3, 195.84),
                                             (4, 232.22), (5, 262.38)])
def test_prior_matches_bayeselo_reference_figures(wins, expected):
    # bayeselo v0057 with its defaults (advantage 32.8, drawelo 97.3, prior 2): player 0
    # moves first and wins every one of `wins` games; the model Elo difference it reports.
    res = bayes_elo([(0, 1, 1.0)] * wins, 2)
    assert res.model_ratings[0] - res.model_ratings[1] == pytest.approx(expected, abs=0.01)


def test_perfect_record_without_prior_is_an_error():
    with pytest.raises(ValueError, match="prior=0.*never win or draw"):
        bayes_elo([(0, 1, 1.0)], 2, prior=0.0)
    with pytest.raises(ValueError, match=r"\[b\] never win or draw against players \[a\]"):
        bayes_elo([(0, 1, 1.0), (1, 0, 0.0)], 2, prior=0.0, names=["a", "b"])
    # A single draw is enough for the maximum-likelihood ratings to exist.
    res = bayes_elo([(0, 1, 1.0), (1, 0, 0.5)], 2, prior=0.0)
    assert np.all(np.isfinite(res.ratings))


def test_perfect_record_rating_grows_without_bound_as_prior_vanishes():
    # For a tiny prior the MAP satisfies y ≈ θ / (h n_v) with n_v = prior virtual draws:
    # every tenfold cut in the prior adds 400 model Elo to Δ, i.e. 200 * scale to A's rating.
    priors = [1.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5]
    top = [bayes_elo([(0, 1, 1.0)], 2, prior=p).ratings[0] for p in priors]
    steps = np.diff(top)
    assert np.all(steps > 0)
    assert steps[-1] == pytest.approx(200.0 * SCALE, rel=1e-3)


# --- symmetry, centring, ordering, LOS --------------------------------------------------


def test_symmetric_records_give_equal_ratings():
    games = record(0, 1, 3, 1, 2) + record(1, 0, 3, 1, 2)
    res = bayes_elo(games, 2)
    np.testing.assert_allclose(res.ratings, [0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(res.los, [[0.5, 0.5], [0.5, 0.5]], atol=1e-9)


def test_cyclic_three_players_all_zero():
    # A beats B, B beats C, C beats A, from both seats: invariant under the rotation.
    games = []
    for a, b in [(0, 1), (1, 2), (2, 0)]:
        games += record(a, b, 4, 1, 0) + record(b, a, 0, 1, 4)
    res = bayes_elo(games, 3)
    np.testing.assert_allclose(res.ratings, 0.0, atol=1e-9)
    np.testing.assert_allclose(res.plus, res.plus[0], rtol=1e-9)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1), num_players=st.integers(2, 6), prior=st.sampled_from([0.5, 2.0])
)
def test_random_tournaments_invariants(seed, num_players, prior):
    rng = np.random.default_rng(seed)
    games = random_tournament(rng, num_players, rounds=2)
    res = bayes_elo(games, num_players, prior=prior)
    assert res.converged
    assert abs(res.ratings.mean()) < 1e-9
    assert np.all(res.lower < res.ratings) and np.all(res.ratings < res.upper)
    np.testing.assert_allclose(res.plus, res.minus, rtol=1e-12)
    np.testing.assert_allclose(res.los + res.los.T, 1.0, atol=1e-12)
    higher = res.ratings[:, None] > res.ratings[None, :] + 1e-9
    assert np.all(res.los[higher] > 0.5)
    assert res.games.sum() == 2 * len(games)
    assert res.score.sum() == pytest.approx(len(games))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), num_players=st.integers(2, 5))
def test_turning_a_loss_into_a_win_raises_the_player_above_everyone(seed, num_players):
    # Along the path from loss to win the MAP moves by Λ⁻¹ (e_a - e_b) times a positive
    # factor, a potential that peaks strictly at a (maximum principle on a connected
    # Laplacian): a's rating rises relative to every other player.
    rng = np.random.default_rng(seed)
    games = random_tournament(rng, num_players, rounds=1)
    losses = [k for k, g in enumerate(games) if g[2] == 0.0]
    if not losses:
        return
    k = losses[rng.integers(len(losses))]
    a, b, _ = games[k]
    before = bayes_elo(games, num_players).ratings
    flipped = list(games)
    flipped[k] = (a, b, 1.0)
    after = bayes_elo(flipped, num_players).ratings
    gain = (after[a] - after) - (before[a] - before)
    assert np.all(np.delete(gain, a) > 0)


def test_more_wins_higher_rating_and_los():
    games = []
    games += record(0, 1, 3, 0, 1) + record(1, 0, 1, 0, 3)  # A 6-2 against B
    games += record(0, 2, 3, 0, 1) + record(2, 0, 1, 0, 3)  # A 6-2 against C
    games += record(1, 2, 2, 0, 2) + record(2, 1, 2, 0, 2)  # B and C split
    res = bayes_elo(games, 3, names=["A", "B", "C"])
    assert res.ratings[0] > res.ratings[1] == pytest.approx(res.ratings[2], abs=1e-9)
    assert res.los[0, 1] > 0.5 and res.los[0, 1] + res.los[1, 0] == pytest.approx(1.0)
    assert res.los[1, 2] == pytest.approx(0.5, abs=1e-9)


# --- MM against a direct maximisation -------------------------------------------------


def newton_reference(games, num_players, **kw):
    """MAP by damped Newton on finite differences of `ref_log_posterior`, elo_0 pinned at 0.

    Returns:
      (model ratings [P] with mean 0, covariance [P-1, P-1] of elo_i - elo_0, i >= 1).
    """

    def fun(x):
        return ref_log_posterior(np.concatenate([[0.0], x]), games, **kw)

    def grad(x, h=1e-3):
        e = np.eye(x.size) * h
        return np.array([(fun(x + e[m]) - fun(x - e[m])) / (2 * h) for m in range(x.size)])

    def hess(x, h=0.5):
        e = np.eye(x.size) * h
        rows = [(grad(x + e[m]) - grad(x - e[m])) / (2 * h) for m in range(x.size)]
        hm = np.array(rows)
        return (hm + hm.T) / 2

    x = np.zeros(num_players - 1)
    for _ in range(100):
        step = -np.linalg.solve(hess(x), grad(x))
        while fun(x + step) < fun(x) - 1e-12:
            step /= 2
        x = x + step
        if np.max(np.abs(step)) < 1e-9:
            break
    elo = np.concatenate([[0.0], x])
    return elo - elo.mean(), np.linalg.inv(-hess(x))


@pytest.mark.parametrize("prior", [2.0, 0.0])
def test_mm_matches_newton_on_random_tournament(prior):
    rng = np.random.default_rng(1234)
    num_players = 5
    games = random_tournament(rng, num_players, rounds=3)
    res = bayes_elo(games, num_players, prior=prior)
    elo, cov_rel = newton_reference(games, num_players, prior=prior)
    np.testing.assert_allclose(res.model_ratings, elo, atol=1e-6)
    np.testing.assert_allclose(res.ratings, SCALE * elo, atol=1e-6)
    # The Laplace covariance of the differences elo_i - elo_0 matches the curvature of the
    # reference log-posterior (gauge-free, so it doesn't depend on the mean-zero choice).
    c = res.covariance / SCALE**2
    rel = c[1:, 1:] - c[1:, :1] - c[:1, 1:] + c[0, 0]
    np.testing.assert_allclose(rel, cov_rel, rtol=1e-3)


# --- intervals --------------------------------------------------------------------------


def test_two_player_interval_known_answer():
    # prior 0, adv 0: Var(Δ) = -1 / ℓ''(Δ) at the maximum, and A's mean-zero rating is Δ/2.
    games = record(0, 1, 4, 2, 2) + record(1, 0, 2, 2, 4)
    res = bayes_elo(games, 2, advantage=0.0, prior=0.0)
    delta = (res.ratings[0] - res.ratings[1]) / SCALE
    h = 0.5

    def ll(d):
        return ref_log_posterior([d / 2, -d / 2], games, advantage=0.0, prior=0.0)

    curvature = (ll(delta + h) - 2 * ll(delta) + ll(delta - h)) / h**2
    sd_a = SCALE * math.sqrt(-1.0 / curvature) / 2
    np.testing.assert_allclose(res.plus, 1.959963984540054 * sd_a, rtol=1e-4)
    z = (res.ratings[0] - res.ratings[1]) / (2 * sd_a)
    assert res.los[0, 1] == pytest.approx(0.5 * math.erfc(-z / math.sqrt(2)), rel=1e-4)


def test_intervals_shrink_like_inverse_sqrt_games():
    base = []
    for a, b in [(0, 1), (1, 2), (0, 2)]:
        base += record(a, b, 2, 1, 1) + record(b, a, 1, 1, 2)
    # Without a prior, repeating the record k times keeps the MLE and multiplies the
    # curvature by k: the margins scale exactly as 1/sqrt(k).
    r1 = bayes_elo(base, 3, prior=0.0)
    r9 = bayes_elo(base * 9, 3, prior=0.0)
    np.testing.assert_allclose(r9.ratings, r1.ratings, atol=1e-7)
    np.testing.assert_allclose(r9.plus, r1.plus / 3.0, rtol=1e-7)
    # With the default prior the scaling holds once the data outweighs the 2 virtual draws.
    r16 = bayes_elo(base * 16, 3)
    r64 = bayes_elo(base * 64, 3)
    np.testing.assert_allclose(r64.plus, r16.plus / 2.0, rtol=0.02)
    assert np.all(r64.plus < r16.plus)


# --- input validation -------------------------------------------------------------------


@pytest.mark.parametrize(
    "games, num_players, match",
    [
        ([(0, 2, 1.0)], 2, "out of range"),
        ([(-1, 0, 1.0)], 2, "out of range"),
        ([(0, 1, 0.7)], 2, "score must be 0, 0.5 or 1"),
        ([(0, 0, 1.0)], 2, "cannot play itself"),
        ([(0, 1.5, 1.0)], 3, "must be integers"),
        ([(0, 1, 1.0)], 3, r"no games: \[player 2\]"),
        ([], 2, "no games"),
        ([(0, 1, 1.0), (2, 3, 0.5)], 4, "never meet"),
        ([(0, 1)], 2, "triples"),
    ],
)
def test_invalid_games(games, num_players, match):
    with pytest.raises(ValueError, match=match):
        bayes_elo(games, num_players)


def test_invalid_settings():
    games = [(0, 1, 1.0), (1, 0, 0.5)]
    with pytest.raises(ValueError, match="names"):
        bayes_elo(games, 2, names=["only one"])
    with pytest.raises(ValueError, match="drawelo"):
        bayes_elo(games, 2, drawelo=0.0)
    with pytest.raises(ValueError, match="prior"):
        bayes_elo(games, 2, prior=-1.0)


# --- result object and table ------------------------------------------------------------


def test_result_is_frozen_and_table_sorted():
    games = record(0, 1, 1, 1, 2) + record(1, 0, 3, 0, 0) + record(2, 0, 0, 1, 3)
    games += record(1, 2, 2, 0, 0)
    res = bayes_elo(games, 3, names=["alpha", "beta", "gamma"])
    assert isinstance(res, EloResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.prior = 1.0
    with pytest.raises(ValueError):
        res.ratings[0] = 0.0
    order = [res.names[i] for i in np.argsort(-res.ratings)]
    md = res.table()
    lines = md.splitlines()
    assert lines[0] == "| Rank | Name | Elo | + | - | Games | Score |"
    assert [line.split("|")[2].strip() for line in lines[2:]] == order
    top = int(np.argmax(res.ratings))
    pct = 100 * res.score[top] / res.games[top]
    assert lines[2].split("|")[7].strip() == f"{pct:.1f}%"
    assert lines[2].split("|")[3].strip() == f"{res.ratings[top]:.0f}"
    plain = res.table("plain").splitlines()
    assert plain[0].split() == ["Rank", "Name", "Elo", "+", "-", "Games", "Score"]
    assert [row.split()[1] for row in plain[1:]] == order
    with pytest.raises(ValueError, match="style"):
        res.table("html")
