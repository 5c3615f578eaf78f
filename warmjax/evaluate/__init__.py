"""Matches, tournaments, Bayesian Elo, plots and the papers' tables."""

from warmjax.evaluate.elo import EloResult, bayes_elo, elo_scale, outcome_probabilities
from warmjax.evaluate.match import MatchResult, make_match, mean_score, play_match

__all__ = [
    "EloResult",
    "MatchResult",
    "bayes_elo",
    "elo_scale",
    "make_match",
    "mean_score",
    "outcome_probabilities",
    "play_match",
]
