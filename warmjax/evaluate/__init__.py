"""Matches, tournaments, Bayesian Elo, plots and the papers' tables.

`plots` (matplotlib) is not imported here; use `from warmjax.evaluate import plots`.
`experiment_cli` holds what the experiment commands (`warmjax.orientation`,
`warmjax.headtohead`) share: Hydra config conversion, validation, progress and output.
"""

from warmjax.evaluate.agent import Agent, load_agent
from warmjax.evaluate.elo import EloResult, bayes_elo, elo_scale, outcome_probabilities
from warmjax.evaluate.pair_play import (
    MatchResult,
    PairOutcome,
    chunking,
    make_match,
    mean_score,
    play_pair,
)
from warmjax.evaluate.round_robin import (
    TournamentConfig,
    TournamentResult,
    journal_elo,
    run_tournament,
)
from warmjax.evaluate.study import (
    Arm,
    Claim,
    Comparison,
    Estimate,
    Family,
    claims,
    compare,
    families,
)
from warmjax.evaluate.tables import (
    Tournament,
    Variant,
    balance_series,
    elo_by_variant,
    group_runs,
    iprime_sweep,
    journal_tournament,
    load_tournament,
    switch_table,
)
from warmjax.evaluate.tournament_folder import (
    AnchorEntry,
    EloTable,
    NetworkEntry,
    TournamentFolder,
    read_oracle,
    read_versus,
)

__all__ = [
    "Agent",
    "AnchorEntry",
    "EloTable",
    "NetworkEntry",
    "TournamentFolder",
    "read_oracle",
    "read_versus",
    "Arm",
    "Claim",
    "Comparison",
    "EloResult",
    "Estimate",
    "Family",
    "MatchResult",
    "PairOutcome",
    "Tournament",
    "TournamentConfig",
    "TournamentResult",
    "Variant",
    "balance_series",
    "bayes_elo",
    "chunking",
    "claims",
    "compare",
    "elo_by_variant",
    "elo_scale",
    "families",
    "group_runs",
    "iprime_sweep",
    "journal_elo",
    "journal_tournament",
    "load_agent",
    "load_tournament",
    "make_match",
    "mean_score",
    "outcome_probabilities",
    "play_pair",
    "run_tournament",
    "switch_table",
]
