"""Bayesian Elo ratings of a tournament, in the manner of Coulom's bayeselo.

This runs on the host after a tournament, in NumPy float64 (the fits are small, and the
Hessian and the 1e-6-Elo agreement we test for need double precision).

Model (Coulom, "Bayesian Elo Rating", https://www.remi-coulom.fr/Bayesian-Elo/). With
`f(x) = 1 / (1 + 10^(x/400))`, a game between a first player of rating `e1` and a second
player of rating `e2`, `Δ = e1 - e2`, first-move advantage `adv` and draw parameter
`drawelo` ends

    P(first wins)  = f(-Δ - adv + drawelo)
    P(second wins) = f(+Δ + adv + drawelo)
    P(draw)        = 1 - P(first wins) - P(second wins).

In the strengths `γ = 10^(e/400)`, `h = 10^(adv/400)` and `θ = 10^(drawelo/400)` this is
the Bradley–Terry model with Rao–Kupper ties and a home advantage (Hunter 2004, §3):

    P(first wins)  = h γ1 / (h γ1 + θ γ2)
    P(second wins) =   γ2 / (θ h γ1 + γ2)
    P(draw)        = (θ² - 1) h γ1 γ2 / ((h γ1 + θ γ2) (θ h γ1 + γ2)).

Prior: virtual draws, exactly as bayeselo's `prior` command (default 2) adds them. Each
player i spreads `prior / 2` virtual draws over its opponents in proportion to the real games
it played against each: for every opponent j it adds `prior · 0.25 · n_ij / n_i` draws with i
moving first against j and as many with i moving second, where `n_ij` counts the real games
between i and j and `n_i` all of i's games. j does the same from its side, so the pair holds
`0.5 · prior · n_ij · (1/n_i + 1/n_j)` virtual draws, half with each player first. They are
scored like real draws, first-move advantage included. (In a match of two players that
always play each other, that is one virtual draw with each player first, whatever n.) With
the defaults, player 0 moving first and winning n = 1…5 games against player 1 gives model
Elo differences 89.26, 150.16, 195.84, 232.22, 262.38, bayeselo v0057's own figures.

Fit: the maximum a posteriori ratings by minorization–maximization (Hunter 2004, "MM
algorithms for generalized Bradley–Terry models", Ann. Statist. 32(1):384–406). The
log-posterior is `Σ_i W_i log γ_i - Σ_k n_k log D_k(γ) + const`, where `W_i` counts the
games (real and virtual) in which player i scored (won or drew), and every denominator
`D_k` is linear in γ: `h γ1 + θ γ2` once for each win and each draw of the first player,
`θ h γ1 + γ2` once for each loss and each draw of the first player (a draw contributes
both). The supporting-line bound `-log D ≥ 1 - log D' - D / D'` at the current iterate
`D'` minorizes the log-posterior by a function that separates over players; maximizing it
gives the update

    γ_i ← W_i / Σ_k n_k c_ik / D_k(γ),

with `c_ik` the coefficient of `γ_i` in `D_k` (`h` or `θ h` when i moves first, `θ` or `1`
when it moves second; `1` or `θ` in virtual draws). All players are updated at once, which
is still an MM step, so the log-posterior never decreases. The posterior only fixes rating
differences; after each step the log-strengths are re-centred to mean 0.

Scale: like bayeselo's `ratings` output, the reported ratings are the model's ratings times

    scale = 4 x / (1 + x)²,   x = 10^(-drawelo/400),

so that near `Δ = 0` the expected score `P(win) + P(draw)/2` changes with the reported
difference as fast as the no-draw Elo curve `f(-Δ)` does (`dE/dΔ = ln 10 / 1600`). The
scale multiplies `ratings`, `lower`, `upper`, `plus`, `minus` and `covariance` (by `scale²`);
`advantage` and `drawelo` stay in model units, and `model_ratings` undoes the scale for
predictions with `outcome_probabilities`. `los` is scale-free.

Uncertainty: the Laplace (Gaussian) approximation of the joint posterior at the MAP, with
the mean-zero constraint. With `k = ln 10 / 400` and `u = k (e1 - e2 + adv)` for a real game
(`adv = 0` for a virtual draw), `t = k drawelo` and `σ` the logistic function,

    log P(first wins)  = log σ(u - t)
    log P(second wins) = log σ(-u - t)
    log P(draw)        = log σ(u - t) + log σ(-u - t) + log(θ² - 1),

so each game adds `k² n [σ(u∓t) σ(-(u∓t))]` to the pair's weight in the negative Hessian
`Λ`, a weighted graph Laplacian (singular along the all-ones direction, since a common shift
of all ratings changes nothing). The covariance of the mean-zero ratings is the
pseudo-inverse `Λ⁺ = (Λ + 11ᵀ/P)⁻¹ - 11ᵀ/P`, i.e. the inverse of `Λ` on the subspace
`Σ e_i = 0`. We use the joint covariance rather than each player's curvature with its
opponents held at their estimates because (a) it includes the opponents' uncertainty, which
the one-player version ignores, (b) it is the covariance of exactly the quantities we report
(ratings relative to the pool mean), and (c) the likelihood of superiority needs the
covariances anyway: `LOS[i, j] = Φ((e_i - e_j) / sqrt(C_ii + C_jj - 2 C_ij))`. The 95%
interval is `e_i ± 1.96 sqrt(C_ii)`, so `plus == minus` (bayeselo's exact marginals can be
asymmetric; a Gaussian approximation is not).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from warmjax.markdown import table

_K = math.log(10.0) / 400.0  # natural-log units per Elo point
_Z95 = 1.959963984540054  # Φ⁻¹(0.975)


def elo_scale(drawelo: float) -> float:
    """bayeselo's default rating scale `4 x / (1 + x)²` with `x = 10^(-drawelo/400)`.

    It is the ratio of the slopes at `Δ = 0` of the expected score under the draw model and
    under the no-draw Elo model, so `scale * model_elo` reads like a no-draw Elo.
    """
    x = 10.0 ** (-drawelo / 400.0)
    return 4.0 * x / (1.0 + x) ** 2


def outcome_probabilities(
    elo_first, elo_second, *, advantage: float = 32.8, drawelo: float = 97.3
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`(P(first wins), P(draw), P(second wins))` under the model, in model (unscaled) Elo.

    Args:
      elo_first, elo_second: model ratings (broadcastable arrays or floats). Ratings from
        `EloResult.ratings` are scaled; pass `EloResult.model_ratings` instead.
      advantage: first-move advantage `adv` in Elo.
      drawelo: draw parameter in Elo.

    Returns:
      `f(-Δ - adv + drawelo)`, `1 - win - loss` and `f(Δ + adv + drawelo)` with
      `Δ = elo_first - elo_second`, `f(x) = 1 / (1 + 10^(x/400))`.
    """
    delta = np.asarray(elo_first, np.float64) - np.asarray(elo_second, np.float64)
    win = 1.0 / (1.0 + 10.0 ** ((-delta - advantage + drawelo) / 400.0))
    loss = 1.0 / (1.0 + 10.0 ** ((delta + advantage + drawelo) / 400.0))
    return win, 1.0 - win - loss, loss


