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
    # The residual family (nets/resnet.py): AlphaZero's shape, not the papers'. `channels`
    # overrides a preset's filters; there is no `fc`.
    # AlphaZero.jl's Connect Four network: 1.67M parameters on the 7×6 board.
    "resnet5x128": dict(kind="resnet", blocks=5, filters=128, policy_filters=32,
                        value_filters=32),
    # AlphaZero.jl's earlier Connect Four network (about 470K parameters on 7×6).
    "resnet5x64": dict(kind="resnet", blocks=5, filters=64, policy_filters=32,
                       value_filters=32),
    # A small one for CPU work and tests.
    "resnet3x32": dict(kind="resnet", blocks=3, filters=32, policy_filters=16,
                       value_filters=16),
}


def kind_of(preset: str | None) -> str:
    """"resnet" for the residual family's presets, "azg" for AlphaZero General's (and for
    sizes given without a preset)."""
    return PRESETS.get(preset, {}).get("kind", "azg") if preset else "azg"
