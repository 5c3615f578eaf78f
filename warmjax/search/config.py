"""`SearchConfig`: the settings of a player's search, one name each from the YAML down.

The `search` section of a run's config is this dataclass (`RunConfig.search`), and every
player is built from one (`make_player`). Which selection rule, leaf evaluator and backup
a search uses is not a setting here but the variant's parts (`variants.py`).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from warmjax.settings import setting

TIE_BREAKS = ("first", "random")
# The searches a run's baseline can use (`variant`): the papers' PUCT MCTS, or Gumbel
# AlphaZero's (`gumbel.py`). The enhancements are warm start's (`warmstart.enhancement`).
BASELINE_SEARCHES = ("mcts", "gumbel")
GUMBEL_TARGETS = ("improved", "visits")
GUMBEL_ACTS = ("selected", "policy")


@dataclasses.dataclass(frozen=True)
class SearchConfig:
    """Static settings of a search (Python values; they fix shapes and code paths).

    Attributes:
      simulations: m, simulations per move (RHEA: playouts per move, its budget).
      c_puct: c in PUCT and in U_rave (method.md §2–§3).
      temperature_moves: T′, the plies at the start of a game whose move is sampled from
        the search's policy; the argmax after that (method.md §2). 0 here (every move the
        argmax); the papers' T′ = 15 is the run config's default. The one place T′ is held:
        self-play's targets follow the player's T′.
      rave_all_players: count moves of both players in AMAF (default: only the node's
        player's, as Gelly and Silver; method.md §3).
      rave_rollout_moves: count the playout's moves in AMAF, not only the tree path's
        (default; the other reading of the papers' equations counts the path only).
      rave_equivalence: the equivalence parameter of β; None means m, as in the papers.
      reuse_tree: the tree has room for 2m + 1 nodes and a search goes on from the subtree
        its previous move left (`reuse.py`); the player carries it between moves.
      tie_break: how the argmax move settles equal visit counts: "first" (the lowest
        index, AlphaZero General at the time of PPSN 2020) or "random" (uniformly among the
        most visited, its later versions).
      fpu: first-play urgency, the Q of untried edges: 0.0 (the papers), another number, or
        "parent" (`selection.py`). A named departure from the papers (method.md §2).
      dirichlet_fraction, dirichlet_alpha: root noise P ← (1 − ε)·P + ε·Dir(α) over the
        legal moves (AlphaZero's; the papers use none, ε = 0). A named departure, meant for
        self-play only.
      win_check: play a move that wins at once whenever one exists (the first such),
        whatever the visits say; the policy (the training target) stays the visit
        distribution. A named departure.
      forced_playouts: k of KataGo's forced playouts with policy-target pruning (Wu, 2019),
        0 for none: at the root, an edge with fewer visits than sqrt(k·P(a)·N(s)) is
        selected first; afterwards each edge but the most visited loses up to that many
        visits from the policy (the training target and the move) while its PUCT score stays
        below the most visited edge's, and an edge left with one visit loses it. A named
        departure, meant for self-play only (k = 2 in KataGo).
      greedy_value: the search's value of its root (self-play's q, the value target where
        `train.value_mix` or `train.explore` take it) is Q(root, a*), a* the most visited
        edge (the first such), instead of the visit-weighted mean Σₐ π(a)·Q(root, a): the
        root's step of the greedy backup of Willemsen, Baier and Kaisers (2021). The mean
        counts the visits spent on worse moves, so it understates a won position. A named
        departure, for the PUCT search.
      baseline_search: the search of a run's baseline (its self-play after warm start, its arena and
        its evaluation): "mcts", the papers' PUCT, or "gumbel", Gumbel AlphaZero's
        (`gumbel.py`). A named departure.
      gumbel_considered: the Gumbel search's considered actions at the root (m in the paper's
        Gumbel-Top-k; mctx's `max_num_considered_actions`); None: the game's actions, at
        most 16 (mctx's default).
      gumbel_scale: the scale of the root's Gumbel noise; 0 gives a deterministic search
        (how the arena and the evaluation commands judge, `without_noise`).
      gumbel_c_visit, gumbel_c_scale: c_visit and c_scale of the completed-Q transform
        σ(q̂) = (c_visit + max_b N(b))·c_scale·q̂, with q̂ rescaled to [0, 1] (mctx's
        defaults, 50 and 0.1).
      gumbel_target: the policy the Gumbel search returns as the training target:
        "improved", π′ = softmax(logits + σ(completed Q)) (the paper), or "visits", the root's
        visit distribution.
      gumbel_act: the Gumbel search's move after the first T′ plies: "selected", the action
        sequential halving selects (the paper), or "policy", the argmax of π′. In the first
        T′ plies it samples from π′, as every player samples from its policy.
    """

    simulations: int = 100
    c_puct: float = 1.0
    temperature_moves: int = 0
    rave_all_players: bool = False
    rave_rollout_moves: bool = True
    rave_equivalence: float | None = None
    reuse_tree: bool = False
    tie_break: str = "first"
    fpu: float | str = setting(0.0, departure="fpu")
    dirichlet_fraction: float = setting(0.0, departure="root-noise")
    dirichlet_alpha: float = 1.0
    win_check: bool = setting(False, departure="win-check")
    forced_playouts: float = setting(0.0, departure="forced-playouts")
    greedy_value: bool = setting(False, departure="greedy-value")
    baseline_search: str = setting("mcts", departure="gumbel")
    gumbel_considered: int | None = None
    gumbel_scale: float = 1.0
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 0.1
    gumbel_target: str = "improved"
    gumbel_act: str = "selected"

    # Old names that still read (`settings.renamed_keys`): kept while committed run folders
    # use them (tests/train/test_run_config.py fails once none does; then they go).
    RENAMED: ClassVar[dict[str, str]] = {"variant": "baseline_search"}

    def __post_init__(self):
        # Each message starts with the field's name: the config loader puts "search." in
        # front (warmjax/settings.py).
        if self.simulations < 1:
            raise ValueError(f"simulations (m) must be at least 1, got {self.simulations}")
        if self.c_puct < 0:
            raise ValueError(f"c_puct must be non-negative, got {self.c_puct}")
        if self.temperature_moves < 0:
            raise ValueError(f"temperature_moves (T′) must be non-negative, "
                             f"got {self.temperature_moves}")
        if self.tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {', '.join(TIE_BREAKS)}, "
                             f"got {self.tie_break!r}")
        if not (self.fpu == "parent" or (isinstance(self.fpu, (int, float))
                                         and not isinstance(self.fpu, bool))):
            raise ValueError(f"fpu must be a number or 'parent', got {self.fpu!r}")
        if not 0.0 <= self.dirichlet_fraction <= 1.0 or self.dirichlet_alpha <= 0:
            raise ValueError("dirichlet_fraction must be in [0, 1] and dirichlet_alpha "
                             f"positive, got {self.dirichlet_fraction} and "
                             f"{self.dirichlet_alpha}")
        if self.forced_playouts < 0:
            raise ValueError(f"forced_playouts (k) must be non-negative, got "
                             f"{self.forced_playouts}")
        if self.forced_playouts > 0 and self.baseline_search == "gumbel":
            raise ValueError("forced_playouts apply to the PUCT search; the Gumbel search "
                             "(baseline_search=gumbel) has its own root exploration")
        if self.greedy_value and self.baseline_search == "gumbel":
            raise ValueError("greedy_value applies to the PUCT search; the Gumbel search "
                             "(baseline_search=gumbel) reports its own root value")
        if self.baseline_search not in BASELINE_SEARCHES:
            raise ValueError(f"baseline_search must be one of {', '.join(BASELINE_SEARCHES)}, "
                             f"got {self.baseline_search!r}; RAVE and rollouts "
                             "are warm start's enhancements (warmstart.enhancement)")
        if self.gumbel_considered is not None and self.gumbel_considered < 2:
            raise ValueError(f"gumbel_considered must be at least 2, got "
                             f"{self.gumbel_considered}")
        if self.gumbel_scale < 0 or self.gumbel_c_visit < 0 or self.gumbel_c_scale <= 0:
            raise ValueError("gumbel_scale and gumbel_c_visit must be non-negative and "
                             f"gumbel_c_scale positive, got {self.gumbel_scale}, "
                             f"{self.gumbel_c_visit} and {self.gumbel_c_scale}")
        if self.gumbel_target not in GUMBEL_TARGETS:
            raise ValueError(f"gumbel_target must be one of {', '.join(GUMBEL_TARGETS)}, "
                             f"got {self.gumbel_target!r}")
        if self.gumbel_act not in GUMBEL_ACTS:
            raise ValueError(f"gumbel_act must be one of {', '.join(GUMBEL_ACTS)}, "
                             f"got {self.gumbel_act!r}")
        if self.rave_equivalence is not None and self.rave_equivalence <= 0:
            raise ValueError(f"rave_equivalence must be positive (or null for m), got "
                             f"{self.rave_equivalence}")

    def without_noise(self) -> "SearchConfig":
        """The same search without root noise (Dirichlet, or Gumbel for the Gumbel search)
        and without forced playouts: how the arena, the oracle and the evaluation commands
        play a run's search (both are for self-play only)."""
        gumbel_scale = 0.0 if self.baseline_search == "gumbel" else self.gumbel_scale
        return dataclasses.replace(self, dirichlet_fraction=0.0, gumbel_scale=gumbel_scale,
                                   forced_playouts=0.0)

    @property
    def capacity(self) -> int:
        """Nodes the tree has room for: m + 1, or 2m + 1 when reusing trees."""
        return (2 if self.reuse_tree else 1) * self.simulations + 1

    @property
    def equivalence(self) -> float:
        """k of RAVE's β: `rave_equivalence`, or m."""
        return float(self.simulations if self.rave_equivalence is None
                     else self.rave_equivalence)
