"""Flax networks (`azg`, AlphaZero General's; `resnet`, the residual family) and their
named sizes (`presets`). Importing the package loads
neither JAX nor flax: each name is imported from its module when first used."""

from __future__ import annotations

import importlib

_LAZY = {"PRESETS": "presets", "CONV_IMPLS": "presets", "ApplyFn": "azg", "AZNet": "azg",
         "Network": "azg", "make_network": "azg", "without_reply_head": "azg",
         "wdl_value": "azg", "wdl_target": "azg", "TrainOutputs": "azg",
         "residual_layout": "azg", "describe": "azg", "ResNet": "resnet", "kind_of": "presets"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"warmjax.nets.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'warmjax.nets' has no attribute {name!r}")


__all__ = sorted(_LAZY)
