"""`SearchConfig`: the settings of a player's search, one name each from the YAML down.

The `search` section of a run's config is this dataclass (`RunConfig.search`), and every
player is built from one (`make_player`). Which selection rule, leaf evaluator and backup
a search uses is not a setting here but the variant's parts (`variants.py`).
"""

from __future__ import annotations

import dataclasses

from warmjax.settings import setting

TIE_BREAKS = ("first", "random")


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
        if self.rave_equivalence is not None and self.rave_equivalence <= 0:
            raise ValueError(f"rave_equivalence must be positive (or null for m), got "
                             f"{self.rave_equivalence}")

    def without_noise(self) -> "SearchConfig":
        """The same search without root noise: how the arena, the oracle and the evaluation
        commands play a run's search (the noise is for self-play only)."""
        return dataclasses.replace(self, dirichlet_fraction=0.0)

    @property
    def capacity(self) -> int:
        """Nodes the tree has room for: m + 1, or 2m + 1 when reusing trees."""
        return (2 if self.reuse_tree else 1) * self.simulations + 1

    @property
    def equivalence(self) -> float:
        """k of RAVE's β: `rave_equivalence`, or m."""
        return float(self.simulations if self.rave_equivalence is None
                     else self.rave_equivalence)
