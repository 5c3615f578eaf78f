"""The networks' named sizes and training convolutions, readable without JAX (a run's
configuration checks its `model` settings against them)."""

from __future__ import annotations

from typing import Any

CONV_IMPLS = ("auto", "patches", "xla")

PRESETS: dict[str, dict[str, Any]] = {
    # AlphaZero General's Othello network as used in the papers.
    "azg512": dict(channels=512, fc=(1024, 512)),
    # The authors' earlier fork.
    "azg256": dict(channels=256, fc=(1024, 512)),
    # AlphaZero General's layout at 64 channels (the reference figure of 2,000 sims/s).
    "azg64": dict(channels=64, fc=(1024, 512)),
    # For CPU work: same layers, far fewer units.
    "small": dict(channels=32, fc=(128, 64)),
    # Twice as wide as "small": on Connect Four its policy head scores about 4 points higher
    # against perfect play (results.md §2), for about 2.5 times the quick profile's
    # wall time on a 2-core CPU.
    "medium": dict(channels=64, fc=(256, 128)),
}
