"""Matches, tournaments, Bayesian Elo, plots and the papers' tables.

`plots` (matplotlib) is not imported here; use `from warmjax.evaluate import plots`.
`experiment_cli` holds what the experiment commands (`warmjax.orientation`,
`warmjax.headtohead`) share: Hydra config conversion, validation, progress and output.
"""

from warmjax.evaluate.elo import EloResult, bayes_elo, elo_scale, outcome_probabilities
from warmjax.evaluate.agent import Agent, load_agent
from warmjax.evaluate.pair_play import (
    MatchResult,
    PairOutcome,
    chunking,
    make_match,
    mean_score,
    play_pair,
)
from warmjax.evaluate.tables import (
    Tournament,
    Variant,
    balance_series,
    elo_by_variant,
    iprime_sweep,
    group_runs,
    load_tournament,
    switch_table,
)
from warmjax.evaluate.round_robin import (
    TournamentConfig,
    TournamentResult,
    run_tournament,
)

__all__ = [
    "Agent",
    "load_agent",
    "EloResult",
    "MatchResult",
    "PairOutcome",
    "Tournament",
    "TournamentConfig",
    "TournamentResult",
    "Variant",
    "balance_series",
    "bayes_elo",
    "chunking",
    "elo_by_variant",
    "elo_scale",
    "iprime_sweep",
    "group_runs",
    "load_tournament",
    "make_match",
    "mean_score",
    "outcome_probabilities",
    "play_pair",
    "run_tournament",
    "switch_table",
]