@dataclasses.dataclass(frozen=True)
class EloResult:
    """Bayesian Elo fit of a tournament. Arrays are read-only NumPy float64 unless noted.

    Ratings and their intervals are in scaled Elo (model Elo times `scale`), mean 0.
    """

    names: tuple[str, ...]  # [P]
    ratings: np.ndarray  # [P] MAP ratings, scaled, mean 0
    lower: np.ndarray  # [P] 95% interval lower bound, scaled
    upper: np.ndarray  # [P] 95% interval upper bound, scaled
    covariance: np.ndarray  # [P, P] Laplace posterior covariance of `ratings`, scaled Elo²
    los: np.ndarray  # [P, P] LOS[i, j] = P(elo_i > elo_j); diagonal 0.5
    games: np.ndarray  # [P] int64 real games played
    score: np.ndarray  # [P] points from real games: wins + draws / 2
    advantage: float  # model Elo
    drawelo: float  # model Elo
    prior: float  # virtual draws per player
    scale: float  # elo_scale(drawelo)
    iterations: int  # MM iterations run
    converged: bool  # whether the MM step fell below the tolerance

    Z95: ClassVar[float] = _Z95

    @property
    def plus(self) -> np.ndarray:
        """`[P]` upper margin `upper - ratings` (bayeselo's "+")."""
        return self.upper - self.ratings

    @property
    def minus(self) -> np.ndarray:
        """`[P]` lower margin `ratings - lower` (bayeselo's "-")."""
        return self.ratings - self.lower

    @property
    def stddev(self) -> np.ndarray:
        """`[P]` posterior standard deviation of each scaled rating."""
        return np.sqrt(np.diag(self.covariance))

    @property
    def model_ratings(self) -> np.ndarray:
        """`[P]` unscaled ratings, for `outcome_probabilities`."""
        return self.ratings / self.scale

    def table(self, style: str = "markdown", decimals: int = 0) -> str:
        """The rating list sorted by rating: rank, name, elo, +, -, games, score%.

        Args:
          style: "markdown" (a pipe table) or "plain" (aligned columns).
          decimals: digits after the point for elo, + and -.

        Returns:
          The table as one string, one row per player, best first (ties by index).
        """
        order = np.argsort(-self.ratings, kind="stable")
        header = ("Rank", "Name", "Elo", "+", "-", "Games", "Score")
        rows = []
        for rank, i in enumerate(order, start=1):
            pct = 100.0 * self.score[i] / self.games[i]
            rows.append(
                (
                    str(rank),
                    self.names[i],
                    f"{self.ratings[i]:.{decimals}f}",
                    f"{self.plus[i]:.{decimals}f}",
                    f"{self.minus[i]:.{decimals}f}",
                    str(int(self.games[i])),
                    f"{pct:.1f}%",
                )
            )
        left = (False, True, False, False, False, False, False)
        if style == "markdown":
            return table(header, rows, "".join("l" if lf else "r" for lf in left)).rstrip("\n")
        if style == "plain":
            widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]

            def fmt(r):
                cells = [
                    r[c].ljust(widths[c]) if left[c] else r[c].rjust(widths[c])
                    for c in range(len(r))
                ]
                return "  ".join(cells).rstrip()

            return "\n".join(fmt(r) for r in [header, *rows])
        raise ValueError(f"unknown table style {style!r}; use 'markdown' or 'plain'")

    def __str__(self) -> str:
        return self.table("plain")


