"""The search variants, each a name for three parts handed to the one search (method.md §2–§4).

| name      | selection    | leaf: prior, value                          | backup        |
|-----------|--------------|---------------------------------------------|---------------|
| mcts      | PUCT         | network, network                            | values        |
| rollout   | PUCT         | network, playout                            | values        |
| rave      | UCT_rave     | network, network                            | values + AMAF |
| rora      | UCT_rave     | network, playout                            | values + AMAF |
| wro       | PUCT         | network, (1 − w)·network + w·playout        | values        |
| wrora     | UCT_rave     | network, (1 − w)·network + w·playout        | values + AMAF |
| pure_mcts | PUCT         | uniform, playout                            | values        |
| pure_rave | UCT_rave     | uniform, playout                            | values + AMAF |

(selection in `selection.py`, leaves in `leaf.py`, backups in `backup.py`.)

A part is a builder: `selection(config)`, `leaf(env, apply_fn, record)`, `backup(config)`.
`variant_search` builds the three and hands them to `search.make_search`.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from warmjax.names import WARMSTART_ENHANCEMENTS
from warmjax.search import backup, leaf, selection
from warmjax.search.config import SearchConfig
from warmjax.search.search import make_search


class Variant(NamedTuple):
    """The parts of one search variant (builders, see the module docstring)."""

    selection: selection.SelectionBuilder
    leaf: leaf.LeafBuilder
    backup: backup.BackupBuilder
    uses_network: bool = True


PUCT, RAVE = selection.puct_rule, selection.uct_rave_rule
VALUES, AMAF = backup.value_backup, backup.amaf_backup
SEARCH_VARIANTS: dict[str, Variant] = {
    "mcts": Variant(PUCT, leaf.network_leaf, VALUES),
    "rollout": Variant(PUCT, leaf.network_prior_rollout_leaf, VALUES),
    "rave": Variant(RAVE, leaf.network_leaf, AMAF),
    "rora": Variant(RAVE, leaf.network_prior_rollout_leaf, AMAF),
    "wro": Variant(PUCT, leaf.network_prior_mix_leaf, VALUES),
    "wrora": Variant(RAVE, leaf.network_prior_mix_leaf, AMAF),
    "pure_mcts": Variant(PUCT, leaf.uniform_prior_rollout_leaf, VALUES, False),
    "pure_rave": Variant(RAVE, leaf.uniform_prior_rollout_leaf, AMAF, False),
}
# What warm start accepts (`warmjax.names`), the papers' five first: each a variant above.
ENHANCEMENTS = WARMSTART_ENHANCEMENTS
assert set(ENHANCEMENTS) <= set(SEARCH_VARIANTS)


def variant_search(name: str, env: Any, apply_fn: leaf.ApplyFn | None,
                   config: SearchConfig) -> Callable:
    """`search(inputs, key, states, memory=None)` of the variant `name` (`search.make_search`).

    Raises:
      ValueError: an unknown name, or a variant that needs a network without `apply_fn`.
    """
    if name not in SEARCH_VARIANTS:
        raise ValueError(f"unknown search variant {name!r}; choose from "
                         f"{', '.join(SEARCH_VARIANTS)}")
    variant = SEARCH_VARIANTS[name]
    if variant.uses_network and apply_fn is None:
        raise ValueError(f"search variant {name!r} needs a network")
    update = variant.backup(config)
    # Room for a whole game's moves when the backup counts the playout's.
    record = int(getattr(env, "max_plies", config.simulations)) + 1 if update.playout_moves else 0
    return make_search(env, config, selection=variant.selection(config),
                       leaf=variant.leaf(env, apply_fn, record), backup=update)
