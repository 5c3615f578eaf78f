"""Batched tree search (PUCT, RAVE, rollouts), RHEA and the uniform player interface."""

from warmjax.search.config import TIE_BREAKS, SearchConfig
from warmjax.search.leaf import Inputs
from warmjax.search.players import (
    NETWORK_FREE,
    PLAYERS,
    Move,
    Player,
    choose_actions,
    make_player,
    uses_network,
)
from warmjax.search.rhea import RheaConfig, RheaResult, make_rhea, plan_score
from warmjax.search.rollout import Rollout, random_legal_action, rollout
from warmjax.search.search import SearchOutput, make_search, visit_policy
from warmjax.search.tree import Tree, init_tree
from warmjax.search.variants import ENHANCEMENTS, SEARCH_VARIANTS, Variant, variant_search

__all__ = [
    "ENHANCEMENTS",
    "Inputs",
    "Move",
    "NETWORK_FREE",
    "PLAYERS",
    "SEARCH_VARIANTS",
    "TIE_BREAKS",
    "Player",
    "RheaConfig",
    "RheaResult",
    "Rollout",
    "SearchConfig",
    "SearchOutput",
    "Tree",
    "Variant",
    "choose_actions",
    "init_tree",
    "make_player",
    "uses_network",
    "make_rhea",
    "make_search",
    "plan_score",
    "random_legal_action",
    "rollout",
    "variant_search",
    "visit_policy",
]
