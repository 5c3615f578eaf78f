"""Flax networks."""

from warmjax.nets.azg import PRESETS, ApplyFn, AZNet, Network, make_network

__all__ = ["PRESETS", "ApplyFn", "AZNet", "Network", "make_network"]