def bayes_elo(
    games: Sequence[tuple[int, int, float]],
    num_players: int,
    *,
    advantage: float = 32.8,
    drawelo: float = 97.3,
    prior: float = 2.0,
    names: Sequence[str] | None = None,
    tol: float = 1e-10,
    max_iterations: int = 100_000,
) -> EloResult:
    """Fits Bayesian Elo ratings (the MAP by MM) and their Gaussian uncertainty.

    See the module docstring for the model, the prior, the MM update, the scale and the
    intervals.

    Args:
      games: sequence of `(first, second, score)`: player indices in `[0, num_players)`,
        and the first player's score, 1 (win), 0.5 (draw) or 0 (loss).
      num_players: P, the number of players.
      advantage: first-move advantage in model Elo (bayeselo default 32.8).
      drawelo: draw parameter in model Elo, > 0 (bayeselo default 97.3).
      prior: bayeselo's prior: each player's `prior / 2` virtual draws, spread over its
        opponents in proportion to the games played, half with each colour; >= 0.
      names: P player names for the table; default "player 0", "player 1", ...
      tol: stop when no model rating moves by more than `tol` Elo in one MM step.
      max_iterations: cap on MM steps; hitting it warns and sets `converged=False`.

    Returns:
      An `EloResult`.

    Raises:
      ValueError: for malformed games (index out of range, a player against itself, a score
        not in {0, 0.5, 1}), a player with no games, players split into groups that never
        meet (their relative ratings are undefined), bad settings, or, with `prior == 0`,
        a group that never wins or draws against another (the maximum-likelihood rating
        gap is then infinite: use `prior > 0`).
    """
    num_players = int(num_players)
    if num_players < 1:
        raise ValueError(f"num_players must be positive, got {num_players}")
    if names is None:
        names = tuple(f"player {i}" for i in range(num_players))
    else:
        names = tuple(str(n) for n in names)
        if len(names) != num_players:
            raise ValueError(f"got {len(names)} names for {num_players} players")
    if not math.isfinite(advantage):
        raise ValueError(f"advantage must be finite, got {advantage}")
    if not (math.isfinite(drawelo) and drawelo > 0):
        raise ValueError(f"drawelo must be finite and > 0 (draws need θ > 1), got {drawelo}")
    if not (math.isfinite(prior) and prior >= 0):
        raise ValueError(f"prior must be finite and >= 0, got {prior}")

    first, second, score = _parse_games(games, num_players)
    wins, draws, losses = _condense(first, second, score, num_players)
    pair_games = wins + draws + losses  # [P, P] games with i first, j second
    met = (pair_games + pair_games.T) > 0
    played = pair_games.sum(1) + pair_games.sum(0)  # [P]
    idle = np.flatnonzero(played == 0)
    if idle.size:
        raise ValueError(f"players with no games: {_name_list(names, idle)}")
    _check_identifiable(met, wins, draws, losses, prior, names)

    # bayeselo's prior: each player i spreads `prior` virtual draws over its real games, so
    # opponent j gets prior · n_ij / n_i of them, half with i moving first and half with j
    # moving first; j does the same from its side. They are scored like real draws, first-
    # move advantage included: virtual[i, j] = draws with i first against j (symmetric).
    n_pair = pair_games + pair_games.T  # [P, P] n_ij
    virtual = 0.25 * prior * n_pair * (1.0 / played[:, None] + 1.0 / played[None, :])
    fit_draws = draws + virtual

    h = 10.0 ** (advantage / 400.0)
    theta = 10.0 ** (drawelo / 400.0)
    # Each game, real or virtual: `first_terms` counts denominators h γ1 + θ γ2 (wins,
    # draws); `second_terms` counts θ h γ1 + γ2 (losses, draws).
    first_terms = wins + fit_draws
    second_terms = losses + fit_draws
    scored = first_terms.sum(1) + second_terms.sum(0)  # [P] W_i

    log_gamma = np.zeros(num_players)
    converged = False
    iterations = 0
    step_tol = tol * _K
    for iterations in range(1, max_iterations + 1):
        gamma = np.exp(log_gamma)
        weight = _mm_weights(first_terms, second_terms, gamma, h, theta)
        new = np.log(scored) - np.log(weight)
        new -= new.mean()
        step = np.max(np.abs(new - log_gamma))
        log_gamma = new
        if step < step_tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"bayes_elo: MM did not reach tol={tol} Elo in {max_iterations} iterations",
            RuntimeWarning,
            stacklevel=2,
        )

    model = log_gamma / _K  # [P] model Elo, mean 0
    precision = _neg_hessian(model, wins, fit_draws, losses, np.zeros_like(virtual), advantage,
                             drawelo)
    ones = np.full((num_players, num_players), 1.0 / num_players)
    cov_model = np.linalg.inv(precision + ones) - ones
    cov_model = (cov_model + cov_model.T) / 2.0

    scale = elo_scale(drawelo)
    ratings = scale * model
    cov = scale**2 * cov_model
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    var_diff = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2.0 * cov
    diff = ratings[:, None] - ratings[None, :]
    z = np.divide(diff, np.sqrt(np.clip(var_diff, 1e-300, None)))
    los = np.vectorize(_normal_cdf)(z)
    np.fill_diagonal(los, 0.5)

    points = (wins + 0.5 * draws).sum(1) + (losses + 0.5 * draws).sum(0)
    return EloResult(
        names=names,
        ratings=_frozen(ratings),
        lower=_frozen(ratings - _Z95 * sd),
        upper=_frozen(ratings + _Z95 * sd),
        covariance=_frozen(cov),
        los=_frozen(los),
        games=_frozen(np.rint(played).astype(np.int64)),
        score=_frozen(points),
        advantage=float(advantage),
        drawelo=float(drawelo),
        prior=float(prior),
        scale=scale,
        iterations=iterations,
        converged=converged,
    )


