"""Batched tree search (PUCT, RAVE, rollouts), RHEA and the uniform player interface.

Importing the package loads none of its modules (nor JAX): each name below is imported from
its module when first used (`warmjax.search.config`, say, reads without JAX), so
`warmjax.search.rollout` is the playout function (`warmjax.search.rollouts.rollout`).
"""

from __future__ import annotations

import importlib

# name -> the module of warmjax.search that defines it
_LAZY = {
    "TIE_BREAKS": "config",
    "SearchConfig": "config",
    "Inputs": "leaf",
    "NETWORK_FREE": "players",
    "PLAYERS": "players",
    "Move": "players",
    "Player": "players",
    "choose_actions": "players",
    "make_player": "players",
    "uses_network": "players",
    "RheaConfig": "rhea",
    "RheaResult": "rhea",
    "make_rhea": "rhea",
    "plan_score": "rhea",
    "Rollout": "rollouts",
    "random_legal_action": "rollouts",
    "rollout": "rollouts",
    "SearchOutput": "search",
    "make_search": "search",
    "visit_policy": "search",
    "Tree": "tree",
    "init_tree": "tree",
    "ENHANCEMENTS": "variants",
    "SEARCH_VARIANTS": "variants",
    "Variant": "variants",
    "variant_search": "variants",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"warmjax.search.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'warmjax.search' has no attribute {name!r}")


__all__ = sorted(_LAZY)
