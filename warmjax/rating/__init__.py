"""Rating players from their games: Bayesian Elo as bayeselo computes it (`elo`)."""

from warmjax.rating.elo import EloResult, bayes_elo, elo_scale, outcome_probabilities

__all__ = ["EloResult", "bayes_elo", "elo_scale", "outcome_probabilities"]