def _parse_games(games, num_players):
    """Validated `(first [G] int64, second [G] int64, score [G] float64)`."""
    rows = list(games)
    if not rows:
        return (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64))
    try:
        arr = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"games must be (first, second, score) triples of numbers: {e}") from e
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ValueError(f"games must be (first, second, score) triples, got shape {arr.shape}")
    idx = arr[:, :2]
    bad = np.flatnonzero(np.any((idx != np.round(idx)) | ~np.isfinite(idx), axis=1))
    if bad.size:
        raise ValueError(f"game {bad[0]} {rows[bad[0]]}: player indices must be integers")
    bad = np.flatnonzero(np.any((idx < 0) | (idx >= num_players), axis=1))
    if bad.size:
        raise ValueError(
            f"game {bad[0]} {rows[bad[0]]}: player index out of range [0, {num_players})"
        )
    first, second = idx[:, 0].astype(np.int64), idx[:, 1].astype(np.int64)
    bad = np.flatnonzero(first == second)
    if bad.size:
        raise ValueError(f"game {bad[0]} {rows[bad[0]]}: a player cannot play itself")
    score = arr[:, 2]
    bad = np.flatnonzero(~np.isin(score, (0.0, 0.5, 1.0)))
    if bad.size:
        raise ValueError(f"game {bad[0]} {rows[bad[0]]}: score must be 0, 0.5 or 1")
    return first, second, score


def _condense(first, second, score, num_players):
    """`[P, P]` float64 counts of (first i, second j) games the first player won/drew/lost."""
    out = []
    for value in (1.0, 0.5, 0.0):
        counts = np.zeros((num_players, num_players))
        sel = score == value
        np.add.at(counts, (first[sel], second[sel]), 1.0)
        out.append(counts)
    return tuple(out)


def _mm_weights(first_terms, second_terms, gamma, h, theta):
    """`[P]` Σ_k n_k c_ik / D_k for the denominators of one kind of game (see module doc).

    Args:
      first_terms: `[P, P]` counts of `h γ_i + θ γ_j` denominators, i first, j second.
      second_terms: `[P, P]` counts of `θ h γ_i + γ_j` denominators.
      gamma: `[P]` current strengths.
      h, theta: `10^(adv/400)`, `10^(drawelo/400)`.
    """
    g1, g2 = gamma[:, None], gamma[None, :]
    a = first_terms / (h * g1 + theta * g2)
    b = second_terms / (theta * h * g1 + g2)
    as_first = h * a.sum(1) + theta * h * b.sum(1)
    as_second = theta * a.sum(0) + b.sum(0)
    return as_first + as_second


def _logistic_pair_weight(x):
    """σ(x) σ(-x), computed without overflow."""
    e = np.exp(-np.abs(x))
    return e / (1.0 + e) ** 2


def _neg_hessian(model, wins, draws, losses, virtual, advantage, drawelo):
    """`[P, P]` negative Hessian of the log-posterior in model Elo (a weighted Laplacian)."""
    t = _K * drawelo
    diff = _K * (model[:, None] - model[None, :])
    u = diff + _K * advantage
    weight = (wins + draws) * _logistic_pair_weight(u - t)
    weight += (losses + draws) * _logistic_pair_weight(u + t)
    weight += virtual * (_logistic_pair_weight(diff - t) + _logistic_pair_weight(diff + t))
    weight = _K**2 * (weight + weight.T)
    return np.diag(weight.sum(1)) - weight


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _reachable(adj: np.ndarray, start: int) -> np.ndarray:
    """`[P]` bool: nodes reachable from `start` along `adj[i, j]` edges i -> j."""
    seen = np.zeros(adj.shape[0], bool)
    seen[start] = True
    frontier = seen.copy()
    while frontier.any():
        frontier = adj[frontier].any(0) & ~seen
        seen |= frontier
    return seen


def _check_identifiable(met, wins, draws, losses, prior, names):
    """Raises ValueError where the MAP rating differences do not exist or are not unique."""
    reach = _reachable(met, 0)
    if not reach.all():
        raise ValueError(
            f"players {_name_list(names, np.flatnonzero(reach))} and "
            f"{_name_list(names, np.flatnonzero(~reach))} never meet, directly or through "
            "common opponents; their relative ratings are undefined"
        )
    if prior > 0:
        return  # virtual draws go both ways along every edge of a connected graph
    # scored[i, j]: i won or drew at least once against j (either colour).
    scored = (wins + draws) > 0
    scored = scored | ((losses + draws) > 0).T
    for adj in (scored, scored.T):
        reach = _reachable(adj, 0)
        if not reach.all():
            # No player in `reach` ever scored against one outside it (or, for the
            # transposed graph, no one outside ever scored against `reach`).
            losers, winners = np.flatnonzero(reach), np.flatnonzero(~reach)
            if adj is not scored:
                losers, winners = winners, losers
            raise ValueError(
                f"with prior=0 the maximum-likelihood ratings do not exist: players "
                f"{_name_list(names, losers)} never win or draw against players "
                f"{_name_list(names, winners)}, so the gap would be infinite; use prior > 0"
            )


def _name_list(names, idx) -> str:
    return "[" + ", ".join(names[i] for i in idx) + "]"


def _frozen(x: np.ndarray) -> np.ndarray:
    x = np.array(x, dtype=x.dtype)
    x.setflags(write=False)
    return x
